import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

extension QueryTests.QueryPlanTests {
    /// `count` readings: code `r00000`…, rank a permutation of `0..<count`,
    /// label `l0`…, stamp `i` seconds after 1970, checked the same for even
    /// `i` and null otherwise.
    static func readings(count: Int, in realm: Realm? = nil) throws -> Realm {
        let realm = try realm ?? makeRealm(types: [Reading.self])
        try realm.write {
            for i in 0..<count {
                realm.create(Reading.self, value: [
                    "code": "r" + String(repeating: "0", count: 5 - String(i).count) + String(i), "rank": i * 7919 % count,
                    "label": "l\(i)", "stamp": Date(timeIntervalSince1970: Double(i)),
                    "checked": (i % 2 == 0 ? Date(timeIntervalSince1970: Double(i)) : nil) as Any,
                    "mixed": AnyRealmValue.int(i % 8), "weight": Double(i % 10),
                ])
            }
        }
        return realm
    }

    /// Plans `format` over `className` with and without indexes, expects the
    /// same objects from both, and returns the indexed plan's explanation.
    @discardableResult
    static func checkPlan(_ format: String, on realm: Realm, _ className: String = "Reading", sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let snapshot = realm.instance.current
        let table = snapshot.schema.tableByName[className]!
        let bound = try QueryBinder.bind(try PredicateFormat(format).tree, schema: snapshot.schema, root: .table(table))
        let planned = QueryPlan(table: table, predicate: bound, snapshot: snapshot)
        let scanned = QueryPlan(table: table, predicate: bound, snapshot: snapshot, useIndexes: false)
        #expect(planned.run(on: snapshot) == scanned.run(on: snapshot), "\(format): \(planned.explanation)", sourceLocation: sourceLocation)
        return planned.explanation
    }

    @Test("ranges on the primary key and on an indexed property with many distinct values use the ordered index, results in table order")
    func orderedRangesOnInts() throws {
        let realm = try makeRealm()
        let ages = (0..<10_000).map { $0 * 7919 % 10_000 }
        try realm.write { for (id, age) in ages.enumerated() { realm.create(Dog.self, value: ["id": id, "age": age]) } }
        let dogs = realm.objects(Dog.self)

        let byId = dogs.filter("id BETWEEN {100, 199}")
        // Integers between integer bounds: the index's entries are exactly
        // the matches, and nothing is tested again.
        #expect(byId.explain() == "ordered index range on Dog where id BETWEEN {100, 199} (100 candidates)")
        #expect(byId.map(\.id) == Array(100...199))
        #expect(dogs.filter("id < 3").explain().hasPrefix("ordered index range on Dog where id < 3 (3 candidates)"))
        #expect(dogs.filter("id >= 9998.5").map(\.id) == [9999])
        // A fractional bound is tested again on the candidates.
        #expect(dogs.filter("id >= 9998.5").explain() == "ordered index range on Dog where id >= 9998.5 (1 candidates); then test id >= 9998.5")

        let old = dogs.filter("age > 9989")
        #expect(old.explain() == "ordered index range on Dog where age > 9989 (10 candidates)")
        #expect(old.map(\.id) == ages.indices.filter { ages[$0] > 9989 })
        #expect(dogs.where { $0.age <= 4 }.explain().hasPrefix("ordered index range on Dog where age <= 4 (5 candidates)"))
        #expect(dogs.filter("age < 2.5").map(\.age).sorted() == [0, 1, 2])

        // The most selective term drives: equality, or the narrower range.
        #expect(dogs.filter("age < 2000 AND id BETWEEN {10, 19}").explain().hasPrefix(
            "ordered index range on Dog where id BETWEEN {10, 19} (10 candidates); then test age < 2000"))
        #expect(dogs.filter("age < 100 AND id == 7").explain().hasPrefix("primary key lookup on Dog where id == 7 (1 candidates); then test age < 100"))
        #expect(dogs.filter("age IN {1, 2, 3} AND id < 2").explain().hasPrefix("ordered index range on Dog where id < 2 (2 candidates)"))
        #expect(dogs.filter("age IN {1, 2} AND id < 20").explain().hasPrefix("index lookup on Dog where age IN {1, 2} (2 candidates)"))
        for format in ["age BETWEEN {5000, 5100} AND id > 5000", "id > 9000 OR age < 10", "NOT id < 9000", "age BETWEEN {7, 3}"] {
            try Self.checkPlan(format, on: realm, "Dog")
        }
    }

    @Test("ranges on a string primary key, string and date properties and an optional date use the ordered index")
    func orderedRangesOnStringsAndDates() throws {
        let realm = try Self.readings(count: 10_000)
        let cases = [
            // (Realm refuses BETWEEN on strings, so string ranges are written with comparisons.)
            ("code >= 'r09900'", 100), ("code > 'r09989'", 10), ("label >= 'l9990'", 10),
            ("label < 'l1'", 1), ("label <= 'l100'", 4), ("stamp < T10:0", 10), ("stamp BETWEEN {T99:500000000, T200:0}", 101),
            ("checked > T9979:0", 10), ("checked <= T8:0", 5), ("rank < 3.5", 4),
        ]
        for (format, candidates) in cases {
            let explanation = try Self.checkPlan(format, on: realm)
            let written = format.replacingOccurrences(of: "'", with: "\"")
            #expect(explanation.hasPrefix("ordered index range on Reading where \(written) (\(candidates) candidates)"), "\(explanation)")
            #expect(realm.objects(Reading.self).filter(format).count == candidates, "\(format)")
        }
    }

    @Test("ranges stay right across commits that insert, delete and change indexed values and primary keys, after reopening and after compaction")
    func orderedRangesAcrossCommitsAndReopening() throws {
        let url = temporaryDatabaseURL()
        let config = fileConfiguration(url, durability: .none, types: [Reading.self])
        let formats = [
            "rank BETWEEN {100, 130}", "rank < 20", "rank >= 1985.5", "code >= 'r00100' AND code <= 'r00150'", "code > 'r01990'", "code < 'r0001'",
            "label >= 'l5' AND label <= 'l51'", "label > 'l998'", "stamp < T30:0", "stamp >= T1970:0", "checked BETWEEN {T40:0, T80:0}",
        ]
        /// Checks every range, expecting the ordered index to serve most.
        func checkRanges(_ realm: Realm, _ when: String) throws {
            var ordered = 0
            for format in formats where try Self.checkPlan(format, on: realm).hasPrefix("ordered index range") { ordered += 1 }
            #expect(ordered >= formats.count - 2, "\(when)")
            #expect(realm.instance.current.invariantViolation() == nil, "\(when)")
        }
        var rng = SeededRandom(seed: 0x0D_E7ED)
        let before: Snapshot = try PersistenceTests.withRealm(config) { realm in
            _ = try Self.readings(count: 2_000, in: realm)
            try checkRanges(realm, "after the first commit")
            for commit in 0..<30 {
                try realm.write {
                    let all = realm.objects(Reading.self)
                    for _ in 0..<20 {
                        let reading = all[Int.random(in: 0..<all.count, using: &rng)]
                        switch Int.random(in: 0..<4, using: &rng) {
                        case 0:
                            // A primary key changes only by delete and insert; codes come back.
                            let code = reading.code
                            realm.delete(reading)
                            if Bool.random(using: &rng) {
                                realm.create(Reading.self, value: ["code": "r0\(Int.random(in: 1000..<2100, using: &rng))", "rank": Int.random(in: 0..<2000, using: &rng)], update: .modified)
                            } else {
                                realm.create(Reading.self, value: ["code": code, "rank": 5000, "label": "l5", "stamp": Date(timeIntervalSince1970: 25)])
                            }
                        case 1:
                            reading.rank = Int.random(in: 0..<2000, using: &rng)
                            reading.label = "l\(Int.random(in: 0..<2000, using: &rng))"
                        case 2:
                            reading.stamp = Date(timeIntervalSince1970: Double(Int.random(in: 0..<2000, using: &rng)))
                            reading.checked = Bool.random(using: &rng) ? nil : Date(timeIntervalSince1970: Double(Int.random(in: 0..<100, using: &rng)))
                        default:
                            realm.create(Reading.self, value: ["code": "n\(commit)-\(Int.random(in: 0..<1_000_000, using: &rng))", "rank": Int.random(in: 0..<2000, using: &rng), "label": "l50"], update: .modified)
                        }
                    }
                }
                try checkRanges(realm, "after commit \(commit)")
            }
            return realm.instance.coordinator.latest
        }
        let replayed: Snapshot = try PersistenceTests.withRealm(config) { realm in
            try checkRanges(realm, "after replay")
            try realm.compact()
            return realm.instance.coordinator.latest
        }
        #expect(replayed.hasSameContents(as: before))
        try PersistenceTests.withRealm(config) { realm in
            try checkRanges(realm, "after loading the compacted snapshot")
            #expect(realm.instance.coordinator.latest.hasSameContents(as: before))
        }
        try Realm.deleteFiles(for: config)
    }

    @Test("canonically equivalent strings are different values, as in Realm (bytes compare): two buckets, both found by ranges")
    func canonicallyEquivalentStrings() throws {
        let realm = try makeRealm(types: [Reading.self])
        let composed = "\u{E9}", decomposed = "e\u{301}"
        #expect(composed == decomposed)  // Swift's String equality…
        #expect(Value.string(composed) != Value.string(decomposed))  // …is not Realm's.
        try realm.write {
            realm.create(Reading.self, value: ["code": "a", "label": composed])
            realm.create(Reading.self, value: ["code": "b", "label": decomposed])
            // Enough others that the range is selective and drives the plan.
            for i in 0..<20 { realm.create(Reading.self, value: ["code": "f\(i)", "label": "a\(i)"]) }
        }
        let table = realm.instance.current.schema.tableByName["Reading"]!
        let label = realm.instance.current.schema[table].indexByName["label"]!
        func ordered() -> [Value] { realm.instance.current.tables[table.index].secondaryIndexes[label]!.map(\.key).filter { Value.compare($0, .string("e")) != .orderedAscending } }
        #expect(ordered().count == 2)
        #expect(realm.objects(Reading.self).filter("label == %@", composed).map(\.code) == ["a"])
        #expect(realm.objects(Reading.self).filter("label == %@", decomposed).map(\.code) == ["b"])
        let range = realm.objects(Reading.self).filter("label >= 'e'")
        #expect(try Self.checkPlan("label >= 'e'", on: realm).hasPrefix("ordered index range on Reading where label >= \"e\" (2 candidates)"))
        #expect(Set(range.map(\.code)) == ["a", "b"])
        try realm.write { realm.delete(realm.object(ofType: Reading.self, forPrimaryKey: "a")!) }
        #expect(ordered() == [.string(decomposed)])
        #expect(realm.instance.current.invariantViolation() == nil)
        try realm.write { realm.delete(realm.object(ofType: Reading.self, forPrimaryKey: "b")!) }
        #expect(ordered().isEmpty)
        #expect(realm.instance.current.invariantViolation() == nil)
    }

    @Test("a migration that indexes a property and changes indexed values leaves ordered indexes that serve ranges")
    func orderedRangesAfterMigration() throws {
        let url = temporaryDatabaseURL()
        var old = fileConfiguration(url, types: [ReadingV1.self])
        old.schemaVersion = 1
        try PersistenceTests.withRealm(old) { realm in
            try realm.write {
                for i in 0..<500 { realm.create(ReadingV1.self, value: ["code": "c\(1000 + i)", "rank": i, "label": "l\(i % 50)"]) }
            }
        }
        var new = fileConfiguration(url, types: [Reading.self])
        new.schemaVersion = 2
        new.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "Reading") { old, new in
                let rank = old?["rank"] as? Int ?? 0
                new?["rank"] = rank * 2
                new?["label"] = "k\(rank % 7)"
            }
        }
        try PersistenceTests.withRealm(new) { realm in
            #expect(realm.instance.current.invariantViolation() == nil)
            let plans = try ["rank BETWEEN {10, 20}", "code >= 'c1495'", "label < 'k1'"].map { try Self.checkPlan($0, on: realm) }
            #expect(plans[0].hasPrefix("ordered index range on Reading where rank BETWEEN {10, 20} (6 candidates)"))
            #expect(plans[1].hasPrefix(#"ordered index range on Reading where code >= "c1495" (5 candidates)"#))
            #expect(plans[2].hasPrefix(#"ordered index range on Reading where label < "k1" (72 candidates)"#))
            #expect(realm.objects(Reading.self).filter("rank BETWEEN {10, 20}").map(\.code) == ["c1005", "c1006", "c1007", "c1008", "c1009", "c1010"])
        }
        try Realm.deleteFiles(for: new)
    }
}
