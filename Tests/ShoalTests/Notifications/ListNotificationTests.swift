import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// List notifications: positional changes straight from the edits
/// (REALM-SEMANTICS §1.4, §4 ListNotifier), always `.initial` first
/// (decisions table), element modifications, and a deleted owner.
@Suite struct ListNotificationTests {
    /// Person 1 whose `dogs` list holds dogs 0...9 in order.
    static func list(count: Int = 10) throws -> (Realm, List<Dog>) {
        let realm = try makeRealm()
        let person = try realm.write {
            let person = realm.create(Person.self, value: ["id": 1, "name": "Ann"])
            for id in 0..<count { person.dogs.append(realm.create(Dog.self, value: ["id": id, "name": "d\(id)"])) }
            for id in 100..<103 { realm.create(Dog.self, value: ["id": id, "name": "spare\(id)"]) }
            return person
        }
        return (realm, person.dogs)
    }

    /// Observes `list`, delivers the initial callback and checks it.
    static func observe(_ list: List<Dog>, keyPaths: [String]? = nil) -> (Recorder, NotificationToken) {
        let recorder = Recorder()
        let token = list.observe(keyPaths: keyPaths, recorder.handle)
        list.realm?.refresh()
        #expect(recorder.take() == [.initial(list.map(\.id))])
        return (recorder, token)
    }

    @Test("append, insert and remove report their positions")
    func appendInsertRemove() throws {
        let (realm, dogs) = try Self.list()
        let (recorder, token) = Self.observe(dogs)
        try realm.write { dogs.append(Fixture.dog(realm, 100)) }
        realm.refresh()
        try realm.write { dogs.insert(Fixture.dog(realm, 101), at: 2) }
        realm.refresh()
        try realm.write { dogs.remove(at: 4) }
        realm.refresh()
        #expect(recorder.take() == [
            .update([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 100], deletions: [], insertions: [10], modifications: []),
            .update([0, 1, 101, 2, 3, 4, 5, 6, 7, 8, 9, 100], deletions: [], insertions: [2], modifications: []),
            .update([0, 1, 101, 2, 4, 5, 6, 7, 8, 9, 100], deletions: [4], insertions: [], modifications: []),
        ])
        token.invalidate()
    }

    @Test("move(5 → 8) is deletions [5], insertions [8]")
    func move() throws {
        let (realm, dogs) = try Self.list()
        let (recorder, token) = Self.observe(dogs)
        try realm.write { dogs.move(from: 5, to: 8) }
        realm.refresh()
        #expect(recorder.take() == [.update([0, 1, 2, 3, 4, 6, 7, 8, 5, 9], deletions: [5], insertions: [8], modifications: [])])
        token.invalidate()
    }

    @Test("a moved element that was also modified is reported only as the move")
    func moveAndModify() throws {
        let (realm, dogs) = try Self.list()
        let (recorder, token) = Self.observe(dogs)
        try realm.write {
            dogs[5].name = "moved"
            dogs.move(from: 5, to: 8)
        }
        realm.refresh()
        #expect(recorder.take() == [.update([0, 1, 2, 3, 4, 6, 7, 8, 5, 9], deletions: [5], insertions: [8], modifications: [])])
        token.invalidate()
    }

    @Test("setting an element (replace) is a modification at its index")
    func replace() throws {
        let (realm, dogs) = try Self.list()
        let (recorder, token) = Self.observe(dogs)
        try realm.write { dogs.replace(index: 4, object: Fixture.dog(realm, 102)) }
        realm.refresh()
        #expect(recorder.take() == [.update([0, 1, 2, 3, 102, 5, 6, 7, 8, 9], deletions: [], insertions: [], modifications: [4])])
        token.invalidate()
    }

    @Test("removeAll deletes every old index")
    func removeAll() throws {
        let (realm, dogs) = try Self.list(count: 4)
        let (recorder, token) = Self.observe(dogs)
        try realm.write { dogs.removeAll() }
        realm.refresh()
        #expect(recorder.take() == [.update([], deletions: [0, 1, 2, 3], insertions: [], modifications: [])])
        token.invalidate()
    }

    @Test("a change to an element's property is a modification at every index holding it")
    func elementModification() throws {
        let (realm, dogs) = try Self.list(count: 3)
        try realm.write { dogs.append(dogs[0]) }
        let (recorder, token) = Self.observe(dogs)
        try realm.write { Fixture.dog(realm, 0).age = 7 }
        realm.refresh()
        try realm.write { Fixture.dog(realm, 100).age = 7 }
        realm.refresh()
        #expect(recorder.take() == [.update([0, 1, 2, 0], deletions: [], insertions: [], modifications: [0, 3])])
        token.invalidate()
    }

    @Test("deleting an element object removes it from the list")
    func elementDeleted() throws {
        let (realm, dogs) = try Self.list(count: 4)
        let (recorder, token) = Self.observe(dogs)
        try realm.write { realm.delete(Fixture.dog(realm, 2)) }
        realm.refresh()
        #expect(recorder.take() == [.update([0, 1, 3], deletions: [2], insertions: [], modifications: [])])
        token.invalidate()
    }

    @Test("several list edits before delivery coalesce into one update from the last delivered list")
    func coalesced() throws {
        let (realm, dogs) = try Self.list(count: 5)
        let (recorder, token) = Self.observe(dogs)
        Fixture.writeElsewhere(realm) { Fixture.person($0, 1).dogs.append(Fixture.dog($0, 100)) }
        Fixture.writeElsewhere(realm) { Fixture.person($0, 1).dogs.remove(at: 0) }
        Fixture.writeElsewhere(realm) { Fixture.person($0, 1).dogs[1].name = "changed" }
        Fixture.writeElsewhere(realm) { Fixture.person($0, 1).dogs.insert(Fixture.dog($0, 101), at: 0) }
        realm.refresh()
        // [0,1,2,3,4] → [101,1,2,3,4,100]; dog 2 (old index 2) was modified.
        #expect(recorder.take() == [.update([101, 1, 2, 3, 4, 100], deletions: [0], insertions: [0, 5], modifications: [2])])
        token.invalidate()
    }

    @Test("the first callback is .initial even when writes land between observe and delivery")
    func initialAlways() throws {
        let (realm, dogs) = try Self.list(count: 2)
        let recorder = Recorder()
        let token = dogs.observe(recorder.handle)
        Fixture.writeElsewhere(realm) { Fixture.person($0, 1).dogs.append(Fixture.dog($0, 100)) }
        realm.refresh()
        #expect(recorder.take() == [.initial([0, 1, 100])])
        token.invalidate()
    }

    @Test("deleting the owner deletes every element; with an empty list there is no callback")
    func ownerDeleted() throws {
        let (realm, dogs) = try Self.list(count: 3)
        let (recorder, token) = Self.observe(dogs)
        let empty = try realm.write { realm.create(Person.self, value: ["id": 2]) }.dogs
        let (emptyRecorder, emptyToken) = Self.observe(empty)
        try realm.write {
            realm.delete(Fixture.person(realm, 1))
            realm.delete(Fixture.person(realm, 2))
        }
        realm.refresh()
        #expect(recorder.take() == [.update([], deletions: [0, 1, 2], insertions: [], modifications: [])])
        #expect(emptyRecorder.take() == [])
        try realm.write { realm.create(Person.self, value: ["id": 1, "dogs": [Fixture.dog(realm, 0)]]) }
        realm.refresh()
        #expect(recorder.take() == [])
        token.invalidate()
        emptyToken.invalidate()
    }

    @Test("a key-path filter on a list gates modifications only")
    func filtered() throws {
        let (realm, dogs) = try Self.list(count: 3)
        let (recorder, token) = Self.observe(dogs, keyPaths: ["name"])
        try realm.write { dogs[1].age = 5 }
        realm.refresh()
        try realm.write { dogs[1].name = "named" }
        realm.refresh()
        try realm.write { dogs.append(Fixture.dog(realm, 100)) }
        realm.refresh()
        #expect(recorder.take() == [
            .update([0, 1, 2], deletions: [], insertions: [], modifications: [1]),
            .update([0, 1, 2, 100], deletions: [], insertions: [3], modifications: []),
        ])
        token.invalidate()
    }

    @Test("AnyRealmCollection forwards observation to the list it wraps")
    func anyRealmCollection() throws {
        let (realm, dogs) = try Self.list(count: 3)
        let recorder = Recorder()
        let token = AnyRealmCollection(dogs).observe(recorder.handle)
        realm.refresh()
        try realm.write { dogs.remove(at: 0) }
        realm.refresh()
        #expect(recorder.take() == [.initial([0, 1, 2]), .update([1, 2], deletions: [0], insertions: [], modifications: [])])
        token.invalidate()
    }
}
