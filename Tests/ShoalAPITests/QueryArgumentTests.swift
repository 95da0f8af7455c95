import Foundation
import Shoal
import ShoalTestSupport
import Testing

/// Objects and `AnyRealmValue`s as query arguments, as Realm treats them.
@Suite struct QueryArgumentTests {
    static func realm() throws -> Realm {
        let realm = try makeRealm()
        try realm.write {
            let ann = realm.create(Person.self, value: ["id": 1, "name": "Ann"])
            realm.create(Dog.self, value: ["id": 1, "name": "Rex", "owner": ann])
            realm.create(Dog.self, value: ["id": 2, "name": "Fido"])
            realm.create(AllTypes.self, value: ["id": ObjectId.generate(), "int": 42, "any": AnyRealmValue.string("mixed")] as [String: Any])
        }
        return realm
    }

    // Realm's RLMQueryUtil: "Unmanaged or deleted objects are not equal to any managed objects"
    // (and QueryTests.m testLinksToDeletedOrMovedObject for deleted ones).
    @Test("an unmanaged object as an argument equals no link: == matches nothing, != matches everything, a nil link included")
    func unmanagedObject() throws {
        let realm = try Self.realm()
        let stranger = Person(value: ["id": 1, "name": "Ann"])
        #expect(realm.objects(Dog.self).filter("owner == %@", stranger).isEmpty)
        #expect(realm.objects(Dog.self).filter("owner != %@", stranger).map(\.id) == [1, 2])
        #expect(realm.objects(Dog.self).where { $0.owner == stranger }.isEmpty)
        let ann = try #require(realm.object(ofType: Person.self, forPrimaryKey: 1))
        #expect(realm.objects(Dog.self).filter("owner == %@", ann).map(\.id) == [1])
    }

    @Test("an AnyRealmValue argument is the value it holds")
    func anyRealmValue() throws {
        let realm = try Self.realm()
        let all = realm.objects(AllTypes.self)
        #expect(all.filter("int == %@", AnyRealmValue.int(42)).count == 1)
        #expect(all.filter("int == %@", AnyRealmValue.int(41)).isEmpty)
        #expect(all.filter("%K == %@", "any", AnyRealmValue.string("mixed")).count == 1)
        #expect(all.filter("optInt == %@", AnyRealmValue.none).count == 1)
        #expect(all.filter("int IN %@", [AnyRealmValue.int(1), AnyRealmValue.int(42)]).count == 1)
        let ann = try #require(realm.object(ofType: Person.self, forPrimaryKey: 1))
        #expect(realm.objects(Dog.self).filter("owner == %@", AnyRealmValue.object(ann)).map(\.id) == [1])
    }
}
