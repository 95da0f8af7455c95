import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// End-to-end checks of the engine's main paths, delivered at `refresh()`.
@Suite struct ResultsNotificationTests {
    /// Records every callback of one token.
    final class Recorder<C> {
        var changes: [String] = []
        func record(_ change: RealmCollectionChange<C>) {
            switch change {
            case .initial: changes.append("initial")
            case .update(_, let d, let i, let m): changes.append("d\(d) i\(i) m\(m)")
            case .error(let e): changes.append("error \(e)")
            }
        }
    }

    func dogs(_ realm: Realm, _ ages: [Int]) throws {
        try realm.write {
            for (i, age) in ages.enumerated() { realm.create(Dog.self, value: ["id": i, "name": "d\(i)", "age": age]) }
        }
    }

    @Test("the first callback is .initial, delivered at refresh, never from observe")
    func initialAtRefresh() throws {
        let realm = try makeRealm()
        try dogs(realm, [1, 2, 3])
        let recorder = Recorder<Results<Dog>>()
        let token = realm.objects(Dog.self).observe { recorder.record($0) }
        #expect(recorder.changes.isEmpty)
        realm.refresh()
        #expect(recorder.changes == ["initial"])
        token.invalidate()
    }

    @Test("a sorted result: modification in place, move as delete plus insert, old-space modifications")
    func sortedChanges() throws {
        let realm = try makeRealm()
        try dogs(realm, [10, 20, 30, 40])
        let recorder = Recorder<Results<Dog>>()
        let token = realm.objects(Dog.self).sorted(byKeyPath: "age").observe { recorder.record($0) }
        realm.refresh()
        try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 2)!.name = "x" }
        realm.refresh()
        try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 0)!.age = 35 }
        realm.refresh()
        try realm.write {
            realm.delete(realm.object(ofType: Dog.self, forPrimaryKey: 1)!)
            realm.object(ofType: Dog.self, forPrimaryKey: 2)!.name = "y"
        }
        realm.refresh()
        #expect(recorder.changes == ["initial", "d[] i[] m[2]", "d[0] i[2] m[]", "d[0] i[] m[1]"])
        token.invalidate()
    }

    @Test("a filtered result with a key-path filter ignores other properties; coalesced commits arrive as one")
    func filteredAndCoalesced() throws {
        let realm = try makeRealm()
        try dogs(realm, [1, 5, 7, 2])
        let recorder = Recorder<Results<Dog>>()
        let token = realm.objects(Dog.self).filter("age > 3").observe(keyPaths: ["name"]) { recorder.record($0) }
        realm.refresh()
        try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 1)!.age = 6 }   // stays in, not in the filter
        realm.refresh()
        // Commits made elsewhere pile up until this thread refreshes (its own
        // `write` would deliver first, at `beginWrite`).
        let configuration = realm.configuration
        onAnotherThread {
            let other = try! Realm(configuration: configuration)
            try! other.write { other.object(ofType: Dog.self, forPrimaryKey: 0)!.age = 9 }   // enters
            try! other.write { other.create(Dog.self, value: ["id": 9, "age": 8]) }          // enters
            try! other.write { other.object(ofType: Dog.self, forPrimaryKey: 2)!.name = "n" }
        }
        realm.refresh()
        onAnotherThread {
            let other = try! Realm(configuration: configuration)
            try! other.write { other.create(Dog.self, value: ["id": 10, "age": 8]) }
            try! other.write { other.delete(other.object(ofType: Dog.self, forPrimaryKey: 10)!) }
        }
        realm.refresh()
        #expect(recorder.changes == ["initial", "d[] i[0, 3] m[1]"])
        #expect(realm.objects(Dog.self).filter("age > 3").map(\.id) == [0, 1, 2, 9])
        token.invalidate()
    }

    @Test("a list reports positional ops; a queue observer receives changes on its queue")
    func listAndQueue() throws {
        let realm = try makeRealm()
        let person = try realm.write { realm.create(Person.self, value: ["id": 1, "name": "Ann"]) }
        try realm.write { for i in 0..<10 { person.dogs.append(realm.create(Dog.self, value: ["id": i])) } }
        let recorder = Recorder<List<Dog>>()
        let token = person.dogs.observe { recorder.record($0) }
        realm.refresh()
        try realm.write { person.dogs.move(from: 5, to: 8) }
        realm.refresh()
        try realm.write { person.dogs[2].name = "renamed" }
        realm.refresh()
        #expect(recorder.changes == ["initial", "d[5] i[8] m[]", "d[] i[] m[2]"])
        token.invalidate()

        let queue = DispatchQueue(label: "observer")
        let done = DispatchSemaphore(value: 0)
        let seen = Locked<[String]>([])
        let queued = realm.objects(Dog.self).observe(on: queue) { change in
            switch change {
            case .initial(let dogs): seen.withLock { $0.append("initial \(dogs.count)") }
            case .update(let dogs, let d, let i, _): seen.withLock { $0.append("update \(dogs.count) \(d) \(i)") }
            case .error: break
            }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 5) == .success)
        try realm.write { realm.create(Dog.self, value: ["id": 100]) }
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(seen.withLock { $0 } == ["initial 10", "update 11 [] [10]"])
        queued.invalidate()
    }
}

/// Runs `body` on a new thread and waits for it.
func onAnotherThread(_ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.start()
    done.wait()
}
