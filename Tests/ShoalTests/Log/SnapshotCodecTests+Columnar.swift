import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// The columnar snapshot form (format version 2): its bytes field by field,
/// its round trips, and its damage reports.
@Suite struct SnapshotColumnarTests {
    /// A small state: Ann (key 0), a deleted person (key 1), Bob (key 2);
    /// Rex (key 0, tags ["a"]) and Max (key 1, scores ["x": 1.5]), both
    /// owned by Ann, Max first, so that Ann's backlinks are not in the
    /// order loading makes them; Ann's dogs are [Max, Rex].
    static func smallState() throws -> Snapshot {
        let realm = try makeRealm(types: [Person.self, Dog.self])
        try realm.write {
            let ann = realm.create(Person.self, value: ["id": 1, "name": "Ann", "city": "Oslo"])
            let gone = realm.create(Person.self, value: ["id": 9, "name": "Gone", "city": ""])
            realm.create(Person.self, value: ["id": 2, "name": "Bob", "city": "Bergen"])
            let rex = realm.create(Dog.self, value: ["id": 10, "name": "Rex", "age": 3, "breed": "Pug"])
            let max = realm.create(Dog.self, value: ["id": 11, "name": "Max", "age": 5, "breed": "Lab", "owner": ann])
            rex.owner = ann
            rex.tags.insert("a")
            max.scores["x"] = 1.5
            ann.dogs.append(objectsIn: [max, rex])
            realm.delete(gone)
        }
        return realm.instance.coordinator.latest
    }

    /// The payload of ``smallState()`` written field by field from the
    /// grammar in SnapshotCodec.swift, with the offset of every named
    /// field, so that damage can be put exactly where it is meant to be.
    static func smallPayload(_ snapshot: Snapshot) -> (bytes: [UInt8], fields: [String: Int]) {
        var w = ByteWriter()
        var fields: [String: Int] = [:]
        func mark(_ name: String) { fields[name] = w.bytes.count }
        let schema = snapshot.schema
        let people = schema.tableByName["Person"]!.index
        let dogs = schema.tableByName["Dog"]!.index
        w.varint(UInt64(snapshot.version))
        w.varint(snapshot.schemaVersion)
        SchemaCodec.encode(schema, into: &w)
        func column(_ values: [Value]) { ChangeRecordCodec.encodeColumn(values, into: &w) }
        // Tables: Person first (Dog links to it), whatever the schema order.
        mark("Person.table"); w.varint(people)
        mark("Person.slotCount"); w.varint(3)
        mark("Person.liveCount"); w.varint(2)
        mark("Person.runCount"); w.varint(2)
        for (i, (skip, id, name, city)) in [(0, 1, "Ann", "Oslo"), (1, 2, "Bob", "Bergen")].enumerated() {
            mark("Person.run\(i).skip"); w.varint(skip)
            mark("Person.run\(i).count"); w.varint(1)
            mark("Person.run\(i).columnCount"); w.varint(4)
            column([.int(Int64(id))]); column([.string(name)]); column([.string(city)]); column([.null])
        }
        mark("Dog.table"); w.varint(dogs)
        mark("Dog.slotCount"); w.varint(2)
        mark("Dog.liveCount"); w.varint(2)
        mark("Dog.runCount"); w.varint(1)
        mark("Dog.run0.skip"); w.varint(0)
        mark("Dog.run0.count"); w.varint(2)
        mark("Dog.run0.columnCount"); w.varint(7)
        column([.int(10), .int(11)]); column([.string("Rex"), .string("Max")])
        mark("Dog.run0.age.kind"); column([.int(3), .int(5)])
        column([.string("Pug"), .string("Lab")]); column([.null, .null]); column([.null, .null])
        mark("Dog.run0.owner.kind"); w.byte(ChangeRecordCodec.ColumnKind.link.rawValue)
        mark("Dog.run0.owner.table"); w.varint(people)
        mark("Dog.run0.owner.ref0"); w.varint(1)
        w.varint(1)
        // Collections: Person.dogs, then Dog.tags and Dog.scores.
        mark("Person.dogs.objectCount"); w.varint(1)
        mark("Person.dogs.gap0"); w.varint(0)
        w.varint(2)
        ChangeRecordCodec.encode(.link(Link(table: TableKey(dogs), key: ObjectKey(1))), into: &w)
        ChangeRecordCodec.encode(.link(Link(table: TableKey(dogs), key: ObjectKey(0))), into: &w)
        mark("Dog.tags.objectCount"); w.varint(1)
        mark("Dog.tags.gap0"); w.varint(0)
        mark("Dog.tags.size0"); w.varint(1)
        ChangeRecordCodec.encode(.string("a"), into: &w)
        w.varint(1); w.varint(1); w.varint(1); w.string("x")
        mark("Dog.scores.value0"); ChangeRecordCodec.encode(.double(1.5), into: &w)
        // Backlinks: only Ann's, from Dog.owner (property 6): Max (1), then Rex (0).
        mark("Person.backlinks.objectCount"); w.varint(1)
        mark("Person.backlinks.gap0"); w.varint(0)
        mark("Person.backlinks.groupCount0"); w.varint(1)
        w.varint(dogs); w.varint(6)
        mark("Person.backlinks.count0"); w.varint(2)
        mark("Person.backlinks.key0"); w.varint(1)
        w.signed(-1)
        mark("Dog.backlinks.objectCount"); w.varint(0)
        return (w.bytes, fields)
    }

    /// `bytes` with the varint at `offset` replaced by `value`.
    static func replacingVarint(_ bytes: [UInt8], at offset: Int, with value: UInt64) -> [UInt8] {
        var end = offset
        while bytes[end] & 0x80 != 0 { end += 1 }
        var w = ByteWriter()
        w.varint(value)
        return Array(bytes[..<offset]) + w.bytes + Array(bytes[(end + 1)...])
    }

    @Test("the encoder writes the documented grammar byte for byte, and it loads to the same state")
    func grammar() throws {
        let snapshot = try Self.smallState()
        let bytes = SnapshotCodec.encode(snapshot)
        #expect(bytes == Self.smallPayload(snapshot).bytes)
        let restored = try SnapshotCodec.decode(bytes, formatVersion: LogFormat.version)
        #expect(restored.hasSameContents(as: snapshot))
        #expect(restored.invariantViolation() == nil)
    }

    @Test(
        "random states (deleted slots, every property type, links both ways, collections, backlink order) load identically, decoded here or ahead",
        arguments: 1...12, [false, true])
    func randomStates(seed: UInt64, ahead: Bool) throws {
        let (realm, _) = try ChangeRecordCodecTests.recordedWorkload(seed: seed, rounds: 150)
        var snapshot = realm.instance.coordinator.latest
        // Backlinks in an order that re-linking in table order would not make.
        var reversed = 0
        for (t, table) in snapshot.tables.enumerated() {
            // Every other list, so that lists in load order (not stored) and
            // others (stored) are both checked.
            for slot in stride(from: 0, to: table.backlinks.count, by: 2) where Set(table.backlinks[slot]).count > 1 {
                snapshot.tables[t].backlinks[slot] = Backlinks(table.backlinks[slot].reversed())
                reversed += 1
            }
        }
        #expect(reversed > 0)
        #expect(snapshot.tables.contains { $0.alive.count > $0.count })
        let restored = try SnapshotCodec.decode(
            SnapshotCodec.encode(snapshot), formatVersion: LogFormat.version, decodeAheadFrom: ahead ? 0 : .max)
        #expect(restored.hasSameContents(as: snapshot))
        #expect(restored.invariantViolation() == nil)
    }

    @Test("runs are cut at 4096 objects and at deleted slots, which keep their keys at the start, middle and end of a table")
    func runsAndGaps() throws {
        let realm = try makeRealm(types: [Person.self, Dog.self])
        try realm.write {
            let owner = realm.create(Person.self, value: ["id": 0, "name": "o", "city": "c"])
            for i in 0..<10_000 { realm.create(Dog.self, value: ["id": i, "name": "d\(i)", "age": i % 20, "owner": (i % 3 == 0 ? owner : nil) as Any]) }
        }
        try realm.write {
            realm.delete(realm.objects(Dog.self).where { $0.id < 5 || ($0.id >= 5000 && $0.id < 5003) || $0.id >= 9990 })
        }
        let snapshot = realm.instance.coordinator.latest
        let dogs = try #require(snapshot.schema.tableByName["Dog"])
        #expect(snapshot.tables[dogs.index].alive.count == 10_000 && snapshot.tables[dogs.index].count == 9982)
        let restored = try SnapshotCodec.decode(SnapshotCodec.encode(snapshot), formatVersion: LogFormat.version)
        #expect(restored.hasSameContents(as: snapshot))
        #expect(restored.invariantViolation() == nil)
        #expect(restored.tables[dogs.index].nextKey == ObjectKey(10_000))
    }

    @Test("a table whose objects were all deleted keeps every slot, however few bytes the snapshot has")
    func allDeleted() throws {
        let realm = try makeRealm(types: [Note.self])
        try realm.write { for i in 0..<50_000 { realm.create(Note.self, value: ["id": i]) } }
        try realm.write { realm.deleteAll() }
        let snapshot = realm.instance.coordinator.latest
        let bytes = SnapshotCodec.encode(snapshot)
        #expect(bytes.count < 200)
        let restored = try SnapshotCodec.decode(bytes, formatVersion: LogFormat.version)
        #expect(restored.hasSameContents(as: snapshot) && restored.tables[0].nextKey == ObjectKey(50_000))
    }

    @Test("a snapshot cut at any byte fails to decode with an offset inside what is left, decoded here or ahead; nothing crashes", arguments: [false, true])
    func cutAtEveryByte(ahead: Bool) throws {
        let bytes = SnapshotCodec.encode(try Self.smallState())
        for length in 0..<bytes.count {
            let error = #expect(throws: DecodingFailure.self, "cut at \(length)") {
                _ = try SnapshotCodec.decode(Array(bytes.prefix(length)), formatVersion: LogFormat.version, decodeAheadFrom: ahead ? 0 : .max)
            }
            #expect(error.map { $0.offset <= length } == true, "cut at \(length): \(String(describing: error))")
        }
    }

    @Test(
        "a damaged field is reported with the offset of the field or of its run and what was wrong, decoded here or ahead",
        arguments: [
            ("Dog.liveCount", 1, "Dog.liveCount", "hold 2 objects, but its live count is 1"),
            ("Person.liveCount", 4, "Person.liveCount", "4 live Person objects in 3 slots"),
            ("Person.slotCount", 1 << 40, "Person.slotCount", "over the most a table holds"),
            ("Dog.table", -1, "Dog.table", "appears twice"),
            ("Person.table", 7, "Person.table", "table 7 out of range"),
            ("Person.run1.skip", 2, "Person.run1.skip", "past the table's 3 slots"),
            ("Dog.run0.count", 0, "Dog.run0.skip", "a run holds 1...4096"),
            ("Dog.run0.count", 5000, "Dog.run0.skip", "a run holds 1...4096"),
            ("Dog.run0.columnCount", 6, "Dog.run0.columnCount", "has 6 columns for 7 stored properties"),
            ("Dog.run0.age.kind", 3, "Dog.run0.age.kind", "does not fit 'Dog.age'"),
            ("Dog.run0.age.kind", 9, "Dog.run0.age.kind", "unknown column kind 9"),
            ("Dog.run0.owner.table", -2, "Dog.run0.owner.kind", "does not fit 'Dog.owner'"),
            ("Dog.run0.owner.ref0", 2, "Dog.run0.skip", "not a live object"),
            ("Person.dogs.objectCount", 2, "Dog.tags.gap0", "empty 'Person.dogs'"),
            ("Person.dogs.gap0", 5, "Person.dogs.gap0", "beyond its 3 slots"),
            ("Dog.tags.size0", 0, "Dog.tags.size0", "empty 'Dog.tags'"),
            ("Person.backlinks.gap0", 1, "Person.backlinks.gap0", "not a live object"),
            ("Person.backlinks.groupCount0", 0, "Person.backlinks.groupCount0", "no backlinks"),
            ("Person.backlinks.key0", 5, "Person.backlinks.gap0", "do not match its links"),
            ("Person.backlinks.count0", 1, "Person.backlinks.gap0", "do not match its links"),
        ] as [(String, Int, String, String)], [false, true])
    func damagedField(_ damage: (field: String, value: Int, at: String, reason: String), ahead: Bool) throws {
        let (field, value, expected, reason) = damage
        let snapshot = try Self.smallState()
        let (bytes, fields) = Self.smallPayload(snapshot)
        let offset = try #require(fields[field])
        // -1: the other table's index; -2: the link's own table (Dog).
        let people = UInt64(snapshot.schema.tableByName["Person"]!.index), dogs = UInt64(snapshot.schema.tableByName["Dog"]!.index)
        let replacement: UInt64 = value == -1 ? people : value == -2 ? dogs : UInt64(value)
        let damaged =
            field.hasSuffix(".kind") ? Array(bytes[..<offset]) + [UInt8(value)] + Array(bytes[(offset + 1)...])
            : Self.replacingVarint(bytes, at: offset, with: replacement)
        let error = #expect(throws: DecodingFailure.self) {
            _ = try SnapshotCodec.decode(damaged, formatVersion: LogFormat.version, decodeAheadFrom: ahead ? 0 : .max)
        }
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
        #expect(error?.offset == fields[expected], "\(String(describing: error))")
    }

    @Test("backlinks in the order loading makes them are not stored; others are, and keep their order")
    func backlinksInLoadOrder() throws {
        let realm = try makeRealm(types: [Person.self, Dog.self])
        try realm.write {
            let owner = realm.create(Person.self, value: ["id": 0, "name": "o", "city": "c"])
            for i in 0..<1000 { realm.create(Dog.self, value: ["id": i, "owner": owner]) }
        }
        let snapshot = realm.instance.coordinator.latest
        let people = try #require(snapshot.schema.tableByName["Person"])
        var reversed = snapshot
        reversed.tables[people.index].backlinks[0] = Backlinks(snapshot.tables[people.index].backlinks[0].reversed())
        let (inOrder, outOfOrder) = (SnapshotCodec.encode(snapshot), SnapshotCodec.encode(reversed))
        #expect(outOfOrder.count > inOrder.count + 1000)
        #expect(try SnapshotCodec.decode(inOrder, formatVersion: LogFormat.version).hasSameContents(as: snapshot))
        #expect(try SnapshotCodec.decode(outOfOrder, formatVersion: LogFormat.version).hasSameContents(as: reversed))
    }

    @Test("bytes after the last backlinks are refused")
    func trailingBytes() throws {
        let bytes = SnapshotCodec.encode(try Self.smallState())
        let error = #expect(throws: DecodingFailure.self) {
            _ = try SnapshotCodec.decode(bytes + [0], formatVersion: LogFormat.version)
        }
        #expect(error == DecodingFailure(offset: bytes.count, reason: "1 bytes left after the backlinks"))
    }

    @Test("the payload form follows the file's format version: a row payload read as columnar is refused, not misread")
    func formVersusVersion() throws {
        let snapshot = try Self.smallState()
        #expect(try SnapshotCodec.decode(SnapshotCodec.encodeRows(snapshot), formatVersion: 1).hasSameContents(as: snapshot))
        #expect(throws: DecodingFailure.self) { _ = try SnapshotCodec.decode(SnapshotCodec.encodeRows(snapshot), formatVersion: 2) }
    }
}
