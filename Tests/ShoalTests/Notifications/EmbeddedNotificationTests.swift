import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

extension Contact: IntIdentified {}

/// Notifications over owners of embedded objects: a change inside an
/// embedded object is a modification of its owner, and a cascade deletion
/// is a delete of the change record that the engine reads like any other.
@Suite struct EmbeddedNotificationTests {
    static func realm() throws -> Realm {
        let realm = try makeRealm(types: [Contact.self, Address.self, Coordinates.self])
        try realm.write {
            realm.create(Contact.self, value: ["id": 1, "home": ["city": "Oslo", "position": [1.0, 2.0]] as [String: Any], "previous": [["city": "A"]]] as [String: Any])
            realm.create(Contact.self, value: ["id": 2, "home": ["city": "Oslo"]] as [String: Any])
            realm.create(Contact.self, value: ["id": 3, "home": ["city": "Lima"]] as [String: Any])
        }
        return realm
    }

    @Test("a change inside an embedded object, two levels down or in a List, is a modification of its owner")
    func modificationsReachTheOwner() throws {
        let realm = try Self.realm()
        let contacts = realm.objects(Contact.self)
        let recorder = Recorder()
        let token = contacts.observe(recorder.handle)
        realm.refresh()
        #expect(recorder.take() == [.initial([1, 2, 3])])
        try realm.write { contacts[0].home!.position!.latitude = 9 }
        realm.refresh()
        try realm.write { contacts[1].home!.city = "Rome" }
        realm.refresh()
        try realm.write { contacts[0].previous[0].city = "B" }
        realm.refresh()
        #expect(recorder.take() == [
            .update([1, 2, 3], deletions: [], insertions: [], modifications: [0]),
            .update([1, 2, 3], deletions: [], insertions: [], modifications: [1]),
            .update([1, 2, 3], deletions: [], insertions: [], modifications: [0]),
        ])
        token.invalidate()
    }

    @Test("a filter through an embedded key path follows reassignment (the old object's cascade delete included) and owner deletion")
    func filteredThroughEmbedded() throws {
        let realm = try Self.realm()
        let inOslo = realm.objects(Contact.self).filter("home.city == 'Oslo'")
        let recorder = Recorder()
        let token = inOslo.observe(recorder.handle)
        realm.refresh()
        #expect(recorder.take() == [.initial([1, 2])])
        let replaced = try #require(inOslo[0].home)
        try realm.write { inOslo[0].home = Address(value: ["city": "Lima"]) }
        realm.refresh()
        #expect(replaced.isInvalidated)
        try realm.write { realm.delete(realm.object(ofType: Contact.self, forPrimaryKey: 2)!) }
        realm.refresh()
        try realm.write { realm.object(ofType: Contact.self, forPrimaryKey: 3)!.home!.city = "Oslo" }
        realm.refresh()
        #expect(recorder.take() == [
            .update([2], deletions: [0], insertions: [], modifications: []),
            .update([], deletions: [0], insertions: [], modifications: []),
            .update([3], deletions: [], insertions: [0], modifications: []),
        ])
        token.invalidate()
    }
}
