import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// A `Results` handed to a change callback takes the elements the
/// notifier keeps for the delivered version (as Realm's notifier hands its
/// results to the collection): reading it in the callback runs no query,
/// and it holds what a fresh query holds.
@Suite struct DeliveredResultsTests {
    /// What one callback saw: the evaluations its collection made while it
    /// was read there, its ids, and a fresh query's ids at the same moment.
    struct Seen: Equatable {
        var evaluations: Int
        var ids: [Int]
        var fresh: [Int]
    }

    /// Reads `dogs` as a callback would (count, first, every element) and
    /// compares it with `fresh()`, made in the callback.
    static func read(_ dogs: Results<Dog>, fresh: () -> Results<Dog>) -> Seen {
        let before = dogs.cache.evaluations
        _ = dogs.count
        _ = dogs.first?.age
        let ids = dogs.map(\.id)
        return Seen(evaluations: dogs.cache.evaluations - before, ids: ids, fresh: fresh().map(\.id))
    }

    /// Commits that insert, delete, re-sort and leave the results.
    static func churn(_ realm: Realm) throws {
        try realm.write { Fixture.dog(realm, 2).age = 40 }
        realm.refresh()
        try realm.write {
            realm.create(Dog.self, value: ["id": 7, "name": "d7", "age": 25])
            realm.delete(Fixture.dog(realm, 3))
            Fixture.dog(realm, 1).age = 0
        }
        realm.refresh()
        try realm.write { Fixture.dog(realm, 4).age = 26 }
        try realm.write { Fixture.dog(realm, 5).age = 1 }
        realm.refresh()
    }

    @Test("a sorted Results read in its callback evaluates nothing and holds what a fresh query holds")
    func sortedOnThisThread() throws {
        let realm = try Fixture.dogs(1...6) { $0 * 10 }
        let query = { realm.objects(Dog.self).filter("age >= 10").sorted(by: [SortDescriptor(keyPath: "age", ascending: false), SortDescriptor(keyPath: "id")]) }
        var seen: [Seen] = []
        let token = query().observe { change in
            switch change {
            case .initial(let dogs), .update(let dogs, _, _, _): seen.append(Self.read(dogs, fresh: query))
            case .error(let error): Issue.record("\(error)")
            }
        }
        realm.refresh()
        try Self.churn(realm)
        token.invalidate()
        // The initial callback, three refreshes, and the write that began
        // after the fourth commit (beginWrite delivers first).
        #expect(seen.count == 5)
        #expect(seen.map(\.evaluations) == [0, 0, 0, 0, 0])
        for s in seen { #expect(s.ids == s.fresh) }
        #expect(seen.first?.ids == [6, 5, 4, 3, 2, 1])
        #expect(seen.last?.ids == [6, 2, 4, 7])
    }

    @Test("an unsorted filter and a distinct query (re-evaluated by their notifier) are adopted too")
    func unsortedAndDistinct() throws {
        let realm = try Fixture.dogs(1...6) { $0 % 3 }
        let filtered = { realm.objects(Dog.self).filter("age > 0") }
        let distinct = { realm.objects(Dog.self).distinct(by: ["age"]) }
        var seen: [Seen] = []
        let tokens = [filtered, distinct].map { query in
            query().observe { change in
                if case .initial(let dogs) = change { seen.append(Self.read(dogs, fresh: query)) }
                if case .update(let dogs, _, _, _) = change { seen.append(Self.read(dogs, fresh: query)) }
            }
        }
        realm.refresh()
        try realm.write {
            Fixture.dog(realm, 3).age = 1
            realm.create(Dog.self, value: ["id": 9, "age": 7])
        }
        realm.refresh()
        tokens.forEach { $0.invalidate() }
        #expect(seen.count == 4)
        #expect(seen.map(\.evaluations) == [0, 0, 0, 0])
        for s in seen { #expect(s.ids == s.fresh) }
    }

    @Test("a Results delivered on a queue evaluates nothing there")
    func onQueue() throws {
        let name = UUID().uuidString
        let realm = try makeRealm(name)
        try realm.write { for id in 1...6 { realm.create(Dog.self, value: ["id": id, "age": id * 10]) } }
        let queue = DispatchQueue(label: "shoal.tests.delivered-results")
        let seen = Locked<[Seen]>([])
        let arrived = DispatchSemaphore(value: 0)
        let token = realm.objects(Dog.self).sorted(byKeyPath: "age").observe(on: queue) { change in
            switch change {
            case .initial(let dogs), .update(let dogs, _, _, _):
                let fresh = { dogs.realm!.objects(Dog.self).sorted(byKeyPath: "age") }
                let s = Self.read(dogs, fresh: fresh)
                seen.withLock { $0.append(s) }
            case .error(let error): Issue.record("\(error)")
            }
            arrived.signal()
        }
        #expect(arrived.wait(timeout: .now() + 10) == .success)
        try realm.write { Fixture.dog(realm, 1).age = 100 }
        #expect(arrived.wait(timeout: .now() + 10) == .success)
        token.invalidate()
        let all = seen.withLock { $0 }
        #expect(all.map(\.evaluations) == [0, 0])
        #expect(all.map(\.ids) == [[1, 2, 3, 4, 5, 6], [2, 3, 4, 5, 6, 1]])
        for s in all { #expect(s.ids == s.fresh) }
    }

    @Test("the frozen Results of an async sequence's change evaluates nothing")
    func asyncSequence() async throws {
        let realm = try makeRealm()
        try realm.write { for id in 1...3 { realm.create(Dog.self, value: ["id": id, "age": 10 - id]) } }
        let configuration = realm.configuration
        var iterator = realm.objects(Dog.self).sorted(byKeyPath: "age").changes.makeAsyncIterator()
        let fresh = { (dogs: Results<Dog>) in { dogs.realm!.objects(Dog.self).sorted(byKeyPath: "age") } }
        guard case .initial(let first)? = await iterator.next() else { Issue.record("no initial"); return }
        #expect(Self.read(first, fresh: fresh(first)) == Seen(evaluations: 0, ids: [3, 2, 1], fresh: [3, 2, 1]))
        onAnotherThread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 1)!.age = 0 }
        }
        guard case .update(let dogs, _, _, _)? = await iterator.next() else { Issue.record("no update"); return }
        #expect(Self.read(dogs, fresh: fresh(dogs)) == Seen(evaluations: 0, ids: [1, 3, 2], fresh: [1, 3, 2]))
    }

    @Test("a callback that writes reads its Results at the new version afterwards, not the delivered elements")
    func writeInCallback() throws {
        let realm = try Fixture.dogs(1...3)
        let query = { realm.objects(Dog.self).sorted(byKeyPath: "age", ascending: false) }
        var after: [Int] = []
        var fresh: [Int] = []
        var wrote = false
        let token = query().observe { change in
            guard case .update(let dogs, _, _, _) = change, !wrote else { return }
            wrote = true
            try! realm.write { realm.create(Dog.self, value: ["id": 9, "age": 9]) }
            after = dogs.map(\.id)
            fresh = query().map(\.id)
        }
        realm.refresh()
        try realm.write { Fixture.dog(realm, 1).age = 5 }
        realm.refresh()
        token.invalidate()
        #expect(wrote)
        #expect(after == [9, 1, 3, 2])
        #expect(after == fresh)
    }
}
