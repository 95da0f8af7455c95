import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

@Suite struct MapKVCTests {
    @Test("value(forKey:) reads the entry for a key, as Realm's Map does, not a property of every value")
    func valueForKey() throws {
        let (_, maps) = try MapFixture.realm()
        #expect((maps.dogs.value(forKey: "fido") as? Dog)?.id == 2)
        #expect(maps.dogs.value(forKey: "none") == nil)
        #expect(maps.dogs.value(forKey: "absent") == nil)
        #expect(maps.ints.value(forKey: "c") as? Int == 2)
        #expect(maps.optDoubles.value(forKey: "x") as? Double == 2.5)
    }

    @Test("setValue(_:forKey:) sets an entry, converting the value, and nil removes it; managed and unmanaged")
    func setValue() throws {
        let (realm, maps) = try MapFixture.realm()
        try realm.write {
            maps.ints.setValue(7, forKey: "a")
            maps.ints.setValue(Int64(8), forKey: "new")
            maps.ints.setValue(nil, forKey: "b")
            maps.optDoubles.setValue(NSNull(), forKey: "x")
            maps.dogs.setValue(["id": 20, "name": "Pup"], forKey: "pup")
        }
        #expect(maps.ints.keys == ["a", "c", "new"])
        #expect(maps.ints.values == [7, 2, 8])
        #expect(maps.optDoubles.keys == ["n", "y"])
        #expect(maps.dogs["pup"]??.name == "Pup")
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 20) != nil)
        let unmanaged = Map<String, Double>()
        unmanaged.setValue(3, forKey: "three")
        #expect(unmanaged["three"] == 3.0)
        unmanaged.setValue(nil, forKey: "three")
        #expect(unmanaged.isEmpty)
    }

    @Test("value(forKeyPath:) follows an entry's object, or runs a collection operator over the values")
    func valueForKeyPath() throws {
        let (_, maps) = try MapFixture.realm()
        #expect(maps.dogs.value(forKeyPath: "rex.name") as? String == "Rex")
        #expect(maps.dogs.value(forKeyPath: "rex.owner.name") as? String == "Ann")
        #expect(maps.dogs.value(forKeyPath: "none.name") == nil)
        #expect(maps.dogs.value(forKeyPath: "@count") as? Int == 5)
        #expect(maps.dogs.value(forKeyPath: "@max.age") as? Int == 5)
        #expect(maps.dogs.value(forKeyPath: "@sum.age") as? Int == 10)
        #expect(maps.dogs.value(forKeyPath: "@avg.age") as? Double == 2.5)
        #expect(maps.ints.value(forKeyPath: "@min.self") as? Int == 1)
        #expect(maps.optDoubles.value(forKeyPath: "@sum.self") as? Double == 1.5)
        #expect(Map<String, Int>().value(forKeyPath: "@sum.self") as? Int == 0)
    }

    @Test("setValue(_:forKey:) with a value of the wrong type stops with Realm's message")
    func setValueWrongType() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (realm, maps) = try MapFixture.realm()
            try realm.write { maps.ints.setValue("seven", forKey: "a") }
        }
        #expect(ErrorTests.stderr(result).contains("Invalid value 'seven' of type 'String' for 'int' property 'Maps.ints'."))
    }

    @Test("setValue(_:forKey:) on a managed map outside a write transaction stops with Realm's message")
    func setValueOutsideWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (_, maps) = try MapFixture.realm()
            maps.ints.setValue(1, forKey: "a")
        }
        #expect(ErrorTests.stderr(result).contains("Attempting to modify object outside of a write transaction"))
    }
}
