import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// A Realm holding one `Maps` object whose maps the map tests read.
///
/// `dogs`, in entry order: rex (id 1, age 3, owner Ann), none (nil),
/// fido (2, age 1), bella (3, age 5), max (4, age 1, owner Ann).
/// `ints`: b 3, a 1, c 2. `optDoubles`: x 2.5, n nil, y -1.
/// `dates`: t 10 s, u 20 s after 1970. `strings`: s "x".
enum MapFixture {
    static func realm() throws -> (Realm, Maps) {
        let realm = try makeRealm(types: [Maps.self, Dog.self, Person.self])
        let maps = try realm.write {
            let ann = realm.create(Person.self, value: ["id": 1, "name": "Ann"])
            let maps = realm.create(Maps.self, value: ["id": 1])
            let rows: [(String, Int, String, Int, Person?)] = [("rex", 1, "Rex", 3, ann), ("fido", 2, "Fido", 1, nil), ("bella", 3, "Bella", 5, nil), ("max", 4, "Max", 1, ann)]
            for (key, id, name, age, owner) in rows {
                maps.dogs[key] = realm.create(Dog.self, value: ["id": id, "name": name, "age": age, "owner": owner as Any])
                if key == "rex" { maps.dogs.updateValue(nil, forKey: "none") }
            }
            for (key, value) in [("b", 3), ("a", 1), ("c", 2)] { maps.ints[key] = value }
            for (key, value) in [("x", 2.5), ("n", nil), ("y", -1)] as [(String, Double?)] { maps.optDoubles.updateValue(value, forKey: key) }
            maps.dates["t"] = Date(timeIntervalSince1970: 10)
            maps.dates["u"] = Date(timeIntervalSince1970: 20)
            maps.strings["s"] = "x"
            return maps
        }
        return (realm, maps)
    }
}

@Suite struct MapQueryTests {
    @Test("the fixture map of dogs holds a nil value between its objects")
    func fixture() throws {
        let (_, maps) = try MapFixture.realm()
        #expect(maps.dogs.keys == ["rex", "none", "fido", "bella", "max"])
        #expect(maps.dogs.values.map { $0?.id } == [1, nil, 2, 3, 4])
    }

    @Test("filter with a parsed predicate, a typed query and #Predicate gives the matching values in entry order")
    func filters() throws {
        let (_, maps) = try MapFixture.realm()
        #expect(maps.dogs.filter(try PredicateFormat("age > %@", 2)).map { $0?.id } == [1, 3])
        #expect(maps.dogs.filter(try PredicateFormat("owner.name == 'Ann'")).map { $0?.id } == [1, 4])
        #expect(maps.dogs.where { $0.age < 4 && $0.name != "Max" }.map { $0?.id } == [1, 2])
        #expect(maps.dogs.filter(#Predicate<Dog?> { $0?.name == "Fido" }).map { $0?.id } == [2])
        #expect(maps.dogs.filter(#Predicate<Dog?> { $0!.age >= 3 }).map { $0?.id } == [1, 3])
    }

    @Test("filters over a map of objects skip its nil values, as Realm's do")
    func filtersSkipNil() throws {
        let (_, maps) = try MapFixture.realm()
        #expect(maps.dogs.count == 5)
        #expect(maps.dogs.filter(try PredicateFormat("TRUEPREDICATE")).count == 4)
        #expect(maps.dogs.where { $0.owner == nil }.map { $0?.id } == [2, 3])
        #expect(!maps.dogs.filter(try PredicateFormat("TRUEPREDICATE")).contains { $0 == nil })
    }

    @Test("sorted by a key path, by descriptors and by a typed key path; nil object values are skipped")
    func sortedObjects() throws {
        let (_, maps) = try MapFixture.realm()
        #expect(maps.dogs.sorted(byKeyPath: "age").map { $0?.id } == [2, 4, 1, 3])
        #expect(maps.dogs.sorted(byKeyPath: "age", ascending: false).map { $0?.id } == [3, 1, 2, 4])
        #expect(maps.dogs.sorted(by: [SortDescriptor(keyPath: "age"), SortDescriptor(keyPath: "name", ascending: false)]).map { $0?.id } == [4, 2, 1, 3])
        #expect(maps.dogs.sorted(by: \.name).map { $0?.id } == [3, 2, 4, 1])
        #expect(maps.dogs.sorted(by: \.age, ascending: false).map { $0?.id } == [3, 1, 2, 4])
        #expect(maps.dogs.sorted(byKeyPath: "owner.name").map { $0?.id } == [1, 4, 2, 3])
    }

    @Test("a map of values sorts by itself, nil first when ascending, last when descending")
    func sortedValues() throws {
        let (_, maps) = try MapFixture.realm()
        #expect(Array(maps.ints.sorted()) == [1, 2, 3])
        #expect(Array(maps.ints.sorted(ascending: false)) == [3, 2, 1])
        #expect(Array(maps.ints.sorted(byKeyPath: "self", ascending: false)) == [3, 2, 1])
        #expect(Array(maps.optDoubles.sorted()) == [nil, -1, 2.5])
        #expect(Array(maps.optDoubles.sorted(ascending: false)) == [2.5, -1, nil])
    }

    @Test("results from a map filter, sort and distinct further, like any results")
    func chaining() throws {
        let (_, maps) = try MapFixture.realm()
        #expect(maps.dogs.sorted(byKeyPath: "age").distinct(by: ["age"]).map { $0?.id } == [2, 1, 3])
        #expect(maps.dogs.where { $0.age < 5 }.sorted(byKeyPath: "name").map { $0?.id } == [2, 4, 1])
        #expect(maps.dogs.sorted(byKeyPath: "name").filter("age == 1").map { $0?.id } == [2, 4])
        #expect(maps.ints.sorted().distinct(by: ["self"]).count == 3)
    }

    @Test("results from a map are live: they follow writes to the map and to its objects")
    func live() throws {
        let (realm, maps) = try MapFixture.realm()
        let old = maps.dogs.where { $0.age > 2 }
        let byAge = maps.dogs.sorted(byKeyPath: "age")
        let values = maps.ints.sorted(ascending: false)
        #expect(old.map { $0?.id } == [1, 3])
        try realm.write {
            realm.object(ofType: Dog.self, forPrimaryKey: 4)!.age = 10
            maps.dogs["rex"] = nil
            maps.dogs["new"] = realm.create(Dog.self, value: ["id": 5, "name": "New", "age": 7])
            maps.ints["z"] = 9
        }
        #expect(old.map { $0?.id } == [3, 4, 5])
        #expect(byAge.map { $0?.id } == [2, 3, 5, 4])
        #expect(Array(values) == [9, 3, 2, 1])
        try realm.write { maps.dogs.removeAll() }
        #expect(old.isEmpty)
        #expect(byAge.isEmpty)
    }

    @Test("a frozen map's filters and sorts are frozen and keep their contents; thaw gives live results")
    func frozen() throws {
        let (realm, maps) = try MapFixture.realm()
        let frozenMap = maps.dogs.freeze()
        let frozenOld = frozenMap.where { $0.age > 2 }
        let frozenSorted = frozenMap.sorted(byKeyPath: "age")
        let frozenFromLive = maps.ints.sorted().freeze()
        #expect(frozenOld.isFrozen && frozenSorted.isFrozen && frozenFromLive.isFrozen)
        try realm.write {
            maps.dogs["bella"] = nil
            realm.object(ofType: Dog.self, forPrimaryKey: 2)!.age = 4
            maps.ints["a"] = 100
        }
        #expect(frozenOld.map { $0?.id } == [1, 3])
        #expect(frozenSorted.map { $0?.id } == [2, 4, 1, 3])
        #expect(Array(frozenFromLive) == [1, 2, 3])
        let thawed = try #require(frozenOld.thaw())
        #expect(!thawed.isFrozen)
        #expect(thawed.map { $0?.id } == [1, 2])
        #expect(try #require(frozenMap.thaw()).sorted(byKeyPath: "age").map { $0?.id } == [4, 1, 2])
    }

    @Test("filtering or sorting an unmanaged map stops, as in Realm")
    func unmanagedStops() async {
        let filter = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let map = Map<String, Dog?>()
            map["rex"] = Dog()
            _ = map.where { $0.age > 1 }
        }
        #expect(ErrorTests.stderr(filter).contains("This method may only be called on RLMDictionary instances retrieved from an RLMRealm (this Map is unmanaged)."))
        let sort = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Map<String, Int>().sorted()
        }
        #expect(ErrorTests.stderr(sort).contains("This method may only be called on RLMDictionary instances retrieved from an RLMRealm"))
    }

    @Test("a map of values is filtered with self, as a list of values is (Realm only filters maps of objects)")
    func valuesCanBeQueried() throws {
        let (realm, maps) = try MapFixture.realm()
        let big = maps.ints.filter(try PredicateFormat("self > 1"))
        #expect(Array(big) == [3, 2])
        #expect(Array(maps.ints.where { $0 >= 2 }) == [3, 2])
        #expect(Array(maps.optDoubles.filter(try PredicateFormat("self == nil"))) == [nil])
        try realm.write { maps.ints["d"] = 7 }
        #expect(Array(big) == [3, 2, 7])
        #expect(maps.ints.sorted().map { $0 } == [1, 2, 3, 7])
    }

    @Test("a filter naming an unknown property of the values stops with the class and property")
    func unknownProperty() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (_, maps) = try MapFixture.realm()
            _ = maps.dogs.filter(try PredicateFormat("nmae == 'Rex'"))
        }
        #expect(ErrorTests.stderr(result).contains("unknown property 'nmae' on class 'Dog'"))
    }
}
