import Foundation
import Shoal
import ShoalTestSupport
import Testing

/// `dynamicObjects(_:)`, `DynamicObject`, `dynamicObject(ofType:forPrimaryKey:)`,
/// `dynamicCreate` and `dynamicList`, as Realm's dynamic API reads objects by name.
@Suite struct DynamicObjectTests {
    static func realm() throws -> Realm {
        let realm = try makeRealm()
        try realm.write {
            let ann = realm.create(Person.self, value: ["id": 1, "name": "Ann"])
            realm.create(Dog.self, value: ["id": 1, "name": "Rex", "age": 3, "owner": ann, "tags": ["a"]] as [String: Any])
            realm.create(Dog.self, value: ["id": 2, "name": "Fido", "age": 12])
            ann.dogs.append(realm.object(ofType: Dog.self, forPrimaryKey: 1)!)
        }
        return realm
    }

    @Test("dynamicObjects lists, filters and sorts a class by name; properties read by name and by member")
    func readsByName() throws {
        let realm = try Self.realm()
        let dogs = realm.dynamicObjects("Dog")
        #expect(dogs.count == 2)
        #expect(dogs.map { $0["name"] as? String } == ["Rex", "Fido"])
        #expect(dogs.filter("age > %@", 10).map { $0.name as? String } == ["Fido"])
        #expect(dogs.sorted(byKeyPath: "age", ascending: false).map { $0.id as? Int } == [2, 1])
        let rex = try #require(dogs.first)
        #expect(rex.objectSchema.className == "Dog" && rex.realm != nil)
        let owner = try #require(rex.owner as? DynamicObject)
        #expect(owner.name as? String == "Ann" && owner.objectSchema.className == "Person")
        #expect(rex.tags as? [Any?] != nil && (rex.tags as? [Any?])?.first as? String == "a")
        #expect((rex.owners as? [DynamicObject])?.map { $0["id"] as? Int } == [1])
        #expect(dogs[1].owner == nil)
        #expect(rex.isSameObject(as: realm.object(ofType: Dog.self, forPrimaryKey: 1)))
    }

    @Test("dynamicObject(ofType:forPrimaryKey:), dynamicCreate, writes by name and dynamicList")
    func createsAndWrites() throws {
        let realm = try Self.realm()
        let rex = try #require(realm.dynamicObject(ofType: "Dog", forPrimaryKey: 1))
        #expect(realm.dynamicObject(ofType: "Dog", forPrimaryKey: 7) == nil)
        try realm.write {
            rex.name = "Rex II"
            rex["age"] = 4
            realm.dynamicCreate("Dog", value: ["id": 3, "name": "Spot"])
        }
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 1)?.name == "Rex II" && rex.age as? Int == 4)
        #expect(realm.objects(Dog.self).count == 3)
        let ann = try #require(realm.dynamicObject(ofType: "Person", forPrimaryKey: 1))
        let list = ann.dynamicList("dogs")
        #expect(list.map { $0.name as? String } == ["Rex II"])
        try realm.write { list.append(realm.dynamicObject(ofType: "Dog", forPrimaryKey: 3)!) }
        #expect(realm.object(ofType: Person.self, forPrimaryKey: 1)?.dogs.map(\.id) == [1, 3])
        let frozen = rex.freeze()
        #expect(frozen.isFrozen && frozen.name as? String == "Rex II")
    }
}
