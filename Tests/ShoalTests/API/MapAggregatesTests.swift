import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

@Suite struct MapAggregatesTests {
    @Test("min, max, sum and average of a property over a map of objects ignore its nil values")
    func objectProperties() throws {
        let (_, maps) = try MapFixture.realm()
        #expect(maps.dogs.min(ofProperty: "age") as Int? == 1)
        #expect(maps.dogs.max(ofProperty: "age") as Int? == 5)
        #expect(maps.dogs.sum(ofProperty: "age") as Int == 10)
        #expect(maps.dogs.average(ofProperty: "age") as Double? == 2.5)
        #expect(maps.dogs.min(of: \.age) == 1)
        #expect(maps.dogs.max(of: \.age) == 5)
        #expect(maps.dogs.sum(of: \.age) == 10)
        #expect(maps.dogs.average(of: \.age) == 2)
        #expect(maps.dogs.average(ofProperty: "age") as Decimal128? == Decimal128(2.5))
    }

    @Test("min, max, sum and average of a map of values; nil values of optionals are ignored")
    func values() throws {
        let (_, maps) = try MapFixture.realm()
        #expect(maps.ints.min() == 1)
        #expect(maps.ints.max() == 3)
        #expect(maps.ints.sum() == 6)
        #expect(maps.ints.average() == 2.0)
        #expect(maps.optDoubles.min() == -1)
        #expect(maps.optDoubles.max() == 2.5)
        #expect(maps.optDoubles.sum() == 1.5)
        #expect(maps.optDoubles.average() == 0.75)
        #expect(maps.dates.min() == Date(timeIntervalSince1970: 10))
        #expect(maps.dates.max() == Date(timeIntervalSince1970: 20))
    }

    @Test("an empty map: nil for min, max and average, 0 for sum")
    func empty() throws {
        let (realm, maps) = try MapFixture.realm()
        try realm.write {
            maps.dogs.removeAll()
            maps.ints.removeAll()
            maps.optDoubles.removeAll()
            maps.optDoubles.updateValue(nil, forKey: "only nil")
        }
        #expect(maps.dogs.min(of: \.age) == nil)
        #expect(maps.dogs.max(ofProperty: "age") as Int? == nil)
        #expect(maps.dogs.sum(of: \.age) == 0)
        #expect(maps.dogs.average(of: \.age) == nil)
        #expect(maps.ints.min() == nil)
        #expect(maps.ints.sum() == 0)
        #expect(maps.ints.average() as Double? == nil)
        #expect(maps.optDoubles.max() == nil)
        #expect(maps.optDoubles.sum() == 0)
        #expect(maps.optDoubles.average() as Double? == nil)
    }

    @Test("aggregates follow writes and read a frozen map at its version")
    func liveAndFrozen() throws {
        let (realm, maps) = try MapFixture.realm()
        let frozen = maps.dogs.freeze()
        try realm.write {
            maps.dogs["old"] = realm.create(Dog.self, value: ["id": 9, "age": 20])
            maps.ints["d"] = 10
        }
        #expect(maps.dogs.max(of: \.age) == 20)
        #expect(maps.ints.sum() == 16)
        #expect(frozen.max(of: \.age) == 5)
        #expect(frozen.sum(ofProperty: "age") as Int == 10)
    }

    @Test("aggregates work on unmanaged maps, as in Realm")
    func unmanaged() {
        let ints = Map<String, Int>()
        for (key, value) in [("a", 4), ("b", 2)] { ints[key] = value }
        #expect(ints.min() == 2 && ints.max() == 4 && ints.sum() == 6 && ints.average() == 3.0)
        let optionals = Map<String, Double?>()
        optionals.updateValue(nil, forKey: "n")
        optionals.updateValue(3, forKey: "x")
        #expect(optionals.sum() == 3)
        #expect(optionals.average() == 3.0)
        let dogs = Map<String, Dog?>()
        dogs["a"] = Dog(value: ["age": 4])
        dogs.updateValue(nil, forKey: "none")
        dogs["b"] = Dog(value: ["age": 8])
        #expect(dogs.min(of: \.age) == 4)
        #expect(dogs.sum(ofProperty: "age") as Int == 12)
        #expect(dogs.average(of: \.age) == 6)
        #expect(Map<String, Dog?>().sum(of: \.age) == 0)
    }

    @Test("an aggregate of a property that is not a number stops with Realm's message naming it")
    func unsupportedType() async {
        let managed = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (_, maps) = try MapFixture.realm()
            _ = maps.dogs.sum(ofProperty: "name") as Int
        }
        #expect(ErrorTests.stderr(managed).contains("Operation 'sum' not supported for string property 'Dog.name'"))
        let unmanaged = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dogs = Map<String, Dog?>()
            dogs["a"] = Dog()
            _ = dogs.average(ofProperty: "name") as Double?
        }
        #expect(ErrorTests.stderr(unmanaged).contains("Operation 'average' not supported for string property 'Dog.name'"))
    }

    @Test("an aggregate of a property of a map of values stops: only self applies")
    func propertyOfValues() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (_, maps) = try MapFixture.realm()
            _ = maps.ints.max(ofProperty: "age") as Int?
        }
        #expect(ErrorTests.stderr(result).contains("Invalid property name 'age': the elements of this Map are not objects."))
    }
}
