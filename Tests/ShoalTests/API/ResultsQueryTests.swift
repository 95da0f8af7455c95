import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

@Suite struct ResultsQueryTests {
    /// Dogs 1...6: (name, age, owner): (b, 3, Ann), (a, 1, nil), (c, 3, Bob), (a, 2, Ann), (b, 1, Bob), (c, 2, nil).
    static func realm() throws -> Realm {
        let realm = try makeRealm()
        try realm.write {
            let ann = realm.create(Person.self, value: ["id": 1, "name": "Ann"])
            let bob = realm.create(Person.self, value: ["id": 2, "name": "Bob"])
            let rows: [(String, Int, Person?)] = [("b", 3, ann), ("a", 1, nil), ("c", 3, bob), ("a", 2, ann), ("b", 1, bob), ("c", 2, nil)]
            for (i, row) in rows.enumerated() {
                let dog = realm.create(Dog.self, value: ["id": i + 1, "name": row.0, "age": row.1])
                dog.owner = row.2
                row.2?.dogs.append(dog)
            }
        }
        return realm
    }

    @Test("a later filter ANDs into the query and keeps sort and distinct")
    func chainingFilter() throws {
        let dogs = try Self.realm().objects(Dog.self)
        #expect(dogs.filter("age > 1").filter("name != 'b'").map(\.id) == [3, 4, 6])
        #expect(dogs.sorted(byKeyPath: "name").filter("age > 1").map(\.id) == [4, 1, 3, 6])
        #expect(dogs.distinct(by: ["name"]).filter("age > 1").map(\.id) == [1, 3, 4])
    }

    @Test("a later sort is primary and earlier sorts break ties; sorts are stable")
    func chainingSort() throws {
        let dogs = try Self.realm().objects(Dog.self)
        #expect(dogs.sorted(byKeyPath: "name").sorted(byKeyPath: "age").map(\.id) == [2, 5, 4, 6, 1, 3])
        #expect(dogs.sorted(by: [SortDescriptor(keyPath: "age"), SortDescriptor(keyPath: "name", ascending: false)]).map(\.id) == [5, 2, 6, 4, 3, 1])
        #expect(dogs.sorted(byKeyPath: "age").map(\.id) == [2, 5, 4, 6, 1, 3])
        #expect(dogs.sorted(by: \.age, ascending: false).map(\.id) == [1, 3, 4, 6, 2, 5])
    }

    @Test("a null link on a sort path sorts last ascending and first descending")
    func nullLinksSort() throws {
        let dogs = try Self.realm().objects(Dog.self)
        #expect(dogs.sorted(byKeyPath: "owner.name").map(\.id) == [1, 4, 3, 5, 2, 6])
        #expect(dogs.sorted(byKeyPath: "owner.name", ascending: false).map(\.id) == [2, 6, 3, 5, 1, 4])
        #expect(dogs.sorted(by: \.owner?.name).map(\.id) == [1, 4, 3, 5, 2, 6])
    }

    @Test("nulls sort first ascending")
    func nullsFirst() throws {
        let realm = try makeRealm()
        try realm.write {
            for (i, v) in [3, nil, 1].enumerated() { realm.create(AllTypes.self, value: ["id": ObjectId.generate(), "int": i, "optInt": v as Any]) }
        }
        #expect(realm.objects(AllTypes.self).sorted(byKeyPath: "optInt").map(\.int) == [1, 2, 0])
        #expect(realm.objects(AllTypes.self).sorted(byKeyPath: "optInt", ascending: false).map(\.int) == [0, 2, 1])
    }

    @Test("distinct keeps the first in current order and drops null links on its path")
    func distinct() throws {
        let dogs = try Self.realm().objects(Dog.self)
        #expect(dogs.distinct(by: ["name"]).map(\.id) == [1, 2, 3])
        #expect(dogs.sorted(byKeyPath: "age").distinct(by: ["name"]).map(\.id) == [2, 5, 6])
        #expect(dogs.distinct(by: ["owner.name"]).map(\.id) == [1, 3])
        #expect(dogs.distinct(by: ["name", "age"]).count == 6)
        #expect(dogs.distinct(by: [\Dog.age]).map(\.id) == [1, 2, 4])
    }

    @Test("the typed where builder: comparisons, strings, links, collections, logic")
    func whereBuilder() throws {
        let realm = try Self.realm()
        let dogs = realm.objects(Dog.self)
        #expect(dogs.where { $0.age > 1 && $0.name.starts(with: "B", options: .caseInsensitive) }.map(\.id) == [1])
        #expect(dogs.where { $0.owner.name == "Ann" || $0.age == 1 }.map(\.id) == [1, 2, 4, 5])
        #expect(dogs.where { !($0.age >= 2) }.map(\.id) == [2, 5])
        #expect(dogs.where { $0.name.in(["a", "c"]) }.map(\.id) == [2, 3, 4, 6])
        #expect(dogs.where { $0.age.between(2, 3) && $0.name.ends(with: "c") }.map(\.id) == [3, 6])
        #expect(dogs.where { $0.name.like("?") && $0.name.contains("b") && $0.age.contains(1...1) }.map(\.id) == [5])
        #expect(dogs.where { $0.owner == nil }.map(\.id) == [2, 6])
        let people = realm.objects(Person.self)
        #expect(people.where { $0.dogs.age == 2 }.map(\.id) == [1])
        #expect(people.where { $0.dogs.count > 1 && $0.ownedDogs.name == "c" }.map(\.id) == [2])
        #expect(dogs.where { $0.tags.contains("x") }.isEmpty)
        #expect(dogs.where { $0.scores["math"] == nil }.count == 6)
    }

    @Test("#Predicate filters like the format string it translates to")
    func foundationPredicate() throws {
        let dogs = try Self.realm().objects(Dog.self)
        #expect(dogs.filter(#Predicate { $0.age > 1 && $0.name != "b" }).map(\.id) == [3, 4, 6])
        #expect(dogs.filter(#Predicate { $0.owner?.name == "Bob" }).map(\.id) == [3, 5])
        #expect(dogs.index(matching: #Predicate { $0.age == 2 }) == 3)
    }

    @Test("filter, sort and aggregates work on lists, sets and linking objects")
    func collections() throws {
        let realm = try Self.realm()
        let ann = realm.object(ofType: Person.self, forPrimaryKey: 1)!
        #expect(ann.dogs.filter("age > 2").map(\.id) == [1])
        #expect(ann.dogs.sorted(byKeyPath: "age").map(\.id) == [4, 1])
        #expect(ann.ownedDogs.where { $0.name == "a" }.map(\.id) == [4])
        #expect(ann.dogs.max(of: \.age) == 3)
        #expect(ann.dogs.index(matching: "name == 'a'") == 1)
        let all = try realm.write { realm.create(AllTypes.self, value: ["id": ObjectId.generate(), "ints": [5, 1, 3], "dates": [Date(timeIntervalSince1970: 5)]]) }
        #expect(all.ints.sum() == 9)
        #expect(all.ints.min() == 1)
        #expect(all.ints.max() == 5)
        #expect(all.ints.average() == 3.0)
        #expect(all.ints.filter("self >= 3").map { $0 } == [5, 3])
        #expect(all.dates.max() == Date(timeIntervalSince1970: 5))
    }

    @Test("aggregates follow Realm's type rules: nil on empty for min, max and average, 0 for sum, nulls ignored")
    func aggregates() throws {
        let realm = try Self.realm()
        let dogs = realm.objects(Dog.self)
        #expect(dogs.min(ofProperty: "age") as Int? == 1)
        #expect(dogs.max(of: \.age) == 3)
        #expect(dogs.sum(of: \.age) == 12)
        #expect(dogs.average(ofProperty: "age") as Double? == 2.0)
        let none = dogs.filter("age > 10")
        #expect(none.min(of: \.age) == nil)
        #expect(none.sum(of: \.age) == 0)
        #expect(none.average(ofProperty: "age") as Double? == nil)
        try realm.write {
            for v in [nil, 0, 2] as [Int?] { realm.create(AllTypes.self, value: ["id": ObjectId.generate(), "optInt": v as Any]) }
        }
        let all = realm.objects(AllTypes.self)
        #expect(all.max(ofProperty: "optInt") as Int? == 2)
        #expect(all.min(ofProperty: "optInt") as Int? == 0)
        #expect(all.average(ofProperty: "optInt") as Double? == 1.0)
        #expect(all.sum(ofProperty: "optInt") as Int == 2)
    }

    @Test("aggregates work on unmanaged lists and sets, of objects and of values, as in Realm")
    func unmanagedAggregates() {
        let dogs = List<Dog>()
        dogs.append(objectsIn: [Dog(value: ["age": 1]), Dog(value: ["age": 5])])
        #expect(dogs.max(of: \.age) == 5)
        #expect(dogs.min(ofProperty: "age") as Int? == 1)
        #expect(dogs.average(ofProperty: "age") as Double? == 3)
        #expect(dogs.value(forKeyPath: "@sum.age") as? Int == 6)
        let set = MutableSet<Dog>()
        set.insert(Dog(value: ["age": 4]))
        #expect(set.sum(of: \.age) == 4)
        let values = List<Int?>()
        values.append(objectsIn: [3, nil, 1])
        #expect(values.min() == 1)
        #expect(values.average() == 2.0)
    }

    @Test("filtering, sorting or distinct on an unmanaged list or set stops, as Realm does")
    func unmanagedQueriesStop() async {
        let filter = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = List<Dog>().filter("age > 1")
        }
        #expect(ErrorTests.stderr(filter).contains("This method may only be called on RLMArray instances retrieved from an RLMRealm (this List is unmanaged)."))
        let sort = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = MutableSet<Int>().sorted()
        }
        #expect(ErrorTests.stderr(sort).contains("This method may only be called on RLMSet instances retrieved from an RLMRealm"))
        let distinct = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = List<Dog>().distinct(by: ["age"])
        }
        #expect(ErrorTests.stderr(distinct).contains("This method may only be called on RLMArray instances retrieved from an RLMRealm"))
    }

    @Test("value(forKey:), value(forKeyPath:) with operators, and setValue(_:forKey:) on the matches at call time")
    func kvc() throws {
        let realm = try Self.realm()
        let dogs = realm.objects(Dog.self).filter("age == 1")
        #expect(dogs.value(forKey: "name").compactMap { $0 as? String } == ["a", "b"])
        #expect(dogs.value(forKeyPath: "@count") as? Int == 2)
        #expect(realm.objects(Dog.self).value(forKeyPath: "@max.age") as? Int == 3)
        #expect(realm.objects(Dog.self).value(forKeyPath: "@avg.age") as? Double == 2.0)
        #expect(realm.objects(Dog.self).value(forKeyPath: "@sum.age") as? Int == 12)
        #expect((realm.objects(Dog.self).value(forKeyPath: "owner.name") as? [Any?])?.compactMap { $0 as? String }.count == 4)
        try realm.write { dogs.setValue(7, forKey: "age") }
        #expect(dogs.isEmpty)
        #expect(realm.objects(Dog.self).filter("age == 7").map(\.id) == [2, 5])
    }

    @Test("evaluation is lazy and happens once per visible state")
    func evaluatesOncePerState() throws {
        let realm = try Self.realm()
        let dogs = realm.objects(Dog.self).filter("age > 1")
        // A query on a table keeps the keys alone, evaluated once.
        func keys() -> UnsafePointer<ObjectKey>? {
            guard case .objects(_, let keys) = dogs.storedObjectsOrValues() else { return nil }
            return keys.withUnsafeBufferPointer { $0.baseAddress }
        }
        let first = keys()
        _ = dogs.count
        _ = dogs[0]
        #expect(first != nil && keys() == first)
        // Their values, made from the keys, are kept too.
        let values = dogs.storedElements()
        _ = dogs.count
        #expect(dogs.storedElements().withUnsafeBufferPointer { $0.baseAddress } == values.withUnsafeBufferPointer { $0.baseAddress })
        try realm.write { realm.create(Dog.self, value: ["id": 99, "age": 5]) }
        #expect(dogs.count == 5)
    }

    @Test("a malformed predicate stops with its positioned message")
    func malformedStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try makeRealm().objects(Dog.self).filter("age > ")
        }
        #expect(ErrorTests.stderr(result).contains("Invalid predicate 'age > ': expected a value"))
    }

    @Test("sorting on a key path that is not sortable stops with Realm's message")
    func sortErrors() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try makeRealm().objects(Dog.self).sorted(byKeyPath: "age.x")
        }
        #expect(ErrorTests.stderr(result).contains("Cannot sort on key path 'age.x': property 'Dog.age' of type 'int' may only be the final property in the key path."))
    }

    @Test("sort and distinct key paths are checked with Realm's messages", arguments: [
        ("owner.", "Cannot sort on key path 'owner.': missing property name."),
        ("x", "Cannot sort on key path 'x': property 'Dog.x' does not exist."),
        ("owner", "Cannot sort on key path 'owner': property 'Dog.owner' of type 'object' cannot be the final property in the key path."),
        ("tags", "Cannot sort on key path 'tags': property 'Dog.tags' is of unsupported type 'set'."),
    ])
    func sortKeyPathMessages(keyPath: String, message: String) throws {
        let realm = try makeRealm()
        let schema = realm.instance.schema
        #expect(throws: ShoalError.self) {
            _ = try OrderingStep.resolve(keyPath, root: .table(schema.tableByName["Dog"]!), schema: schema, verb: "sort")
        }
        do {
            _ = try OrderingStep.resolve(keyPath, root: .table(schema.tableByName["Dog"]!), schema: schema, verb: "sort")
        } catch { #expect(error.message == message) }
    }
}

extension ResultsQueryTests {
    @Test("count of a filter one column answers is counted in place, with no list made, and agrees with the objects after deletes and changes")
    func countInPlace() throws {
        let realm = try makeRealm()
        try realm.write {
            for i in 0..<300 {
                realm.create(Dog.self, value: ["id": i, "name": ["a", "b", "c"][i % 3], "breed": ["pug", "lab"][i % 2], "age": i % 7])
            }
        }
        let dogs = realm.objects(Dog.self)
        // A string column (coded or not), an unindexed int, and ones the
        // column cannot count alone (an indexed property, two terms).
        let predicates: [(String, (Dog) -> Bool)] = [
            ("breed == 'pug'", { $0.breed == "pug" }), ("name != 'b'", { $0.name != "b" }), ("name BEGINSWITH 'a'", { $0.name.hasPrefix("a") }),
            ("id < 100", { $0.id < 100 }), ("id BETWEEN {20, 40}", { (20...40).contains($0.id) }), ("age == 3", { $0.age == 3 }),
            ("breed == 'pug' AND id > 10", { $0.breed == "pug" && $0.id > 10 }),
        ]
        func check(_ when: String) {
            for (format, test) in predicates {
                let filtered = dogs.filter(format)
                #expect(filtered.count == dogs.filter(test).count, "\(format) \(when)")
                #expect(filtered.count == Array(filtered).count, "\(format) \(when)")
            }
        }
        check("at first")
        // A count made in place makes no list of objects, and is kept for
        // the version: asked again, it is not counted again.
        let pugs = dogs.filter("breed == 'pug'")
        #expect(pugs.count == 150)
        #expect(!pugs.cache.holdsElements(for: realm.instance.stateVersion))
        var countedAgain = false
        #expect(pugs.cache.count(for: realm.instance.stateVersion) { countedAgain = true; return .count(0) } == 150)
        #expect(!countedAgain)
        // A count the plan cannot make in place (an indexed property) keeps
        // the elements it listed.
        let threes = dogs.filter("age == 3")
        #expect(threes.count == 43)
        #expect(threes.cache.holdsElements(for: realm.instance.stateVersion))
        // Evaluated results answer from what they hold.
        #expect(pugs.map(\.id).count == 150)
        #expect(pugs.cache.holdsElements(for: realm.instance.stateVersion))
        #expect(pugs.count == 150)
        try realm.write {
            realm.delete(realm.objects(Dog.self).filter("id < 30"))
            for dog in realm.objects(Dog.self).filter("id >= 200") { dog.breed = "pug" }
        }
        check("after deletes and changes")
        #expect(pugs.count == (30..<200).count { $0 % 2 == 0 } + 100)
    }
}
