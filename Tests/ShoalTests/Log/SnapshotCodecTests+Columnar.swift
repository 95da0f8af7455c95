import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// The columnar snapshot form (format version 2; packed leaves since
/// version 4): its bytes field by field, its round trips, and its damage
/// reports.
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
        /// A packed leaf (format version 4), written from the grammar:
        /// `name.width` marks its width byte, `name.base` its base.
        func packed(_ values: [Int64], _ name: String) {
            let least = values.min()!, span = UInt64(values.max()! - least)
            let width = span == 0 ? 0 : span <= 0xFF ? 1 : span <= 0xFFFF ? 2 : 4
            mark("\(name).width"); w.byte(UInt8(width))
            mark("\(name).base"); w.signed(least)
            for v in values {
                let offset = UInt64(v - least)
                for b in 0..<width { w.byte(UInt8(truncatingIfNeeded: offset >> (8 * UInt64(b)))) }
            }
        }
        func ints(_ values: [Int64], _ name: String) {
            mark("\(name).kind"); w.byte(ChangeRecordCodec.ColumnKind.packedInt.rawValue)
            packed(values, name)
        }
        /// Coded strings (format version 5): the dictionary's strings new
        /// in the run, as a string leaf with one-byte lengths, then the
        /// codes as a packed leaf.
        func strings(new values: [String], codes: [Int64], _ name: String) {
            mark("\(name).kind"); w.byte(ChangeRecordCodec.ColumnKind.codedStrings.rawValue)
            mark("\(name).newCount"); w.varint(values.count)
            if !values.isEmpty { stringLeaf(values, name) }
            packed(codes, name)
        }
        /// A string leaf (format version 4) with one-byte lengths.
        func stringLeaf(_ values: [String], _ name: String) {
            mark("\(name).byteCount"); w.varint(values.reduce(0) { $0 + $1.utf8.count })
            mark("\(name).lengthWidth"); w.byte(1)
            mark("\(name).lengths")
            for (i, v) in values.enumerated() {
                mark("\(name).length\(i)"); w.byte(UInt8(v.utf8.count))
            }
            mark("\(name).byte0")
            for v in values { w.utf8(v) }
        }
        // Tables: Person first (Dog links to it), whatever the schema order.
        mark("Person.table"); w.varint(people)
        mark("Person.slotCount"); w.varint(3)
        mark("Person.liveCount"); w.varint(2)
        mark("Person.runCount"); w.varint(2)
        // The first run writes each dictionary whole (later runs bring no
        // string): the deleted person's name and city keep their codes (1).
        for (i, (skip, id, names, cities)) in [(0, 1, ["Ann", "Gone", "Bob"], ["Oslo", "", "Bergen"]), (1, 2, [], [])].enumerated() {
            mark("Person.run\(i).skip"); w.varint(skip)
            mark("Person.run\(i).count"); w.varint(1)
            mark("Person.run\(i).columnCount"); w.varint(4)
            ints([Int64(id)], "Person.run\(i).id")
            strings(new: names, codes: [Int64(2 * i)], "Person.run\(i).name")
            strings(new: cities, codes: [Int64(2 * i)], "Person.run\(i).city")
            column([.null])
        }
        mark("Dog.table"); w.varint(dogs)
        mark("Dog.slotCount"); w.varint(2)
        mark("Dog.liveCount"); w.varint(2)
        mark("Dog.runCount"); w.varint(1)
        mark("Dog.run0.skip"); w.varint(0)
        mark("Dog.run0.count"); w.varint(2)
        mark("Dog.run0.columnCount"); w.varint(7)
        ints([10, 11], "Dog.run0.id"); strings(new: ["Rex", "Max"], codes: [0, 1], "Dog.run0.name")
        ints([3, 5], "Dog.run0.age")
        strings(new: ["Pug", "Lab"], codes: [0, 1], "Dog.run0.breed"); column([.null, .null]); column([.null, .null])
        // Both owned by Ann (key 0): a leaf of width 0.
        mark("Dog.run0.owner.kind"); w.byte(ChangeRecordCodec.ColumnKind.packedLink.rawValue)
        mark("Dog.run0.owner.table"); w.varint(people)
        packed([0, 0], "Dog.run0.owner")
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
            // Key 1 (zigzag 2): the deleted person.
            ("Dog.run0.owner.base", 2, "Dog.run0.skip", "not a live object"),
            ("Dog.run0.age.width", 3, "Dog.run0.age.width", "3 bytes per value, not 0, 1, 2, 4 or 8"),
            ("Dog.run0.name.lengthWidth", 3, "Dog.run0.name.lengthWidth", "lengths of 3 bytes, not 1, 2 or 4"),
            ("Dog.run0.name.byteCount", 7, "Dog.run0.name.lengths", "do not add up to the byte count 7"),
            ("Dog.run0.name.length0", 4, "Dog.run0.name.lengths", "do not add up to the byte count 6"),
            ("Dog.run0.name.length0", 2, "Dog.run0.name.lengths", "do not add up to the byte count 6"),
            ("Dog.run0.name.byte0", 0xFF, "Dog.run0.name.byte0", "not valid UTF-8"),
            // Coded strings: a code past the dictionary, a null in a required
            // property, more new strings than a dictionary takes, a kind on
            // the wrong property.
            ("Dog.run0.name.base", 10, "Dog.run0.name.width", "code 5 of a dictionary of 2 strings"),
            ("Dog.run0.name.base", 1, "Dog.run0.name.kind", "value null does not fit 'Dog.name'"),
            ("Dog.run0.name.base", 3, "Dog.run0.name.width", "code -2 of a dictionary of 2 strings"),
            ("Dog.run0.name.newCount", 70_000, "Dog.run0.name.newCount", "70000 new strings past the 0 of a dictionary that holds 65536"),
            ("Dog.run0.age.kind", 8, "Dog.run0.age.kind", "coded strings do not fit 'Dog.age'"),
            ("Person.run0.id.kind", 6, "Person.run0.id.kind", "does not fit 'Person.id'"),
            ("Person.run0.name.kind", 5, "Person.run0.name.kind", "a packed int column does not fit 'Person.name'"),
            ("Person.run0.id.kind", 7, "Person.run0.id.kind", "a string leaf does not fit 'Person.id'"),
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
            [".kind", ".width", ".lengthWidth", ".length0", ".byte0"].contains(where: field.hasSuffix)
            ? Array(bytes[..<offset]) + [UInt8(value)] + Array(bytes[(offset + 1)...])
            : Self.replacingVarint(bytes, at: offset, with: replacement)
        let error = #expect(throws: DecodingFailure.self) {
            _ = try SnapshotCodec.decode(damaged, formatVersion: LogFormat.version, decodeAheadFrom: ahead ? 0 : .max)
        }
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
        #expect(error?.offset == fields[expected], "\(String(describing: error))")
    }

    @Test("a packed link leaf whose base and offsets pass Int64.max is refused as a key out of range, not read as null", arguments: [false, true])
    func wrappingLinkLeaf(ahead: Bool) throws {
        let snapshot = try Self.smallState()
        let (bytes, fields) = Self.smallPayload(snapshot)
        let offset = try #require(fields["Dog.run0.owner.width"])
        // The owners' leaf is width 0, base 0 (two bytes): now width 1,
        // base Int64.max - 1, offsets 0 and 5 (the second wraps).
        var leaf = ByteWriter()
        leaf.byte(1)
        leaf.signed(Int64.max - 1)
        leaf.byte(0)
        leaf.byte(5)
        let damaged = Array(bytes[..<offset]) + leaf.bytes + Array(bytes[(offset + 2)...])
        let error = #expect(throws: DecodingFailure.self) {
            _ = try SnapshotCodec.decode(damaged, formatVersion: LogFormat.version, decodeAheadFrom: ahead ? 0 : .max)
        }
        #expect(error?.reason.contains("link key") == true && error?.reason.contains("out of range") == true, "\(String(describing: error))")
        #expect(error?.offset == offset, "\(String(describing: error))")
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

/// The column kinds of format version 4: packed leaves and string leaves.
@Suite struct SnapshotLeafTests {
    @Test("a version 4 snapshot's leaf kinds are unknown kinds in a version 3 snapshot and in a log's insert run; version 5's coded strings in a version 4 one too",
        arguments: [ChangeRecordCodec.ColumnKind.packedInt, .codedStrings])
    func leafKindsOnlyInVersion4(kind: ChangeRecordCodec.ColumnKind) throws {
        let snapshot = try SnapshotColumnarTests.smallState()
        let (bytes, fields) = SnapshotColumnarTests.smallPayload(snapshot)
        let old = #expect(throws: DecodingFailure.self) { _ = try SnapshotCodec.decode(bytes, formatVersion: 3) }
        #expect(old?.reason.contains("unknown column kind 5") == true && old?.offset == fields["Person.run0.id.kind"], "\(String(describing: old))")
        let four = #expect(throws: DecodingFailure.self) { _ = try SnapshotCodec.decode(bytes, formatVersion: 4) }
        #expect(four?.reason.contains("unknown column kind 8") == true && four?.offset == fields["Person.run0.name.kind"], "\(String(describing: four))")
        #expect(try SnapshotCodec.decode(bytes, formatVersion: 5).hasSameContents(as: snapshot))
        // An insert run of the log whose first column is a packed leaf.
        let schema = snapshot.schema
        let people = try #require(schema.tableByName["Person"])
        var w = ByteWriter()
        w.byte(ChangeRecordCodec.insertRunTag)
        w.varint(people.index)
        w.varint(UInt64(0))
        w.varint(1)
        w.varint(4)
        let kindOffset = w.bytes.count
        w.byte(kind.rawValue)
        w.byte(0)
        w.signed(1)
        var r = ByteReader(w.bytes)
        let failure = #expect(throws: DecodingFailure.self) { _ = try ChangeRecordCodec.decodeRun(&r, schema) }
        #expect(failure?.reason.contains("unknown column kind \(kind.rawValue)") == true && failure?.offset == kindOffset, "\(String(describing: failure))")
    }

    @Test("full runs load as the leaves the table keeps: packed integers and links adopted at their width, two-byte string ends; every width round-trips", arguments: [
        [Int64](repeating: 7, count: 4096), (0..<4096).map { Int64($0 % 200) }, (0..<4096).map { Int64($0) * 3 - 5_000 },
        (0..<4096).map { Int64($0) << 20 }, (0..<4096).map { $0 == 7 ? Int64.min : Int64.max - Int64($0) }, (0..<4100).map { Int64($0) },
    ] as [[Int64]])
    func fullLeaves(values: [Int64]) throws {
        let realm = try makeRealm(types: [Person.self, Dog.self])
        try realm.write {
            let people = (0..<500).map { realm.create(Person.self, value: ["id": $0, "name": "P", "city": ""]) }
            for (i, v) in values.enumerated() {
                realm.create(Dog.self, value: ["id": i, "name": "D\(i % 3)", "age": Int(v), "breed": "", "owner": i % 13 == 5 ? NSNull() as Any : people[i / 10] as Any])
            }
        }
        let snapshot = realm.instance.coordinator.latest
        let restored = try SnapshotCodec.decode(SnapshotCodec.encode(snapshot), formatVersion: LogFormat.version, decodeAheadFrom: .max)
        #expect(restored.hasSameContents(as: snapshot))
        #expect(restored.invariantViolation() == nil)
        let dogs = try #require(snapshot.schema.tableByName["Dog"])
        let os = snapshot.schema[dogs]
        // The first leaf is full: loaded at the width the table packs it to.
        for name in ["age", "owner"] {
            let p = try #require(os.indexByName[name])
            let loaded = restored.tables[dogs.index].scalars[p].ints, written = snapshot.tables[dogs.index].scalars[p].ints
            #expect(loaded.leaves[0].width == written.leaves[0].width && loaded.leaves[0].count == 4096, "\(name)")
        }
        // Names: coded, their codes' leaf adopted at its width. Written from
        // a plain column (as one loaded from an older version is), coded too.
        let name = try #require(os.indexByName["name"])
        let coded = restored.tables[dogs.index].scalars[name]
        #expect(coded.kind == .codedString && coded.ints.leaves[0].width == snapshot.tables[dogs.index].scalars[name].ints.leaves[0].width)
        var plain = snapshot
        plain.tables[dogs.index].scalars[name] = Column(kind: .string)
        plain.tables[dogs.index].scalars[name].append(contentsOf: (0..<values.count).map { coded[$0] })
        let restoredPlain = try SnapshotCodec.decode(SnapshotCodec.encode(plain), formatVersion: LogFormat.version, decodeAheadFrom: .max)
        #expect(restoredPlain.hasSameContents(as: snapshot))
        #expect(restoredPlain.tables[dogs.index].scalars[name].kind == .codedString)
        // A full string leaf (version 4's kind 7) loads with two-byte ends.
        var w = ByteWriter()
        let strings = (0..<4096).map { "D\($0 % 3)" }
        ChangeRecordCodec.encodeStringLeaf(count: strings.count, into: &w, length: { strings[$0].utf8.count }) { i, w in w.utf8(strings[i]) }
        var r = ByteReader(w.bytes)
        var leaf = Column(kind: .string)
        try ChangeRecordCodec.decodeStringLeaf(&r, count: strings.count, into: &leaf)
        #expect(leaf.bytes.leaves.count == 1 && leaf.bytes.leaves[0].isShort)
        #expect((0..<strings.count).allSatisfy { leaf[$0] == .string(strings[$0]) })
    }

    @Test("a snapshot made mostly of packed integers keeps their leaves where they lie in its bytes, read and written as copies are; one made mostly of strings copies them out", arguments: [false, true])
    func adoptedLeaves(ahead: Bool) throws {
        /// 20,000 dogs named by `name`, their snapshot's bytes, and the
        /// snapshot those load to.
        /// With `probing`, also whether nothing but the caller's array held
        /// the bytes right after loading, before any index was read (its
        /// build waited for); the probe copies the bytes when something did.
        func loaded(probing: Bool = false, name: (Int) -> String) throws -> (snapshot: Snapshot, bytes: [UInt8], restored: Snapshot, alone: Bool) {
            let realm = try makeRealm(types: [Person.self, Dog.self])
            try realm.write {
                for i in 0..<20_000 { realm.create(Dog.self, value: ["id": i, "name": name(i), "age": i % 90, "breed": ""]) }
            }
            let snapshot = realm.instance.coordinator.latest
            var bytes = SnapshotCodec.encode(snapshot)
            let restored = try SnapshotCodec.decode(bytes, formatVersion: LogFormat.version, decodeAheadFrom: ahead ? 0 : .max)
            // Decoding ahead frees the decoded runs, which share the bytes,
            // on a worker once loading is done: wait for it to have.
            BackgroundWorker.waitUntilPoolIdle()
            let alone = probing && Self.isOnlyReference(&bytes)
            #expect(restored.hasSameContents(as: snapshot) && restored.invariantViolation() == nil)
            return (snapshot, bytes, restored, alone)
        }
        let (snapshot, bytes, restored, _) = try loaded { _ in "" }
        let dogs = try #require(snapshot.schema.tableByName["Dog"])
        let age = try #require(snapshot.schema[dogs].indexByName["age"])
        let ids = try #require(snapshot.schema[dogs].indexByName["id"])
        // Ids and ages, every full leaf of each (four of five).
        #expect(restored.leaves(sharing: bytes).count == 8)
        // A write to an adopted leaf copies it: the bytes, and the snapshot
        // loaded, keep their values.
        var written = restored
        written.apply(.set(dogs, ObjectKey(5), property: age, .int(1_000)))
        written.apply(.set(dogs, ObjectKey(4_100), property: age, .int(7)))
        #expect(written.tables[dogs.index].scalars[age].ints[5] == 1_000 && written.tables[dogs.index].scalars[age].ints[4_100] == 7)
        #expect(restored.tables[dogs.index].scalars[age].ints[5] == 5 && restored.tables[dogs.index].scalars[age].ints[4_100] == 4_100 % 90)
        #expect(restored.hasSameContents(as: snapshot) && bytes == SnapshotCodec.encode(snapshot))
        #expect(written.leaves(sharing: bytes).count == 6)
        // Values read at every offset of an adopted leaf, whatever its
        // bytes' alignment, and counted, compared and scanned in place.
        let loadedIds = restored.tables[dogs.index].scalars[ids].ints
        #expect((0..<20_000).allSatisfy { loadedIds[$0] == Int64($0) })
        #expect(loadedIds.consecutiveFirst(0..<20_000) == 0 && loadedIds.count(equalTo: 12_345) == 1)
        // Mostly strings: the leaves are copied out, and the bytes not kept.
        let wordy = try loaded(probing: true) { "Dog number \($0) of many" }
        #expect(wordy.restored.leaves(sharing: wordy.bytes).count == 0)
        // Nothing keeps the bytes then, not even the age index's build,
        // which was handed the table once its leaves were copied out.
        #expect(wordy.alone)
        #expect(SnapshotCodec.keepsAdoptedLeaves(adopted: 75, of: 100) && !SnapshotCodec.keepsAdoptedLeaves(adopted: 74, of: 100))
        #expect(!SnapshotCodec.keepsAdoptedLeaves(adopted: 0, of: 0))
    }

    /// Whether nothing but `bytes` holds its storage: a write then does not copy it.
    static func isOnlyReference(_ bytes: inout [UInt8]) -> Bool {
        let before = bytes.withUnsafeBufferPointer { $0.baseAddress }
        bytes.withUnsafeMutableBufferPointer { _ in }
        return bytes.withUnsafeBufferPointer { $0.baseAddress } == before
    }

    @Test("the leaves a snapshot is judged by are those its tables hold: runs appended off a leaf's boundary (after a deleted object) are copied, and do not count", arguments: [false, true])
    func adoptionCountsWhatTablesHold(ahead: Bool) throws {
        let realm = try makeRealm(types: [Person.self, Dog.self])
        try realm.write {
            for i in 0..<8_192 { realm.create(Person.self, value: ["id": i, "name": "", "city": ""]) }
            for i in 0..<30_000 { realm.create(Dog.self, value: ["id": i, "name": "", "age": i % 90, "breed": ""]) }
            realm.delete(realm.object(ofType: Dog.self, forPrimaryKey: 0)!)
        }
        let snapshot = realm.instance.coordinator.latest
        var bytes = SnapshotCodec.encode(snapshot)
        let restored = try SnapshotCodec.decode(bytes, formatVersion: LogFormat.version, decodeAheadFrom: ahead ? 0 : .max)
        #expect(Self.isOnlyReference(&bytes))
        #expect(restored.hasSameContents(as: snapshot) && restored.invariantViolation() == nil)
        // The people's id leaves alone would have stayed in place: too few
        // of the bytes to keep them all.
        #expect(restored.leaves(sharing: bytes).count == 0)
    }
}
