import Foundation
import Shoal
import ShoalTestSupport
import Testing

/// Uses only the public API, with a plain `import Shoal`: what a user's code
/// can reach. (The other suites use `@testable import`, which would hide a
/// declaration that is public in name only.)
@Suite struct PublicAPITests {
    static func dogs() throws -> (Realm, Results<Dog>) {
        let realm = try makeRealm()
        try realm.write {
            let ann = realm.create(Person.self, value: ["id": 1, "name": "Ann"])
            for i in 0..<12 {
                realm.create(Dog.self, value: ["id": i, "name": "dog\(i % 5)", "age": i % 4, "breed": i % 2 == 0 ? "lab" : "pug", "owner": i < 6 ? ann as Any : NSNull()])
            }
        }
        return (realm, realm.objects(Dog.self))
    }

    @Test("filter with a format string, a parsed predicate, a typed query and #Predicate")
    func filtering() throws {
        let (_, dogs) = try Self.dogs()
        let expected = dogs.filter { $0.age == 2 }.map(\.id)
        #expect(dogs.filter("age == %@", 2).map(\.id) == expected)
        #expect(dogs.filter(try PredicateFormat("age == 2")).map(\.id) == expected)
        #expect(dogs.where { $0.age == 2 }.map(\.id) == expected)
        #expect(dogs.filter(#Predicate<Dog> { $0.age == 2 }).map(\.id) == expected)
        #expect(dogs.filter("owner.name == 'Ann' AND breed == 'lab'").map(\.id) == [0, 2, 4])
        #expect(dogs.index(matching: "id == 5") == 5)
        #expect(throws: ShoalError.self) { try PredicateFormat("nmae == 'x'").validate(for: Dog.self) }
    }

    @Test("sorting, distinct, aggregates and key-value coding")
    func orderingAndAggregates() throws {
        let (realm, dogs) = try Self.dogs()
        #expect(dogs.sorted(byKeyPath: "age", ascending: false).first?.age == 3)
        #expect(dogs.sorted(by: \.name).first?.name == "dog0")
        #expect(dogs.sorted(by: [SortDescriptor(keyPath: "age"), SortDescriptor(keyPath: "id", ascending: false)]).first?.id == 8)
        #expect(dogs.distinct(by: ["age"]).count == 4)
        #expect(dogs.max(ofProperty: "age") as Int? == 3)
        #expect(dogs.min(of: \.age) == 0)
        #expect(dogs.sum(of: \.age) == dogs.reduce(0) { $0 + $1.age })
        #expect(dogs.average(ofProperty: "age") as Double? == Double(dogs.reduce(0) { $0 + $1.age }) / 12)
        #expect((dogs.value(forKey: "id") as [Any?]).count == 12)
        #expect(dogs.value(forKeyPath: "@max.age") as? Int == 3)
        let person = try #require(realm.objects(Person.self).first)
        #expect(person.ownedDogs.filter("age > 1").count == person.ownedDogs.filter { $0.age > 1 }.count)
        try realm.write { dogs.filter("age == 0").setValue("zero", forKey: "name") }
        #expect(dogs.filter("name == 'zero'").count == 3)
        let all = try realm.write { realm.create(AllTypes.self, value: ["id": ObjectId.generate(), "ints": [3, 1, 2]]) }
        #expect(all.ints.min() == 1 && all.ints.max() == 3 && all.ints.sum() == 6)
        #expect(Array(all.ints.sorted()) == [1, 2, 3])
        #expect(AnyRealmCollection(dogs).filter("age == 1").count == 3)
    }

    @Test("a map's values filter, sort, aggregate and answer key-value coding")
    func mapValues() throws {
        let realm = try makeRealm(types: [Maps.self, Dog.self, Person.self])
        let maps = try realm.write {
            let maps = realm.create(Maps.self, value: ["id": 1])
            for (key, age) in [("rex", 3), ("fido", 1), ("bella", 5)] {
                maps.dogs[key] = realm.create(Dog.self, value: ["id": age, "name": key, "age": age])
            }
            maps.dogs.updateValue(nil, forKey: "none")
            for (key, value) in [("a", 2), ("b", 1)] { maps.ints[key] = value }
            return maps
        }
        let dogs = maps.dogs
        #expect(dogs.filter(try PredicateFormat("age > 2")).map { $0?.id } == [3, 5])
        #expect(dogs.where { $0.age > 2 }.count == 2)
        #expect(dogs.filter(#Predicate<Dog?> { $0?.name == "fido" }).first??.id == 1)
        #expect(dogs.sorted(byKeyPath: "age", ascending: false).first??.id == 5)
        #expect(dogs.sorted(by: [SortDescriptor(keyPath: "name")]).first??.name == "bella")
        #expect(dogs.sorted(by: \.age).map { $0?.id } == [1, 3, 5])
        #expect(Array(maps.ints.sorted(ascending: false)) == [2, 1])
        #expect(dogs.min(ofProperty: "age") as Int? == 1)
        #expect(dogs.max(ofProperty: "age") as Int? == 5)
        #expect(dogs.sum(ofProperty: "age") as Int == 9)
        #expect(dogs.average(ofProperty: "age") as Double? == 3)
        #expect(dogs.min(of: \.age) == 1 && dogs.max(of: \.age) == 5 && dogs.sum(of: \.age) == 9)
        #expect(dogs.average(of: \.age) == 3)
        #expect(maps.ints.min() == 1 && maps.ints.max() == 2 && maps.ints.sum() == 3 && maps.ints.average() == 1.5)
        #expect((dogs.value(forKey: "rex") as? Dog)?.age == 3)
        #expect(dogs.value(forKeyPath: "rex.name") as? String == "rex")
        #expect(dogs.value(forKeyPath: "@count") as? Int == 4)
        try realm.write { maps.ints.setValue(7, forKey: "c") }
        #expect(maps.ints["c"] == 7)
    }

    @Test("a file-backed Realm with a durability policy, compaction and deleteFiles")
    func files() throws {
        var config = Realm.Configuration(fileURL: temporaryDatabaseURL())
        config.objectTypes = [Person.self, Dog.self]
        config.durability = .relaxed(maxDelay: .milliseconds(10))
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "Rex"]) }
            try realm.compact()
            try realm.sync()
        }
        #expect(try Realm(configuration: config).objects(Dog.self).first?.name == "Rex")
        #expect(try Realm.deleteFiles(for: config))
    }
}
