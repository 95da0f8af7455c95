import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// Async sequences and actor-isolated observation.
@Suite struct AsyncNotificationTests {
    actor Collector {
        var seen: [String] = []
        func add(_ s: String) { seen.append(s) }
    }

    @Test("changes yields .initial then merged updates over frozen collections, and ends when its task is cancelled")
    func collectionChanges() async throws {
        let realm = try makeRealm()
        try realm.write { for i in 0..<3 { realm.create(Dog.self, value: ["id": i, "age": i]) } }
        let changes = realm.objects(Dog.self).sorted(byKeyPath: "age").changes(keyPaths: ["name"])
        let other = realm.objects(Dog.self).changes
        let configuration = realm.configuration
        var iterator = changes.makeAsyncIterator()
        guard case .initial(let first)? = await iterator.next() else { Issue.record("no initial"); return }
        #expect(first.isFrozen && first.count == 3)
        // Two commits before the consumer asks again: one merged update.
        onAnotherThread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write { realm.create(Dog.self, value: ["id": 3, "age": 10]) }
            try! realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 0)!.name = "x" }
        }
        try await Task.sleep(for: .milliseconds(50))
        guard case .update(let dogs, let d, let i, let m)? = await iterator.next() else { Issue.record("no update"); return }
        #expect(dogs.isFrozen && dogs.count == 4 && d == [] && i == [3] && m == [0])
        let task = Task {
            var it = other.makeAsyncIterator()
            while await it.next() != nil {}
            return "ended"
        }
        task.cancel()
        #expect(await task.value == "ended")
    }

    @Test("an object's changes carry old and new values, and end after .deleted")
    func objectChanges() async throws {
        let realm = try makeRealm()
        let dog = try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "Rex"]) }
        var iterator = dog.changes(keyPaths: ["name"]).makeAsyncIterator()
        let configuration = realm.configuration
        func write(_ body: @escaping @Sendable (Realm, Dog) -> Void) {
            onAnotherThread {
                let realm = try! Realm(configuration: configuration)
                try! realm.write { body(realm, realm.object(ofType: Dog.self, forPrimaryKey: 1)!) }
            }
        }
        write { _, dog in dog.age = 4 }   // not observed
        write { _, dog in dog.name = "Max" }
        guard case .change(let frozen, let properties)? = await iterator.next() else { Issue.record("no change"); return }
        #expect(frozen.isFrozen && frozen.name == "Max")
        #expect(properties.map(\.name) == ["name"] && properties[0].oldValue as? String == "Rex" && properties[0].newValue as? String == "Max")
        write { realm, dog in realm.delete(dog) }
        guard case .deleted? = await iterator.next() else { Issue.record("no deletion"); return }
        #expect(await iterator.next() == nil)
    }

    @Test("observe(on: actor) calls the block isolated to the actor, in commit order, with the collection live in the actor's Realm")
    func actorObservation() async throws {
        let realm = try makeRealm()
        let configuration = realm.configuration
        let collector = Collector()
        let token = await realm.objects(Dog.self).observe(on: collector) { actor, change in
            switch change {
            case .initial(let dogs): actor.add("initial \(dogs.count) frozen \(dogs.isFrozen)")
            case .update(let dogs, _, let i, _):
                // The actor's own Realm: usable there, and writable (once).
                let wrote = dogs.count == 1 && (try? dogs.realm!.write { dogs.realm!.create(Dog.self, value: ["id": 2]) }) != nil
                actor.add("update \(dogs.count) \(i) frozen \(dogs.isFrozen) wrote \(wrote)")
            case .error(let e): actor.add("error \(e)")
            }
        }
        try await waitFor { await collector.seen.count == 1 }
        onAnotherThread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write { realm.create(Dog.self, value: ["id": 1]) }
        }
        try await waitFor { await collector.seen.count == 3 }
        #expect(await collector.seen == ["initial 0 frozen false", "update 2 [0] frozen false wrote true", "update 2 [1] frozen false wrote false"])
        token.invalidate()
    }
}
