import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

extension QueryTests {
    @Suite struct QueryPlanTests {
        /// A Realm with `count` random dogs (ids, ages and names from small
        /// ranges so that equality hits) and `count` random readings (mostly
        /// distinct values of every indexed kind), some deleted, and some
        /// readings changed in a second commit.
        static func randomRealm(_ rng: inout SeededRandom, count: Int) throws -> Realm {
            let realm = try makeRealm(types: [Person.self, Dog.self, Reading.self])
            let names = ["Rex", "Bo", "Luna", "Max", "rex"]
            try realm.write {
                for i in 0..<count {
                    realm.create(Dog.self, value: [
                        "id": i * 3 + Int.random(in: 0..<3, using: &rng), "age": Int.random(in: 0..<8, using: &rng),
                        "name": names.randomElement(using: &rng)!, "breed": ["lab", "pug"].randomElement(using: &rng)!,
                    ])
                    realm.create(Reading.self, value: [
                        "code": "\(randomString(&rng))\(i)", "rank": Int.random(in: -500..<500, using: &rng), "label": randomString(&rng),
                        "stamp": randomDate(&rng), "checked": (Bool.random(using: &rng) ? randomDate(&rng) : nil) as Any,
                        "mixed": [AnyRealmValue.int(Int.random(in: 0..<8, using: &rng)), .double(2.5), .string("3"), .none].randomElement(using: &rng)!,
                        "weight": Double(Int.random(in: 0..<100, using: &rng)) / 10,
                    ])
                }
                let doomed = realm.objects(Dog.self).filter { _ in Bool.random(using: &rng) && Bool.random(using: &rng) }
                realm.delete(doomed)
                let gone = realm.objects(Reading.self).filter { _ in Bool.random(using: &rng) && Bool.random(using: &rng) }
                realm.delete(gone)
            }
            // Changed values empty some buckets and fill others.
            try realm.write {
                for reading in realm.objects(Reading.self) where Int.random(in: 0..<3, using: &rng) == 0 {
                    reading.rank = Int.random(in: -500..<500, using: &rng)
                    reading.label = randomString(&rng)
                    reading.stamp = randomDate(&rng)
                    reading.checked = Bool.random(using: &rng) ? randomDate(&rng) : nil
                }
            }
            return realm
        }

        /// A short string of letters in both cases, digits, a space and an accent, so that byte order matters.
        static func randomString(_ rng: inout SeededRandom) -> String {
            String((0..<Int.random(in: 0...3, using: &rng)).map { _ in "aZb0 é-".randomElement(using: &rng)! })
        }

        static func randomDate(_ rng: inout SeededRandom) -> Date {
            Date(timeIntervalSince1970: Double(Int.random(in: 0..<10_000, using: &rng)) + (Bool.random(using: &rng) ? 0.5 : 0))
        }

        static func comparison(_ rng: inout SeededRandom) -> String {
            ["<", ">", "<=", ">="].randomElement(using: &rng)!
        }

        static func randomTerm(_ rng: inout SeededRandom) -> String {
            let value = Int.random(in: 0..<10, using: &rng)
            switch Int.random(in: 0..<11, using: &rng) {
            case 0: return "age == \(value)"
            case 1: return "id == \(value * 2)"
            case 2: return "age IN {\(value), \(value / 2), 9}"
            case 3: return "id IN {\(value), \(value * 3)}"
            case 4: return "age \(["<", ">", "<=", ">=", "!="].randomElement(using: &rng)!) \(value)"
            case 5: return "name \(["==", "BEGINSWITH[c]", "!=", "LIKE"].randomElement(using: &rng)!) '\(["Rex", "r*", "Bo", "L?na"].randomElement(using: &rng)!)'"
            case 6: return "age BETWEEN {\(value / 2), \(value)}"
            case 7: return "breed == '\(["lab", "pug"].randomElement(using: &rng)!)'"
            case 8: return "id \(comparison(&rng)) \(Int.random(in: -5..<480, using: &rng))\(Bool.random(using: &rng) ? ".5" : "")"
            case 9: let low = Int.random(in: -5..<480, using: &rng); return "id BETWEEN {\(low), \(low + Int.random(in: -2..<40, using: &rng))}"
            default: return "age == \(Double(value) + 0.5)"
            }
        }

        static func randomReadingTerm(_ rng: inout SeededRandom) -> String {
            let rank = Int.random(in: -520..<520, using: &rng)
            let a = randomString(&rng), b = randomString(&rng)
            let t = Int.random(in: -5..<10_005, using: &rng)
            switch Int.random(in: 0..<14, using: &rng) {
            case 0: return "rank \(comparison(&rng)) \(rank)"
            case 1: return "rank BETWEEN {\(rank), \(rank + Int.random(in: -5..<60, using: &rng))}"
            case 2: return "rank \(comparison(&rng)) \(Double(rank) + 0.5)"
            case 3: return "code \(comparison(&rng)) '\(a)'"
            case 4: return "code >= '\(a)' AND code <= '\(b)'"
            case 5: return "label \(comparison(&rng)) '\(a)'"
            case 6: return "label >= '\(a)' AND label <= '\(b)'"
            case 7: return "label \(["==[c]", "BEGINSWITH", "!="].randomElement(using: &rng)!) '\(a)'"
            case 8: return "stamp \(comparison(&rng)) T\(t):\(Bool.random(using: &rng) ? 500_000_000 : 0)"
            case 9: return "stamp BETWEEN {T\(t):0, T\(t + Int.random(in: 0..<400, using: &rng)):0}"
            case 10: return Int.random(in: 0..<4, using: &rng) > 0 ? "checked \(comparison(&rng)) T\(t):0" : "checked \(Bool.random(using: &rng) ? "==" : "!=") nil"
            case 11: return "mixed \(comparison(&rng)) \(Int.random(in: 0..<8, using: &rng))"
            case 12: return "weight \(comparison(&rng)) \(Double(Int.random(in: 0..<100, using: &rng)) / 10)"
            default: return ["rank == \(rank)", "label == '\(a)'", "code IN {'\(a)0', '\(b)1'}", "label IN {'\(a)', '\(b)'}"].randomElement(using: &rng)!
            }
        }

        static func randomPredicate(_ rng: inout SeededRandom, depth: Int = 0, term: (inout SeededRandom) -> String) -> String {
            guard depth < 2, Int.random(in: 0..<3, using: &rng) > 0 else { return term(&rng) }
            let parts = (0..<Int.random(in: 2...3, using: &rng)).map { _ in randomPredicate(&rng, depth: depth + 1, term: term) }
            let joined = parts.joined(separator: Bool.random(using: &rng) ? " AND " : " OR ")
            return Bool.random(using: &rng) ? "NOT (\(joined))" : "(\(joined))"
        }

        @Test("for 4,000 random predicates on each of two classes over random data, the planned result equals a full scan's")
        func plannerMatchesScan() throws {
            var rng = SeededRandom(seed: 0x5EED_0001)
            var realm = try Self.randomRealm(&rng, count: 60)
            var indexed = 0
            // Ordered index ranges, by class and property.
            var ranged: [String: Int] = [:]
            for round in 0..<4_000 {
                if round % 200 == 0 {
                    realm = try Self.randomRealm(&rng, count: 30 + round / 32)
                    #expect(realm.instance.current.invariantViolation() == nil)
                }
                let cases = [("Dog", Self.randomPredicate(&rng, term: Self.randomTerm)), ("Reading", Self.randomPredicate(&rng, term: Self.randomReadingTerm))]
                for (className, format) in cases {
                    let snapshot = realm.instance.current
                    let table = snapshot.schema.tableByName[className]!
                    let tree = try PredicateFormat(format).tree
                    let bound = try QueryBinder.bind(tree, schema: snapshot.schema, root: .table(table))
                    let planned = QueryPlan(table: table, predicate: bound, snapshot: snapshot)
                    let scanned = QueryPlan(table: table, predicate: bound, snapshot: snapshot, useIndexes: false)
                    if planned.access != .scan { indexed += 1 }
                    if planned.explanation.hasPrefix("ordered index range on \(className) where ") {
                        let property = planned.explanation.split(separator: " ")[6]
                        ranged["\(className).\(property)", default: 0] += 1
                    }
                    let a = planned.run(on: snapshot), b = scanned.run(on: snapshot)
                    if a != b {
                        Issue.record("seed \(rng.seed), case \(round): \(format)\nplan: \(planned.explanation)\n\(a) != \(b)")
                        return
                    }
                }
            }
            // The generator exercises the indexes, and ranges on each kind of
            // ordered index, often enough to matter.
            #expect(indexed > 1_200)
            for property in ["Dog.id", "Dog.age", "Reading.code", "Reading.rank", "Reading.label", "Reading.stamp", "Reading.checked"] {
                #expect(ranged[property, default: 0] > 40, "\(property): \(ranged)")
            }
            #expect(ranged.keys.allSatisfy { $0 != "Reading.mixed" && $0 != "Reading.weight" })
        }

        @Test("equality on the primary key uses the primary key index")
        func primaryKeyPlan() throws {
            let fixture = try QueryFixture()
            let dogs = fixture.realm.objects(Dog.self).filter("id == 7 AND age > 1")
            #expect(dogs.explain().hasPrefix("primary key lookup on Dog where id == 7 (1 candidates); then test age > 1"))
            #expect(dogs.map(\.id) == fixture.expected { $0.id == 7 && $0.age > 1 })
        }

        @Test("equality through a to-one link on the target's primary key finds the objects through backlinks")
        func linkLookupPlan() throws {
            let realm = try makeRealm()
            try realm.write {
                let people = (0..<5).map { realm.create(Person.self, value: ["id": $0, "name": "p\($0)"]) }
                for i in 0..<40 {
                    let dog = realm.create(Dog.self, value: ["id": i, "age": i % 7])
                    dog.owner = i % 6 == 5 ? nil : people[i % 6 % 5]
                }
            }
            let dogs = realm.objects(Dog.self)
            let one = dogs.filter("owner.id == 2 AND age > 1")
            #expect(one.explain().hasPrefix("link lookup on Dog where owner.id == 2 (7 candidates); then test owner.id == 2 AND age > 1"))
            #expect(one.map(\.id) == Array(dogs).filter { $0.owner?.id == 2 && $0.age > 1 }.map(\.id))
            let two = dogs.filter("owner.id IN {1, 3}")
            #expect(two.explain().hasPrefix("link lookup on Dog where owner.id IN {1, 3}"))
            #expect(two.map(\.id) == Array(dogs).filter { [1, 3].contains($0.owner?.id) }.map(\.id))
            // Null reaches objects with a null link, which backlinks cannot find.
            #expect(dogs.filter("owner.id == nil").explain().hasPrefix("scan Dog"))
            #expect(dogs.filter("owner.id == nil").count == 6)
        }

        @Test("equality and IN on an indexed property use its index; the most selective term drives")
        func secondaryIndexPlan() throws {
            let fixture = try QueryFixture()
            let dogs = fixture.realm.objects(Dog.self)
            #expect(dogs.filter("age == 5").explain().hasPrefix("index lookup on Dog where age == 5"))
            #expect(dogs.filter("age IN {1, 2}").explain().hasPrefix("index lookup on Dog where age IN {1, 2}"))
            #expect(dogs.filter("age IN {1, 2, 3, 4, 5} AND id IN {3, 4}").explain().hasPrefix("primary key lookup on Dog where id IN {3, 4}"))
            #expect(dogs.where { $0.age == 5 }.explain().hasPrefix("index lookup"))
        }

        @Test("[c], null and NaN ranges, unindexed and mixed properties, and ranges over a quarter of the objects scan")
        func scans() throws {
            let fixture = try QueryFixture()
            let dogs = fixture.realm.objects(Dog.self)
            #expect(dogs.filter("age >= 0").explain().hasPrefix("scan Dog (24 objects); then test age >= 0"))
            #expect(dogs.filter("name == 'Rex'").explain().hasPrefix("scan Dog"))
            #expect(dogs.filter("age == 3 OR id == 4").explain().hasPrefix("scan Dog"))
            #expect(dogs.filter("age >= 0").sorted(byKeyPath: "name").explain().hasSuffix("; sort by name ascending"))

            let realm = try Self.readings(count: 1_000)
            let readings = realm.objects(Reading.self)
            #expect(readings.filter("weight < 3").explain().hasPrefix("scan Reading (1000 objects)"))
            #expect(readings.filter("mixed < 3").explain().hasPrefix("scan Reading"))
            #expect(readings.filter("rank > 100").explain().hasPrefix("scan Reading"))
            #expect(readings.filter("rank < %@", Double.nan).explain().hasPrefix("scan Reading"))
            #expect(readings.filter("rank < %@", Decimal128(Decimal.nan)).explain().hasPrefix("scan Reading"))
            // No front end puts [c] or [d] on a range (the format parser
            // refuses them), so the plan is checked on a bound predicate.
            let snapshot = realm.instance.current
            let table = snapshot.schema.tableByName["Reading"]!
            guard case .comparison(var c) = try QueryBinder.bind(try PredicateFormat("label < 'l1'").tree, schema: snapshot.schema, root: .table(table))
            else { Issue.record("not a comparison"); return }
            #expect(QueryPlan(table: table, predicate: .comparison(c), snapshot: snapshot).explanation.hasPrefix("ordered index range"))
            c.options = .caseInsensitive
            #expect(QueryPlan(table: table, predicate: .comparison(c), snapshot: snapshot).explanation.hasPrefix("scan Reading"))
            c.options = .diacriticInsensitive
            #expect(QueryPlan(table: table, predicate: .comparison(c), snapshot: snapshot).explanation.hasPrefix("scan Reading"))
            c.options = []
            c.rhs = .constant(.null)
            #expect(QueryPlan(table: table, predicate: .comparison(c), snapshot: snapshot).explanation.hasPrefix("scan Reading"))
        }

        @Test("index buckets are merged into one run in table order, each key once, as sorting them would give")
        func mergedBuckets() {
            var rng = SeededRandom(seed: 12)
            for _ in 0..<200 {
                let runs = (0..<Int.random(in: 0...6, using: &rng)).map { _ in
                    Array(Set((0..<Int.random(in: 0...40, using: &rng)).map { _ in Int64.random(in: 0...60, using: &rng) })).sorted().map(ObjectKey.init)
                }
                // A run named twice, as `IN {3, 3}` names a bucket twice.
                let named = runs.isEmpty ? runs : runs + [runs[0]]
                #expect(QueryPlan.merged(named) == Array(Set(named.joined())).sorted())
            }
        }
    }
}
