import Foundation
import Shoal
import ShoalTestSupport
import Testing

final class CopyPrimaryString: Object {
    @Persisted(primaryKey: true) var stringCol = ""
    @Persisted var intCol = 0
}

final class CopyLinkToPrimaryString: Object {
    @Persisted(primaryKey: true) var pk = ""
    @Persisted var object: CopyPrimaryString?
    @Persisted var objects: List<CopyPrimaryString>
}

/// `create(_:value:update:)` with nested objects, as Realm's
/// ObjectCreationTests check it: nested objects the Realm does not manage
/// are copied, never adopted.
@Suite struct CreateNestedTests {
    static func open() throws -> Realm {
        try makeRealm(types: [CopyPrimaryString.self, CopyLinkToPrimaryString.self, Person.self, Dog.self, Kennel.self, Puppy.self, AllTypes.self, Note.self])
    }

    // Follows Realm's ObjectCreationTests.testCreateWithNestedObjects.
    @Test("an unmanaged nested object is copied into the Realm; the original stays unmanaged")
    func copiesUnmanaged() throws {
        let standalone = CopyPrimaryString(value: ["p0", 11])
        let realm = try Self.open()
        let created = try realm.write {
            realm.create(CopyLinkToPrimaryString.self, value: ["p1", ["p1", 12] as [Any], [standalone]])
        }
        #expect(realm.objects(CopyPrimaryString.self).count == 2)
        let p0 = try #require(realm.object(ofType: CopyPrimaryString.self, forPrimaryKey: "p0"))
        #expect(standalone.realm == nil && !standalone.isSameObject(as: p0))
        #expect(created.object?.stringCol == "p1" && created.objects.first!.isSameObject(as: p0) && p0.intCol == 11)
    }

    // Follows Realm's ObjectCreationTests.testUpdateWithNestedObjects and testUpdateChangedWithNestedObjects.
    @Test("under .all and .modified a nested object with a primary key updates the existing one", arguments: [Realm.UpdatePolicy.all, .modified])
    func updatesNested(policy: Realm.UpdatePolicy) throws {
        let standalone = CopyPrimaryString(value: ["primary", 11])
        let realm = try Self.open()
        let created = try realm.write {
            realm.create(CopyLinkToPrimaryString.self, value: ["other", ["primary", 12] as [Any], [["primary", 12] as [Any]]], update: policy)
        }
        #expect(realm.objects(CopyPrimaryString.self).count == 1 && created.object?.intCol == 12)
        #expect(standalone.realm == nil && created.objects.first!.isSameObject(as: created.object))
    }

    // Follows Realm's ObjectCreationTests.testCreateWithObjectsFromAnotherRealm.
    @Test("an object of another Realm, and the objects it links to, are copied")
    func copiesFromAnotherRealm() throws {
        let other = try Self.open()
        let source = try other.write {
            other.create(Person.self, value: ["id": 1, "name": "Ann", "dogs": [["id": 7, "name": "Rex"]]] as [String: Any])
        }
        let realm = try Self.open()
        let copy = try realm.write { realm.create(Person.self, value: source) }
        #expect(copy.realm != nil && !copy.isSameObject(as: source))
        #expect(copy.dogs.map(\.name) == ["Rex"] && !copy.dogs[0].isSameObject(as: source.dogs[0]))
        #expect(other.objects(Dog.self).count == 1 && realm.objects(Dog.self).count == 1)
    }

    @Test("a managed object of the same Realm is linked, not copied")
    func linksOwnObjects() throws {
        let realm = try Self.open()
        let rex = try realm.write { realm.create(Dog.self, value: ["id": 7, "name": "Rex"]) }
        let ann = try realm.write { realm.create(Person.self, value: ["id": 1, "dogs": [rex]] as [String: Any]) }
        #expect(ann.dogs[0].isSameObject(as: rex) && realm.objects(Dog.self).count == 1)
    }

    @Test("an update policy for a top-level class without a primary key stops with Realm's message")
    func topLevelNeedsPrimaryKey() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try makeRealm(types: [Kennel.self, Puppy.self, Dog.self, Person.self])
            realm.beginWrite()
            realm.create(Kennel.self, value: ["name": "North"], update: .modified)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("'Kennel' does not have a primary key and can not be updated"))
    }

    @Test("add of an object another Realm manages stops with Realm's message (create copies it instead)")
    func addFromAnotherRealmStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let other = try makeRealm()
            let rex = try other.write { other.create(Dog.self, value: ["id": 1]) }
            let realm = try makeRealm()
            realm.beginWrite()
            realm.add(rex)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Object is already managed by another Realm. Use create instead to copy it into this Realm."))
    }
}
