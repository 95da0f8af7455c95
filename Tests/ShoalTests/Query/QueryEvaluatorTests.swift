import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// A fixed data set and its plain-Swift mirror, for checking query results
/// against brute-force closures written independently of the engine.
struct QueryFixture {
    struct DogRow {
        var id: Int
        var name: String
        var age: Int
        var breed: String
        var tags: [String]
        var scores: [String: Double]
        var owner: PersonRow?
        var owners: [PersonRow]
    }

    struct PersonRow {
        var id: Int
        var name: String
        var city: String
        var dogIds: [Int]
    }

    static let names = ["Rex", "rex", "Fido", "Réx", "Bella", "Max", "Luna", "Charlie", "Lucy", "Cooper", "Daisy", "Bo"]
    static let breeds = ["lab", "pug", "beagle", "Poodle"]
    static let tagWords = ["good", "loud", "Fluffy", "small"]

    let realm: Realm
    var dogs: [DogRow] = []

    init() throws {
        realm = try makeRealm()
        let people = [
            PersonRow(id: 1, name: "Ann", city: "Oslo", dogIds: [1, 2, 3]),
            PersonRow(id: 2, name: "Bob", city: "Rome", dogIds: [4, 5, 6, 7, 8]),
            PersonRow(id: 3, name: "Åsa", city: "Oslo", dogIds: []),
            PersonRow(id: 4, name: "cleo", city: "Lima", dogIds: [2, 9, 10]),
        ]
        var rows: [DogRow] = []
        for i in 1...24 {
            let owner: PersonRow? = i % 5 == 0 ? nil : people[i % people.count]
            var scores: [String: Double] = [:]
            if i % 2 == 0 { scores["math"] = Double(i % 7) }
            if i % 3 == 0 { scores["art"] = Double(i) / 2 }
            let tags = (0..<(i % 4)).map { Self.tagWords[($0 + i) % Self.tagWords.count] }
            rows.append(DogRow(id: i, name: Self.names[i % Self.names.count], age: (i * 7) % 16, breed: Self.breeds[i % Self.breeds.count],
                tags: tags, scores: scores, owner: owner, owners: people.filter { $0.dogIds.contains(i) }))
        }
        dogs = rows
        try realm.write {
            var persons: [Int: Person] = [:]
            for p in people { persons[p.id] = realm.create(Person.self, value: ["id": p.id, "name": p.name, "city": p.city]) }
            for row in rows {
                let dog = realm.create(Dog.self, value: ["id": row.id, "name": row.name, "age": row.age, "breed": row.breed])
                for tag in row.tags { dog.tags.insert(tag) }
                for (k, v) in row.scores.sorted(by: { $0.key < $1.key }) { dog.scores[k] = v }
                if let owner = row.owner { dog.owner = persons[owner.id] }
            }
            for p in people {
                for id in p.dogIds { persons[p.id]!.dogs.append(realm.object(ofType: Dog.self, forPrimaryKey: id)!) }
            }
        }
    }

    /// The ids of the dogs a format string selects.
    func ids(_ format: String, _ args: Any...) -> [Int] {
        realm.objects(Dog.self).filter(try! PredicateFormat(format, argumentArray: args)).map(\.id)
    }

    /// The ids a brute-force closure selects, in table order.
    func expected(_ test: (DogRow) -> Bool) -> [Int] { dogs.filter(test).map(\.id) }
}

extension QueryTests {
    @Suite struct QueryEvaluatorTests {
        typealias Row = QueryFixture.DogRow

        static func fold(_ s: String, _ c: Bool, _ d: Bool) -> String {
            var options: String.CompareOptions = []
            if c { options.insert(.caseInsensitive) }
            if d { options.insert(.diacriticInsensitive) }
            return s.folding(options: options, locale: nil)
        }

        static func like(_ s: String, _ pattern: String) -> Bool {
            // Independent oracle: translate the wildcard pattern to a regular expression.
            var regex = "^"
            for ch in pattern {
                switch ch {
                case "*": regex += ".*"
                case "?": regex += "."
                default: regex += NSRegularExpression.escapedPattern(for: String(ch))
                }
            }
            regex += "$"
            return s.range(of: regex, options: .regularExpression) != nil
        }

        /// Each case: a predicate format and the closure that decides the same thing.
        static func cases() -> [(String, (Row) -> Bool)] {
            var cases: [(String, (Row) -> Bool)] = []
            let ops: [(String, (Int, Int) -> Bool)] = [("==", (==)), ("!=", (!=)), ("<", (<)), ("<=", (<=)), (">", (>)), (">=", (>=))]
            for (op, f) in ops {
                for value in [0, 3, 7, 15] {
                    cases.append(("age \(op) \(value)", { f($0.age, value) }))
                    cases.append(("\(value) \(op) age", { f(value, $0.age) }))
                    cases.append(("id \(op) \(value + 5)", { f($0.id, value + 5) }))
                }
                cases.append(("age \(op) 3.5", { f($0.age * 2, 7) }))
            }
            for (low, high) in [(0, 3), (4, 9), (10, 15), (9, 4)] {
                cases.append(("age BETWEEN {\(low), \(high)}", { $0.age >= low && $0.age <= high }))
            }
            cases.append(("age IN {1, 3, 5, 99}", { [1, 3, 5, 99].contains($0.age) }))
            cases.append(("id IN {2, 4, 40}", { [2, 4, 40].contains($0.id) }))
            cases.append(("NOT id IN {2, 4, 40}", { ![2, 4, 40].contains($0.id) }))
            let strings: [(String, (String, String) -> Bool)] = [
                // An empty operand of BEGINSWITH, ENDSWITH or CONTAINS matches nothing, as in Realm.
                ("==", { $0 == $1 }), ("!=", { $0 != $1 }), ("BEGINSWITH", { !$1.isEmpty && $0.hasPrefix($1) }),
                ("ENDSWITH", { !$1.isEmpty && $0.hasSuffix($1) }), ("CONTAINS", { !$1.isEmpty && $0.contains($1) }),
            ]
            for (op, f) in strings {
                for needle in ["Rex", "re", "x", "ÉX", "", "Lu"] {
                    for (modifier, c, d) in [("", false, false), ("[c]", true, false), ("[d]", false, true), ("[cd]", true, true)] {
                        cases.append(("name \(op)\(modifier) '\(needle)'", { f(fold($0.name, c, d), fold(needle, c, d)) }))
                    }
                }
            }
            for pattern in ["R*", "?ex", "*e*", "r?x", "*", "L??a", "B*o"] {
                cases.append(("name LIKE '\(pattern)'", { like($0.name, pattern) }))
                cases.append(("name LIKE[c] '\(pattern)'", { like($0.name.lowercased(), pattern.lowercased()) }))
            }
            cases.append(("name IN[c] {'rex', 'bella'}", { ["rex", "bella"].contains($0.name.lowercased()) }))
            cases.append(("breed == 'lab' AND age > 5", { $0.breed == "lab" && $0.age > 5 }))
            cases.append(("breed == 'lab' OR age > 12", { $0.breed == "lab" || $0.age > 12 }))
            cases.append(("NOT (breed == 'pug' OR age < 4) AND id > 3", { !($0.breed == "pug" || $0.age < 4) && $0.id > 3 }))
            cases.append(("TRUEPREDICATE", { _ in true }))
            cases.append(("FALSEPREDICATE", { _ in false }))
            // Links.
            cases.append(("owner == nil", { $0.owner == nil }))
            cases.append(("owner != nil", { $0.owner != nil }))
            cases.append(("owner.name == 'Ann'", { $0.owner?.name == "Ann" }))
            cases.append(("owner.name == nil", { $0.owner == nil }))
            cases.append(("owner.city BEGINSWITH 'O'", { $0.owner?.city.hasPrefix("O") ?? false }))
            cases.append(("owner.name ==[cd] 'asa'", { $0.owner.map { fold($0.name, true, true) == "asa" } ?? false }))
            cases.append(("owner.id > 2", { ($0.owner?.id ?? 0) > 2 }))
            // Sets, implicit ANY, ALL, NONE, counts.
            for tag in ["good", "fluffy", "nope"] {
                cases.append(("tags == '\(tag)'", { $0.tags.contains(tag) }))
                cases.append(("ANY tags ==[c] '\(tag)'", { $0.tags.contains { $0.lowercased() == tag } }))
                cases.append(("ALL tags != '\(tag)'", { !$0.tags.contains(tag) }))
                cases.append(("NONE tags BEGINSWITH '\(tag.prefix(2))'", { !$0.tags.contains { $0.hasPrefix(String(tag.prefix(2))) } }))
                cases.append(("'\(tag)' IN tags", { $0.tags.contains(tag) }))
            }
            cases.append(("ALL tags BEGINSWITH 'l'", { $0.tags.allSatisfy { $0.hasPrefix("l") } }))
            for n in 0...3 {
                cases.append(("tags.@count == \(n)", { $0.tags.count == n }))
                cases.append(("tags.@size > \(n)", { $0.tags.count > n }))
            }
            // Maps.
            cases.append(("scores['math'] > 2", { ($0.scores["math"] ?? -1) > 2 }))
            cases.append(("scores['math'] == nil", { $0.scores["math"] == nil }))
            cases.append(("scores['art'] >= 6", { ($0.scores["art"] ?? -1) >= 6 }))
            cases.append(("scores.@keys == 'art'", { $0.scores.keys.contains("art") }))
            cases.append(("scores.@values > 5", { $0.scores.values.contains { $0 > 5 } }))
            cases.append(("ANY scores > 5", { $0.scores.values.contains { $0 > 5 } }))
            cases.append(("scores.@count == 2", { $0.scores.count == 2 }))
            cases.append(("scores.@max > 5", { ($0.scores.values.max() ?? -1) > 5 }))
            cases.append(("scores.@min < 2", { ($0.scores.values.min() ?? 99) < 2 }))
            cases.append(("scores.@sum >= 6", { $0.scores.values.reduce(0, +) >= 6 }))
            cases.append(("scores.@avg > 3", { $0.scores.isEmpty ? false : $0.scores.values.reduce(0, +) / Double($0.scores.count) > 3 }))
            // Backlinks through LinkingObjects and @links.
            cases.append(("owners.name == 'Bob'", { $0.owners.contains { $0.name == "Bob" } }))
            cases.append(("ANY owners.city == 'Oslo'", { $0.owners.contains { $0.city == "Oslo" } }))
            cases.append(("owners.@count == 2", { $0.owners.count == 2 }))
            cases.append(("owners.@count == 0", { $0.owners.isEmpty }))
            cases.append(("@links.Person.dogs.name BEGINSWITH 'c'", { $0.owners.contains { $0.name.hasPrefix("c") } }))
            cases.append(("@links.Person.dogs.@count > 0", { !$0.owners.isEmpty }))
            cases.append(("ALL owners.city == 'Oslo'", { $0.owners.allSatisfy { $0.city == "Oslo" } }))
            cases.append(("@links.@count > 1", { $0.owners.count > 1 }))
            // Subqueries.
            cases.append(("SUBQUERY(owners, $p, $p.city == 'Oslo' AND $p.id < 4).@count > 0",
                { $0.owners.contains { $0.city == "Oslo" && $0.id < 4 } }))
            cases.append(("SUBQUERY(tags, $t, $t BEGINSWITH 'l').@count == 1", { $0.tags.filter { $0.hasPrefix("l") }.count == 1 }))
            cases.append(("SUBQUERY(owners, $p, $p.name == owner.name).@count > 0",
                { d in d.owners.contains { $0.name == d.owner?.name } }))
            // Key path against key path.
            cases.append(("owner.id == id", { $0.owner?.id == $0.id }))
            cases.append(("age > id", { $0.age > $0.id }))
            return cases
        }

        @Test("each of 150+ predicate strings selects what a brute-force closure selects")
        func tableDriven() throws {
            let fixture = try QueryFixture()
            let cases = Self.cases()
            #expect(cases.count >= 150)
            var selective = 0
            for (format, test) in cases {
                let expected = fixture.expected(test)
                if !expected.isEmpty && expected.count < fixture.dogs.count { selective += 1 }
                #expect(fixture.ids(format) == expected, "\(format)")
            }
            // Most cases select some but not all dogs, so they tell queries apart.
            #expect(selective > cases.count / 2)
        }

        @Test("arguments fill placeholders: %@, %K, lists, objects and nil")
        func arguments() throws {
            let fixture = try QueryFixture()
            #expect(fixture.ids("%K > %@", "age", 10) == fixture.expected { $0.age > 10 })
            #expect(fixture.ids("name IN %@", ["Rex", "Max"]) == fixture.expected { ["Rex", "Max"].contains($0.name) })
            #expect(fixture.ids("age BETWEEN %@", [3, 5]) == fixture.expected { (3...5).contains($0.age) })
            let ann = fixture.realm.object(ofType: Person.self, forPrimaryKey: 1)!
            #expect(fixture.ids("owner == %@", ann) == fixture.expected { $0.owner?.id == 1 })
            #expect(fixture.ids("owner == %@", Optional<Person>.none as Any) == fixture.expected { $0.owner == nil })
        }

        @Test("numbers compare across kinds, nil is never ordered, unrelated kinds never match")
        func numericCrossType() throws {
            let realm = try makeRealm()
            try realm.write {
                realm.create(AllTypes.self, value: ["id": ObjectId.generate(), "int": 3, "double": 3.0, "float": 2.5, "optInt": 4, "any": AnyRealmValue.string("3")])
                realm.create(AllTypes.self, value: ["id": ObjectId.generate(), "int": 4, "double": 2.5, "float": 3, "any": AnyRealmValue.int(3)])
            }
            let all = realm.objects(AllTypes.self)
            #expect(all.filter("int == 3.0").count == 1)
            #expect(all.filter("double == 3").count == 1)
            #expect(all.filter("float < int").count == 2)
            #expect(all.filter("int == double").count == 1)
            #expect(all.filter("decimal == 0").count == 2)
            #expect(all.filter("optInt > 0").count == 1)
            #expect(all.filter("optInt < 100").count == 1)
            #expect(all.filter("optInt == nil").count == 1)
            #expect(all.filter("optInt != 4").count == 1)
            #expect(all.filter("#any == 3").count == 1)
            #expect(all.filter("#any == '3'").count == 1)
            #expect(all.filter("#any > 2").count == 1)
        }

        @Test("aggregates over lists of objects and values, and filters on primitive collections")
        func collectionsOfValues() throws {
            let realm = try makeRealm()
            try realm.write {
                let a = realm.create(AllTypes.self, value: ["id": ObjectId.generate(), "ints": [1, 5, 9], "optStrings": ["a", nil]])
                realm.create(AllTypes.self, value: ["id": ObjectId.generate(), "ints": [2]])
                a.dogs.append(realm.create(Dog.self, value: ["id": 1, "age": 4]))
                a.dogs.append(realm.create(Dog.self, value: ["id": 2, "age": 8]))
            }
            let all = realm.objects(AllTypes.self)
            #expect(all.filter("ints.@sum == 15").count == 1)
            #expect(all.filter("ints.@avg == 5").count == 1)
            #expect(all.filter("ints.@min == 2").count == 1)
            #expect(all.filter("dogs.@avg.age == 6").count == 1)
            #expect(all.filter("dogs.@max.age == 8 AND dogs.@sum.age == 12 AND dogs.@min.age == 4").count == 1)
            #expect(all.filter("ALL ints > 1").count == 1)
            #expect(all.filter("optStrings == nil").count == 1)
            let ints = all[0].ints
            #expect(ints.filter("self > 2").map { $0 } == [5, 9])
            #expect(ints.where { $0 > 2 }.map { $0 } == [5, 9])
            #expect(ints.sorted(ascending: false).map { $0 } == [9, 5, 1])
        }
    }
}
