import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// The routing index reaches the notifiers a commit may affect and no others.
@Suite struct RoutingTests {
    static func people(_ realm: Realm, _ n: Int) throws {
        try realm.write {
            for p in 0..<n {
                let person = realm.create(Person.self, value: ["id": p, "name": "p\(p)"])
                for d in 0..<3 { realm.create(Dog.self, value: ["id": p * 3 + d, "owner": person]) }
            }
        }
    }

    @Test("with 500 observers of `owner.id == k`, a commit changing one dog runs only its owner's notifier")
    func anchoredRouting() throws {
        let realm = try makeRealm()
        try Self.people(realm, 500)
        var calls = [Int](repeating: 0, count: 500)
        let tokens = (0..<500).map { k in
            realm.objects(Dog.self).filter("owner.id == %@", k).observe { _ in calls[k] += 1 }
        }
        realm.refresh()
        let tracker = try #require(realm.instance.coordinator.tracker)
        let before = tracker.statistics
        try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 4)!.age = 9 }   // owner 1
        try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 7)!.owner = realm.object(ofType: Person.self, forPrimaryKey: 0) }
        realm.refresh()
        let after = tracker.statistics
        #expect(after.commits - before.commits == 2)
        // Dog 4's owner's notifier; dog 7's old owner (2) and new one (0).
        #expect(after.notifierRuns - before.notifierRuns == 3)
        #expect(calls[1] == 2 && calls[0] == 2 && calls[2] == 2)
        #expect(calls.enumerated().filter { ![0, 1, 2].contains($0.offset) }.allSatisfy { $0.element == 1 })
        withExtendedLifetime(tokens) {}
    }

    @Test("with 200 observers filtered to `name`, commits changing `age` run none and call none")
    func filteredRouting() throws {
        let realm = try makeRealm()
        try Self.people(realm, 50)
        var calls = 0
        let tokens = (0..<200).map { _ in realm.objects(Dog.self).observe(keyPaths: ["name"]) { _ in calls += 1 } }
        realm.refresh()
        let tracker = try #require(realm.instance.coordinator.tracker)
        let before = tracker.statistics
        for id in 0..<20 { try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: id)!.age += 1 } }
        realm.refresh()
        #expect(tracker.statistics.notifierRuns == before.notifierRuns)
        #expect(calls == 200)   // the initial callbacks only
        try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 3)!.name = "x" }
        realm.refresh()
        #expect(calls == 400)
        withExtendedLifetime(tokens) {}
    }
}
