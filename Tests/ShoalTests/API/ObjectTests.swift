import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

@Suite struct ObjectTests {
    @Test("without confirmed wrapper offsets, accessors and added objects find their properties through their boxes")
    func wrappersWithoutOffsetsUseTheirBoxes() throws {
        let realm = try makeRealm(types: [WrapperProbe.self])
        try realm.write { realm.add(WrapperProbe(value: ["id": 1, "name": "Rex", "count": 3])) }
        let instance = realm.instance
        let stored = try #require(realm.object(ofType: WrapperProbe.self, forPrimaryKey: 1)?.ref)
        let accessor = try #require(RealmInstance.accessor(of: WrapperProbe.self, stored, offsets: nil) as? WrapperProbe)
        #expect(ClassRegistry.unmanagedBoxes(of: accessor).map { $0?.property } == [0, 1, 2])
        #expect(accessor.id == 1 && accessor.name == "Rex" && accessor.count == 3)
        try realm.write { accessor.name = "Max" }
        #expect(realm.object(ofType: WrapperProbe.self, forPrimaryKey: 1)?.name == "Max")
        // An unmanaged object made managed the same way.
        let added = WrapperProbe()
        try realm.write {
            added.id = 2; added.count = 7
            added.ref = ObjectRef(realm: instance, table: stored.table,
                key: try #require(realm.object(ofType: WrapperProbe.self, forPrimaryKey: 1)?.ref?.key), generation: instance.generation)
            ClassRegistry.markManaged(added, offsets: nil)
            #expect(added.name == "Max" && added.count == 3)
            added.count = 9
        }
        #expect(realm.object(ofType: WrapperProbe.self, forPrimaryKey: 1)?.count == 9)
    }

    @Test("on many threads at once, every property of two classes reads its own value")
    func propertiesAcrossThreads() throws {
        let realm = try makeRealm()
        try realm.write {
            for i in 0..<20 {
                realm.add(AllTypes(value: ["int": i, "string": "s\(i)", "optString": i % 2 == 0 ? nil : "o\(i)", "double": Double(i) / 4, "optInt": i]))
                realm.add(Dog(value: ["id": i, "name": "dog \(i)", "age": i % 7]))
            }
        }
        let frozen = realm.freeze()
        // Frozen results are Sendable; each thread makes its own accessors.
        let all = frozen.objects(AllTypes.self).sorted(byKeyPath: "int")
        let dogs = frozen.objects(Dog.self).sorted(byKeyPath: "id")
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<200 {
                let i = (thread * 7 + round) % 20
                let a = all[i], d = dogs[i]
                let ok = a.int == i && d.name == "dog \(i)" && a.string == "s\(i)" && d.age == i % 7
                    && a.optString == (i % 2 == 0 ? nil : "o\(i)") && d.id == i && a.double == Double(i) / 4 && a.optInt == i
                if !ok { failures.withLock { $0 += 1 } }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        // And in a write, the string comes from the transaction's state.
        try realm.write {
            let dog = try #require(realm.object(ofType: Dog.self, forPrimaryKey: 3))
            dog.name = "renamed"
            #expect(dog.name == "renamed")
        }
    }

    @Test("an unmanaged object holds its own values until added, then reads and writes go to the Realm")
    func unmanagedThenManaged() throws {
        let realm = try makeRealm()
        let dog = Dog()
        dog.id = 1
        dog.name = "Rex"
        dog.tags.insert("good")
        #expect(dog.realm == nil)
        #expect(dog.name == "Rex")
        try realm.write { realm.add(dog) }
        #expect(dog.realm != nil)
        #expect(dog.tags.contains("good"))
        try realm.write { dog.name = "Max" }
        #expect(realm.objects(Dog.self)[0].name == "Max")
    }

    @Test("init(value:) from a dictionary, an array in property order, and another object")
    func initValue() throws {
        let fromDictionary = Dog(value: ["id": 1, "name": "Rex", "age": 3, "tags": ["a", "b"], "scores": ["x": 1.5]])
        #expect(fromDictionary.id == 1)
        #expect(fromDictionary.name == "Rex")
        #expect(Array(fromDictionary.tags) == ["a", "b"])
        #expect(fromDictionary.scores["x"] == 1.5)
        let person = Person(value: [7, "Ann", "Paris", [["id": 2, "name": "Fido"]]])
        #expect(person.name == "Ann")
        #expect(person.dogs.count == 1)
        #expect(person.dogs[0].name == "Fido")
        let copy = Dog(value: fromDictionary)
        #expect(copy.name == "Rex")
        #expect(copy.age == 3)
        let realm = try makeRealm()
        try realm.write { realm.add(person) }
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 2)?.owners.first?.name == "Ann")
        let bob = try realm.write { realm.create(Person.self, value: [8, "Bob", "Oslo", [["id": 3]]]) }
        #expect(bob.city == "Oslo")
        #expect(bob.dogs.map(\.id) == [3])
        let clone = try realm.write { realm.create(Dog.self, value: Dog(value: ["id": 4, "name": "Clone", "age": 2])) }
        #expect(clone.name == "Clone" && clone.age == 2)
    }

    @Test("every property type round-trips through a managed object", arguments: [false, true])
    func allTypesRoundTrip(viaCreate: Bool) throws {
        let realm = try makeRealm()
        let oid = ObjectId.generate()
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let uuid = UUID()
        let values: [String: Any] = [
            "id": oid, "bool": true, "int": 42, "int8": Int8(-8), "int16": Int16(1600), "int32": Int32(-32_000),
            "int64": Int64.max, "float": Float(1.5), "double": 2.25, "string": "héllo", "data": Data([1, 2, 3]),
            "date": date, "uuid": uuid, "decimal": Decimal128(stringLiteral: "12.345"), "objectId": oid,
            "any": AnyRealmValue.string("mixed"), "size": Size.large, "mood": Mood.excited, "optBool": false,
            "optInt": 7, "optInt8": Int8(3), "optFloat": Float(0.5), "optDouble": 9.75, "optString": "opt",
            "optData": Data([9]), "optDate": date, "optUUID": uuid, "optDecimal": Decimal128(5), "optObjectId": oid,
            "optSize": Size.small, "link": ["id": 1, "name": "Rex"], "ints": [1, 2, 3], "optStrings": ["a", nil, "c"] as [String?],
            "dogs": [["id": 2]], "dates": [date], "dogSet": [["id": 3]], "doubles": ["pi": 3.14], "dogMap": ["d": ["id": 4]],
            "anys": [AnyRealmValue.int(1), AnyRealmValue.bool(true), AnyRealmValue.none],
        ]
        let object = try realm.write {
            viaCreate ? realm.create(AllTypes.self, value: values) : { let o = AllTypes(value: values); realm.add(o); return o }()
        }
        let read = try #require(realm.object(ofType: AllTypes.self, forPrimaryKey: oid))
        for o in [object, read] {
            #expect(o.bool && o.int == 42 && o.int8 == -8 && o.int16 == 1600 && o.int32 == -32_000 && o.int64 == .max)
            #expect(o.float == 1.5 && o.double == 2.25 && o.string == "héllo" && o.data == Data([1, 2, 3]))
            #expect(o.date == date && o.uuid == uuid && o.decimal == Decimal128(stringLiteral: "12.345") && o.objectId == oid)
            #expect(o.any == .string("mixed") && o.size == .large && o.mood == .excited)
            #expect(o.optBool == false && o.optInt == 7 && o.optInt8 == 3 && o.optFloat == 0.5 && o.optDouble == 9.75)
            #expect(o.optString == "opt" && o.optData == Data([9]) && o.optDate == date && o.optUUID == uuid)
            #expect(o.optDecimal == Decimal128(5) && o.optObjectId == oid && o.optSize == .small)
            #expect(o.link?.name == "Rex")
            #expect(Array(o.ints) == [1, 2, 3])
            #expect(Array(o.optStrings) == ["a", nil, "c"])
            #expect(o.dogs.map(\.id) == [2])
            #expect(Array(o.dates) == [date])
            #expect(o.dogSet.map(\.id) == [3])
            #expect(o.doubles["pi"] == 3.14)
            #expect(o.dogMap["d"]??.id == 4)
            #expect(Array(o.anys) == [.int(1), .bool(true), .none])
        }
        try realm.write {
            read.optInt = nil
            read.optString = nil
            read.link = nil
            read.any = .object(realm.object(ofType: Dog.self, forPrimaryKey: 2)!)
        }
        #expect(read.optInt == nil && read.optString == nil && read.link == nil)
        #expect(read.any.object(Dog.self)?.id == 2)
    }

    @Test("unset properties take their type's default; declared defaults are used by create")
    func defaults() throws {
        let realm = try makeRealm()
        let o = try realm.write { realm.create(AllTypes.self, value: ["id": ObjectId.generate()]) }
        #expect(o.int == 0 && o.string == "" && !o.bool && o.optInt == nil && o.size == .small && o.any == .none)
        let dog = try realm.write { realm.create(Dog.self, value: ["id": 1]) }
        #expect(dog.name == "")
    }

    @Test("add with update policies: .error inserts, .modified and .all update the existing object by primary key")
    func updatePolicies() throws {
        let realm = try makeRealm()
        try realm.write { realm.add(Dog(value: ["id": 1, "name": "Rex", "age": 3])) }
        try realm.write { realm.add(Dog(value: ["id": 1, "name": "Max", "age": 3]), update: .modified) }
        #expect(realm.objects(Dog.self).count == 1)
        #expect(realm.objects(Dog.self)[0].name == "Max")
        try realm.write { realm.create(Dog.self, value: ["id": 1, "age": 9], update: .all) }
        #expect(realm.objects(Dog.self)[0].age == 9)
        #expect(realm.objects(Dog.self)[0].name == "Max")
        let updated = try realm.write { realm.create(Dog.self, value: ["id": 2, "name": "New"], update: .modified) }
        #expect(updated.name == "New")
        #expect(realm.objects(Dog.self).count == 2)
    }

    @Test("adding an object that links to unmanaged objects adds them too, including cycles")
    func addGraph() throws {
        let realm = try makeRealm()
        let ann = Person(value: ["id": 1, "name": "Ann"])
        let rex = Dog(value: ["id": 1, "name": "Rex"])
        rex.owner = ann
        ann.dogs.append(rex)
        try realm.write { realm.add(rex) }
        #expect(realm.objects(Person.self).count == 1)
        #expect(ann.realm != nil)
        #expect(rex.owner?.dogs.first?.name == "Rex")
        #expect(rex.owners.map(\.name) == ["Ann"])
        try realm.write { realm.add(rex) }
        #expect(realm.objects(Dog.self).count == 1)
    }

    @Test("isInvalidated after delete; thaw of a deleted object is nil; freeze and thaw of a live one")
    func invalidationFreezeThaw() throws {
        let realm = try makeRealm()
        let dog = try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "Rex"]) }
        let frozen = dog.freeze()
        #expect(frozen.isFrozen && !dog.isFrozen)
        #expect(frozen.freeze() === frozen)
        try realm.write { dog.name = "Max" }
        #expect(frozen.name == "Rex")
        #expect(frozen.thaw()?.name == "Max")
        #expect(dog.thaw() === dog)
        try realm.write { realm.delete(dog) }
        #expect(dog.isInvalidated)
        #expect(!frozen.isInvalidated)
        #expect(frozen.name == "Rex")
        #expect(frozen.thaw() == nil)
        #expect(dog.description == "[invalid object]")
    }

    @Test("subscript by property name reads and writes managed and unmanaged objects")
    func subscriptByName() throws {
        let realm = try makeRealm()
        let dog = Dog()
        dog["name"] = "Rex"
        dog["id"] = 5
        #expect(dog["name"] as? String == "Rex")
        #expect(dog.name == "Rex")
        try realm.write { realm.add(dog) }
        try realm.write {
            dog["age"] = 4
            dog["tags"] = ["x", "y"]
        }
        #expect(dog.age == 4)
        #expect(dog["age"] as? Int == 4)
        #expect(Array(dog.tags) == ["x", "y"])
        #expect(dog["owner"] == nil)
        try realm.write { dog["owner"] = ["id": 9, "name": "Ann"] }
        #expect((dog["owner"] as? Person)?.name == "Ann")
    }

    @Test("objectSchema, isSameObject(as:), equality and description")
    func identity() throws {
        let realm = try makeRealm()
        let dog = try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "Rex"]) }
        let again = realm.object(ofType: Dog.self, forPrimaryKey: 1)!
        #expect(dog !== again)
        #expect(dog.isSameObject(as: again))
        #expect(dog == again)
        #expect(!dog.isSameObject(as: Dog()))
        #expect(dog.objectSchema.className == "Dog")
        #expect(dog.objectSchema.primaryKeyProperty?.name == "id")
        #expect(dog.objectSchema["age"]?.isIndexed == true)
        #expect(dog.description.contains("\tname = Rex;\n"))
    }

    @Test("a stored enum value with no case (a hostile file's) is described, not trapped on (found by the database fuzz target)")
    func describeInvalidEnum() throws {
        let realm = try makeRealm()
        let object = try realm.write { realm.create(AllTypes.self, value: ["id": ObjectId.generate()]) }
        let ref = try #require(object.ref)
        let mood = try #require(object.objectSchema.indexByName["mood"])
        try realm.write { try realm.instance.transaction!.set(ref.table, ref.key, mood, .string("sad")) }
        #expect(object.description.contains("\tmood = sad;\n"))
        // An unmanaged object may hold a NaN date, which Foundation cannot format.
        let unmanaged = AllTypes()
        unmanaged.date = Date(timeIntervalSince1970: .nan)
        #expect(unmanaged.description.contains("nan seconds since 1970"))
    }

    @Test("deleting an object nullifies to-one links and removes it from every list, set and map")
    func deleteUnlinks() throws {
        let realm = try makeRealm()
        try realm.write {
            let rex = realm.create(Dog.self, value: ["id": 1])
            let ann = realm.create(Person.self, value: ["id": 1, "dogs": [rex, rex]])
            realm.create(Dog.self, value: ["id": 2, "owner": ann])
            realm.create(AllTypes.self, value: ["id": ObjectId.generate(), "link": rex, "dogSet": [rex], "dogMap": ["r": rex], "any": AnyRealmValue.object(rex)])
        }
        let rex = realm.object(ofType: Dog.self, forPrimaryKey: 1)!
        #expect(rex.owners.count == 2)
        let all = realm.objects(AllTypes.self)[0]
        try realm.write { realm.delete(rex) }
        #expect(realm.objects(Person.self)[0].dogs.isEmpty)
        #expect(all.link == nil)
        #expect(all.dogSet.isEmpty)
        #expect(all.dogMap.isEmpty)
        #expect(all.any == .none)
        try realm.write { realm.delete(realm.objects(Person.self)[0]) }
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 2)?.owner == nil)
    }
}

/// Used only by the key path cache test.
final class WrapperProbe: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var count: Int
}
