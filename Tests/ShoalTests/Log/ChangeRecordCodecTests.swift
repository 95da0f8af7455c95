import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

@Suite struct ChangeRecordCodecTests {
    /// Records from a random workload, each with the snapshot it applies to.
    static func recordedWorkload(seed: UInt64, rounds: Int) throws -> (Realm, [(Snapshot, ChangeRecord)]) {
        var rng = SeededRandom(seed: seed)
        let realm = try makeRealm()
        var out: [(Snapshot, ChangeRecord)] = []
        try realm.write {
            realm.create(AllTypes.self, value: [
                "id": ObjectId.generate(), "double": 1.5, "float": Float(2.5), "data": Data([0, 255]), "date": Date(timeIntervalSince1970: 12.75),
                "uuid": UUID(), "decimal": Decimal128(string: "-3.25")!, "any": AnyRealmValue.double(4), "optStrings": ["a", nil], "anys": [AnyRealmValue.none],
            ])
        }
        for _ in 0..<rounds {
            let base = realm.instance.coordinator.latest
            realm.beginWrite()
            RandomWorkload.step(realm, &rng, operations: 1 + Int(rng.next() % 10))
            let record = realm.instance.transaction!.record
            try realm.commitWrite()
            if !record.isEmpty { out.append((base, record)) }
        }
        return (realm, out)
    }

    @Test("every op and value kind round-trips through the codec, and replaying decoded records reproduces each commit")
    func roundTrip() throws {
        let (realm, records) = try Self.recordedWorkload(seed: 42, rounds: 150)
        let schema = realm.instance.schema
        for (base, record) in records {
            let bytes = ChangeRecordCodec.encode(record)
            let decoded = try ChangeRecordCodec.decode(bytes, baseVersion: record.baseVersion, schema: schema)
            #expect(decoded.ops.count == record.ops.count)
            #expect(zip(decoded.ops, record.ops).allSatisfy { Self.identical($0, $1) })
            var state = base
            for op in decoded.ops {
                #expect(state.problem(applying: op) == nil)
                state.apply(op)
            }
        }
        let kinds = Set(records.flatMap { $0.1.ops }.map { "\($0)".prefix(while: { $0 != "(" }) })
        #expect(kinds.isSuperset(of: ["insert", "delete", "set", "listInsert", "listRemove", "listMove", "setInsert", "setRemove", "mapSet"]))
    }

    static func identical(_ a: ChangeOp, _ b: ChangeOp) -> Bool {
        guard a == b else { return false }
        if case .insert(_, _, let va) = a, case .insert(_, _, let vb) = b { return zip(va, vb).allSatisfy { $0.isIdentical(to: $1) } }
        return true
    }

    @Test("every value kind round-trips exactly, including NaN, negative zero and extreme integers")
    func values() throws {
        let schema = try makeRealm().instance.schema
        let values: [Value] = [
            .null, .bool(true), .bool(false), .int(.min), .int(.max), .int(0), .int(-1), .float(-0.0), .float(.nan),
            .double(.infinity), .double(-1e-300), .string(""), .string("héllo 🐕"), .data(Data()), .data(Data(repeating: 7, count: 300)),
            .date(Date(timeIntervalSinceReferenceDate: -1.5)), .objectId(ObjectId.generate()), .decimal(Decimal128(string: "1e-20")!),
            .uuid(UUID()), .link(Link(table: TableKey(1), key: ObjectKey(123_456_789))),
        ]
        for value in values {
            var w = ByteWriter()
            ChangeRecordCodec.encode(value, into: &w)
            var r = ByteReader(w.bytes)
            let back = try ChangeRecordCodec.decodeValue(&r, schema)
            #expect(r.isAtEnd)
            switch (value, back) {
            case (.float(let a), .float(let b)): #expect(a.bitPattern == b.bitPattern)
            case (.double(let a), .double(let b)): #expect(a.bitPattern == b.bitPattern)
            default: #expect(back.isIdentical(to: value), "\(value)")
            }
        }
    }

    @Test("damaged payloads are rejected with an offset, or decode to ops the state check refuses; nothing crashes")
    func damagedPayloads() throws {
        let (realm, records) = try Self.recordedWorkload(seed: 7, rounds: 40)
        let schema = realm.instance.schema
        var rng = SeededRandom(seed: 99)
        var rejected = 0, refused = 0, harmless = 0
        for trial in 0..<2000 {
            let (base, record) = records[trial % records.count]
            var bytes = ChangeRecordCodec.encode(record)
            switch rng.next() % 3 {
            case 0: bytes[Int(rng.next() % UInt64(bytes.count))] ^= UInt8(1 << (rng.next() % 8))
            case 1: bytes.removeLast(1 + Int(rng.next() % UInt64(bytes.count)))
            default: bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
            }
            do {
                let decoded = try ChangeRecordCodec.decode(bytes, baseVersion: record.baseVersion, schema: schema)
                var state = base
                var ok = true
                for op in decoded.ops {
                    if state.problem(applying: op) != nil { ok = false; break }
                    state.apply(op)
                }
                if ok {
                    #expect(state.invariantViolation() == nil)
                    harmless += 1
                } else {
                    refused += 1
                }
            } catch {
                #expect(error.offset <= bytes.count)
                rejected += 1
            }
        }
        #expect(rejected > 500)
        #expect(rejected + refused + harmless == 2000)
    }
}

@Suite struct ByteCodingTests {
    @Test("strings round-trip byte for byte; invalid UTF-8 is refused with its offset, never repaired")
    func strings() throws {
        for text in ["", "Rex", "Ünïcødé 🐕‍🦺", String(repeating: "long string ", count: 40), "e\u{301}"] {
            var w = ByteWriter()
            w.string(text)
            var r = ByteReader(w.bytes)
            let decoded = try r.string()
            #expect(Array(decoded.utf8) == Array(text.utf8))
            #expect(r.isAtEnd)
        }
        let invalid: [[UInt8]] = [[0xFF], [0x41, 0xC3], [0xED, 0xA0, 0x80], [0xE2, 0x82, 0x41], [0xF0, 0x9F, 0x90]]
        for bytes in invalid {
            var w = ByteWriter()
            w.byte(7)
            w.raw(bytes)
            var r = ByteReader(w.bytes)
            _ = try r.byte()
            let error = #expect(throws: DecodingFailure.self) { _ = try r.string() }
            #expect(error?.reason == "string is not valid UTF-8", "\(bytes)")
            #expect(error?.offset == 1)
        }
    }
}

@Suite struct SnapshotCodecTests {
    @Test("a snapshot written and read back has the same contents, including deleted slots, links in any direction, and collections")
    func roundTrip() throws {
        let (realm, _) = try ChangeRecordCodecTests.recordedWorkload(seed: 11, rounds: 120)
        try realm.write {
            let dog = realm.create(Dog.self, value: ["id": 999_999, "name": "Last"])
            realm.objects(Person.self).first?.dogs.append(dog)
            realm.create(AllTypes.self, value: ["id": ObjectId.generate(), "link": dog, "any": AnyRealmValue.object(dog)])
        }
        let snapshot = realm.instance.coordinator.latest
        #expect(snapshot.tables.contains { $0.alive.count > $0.count })
        let bytes = SnapshotCodec.encode(snapshot)
        let restored = try SnapshotCodec.decode(bytes)
        #expect(restored.hasSameContents(as: snapshot))
        #expect(restored.invariantViolation() == nil)
    }

    @Test("tables that link ahead load after their targets; links that still point ahead (to later objects, in cycles) are set last")
    func linksAhead() throws {
        // Reversed, so that every to-one link points at a table read later.
        // Reading, last and linking nowhere by type, loads while the tables
        // before it are held: its mixed links to them must wait.
        let realm = try makeRealm(types: [Note.self, AllTypes.self, Puppy.self, Kennel.self, Dog.self, Person.self, Reading.self])
        try realm.write {
            let people = (0..<5).map { realm.create(Person.self, value: ["id": $0, "name": "p\($0)"]) }
            let dogs = (0..<40).map { realm.create(Dog.self, value: ["id": $0, "owner": people[$0 % 5]]) }
            for (i, dog) in dogs.enumerated() where i % 3 == 0 { realm.create(Puppy.self, value: ["name": "pup\(i)", "mother": dog]) }
            var previous: AllTypes?
            for i in 0..<6 {
                let row = realm.create(AllTypes.self, value: ["id": ObjectId.generate(), "link": dogs[i]])
                // Mixed values linking back, and to a person.
                row.any = i % 2 == 0 ? AnyRealmValue.object(people[i % 5]) : previous.map { AnyRealmValue.object($0) } ?? .none
                previous = row
            }
            // A mixed link to a later object of the same table: set ahead.
            realm.objects(AllTypes.self).first!.any = .object(realm.objects(AllTypes.self).last!)
            for (i, row) in realm.objects(AllTypes.self).enumerated() {
                realm.create(Reading.self, value: ["code": "r\(i)", "mixed": AnyRealmValue.object(row)])
            }
            for dog in dogs where dog.id % 7 == 3 { realm.delete(dog) }
        }
        let snapshot = realm.instance.coordinator.latest
        let dogs = try #require(snapshot.schema.tableByName["Dog"])
        let people = try #require(snapshot.schema.tableByName["Person"])
        #expect(dogs.index < people.index)
        #expect(snapshot.tables[dogs.index].alive.count > snapshot.tables[dogs.index].count)
        let restored = try SnapshotCodec.decode(SnapshotCodec.encode(snapshot))
        #expect(restored.hasSameContents(as: snapshot))
        #expect(restored.invariantViolation() == nil)
    }

    @Test("a snapshot whose objects share a primary key is rejected when its indexes are built")
    func duplicatePrimaryKey() throws {
        let schema = try makeRealm().instance.schema
        var snapshot = Snapshot(schema: schema)
        let dogs = schema.tableByName["Dog"]!
        let values = ClassRegistry.info(for: Dog.self).defaults
        snapshot.apply(.insert(dogs, ObjectKey(0), values), indexing: false)
        snapshot.apply(.insert(dogs, ObjectKey(1), values), indexing: false)
        let error = #expect(throws: DecodingFailure.self) { _ = try SnapshotCodec.decode(SnapshotCodec.encode(snapshot)) }
        #expect(error?.reason.contains("share the primary key") == true)
    }

    @Test("stored backlinks must hold exactly the links that point at each object; their stored order wins")
    func storedBacklinks() throws {
        let realm = try makeRealm()
        try realm.write {
            let ann = realm.create(Person.self, value: ["id": 1, "name": "Ann"])
            let bob = realm.create(Person.self, value: ["id": 2, "name": "Bob"])
            for id in 0..<3 { realm.create(Dog.self, value: ["id": id, "owner": id == 2 ? bob : ann]) }
        }
        let snapshot = realm.instance.coordinator.latest
        let people = try #require(snapshot.schema.tableByName["Person"])
        let ann = try #require(snapshot.object(people, primaryKey: .int(1)))
        let bob = try #require(snapshot.object(people, primaryKey: .int(2)))
        let annLinks = snapshot.tables[people.index].backlinks[ann.slot]
        #expect(annLinks.count == 2)

        // Reordered: accepted, in the stored order.
        var reordered = snapshot
        reordered.tables[people.index].backlinks[ann.slot] = annLinks.reversed()
        let restored = try SnapshotCodec.decode(SnapshotCodec.encode(reordered))
        #expect(restored.tables[people.index].backlinks[ann.slot] == annLinks.reversed())

        // One missing from an object that has others, or all of an object's missing.
        for damage in [(ann, Array(annLinks.prefix(1))), (bob, [])] {
            var damaged = snapshot
            damaged.tables[people.index].backlinks[damage.0.slot] = damage.1
            let error = #expect(throws: DecodingFailure.self) { _ = try SnapshotCodec.decode(SnapshotCodec.encode(damaged)) }
            #expect(error?.reason.contains("backlinks") == true, "\(String(describing: error))")
        }
        // One stored on an object that no link points at.
        var extra = snapshot
        let dogs = try #require(snapshot.schema.tableByName["Dog"])
        extra.tables[dogs.index].backlinks[0] = [annLinks[0]]
        let error = #expect(throws: DecodingFailure.self) { _ = try SnapshotCodec.decode(SnapshotCodec.encode(extra)) }
        #expect(error?.reason.contains("backlinks") == true, "\(String(describing: error))")
    }

    @Test("the schema round-trips and a damaged schema is rejected")
    func schema() throws {
        let schema = try makeRealm().instance.schema
        let bytes = SchemaCodec.encode(schema)
        #expect(try SchemaCodec.decode(bytes) == schema)
        var damaged = bytes
        damaged[damaged.count / 2] ^= 0xFF
        #expect(throws: DecodingFailure.self) { _ = try SchemaCodec.decode(Array(damaged.prefix(damaged.count - 3))) }
    }
}
