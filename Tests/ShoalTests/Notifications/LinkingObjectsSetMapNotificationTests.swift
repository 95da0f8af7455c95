import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// LinkingObjects notifications (REALM-SEMANTICS §6 rules, stable backlink
/// order per the decisions table).
@Suite struct LinkingObjectsNotificationTests {
    /// Ann (1) owns dogs 1...count through `Dog.owner`, linked in id order.
    static func owned(_ count: Int) throws -> (Realm, Person) {
        let realm = try makeRealm()
        let ann = try realm.write {
            let ann = realm.create(Person.self, value: ["id": 1, "name": "Ann"])
            for id in 1...count { realm.create(Dog.self, value: ["id": id, "name": "d\(id)", "owner": ann]) }
            return ann
        }
        return (realm, ann)
    }

    @Test("a new origin appends an insertion; an origin's property change is a modification")
    func insertAndModify() throws {
        let (realm, ann) = try Self.owned(3)
        let recorder = Recorder()
        let token = ann.ownedDogs.observe(recorder.handle)
        realm.refresh()
        try realm.write { realm.create(Dog.self, value: ["id": 4, "owner": ann]) }
        realm.refresh()
        try realm.write { Fixture.dog(realm, 2).name = "renamed" }
        realm.refresh()
        #expect(recorder.take() == [
            .initial([1, 2, 3]),
            .update([1, 2, 3, 4], deletions: [], insertions: [3], modifications: []),
            .update([1, 2, 3, 4], deletions: [], insertions: [], modifications: [1]),
        ])
        token.invalidate()
    }

    @Test("unlinking is a deletion and the order stays stable; relinking appends")
    func unlinkStable() throws {
        let (realm, ann) = try Self.owned(4)
        let recorder = Recorder()
        let token = ann.ownedDogs.observe(recorder.handle)
        realm.refresh()
        try realm.write { Fixture.dog(realm, 2).owner = nil }
        realm.refresh()
        try realm.write { Fixture.dog(realm, 2).owner = ann }
        realm.refresh()
        #expect(recorder.take() == [
            .initial([1, 2, 3, 4]),
            .update([1, 3, 4], deletions: [1], insertions: [], modifications: []),
            .update([1, 3, 4, 2], deletions: [], insertions: [3], modifications: []),
        ])
        token.invalidate()
    }

    @Test("deleting origin P5 of P0...P9 is deletions [5] only: no swap of the last origin into its slot")
    func deleteOneOrigin() throws {
        let realm = try makeRealm()
        let rex = try realm.write {
            let rex = realm.create(Dog.self, value: ["id": 1, "name": "Rex"])
            for id in 0..<10 { realm.create(Person.self, value: ["id": id, "name": "p\(id)", "dogs": [rex]]) }
            return rex
        }
        let recorder = Recorder()
        let token = rex.owners.observe(recorder.handle)
        realm.refresh()
        try realm.write { realm.delete(Fixture.person(realm, 5)) }
        realm.refresh()
        #expect(recorder.take() == [
            .initial(Array(0..<10)),
            .update([0, 1, 2, 3, 4, 6, 7, 8, 9], deletions: [5], insertions: [], modifications: []),
        ])
        token.invalidate()
    }

    @Test("a backlink through a list: appending links a new origin, removing unlinks it")
    func throughList() throws {
        let realm = try makeRealm()
        let rex = try realm.write {
            let rex = realm.create(Dog.self, value: ["id": 1, "name": "Rex"])
            for id in 0..<3 { realm.create(Person.self, value: ["id": id, "name": "p\(id)"]) }
            return rex
        }
        let recorder = Recorder()
        let token = rex.owners.observe(recorder.handle)
        realm.refresh()
        try realm.write {
            Fixture.person(realm, 2).dogs.append(rex)
            Fixture.person(realm, 0).dogs.append(rex)
        }
        realm.refresh()
        try realm.write { Fixture.person(realm, 2).dogs.removeAll() }
        realm.refresh()
        try realm.write { Fixture.person(realm, 0).city = "Oslo" }
        realm.refresh()
        #expect(recorder.take() == [
            .initial([]),
            .update([2, 0], deletions: [], insertions: [0, 1], modifications: []),
            .update([0], deletions: [0], insertions: [], modifications: []),
            .update([0], deletions: [], insertions: [], modifications: [0]),
        ])
        token.invalidate()
    }

    @Test("after the target is deleted its linking objects read as empty: one deletion of every origin")
    func targetDeleted() throws {
        let (realm, ann) = try Self.owned(2)
        let dog = Fixture.dog(realm, 1)
        try realm.write { ann.dogs.append(dog) }
        let recorder = Recorder()
        let token = dog.owners.observe(recorder.handle)
        realm.refresh()
        try realm.write { realm.delete(dog) }
        realm.refresh()
        #expect(recorder.take() == [.initial([1]), .update([], deletions: [0], insertions: [], modifications: [])])
        token.invalidate()
    }
}

/// MutableSet notifications: insertions and deletions at set positions,
/// element modifications, silence for an insert of a present element.
@Suite struct MutableSetNotificationTests {
    @Test("insert, remove and element modification")
    func setChanges() throws {
        let realm = try Fixture.dogs(1...4)
        let set = try realm.write {
            let all = realm.create(AllTypes.self, value: ["id": ObjectId.generate()])
            for id in 1...3 { all.dogSet.insert(Fixture.dog(realm, id)) }
            return all.dogSet
        }
        let recorder = Recorder()
        let token = set.observe(recorder.handle)
        realm.refresh()
        try realm.write { set.insert(Fixture.dog(realm, 2)) }
        realm.refresh()
        #expect(recorder.take() == [.initial([1, 2, 3])])
        try realm.write { set.insert(Fixture.dog(realm, 4)) }
        realm.refresh()
        try realm.write { set.remove(Fixture.dog(realm, 2)) }
        realm.refresh()
        try realm.write { Fixture.dog(realm, 3).name = "renamed" }
        realm.refresh()
        try realm.write { set.removeAll() }
        realm.refresh()
        #expect(recorder.take() == [
            .update([1, 2, 3, 4], deletions: [], insertions: [3], modifications: []),
            .update([1, 3, 4], deletions: [1], insertions: [], modifications: []),
            .update([1, 3, 4], deletions: [], insertions: [], modifications: [1]),
            .update([], deletions: [0, 1, 2], insertions: [], modifications: []),
        ])
        token.invalidate()
    }

    @Test("a set of values: the first callback is .initial, then positional changes")
    func valueSet() throws {
        let realm = try Fixture.dogs(1...1)
        let tags = Fixture.dog(realm, 1).tags
        var events: [String] = []
        let token = tags.observe { (change: RealmCollectionChange<MutableSet<String>>) in
            switch change {
            case .initial(let set): events.append("initial \(Array(set))")
            case let .update(set, d, i, m): events.append("update \(Array(set)) \(d) \(i) \(m)")
            case .error(let error): events.append("error \(error)")
            }
        }
        realm.refresh()
        try realm.write { tags.insert("good") }
        realm.refresh()
        try realm.write { tags.insert("good") }
        realm.refresh()
        #expect(events == ["initial []", "update [\"good\"] [] [0] []"])
        token.invalidate()
    }
}

/// Map notifications: `RealmMapChange` with keys, compared as sets.
@Suite struct MapNotificationTests {
    @Test("a new key is an insertion, a changed value a modification, a removed key a deletion; a same value is silent")
    func mapChanges() throws {
        let realm = try makeRealm()
        let doubles = try realm.write {
            realm.create(AllTypes.self, value: ["id": ObjectId.generate(), "doubles": ["a": 1.0, "b": 2.0]]).doubles
        }
        let recorder = MapRecorder()
        let token = doubles.observe(recorder.handle)
        realm.refresh()
        try realm.write { doubles["c"] = 3 }
        realm.refresh()
        try realm.write { doubles["a"] = 1 }
        realm.refresh()
        try realm.write {
            doubles["a"] = 10
            doubles.removeObject(for: "b")
        }
        realm.refresh()
        #expect(recorder.take() == [
            .initial(["a", "b"]),
            .update(["a", "b", "c"], deletions: [], insertions: ["c"], modifications: []),
            .update(["a", "c"], deletions: ["b"], insertions: [], modifications: ["a"]),
        ])
        token.invalidate()
    }

    @Test("a map of objects: a change inside a value object is a modification of its key; a filter gates it")
    func mapOfObjects() throws {
        let realm = try Fixture.dogs(1...2)
        let map = try realm.write {
            realm.create(AllTypes.self, value: ["id": ObjectId.generate(), "dogMap": ["x": Fixture.dog(realm, 1), "y": Fixture.dog(realm, 2)]]).dogMap
        }
        let unfiltered = MapRecorder(), byAge = MapRecorder()
        let tokens = [map.observe(unfiltered.handle), map.observe(keyPaths: ["age"], byAge.handle)]
        realm.refresh()
        try realm.write { Fixture.dog(realm, 2).name = "renamed" }
        realm.refresh()
        try realm.write { Fixture.dog(realm, 1).age = 12 }
        realm.refresh()
        #expect(unfiltered.take() == [
            .initial(["x", "y"]),
            .update(["x", "y"], deletions: [], insertions: [], modifications: ["y"]),
            .update(["x", "y"], deletions: [], insertions: [], modifications: ["x"]),
        ])
        #expect(byAge.take() == [.initial(["x", "y"]), .update(["x", "y"], deletions: [], insertions: [], modifications: ["x"])])
        tokens.forEach { $0.invalidate() }
    }
}
