import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

extension QueryTests {
    @Suite struct QueryPlanTests {
        /// A Realm with `count` random dogs (ids, ages and names from small ranges so that equality hits).
        static func randomRealm(_ rng: inout SeededRandom, count: Int) throws -> Realm {
            let realm = try makeRealm()
            let names = ["Rex", "Bo", "Luna", "Max", "rex"]
            try realm.write {
                for i in 0..<count {
                    realm.create(Dog.self, value: [
                        "id": i * 3 + Int.random(in: 0..<3, using: &rng), "age": Int.random(in: 0..<8, using: &rng),
                        "name": names.randomElement(using: &rng)!, "breed": ["lab", "pug"].randomElement(using: &rng)!,
                    ])
                }
                let doomed = realm.objects(Dog.self).filter { _ in Bool.random(using: &rng) && Bool.random(using: &rng) }
                realm.delete(doomed)
            }
            return realm
        }

        static func randomTerm(_ rng: inout SeededRandom) -> String {
            let value = Int.random(in: 0..<10, using: &rng)
            switch Int.random(in: 0..<9, using: &rng) {
            case 0: return "age == \(value)"
            case 1: return "id == \(value * 2)"
            case 2: return "age IN {\(value), \(value / 2), 9}"
            case 3: return "id IN {\(value), \(value * 3)}"
            case 4: return "age \(["<", ">", "<=", ">=", "!="].randomElement(using: &rng)!) \(value)"
            case 5: return "name \(["==", "BEGINSWITH[c]", "!=", "LIKE"].randomElement(using: &rng)!) '\(["Rex", "r*", "Bo", "L?na"].randomElement(using: &rng)!)'"
            case 6: return "age BETWEEN {\(value / 2), \(value)}"
            case 7: return "breed == '\(["lab", "pug"].randomElement(using: &rng)!)'"
            default: return "age == \(Double(value) + 0.5)"
            }
        }

        static func randomPredicate(_ rng: inout SeededRandom, depth: Int = 0) -> String {
            guard depth < 2, Int.random(in: 0..<3, using: &rng) > 0 else { return randomTerm(&rng) }
            let parts = (0..<Int.random(in: 2...3, using: &rng)).map { _ in randomPredicate(&rng, depth: depth + 1) }
            let joined = parts.joined(separator: Bool.random(using: &rng) ? " AND " : " OR ")
            return Bool.random(using: &rng) ? "NOT (\(joined))" : "(\(joined))"
        }

        @Test("for 10,000 random predicates over random data, the planned result equals a full scan's")
        func plannerMatchesScan() throws {
            var rng = SeededRandom(seed: 0x5EED_0001)
            var realm = try Self.randomRealm(&rng, count: 60)
            var indexed = 0, ranged = 0
            for round in 0..<10_000 {
                if round % 500 == 0 { realm = try Self.randomRealm(&rng, count: 30 + round / 80) }
                let format = Self.randomPredicate(&rng)
                let snapshot = realm.instance.current
                let table = snapshot.schema.tableByName["Dog"]!
                let tree = try PredicateFormat(format).tree
                let bound = try QueryBinder.bind(tree, schema: snapshot.schema, root: .table(table))
                let planned = QueryPlan(table: table, predicate: bound, snapshot: snapshot)
                let scanned = QueryPlan(table: table, predicate: bound, snapshot: snapshot, useIndexes: false)
                if planned.access != .scan { indexed += 1 }
                if planned.explanation.hasPrefix("index range") { ranged += 1 }
                let a = planned.run(on: snapshot), b = scanned.run(on: snapshot)
                if a != b {
                    Issue.record("seed \(rng.seed), case \(round): \(format)\nplan: \(planned.explanation)\n\(a) != \(b)")
                    return
                }
            }
            // The generator exercises the indexes, ranges included, often enough to matter.
            #expect(indexed > 1_000)
            #expect(ranged > 100)
        }

        @Test("equality on the primary key uses the primary key index")
        func primaryKeyPlan() throws {
            let fixture = try QueryFixture()
            let dogs = fixture.realm.objects(Dog.self).filter("id == 7 AND age > 1")
            #expect(dogs.explain().hasPrefix("primary key lookup on Dog where id == 7 (1 candidates); then test age > 1"))
            #expect(dogs.map(\.id) == fixture.expected { $0.id == 7 && $0.age > 1 })
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

        @Test("a range on an indexed property with few distinct values is served from the index and re-tested")
        func rangeOverDistinctValues() throws {
            let realm = try makeRealm()
            try realm.write { for i in 0..<100 { realm.create(Dog.self, value: ["id": i, "age": i % 4, "name": "d\(i)"]) } }
            let dogs = realm.objects(Dog.self)
            for format in ["age > 1", "age <= 1", "age BETWEEN {1, 2}", "age >= 2.5", "age < 0"] {
                let filtered = dogs.filter(format)
                #expect(filtered.explain().hasPrefix("index range over distinct values on Dog where"), "\(format): \(filtered.explain())")
                #expect(filtered.explain().contains("; then test"), "\(format)")
            }
            #expect(dogs.filter("age > 1").map(\.id) == dogs.filter { $0.age > 1 }.map(\.id))
            #expect(dogs.filter("age BETWEEN {1, 2}").count == 50)
            #expect(dogs.filter("age >= 2.5").count == 25)
            #expect(dogs.filter("age < 0").isEmpty)
        }

        @Test("ranges, unindexed properties and [c] scan")
        func scans() throws {
            let fixture = try QueryFixture()
            let dogs = fixture.realm.objects(Dog.self)
            #expect(dogs.filter("age > 5").explain().hasPrefix("scan Dog (24 objects)"))
            #expect(dogs.filter("name == 'Rex'").explain().hasPrefix("scan Dog"))
            #expect(dogs.filter("age BETWEEN {1, 3}").explain().hasPrefix("scan Dog"))
            #expect(dogs.filter("age == 3 OR id == 4").explain().hasPrefix("scan Dog"))
            #expect(dogs.filter("age > 5").sorted(byKeyPath: "name").explain().hasSuffix("; sort by name ascending"))
        }
    }
}
