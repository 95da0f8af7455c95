import Dispatch
import Foundation
import Shoal
import ShoalTestSupport
import Testing

/// `writeAsync`, `beginAsyncWrite`, `commitAsyncWrite` and `cancelAsyncWrite`.
@Suite struct AsyncWriteTests {
    /// Collects what the callbacks saw, from any thread.
    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [String] = []
        func add(_ entry: String) { lock.lock(); entries.append(entry); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return entries }
    }

    static func configuration() -> Realm.Configuration {
        var config = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        config.objectTypes = [Person.self, Dog.self, Kennel.self, Puppy.self, AllTypes.self, Note.self]
        return config
    }

    // After Realm's RealmTests testAsyncTransaction* (writeAsync, then the completion).
    @Test("on a queue-confined Realm, writeAsync runs the block on the queue, commits, then calls onComplete")
    func queueConfined() throws {
        let config = Self.configuration()
        // Holds the in-memory store open after the queue's Realm is released.
        let reader = try Realm(configuration: config)
        let queue = DispatchQueue(label: "async-write")
        let log = Log()
        let done = DispatchSemaphore(value: 0)
        queue.async {
            let realm = try! Realm(configuration: config, queue: queue)
            realm.writeAsync {
                log.add("block in write: \(realm.isInWriteTransaction)")
                realm.create(Dog.self, value: ["id": 1, "name": "Rex"])
            } onComplete: { error in
                log.add("complete: \(error == nil), dogs: \(realm.objects(Dog.self).count), in write: \(realm.isInWriteTransaction)")
                done.signal()
            }
            log.add("queued: \(realm.isPerformingAsynchronousWriteOperations)")
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(log.all == ["queued: true", "block in write: true", "complete: true, dogs: 1, in write: false"])
        reader.refresh()
        #expect(reader.objects(Dog.self).map(\.name) == ["Rex"])
    }

    @Test("on a thread without a queue, queued writes run at refresh(); a cancelled begin never runs")
    func runsAtRefresh() throws {
        let realm = try Realm(configuration: Self.configuration())
        var events: [String] = []
        realm.writeAsync({ realm.create(Dog.self, value: ["id": 1]) }, onComplete: { events.append("first \($0 == nil)") })
        let cancelled = realm.writeAsync { realm.create(Dog.self, value: ["id": 2]) }
        realm.beginAsyncWrite {
            realm.create(Dog.self, value: ["id": 3])
            realm.commitAsyncWrite { events.append("third \($0 == nil)") }
        }
        try realm.cancelAsyncWrite(cancelled)
        #expect(realm.objects(Dog.self).isEmpty && realm.isPerformingAsynchronousWriteOperations)
        realm.refresh()
        #expect(realm.objects(Dog.self).map(\.id) == [1, 3])
        #expect(events == ["first true", "third true"])
        #expect(!realm.isPerformingAsynchronousWriteOperations)
    }

    @Test("cancelling a commit's callback keeps the commit; a block that cancels its write commits nothing")
    func cancelCallbackAndWrite() throws {
        let realm = try Realm(configuration: Self.configuration())
        var called = false
        realm.beginWrite()
        realm.create(Dog.self, value: ["id": 1])
        let id = realm.commitAsyncWrite { _ in called = true }
        try realm.cancelAsyncWrite(id)
        realm.writeAsync({
            realm.create(Dog.self, value: ["id": 2])
            realm.cancelWrite()
        }, onComplete: { _ in called = true })
        realm.refresh()
        #expect(!called && realm.objects(Dog.self).map(\.id) == [1])
    }
}
