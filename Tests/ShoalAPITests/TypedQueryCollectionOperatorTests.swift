import Foundation
import Shoal
import Testing

final class TQDog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
}

final class TQOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var dogs: List<TQDog>
    @Persisted var dogSet: MutableSet<TQDog>
    @Persisted var dogMap: Map<String, TQDog?>
    @Persisted var scores: List<Int>
    @Persisted var optScores: List<Int?>
    @Persisted var tags: MutableSet<String>
    @Persisted var ratings: Map<String, Double>
}

/// Realm's typed-query collection operators (QueryTests.swift:
/// testKeypathCollectionAggregates*, testCollectionAggregates*,
/// testCollectionContainsRange, testSubquery, testMap*): each typed query
/// finds the objects its format string finds, and the objects expected.
@Suite struct TypedQueryCollectionOperatorTests {
    /// Ann (1): dogs Rex 3, Fido 5; Bob (2): dogs Max 10, Rex 4, Old 12; Cy (3): nothing.
    static func realm() throws -> Realm {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
            objectTypes: [TQOwner.self, TQDog.self]))
        try realm.write {
            let rex = TQDog(value: ["name": "Rex", "age": 3])
            let fido = TQDog(value: ["name": "Fido", "age": 5])
            let max = TQDog(value: ["name": "Max", "age": 10])
            let rex2 = TQDog(value: ["name": "Rex", "age": 4])
            let old = TQDog(value: ["name": "Old", "age": 12])
            let ann = realm.create(TQOwner.self, value: ["id": 1, "name": "Ann", "scores": [1, 2, 3], "optScores": [1, nil],
                "tags": ["good", "big"], "ratings": ["x": 1.0, "y": 3.0]])
            ann.dogs.append(objectsIn: [rex, fido])
            ann.dogSet.insert(rex)
            ann.dogMap["a"] = rex
            let bob = realm.create(TQOwner.self, value: ["id": 2, "name": "Bob", "scores": [4, 8], "tags": ["small"], "ratings": ["x": 5.0]])
            bob.dogs.append(objectsIn: [max, rex2, old])
            bob.dogSet.insert(objectsIn: [max, old])
            bob.dogMap["a"] = max
            bob.dogMap["b"] = old
            realm.create(TQOwner.self, value: ["id": 3, "name": "Cy"])
        }
        return realm
    }

    /// The ids the typed query finds, and those its format string finds.
    static func ids(_ realm: Realm, _ format: String, _ query: (Query<TQOwner>) -> Query<Bool>) -> (typed: [Int], format: [Int]) {
        let owners = realm.objects(TQOwner.self)
        return (owners.where(query).map(\.id).sorted(), owners.filter(format).map(\.id).sorted())
    }

    static func expect(_ realm: Realm, _ format: String, _ expected: [Int], _ query: (Query<TQOwner>) -> Query<Bool>,
        sourceLocation: SourceLocation = #_sourceLocation)
    {
        let found = ids(realm, format, query)
        #expect(found.typed == expected, "typed query for \(format)", sourceLocation: sourceLocation)
        #expect(found.format == expected, "format \(format)", sourceLocation: sourceLocation)
    }

    @Test("avg, min, max and sum of a property of a list's objects: $0.dogs.age.avg is dogs.@avg.age")
    func listPropertyAggregates() throws {
        let realm = try Self.realm()
        Self.expect(realm, "dogs.@avg.age > 4", [2]) { $0.dogs.age.avg > 4 }
        Self.expect(realm, "dogs.@avg.age == 4", [1]) { $0.dogs.age.avg == 4 }
        Self.expect(realm, "dogs.@min.age <= 3", [1]) { $0.dogs.age.min <= 3 }
        Self.expect(realm, "dogs.@max.age >= 12", [2]) { $0.dogs.age.max >= 12 }
        Self.expect(realm, "dogs.@sum.age == 8", [1]) { $0.dogs.age.sum == 8 }
        // Realm's rules for nothing: sum 0, the others null (matching no number).
        Self.expect(realm, "dogs.@sum.age == 0", [3]) { $0.dogs.age.sum == 0 }
        Self.expect(realm, "dogs.@avg.age < 100", [1, 2]) { $0.dogs.age.avg < 100 }
        Self.expect(realm, "!(dogs.@avg.age >= 5)", [1, 3]) { !($0.dogs.age.avg >= 5) }
    }

    @Test("aggregates of a property of a set's objects: $0.dogSet.age.max")
    func setPropertyAggregates() throws {
        let realm = try Self.realm()
        Self.expect(realm, "dogSet.@max.age > 5", [2]) { $0.dogSet.age.max > 5 }
        Self.expect(realm, "dogSet.@sum.age == 22", [2]) { $0.dogSet.age.sum == 22 }
        Self.expect(realm, "dogSet.@min.age == 3", [1]) { $0.dogSet.age.min == 3 }
    }

    @Test("avg, min, max and sum of a map of numbers: $0.ratings.avg is ratings.@avg")
    func mapAggregates() throws {
        let realm = try Self.realm()
        Self.expect(realm, "ratings.@avg >= 2", [1, 2]) { $0.ratings.avg >= 2 }
        Self.expect(realm, "ratings.@avg == 2", [1]) { $0.ratings.avg == 2 }
        Self.expect(realm, "ratings.@max == 5", [2]) { $0.ratings.max == 5 }
        Self.expect(realm, "ratings.@min < 2", [1]) { $0.ratings.min < 2 }
        Self.expect(realm, "ratings.@sum == 4", [1]) { $0.ratings.sum == 4 }
    }

    @Test(".count on a list, a set, a map of values and a map of objects")
    func counts() throws {
        let realm = try Self.realm()
        Self.expect(realm, "dogs.@count > 2", [2]) { $0.dogs.count > 2 }
        Self.expect(realm, "tags.@count == 1", [2]) { $0.tags.count == 1 }
        Self.expect(realm, "ratings.@count == 2", [1]) { $0.ratings.count == 2 }
        Self.expect(realm, "dogMap.@count == 0", [3]) { $0.dogMap.count == 0 }
        Self.expect(realm, "dogMap.@count >= 1 AND ratings.@count == 1", [2]) { $0.dogMap.count >= 1 && $0.ratings.count == 1 }
    }

    @Test("a collection compared with an element means ANY: $0.tags == \"small\", $0.scores > 5")
    func elementComparisons() throws {
        let realm = try Self.realm()
        Self.expect(realm, "ANY tags == 'small'", [2]) { $0.tags == "small" }
        Self.expect(realm, "ANY scores > 5", [2]) { $0.scores > 5 }
        Self.expect(realm, "ANY scores <= 1", [1]) { $0.scores <= 1 }
        Self.expect(realm, "ANY scores != 1", [1, 2]) { $0.scores != 1 }
        Self.expect(realm, "ANY dogs.name == 'Old'", [2]) { $0.dogs.name == "Old" }
    }

    @Test("sets and maps: contains, containsAny(in:), keys and values")
    func setAndMapMembership() throws {
        let realm = try Self.realm()
        Self.expect(realm, "'good' IN tags", [1]) { $0.tags.contains("good") }
        Self.expect(realm, "ANY tags IN {'small', 'big'}", [1, 2]) { $0.tags.containsAny(in: ["small", "big"]) }
        Self.expect(realm, "5.0 IN ratings", [2]) { $0.ratings.contains(5.0) }
        Self.expect(realm, "ANY ratings.@values IN {3.0, 9.0}", [1]) { $0.ratings.containsAny(in: [3.0, 9.0]) }
        Self.expect(realm, "ANY ratings.@keys == 'y'", [1]) { $0.ratings.keys == "y" }
        Self.expect(realm, "ANY ratings.@values > 4", [2]) { $0.ratings.values > 4 }
    }

    @Test("contains(range) on a list means every element is in the range, as Realm's @min/@max test")
    func listContainsRange() throws {
        let realm = try Self.realm()
        Self.expect(realm, "scores.@min >= 1 AND scores.@max <= 3", [1]) { $0.scores.contains(1...3) }
        Self.expect(realm, "scores.@min >= 4 AND scores.@max < 8", []) { $0.scores.contains(4..<8) }
        Self.expect(realm, "scores.@min >= 4 AND scores.@max < 9", [2]) { $0.scores.contains(4..<9) }
        Self.expect(realm, "scores.@min >= 0 AND scores.@max <= 100", [1, 2]) { $0.scores.contains(0...100) }
        // A list of optionals: nulls take no part, as in the aggregates.
        Self.expect(realm, "optScores.@min >= 0 AND optScores.@max <= 1", [1]) { $0.optScores.contains(0...1) }
        Self.expect(realm, "ratings.@min >= 1.0 AND ratings.@max <= 3.0", [1]) { $0.ratings.contains(1.0...3.0) }
    }

    @Test("a subquery's .count counts the elements matching every condition at once")
    func subqueryCount() throws {
        let realm = try Self.realm()
        Self.expect(realm, "SUBQUERY(dogs, $d, $d.age > 3 AND $d.name == 'Rex').@count > 0", [2]) {
            ($0.dogs.age > 3 && $0.dogs.name == "Rex").count > 0
        }
        // Without a subquery each condition may match a different dog.
        Self.expect(realm, "ANY dogs.age > 3 AND ANY dogs.name == 'Rex'", [1, 2]) { $0.dogs.age > 3 && $0.dogs.name == "Rex" }
        Self.expect(realm, "SUBQUERY(dogs, $d, $d.age > 3).@count > 1", [2]) { ($0.dogs.age > 3).count > 1 }
        Self.expect(realm, "SUBQUERY(dogs, $d, $d.age > 0).@count == 0", [3]) { ($0.dogs.age > 0).count == 0 }
        Self.expect(realm, "SUBQUERY(dogSet, $d, $d.age >= 10).@count == 2", [2]) { ($0.dogSet.age >= 10).count == 2 }
        Self.expect(realm, "name == 'Ann' AND SUBQUERY(dogs, $d, $d.age > 4 OR $d.name == 'Old').@count == 1", [1]) {
            $0.name == "Ann" && ($0.dogs.age > 4 || $0.dogs.name == "Old").count == 1
        }
        // A key path through no collection stays on the queried object.
        Self.expect(realm, "SUBQUERY(dogs, $d, $d.name == name).@count == 0", [1, 2, 3]) { ($0.dogs.name == $0.name).count == 0 }
    }

    @Test("subqueries over a list of values, with an aggregate inside, and nested")
    func subqueryVariants() throws {
        let realm = try Self.realm()
        Self.expect(realm, "SUBQUERY(scores, $s, $s > 2).@count == 2", [2]) { ($0.scores > 2).count == 2 }
        Self.expect(realm, "SUBQUERY(dogs, $d, $d.age > 3 AND SUBQUERY(scores, $s, $s > 2).@count > 1).@count > 0", [2]) {
            ($0.dogs.age > 3 && ($0.scores > 2).count > 1).count > 0
        }
        Self.expect(realm, "SUBQUERY(dogs, $d, $d.age >= 3).@count == 2 AND dogs.@count == 2", [1]) {
            ($0.dogs.age >= 3).count == 2 && $0.dogs.count == 2
        }
    }
}
