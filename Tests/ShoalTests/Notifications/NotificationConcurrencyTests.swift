import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// Several threads write while observers on queues, an actor and an async
/// sequence follow; each must apply every changeset consistently and end at
/// the final state. Meant for the thread sanitizer:
///
///     swift build --build-tests --sanitize=thread
///     swift test --skip-build --sanitize=thread --filter NotificationConcurrencyTests
@Suite struct NotificationConcurrencyTests {
    /// Follows one observer: applies each changeset to the ids it last saw
    /// and checks the result against the delivered collection.
    final class Tracker: Sendable {
        struct State {
            var ids: [Int]?
            var updates = 0
            var problems: [String] = []
        }

        let label: String
        private let state = Locked(State())

        init(_ label: String) { self.label = label }

        var ids: [Int]? { state.withLock { $0.ids } }
        var updates: Int { state.withLock { $0.updates } }
        var problems: [String] { state.withLock { $0.problems } }

        func apply<C: RealmCollection>(_ change: RealmCollectionChange<C>) where C.Element: IntIdentified {
            switch change {
            case .initial(let collection):
                let now = Recorder.ids(collection)
                state.withLock { state in
                    if state.ids != nil { state.problems.append("\(label): a second .initial") }
                    state.ids = now
                }
            case let .update(collection, deletions, insertions, modifications):
                let now = Recorder.ids(collection)
                state.withLock { state in
                    state.updates += 1
                    guard let old = state.ids else { return state.problems.append("\(label): .update before .initial") }
                    let found = OracleCheck.problems(old: old, new: now, deletions: deletions, insertions: insertions, modifications: modifications,
                                                     mustModify: [], mayModify: Set(old), mayMove: Set(old))
                    state.problems += found.map { "\(label): \($0)" }
                    state.ids = now
                }
            case .error(let error):
                state.withLock { $0.problems.append("\(label): .error \(error)") }
            }
        }
    }

    actor Sink {
        let tracker = Tracker("actor")
        func apply(_ change: RealmCollectionChange<Results<Dog>>) { tracker.apply(change) }
    }

    /// Runs `threads` writers of `transactions` random commits each, and
    /// returns the final dogs (id → age) read on a new thread.
    static func write(_ name: String, threads: Int, transactions: Int) async -> [Int: Int] {
        await withCheckedContinuation { continuation in
            let group = DispatchGroup()
            for t in 0..<threads {
                group.enter()
                Thread.detachNewThread {
                    let realm = try! makeRealm(name)
                    var rng = SeededRandom(seed: 0xC0C0 + UInt64(t))
                    for i in 0..<transactions {
                        try! realm.write {
                            let dogs = realm.objects(Dog.self)
                            switch rng.next() % 4 {
                            case 0, 1: realm.create(Dog.self, value: ["id": t * 100_000 + i, "name": "w\(t)", "age": Int(rng.next() % 100)])
                            case 2: if !dogs.isEmpty { dogs[Int(rng.next() % UInt64(dogs.count))].age = Int(rng.next() % 100) }
                            default: if !dogs.isEmpty { realm.delete(dogs[Int(rng.next() % UInt64(dogs.count))]) }
                            }
                        }
                    }
                    group.leave()
                }
            }
            group.notify(queue: .global()) {
                Thread.detachNewThread {
                    let realm = try! makeRealm(name)
                    var ages: [Int: Int] = [:]
                    for dog in realm.objects(Dog.self) { ages[dog.id] = dog.age }
                    continuation.resume(returning: ages)
                }
            }
        }
    }

    /// Waits up to `seconds` for `done`.
    static func eventually(_ seconds: Double, _ done: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if done() { return true }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return done()
    }

    @Test("writers on 4 threads; observers on queues, an actor and an async sequence reach the final state consistently")
    func writersAndObservers() async throws {
        let name = UUID().uuidString
        let realm = try makeRealm(name)
        try realm.write { for id in 0..<20 { realm.create(Dog.self, value: ["id": -id - 1, "age": id * 5]) } }
        let all = Tracker("queue, all"), old = Tracker("queue, age >= 50 sorted"), stream = Tracker("changes")
        var tokens = [
            realm.objects(Dog.self).observe(on: DispatchQueue(label: "shoal.tests.all")) { all.apply($0) },
            realm.objects(Dog.self).filter("age >= 50").sorted(byKeyPath: "age").observe(keyPaths: ["age"], on: DispatchQueue(label: "shoal.tests.old")) { old.apply($0) },
        ]
        let changes = realm.objects(Dog.self).sorted(byKeyPath: "age", ascending: false).changes
        let consumer = Task {
            for await change in changes {
                stream.apply(change)
                if Task.isCancelled { break }
            }
        }
        let sink = Sink()
        tokens.append(await realm.objects(Dog.self).observe(on: sink) { sink, change in sink.apply(change) })
        // Every observer has its initial state before the writers start, so
        // that each sees updates (a late first delivery shows the final state).
        let started = await Self.eventually(30) { [all, old, stream, sink.tracker].allSatisfy { $0.ids != nil } }
        #expect(started)
        let final = await Self.write(name, threads: 4, transactions: 400)
        let expectedAll = Set(final.keys), expectedOld = Set(final.filter { $0.value >= 50 }.keys)
        let reached = await Self.eventually(30) {
            Set(all.ids ?? []) == expectedAll && Set(old.ids ?? []) == expectedOld
                && Set(stream.ids ?? []) == expectedAll && Set(sink.tracker.ids ?? []) == expectedAll
        }
        #expect(reached, "final \(expectedAll.count) dogs; queue \(all.ids?.count ?? -1), filtered \(old.ids?.count ?? -1) of \(expectedOld.count), changes \(stream.ids?.count ?? -1), actor \(sink.tracker.ids?.count ?? -1)")
        for tracker in [all, old, stream, sink.tracker] {
            #expect(tracker.problems.isEmpty, "\(tracker.problems.prefix(5))")
            #expect(tracker.updates > 0, "\(tracker.label) saw no update")
        }
        let oldAges = (old.ids ?? []).map { final[$0] ?? -1 }
        #expect(oldAges == oldAges.sorted(), "the filtered observer's order is by age")
        tokens.forEach { $0.invalidate() }
        consumer.cancel()
    }

    @Test("an async sequence of changes yields frozen collections usable from any task, the first .initial")
    func changesSequence() async throws {
        let name = UUID().uuidString
        let realm = try makeRealm(name)
        try realm.write { for id in 1...3 { realm.create(Dog.self, value: ["id": id]) } }
        let changes = realm.objects(Dog.self).changes
        var iterator = changes.makeAsyncIterator()
        guard case .initial(let first)? = await iterator.next() else {
            Issue.record("the first element is not .initial")
            return
        }
        #expect(first.isFrozen)
        #expect(first.map(\.id) == [1, 2, 3])
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let other = try! makeRealm(name)
                try! other.write { other.create(Dog.self, value: ["id": 4]) }
                continuation.resume()
            }
        }
        guard case let .update(second, deletions, insertions, modifications)? = await iterator.next() else {
            Issue.record("the second element is not .update")
            return
        }
        #expect(second.isFrozen)
        #expect(second.map(\.id) == [1, 2, 3, 4])
        #expect([deletions, insertions, modifications] == [[], [3], []])
    }
}
