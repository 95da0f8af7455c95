import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

@Suite struct ChangeRecordCodecRunTests {
    /// `count` dog inserts from key `first`, owned by people `0..<people`
    /// (every seventh has none), with names, ages and breeds.
    static func dogInserts(_ schema: Schema, first: Int, count: Int, people: Int) throws -> [ChangeOp] {
        let dogs = try #require(schema.tableByName["Dog"])
        let personTable = try #require(schema.tableByName["Person"])
        let os = schema[dogs]
        var values = ClassRegistry.info(for: Dog.self).defaults
        return (first..<first + count).map { i in
            values[os.primaryKeyIndex!] = .int(Int64(i))
            values[os.indexByName["name"]!] = .string("dog \(i)")
            values[os.indexByName["age"]!] = .int(Int64(i % 17 - 3))
            values[os.indexByName["owner"]!] = i % 7 == 0 || people == 0 ? .null : .link(Link(table: personTable, key: ObjectKey(Int64(i % people))))
            return .insert(dogs, ObjectKey(Int64(i)), values)
        }
    }

    static func personInserts(_ schema: Schema, count: Int) throws -> [ChangeOp] {
        let people = try #require(schema.tableByName["Person"])
        var values = ClassRegistry.info(for: Person.self).defaults
        return (0..<count).map { i in
            values[schema[people].primaryKeyIndex!] = .int(Int64(i))
            values[schema[people].indexByName["city"]!] = .string(i % 2 == 0 ? "Oslo" : "Zürich 🏔")
            return .insert(people, ObjectKey(Int64(i)), values)
        }
    }

    /// The runs and single ops a payload decodes to.
    static func shape(_ bytes: [UInt8], _ schema: Schema) throws -> (runs: [Int], ops: Int) {
        var runs: [Int] = [], ops = 0
        try ChangeRecordCodec.forEachChange(in: bytes, schema: schema, op: { _ in ops += 1; return true }) { run in
            runs.append(run.count)
            return true
        }
        return (runs, ops)
    }

    static func expectIdentical(_ a: ChangeRecord, _ b: ChangeRecord) {
        #expect(a.ops.count == b.ops.count)
        #expect(zip(a.ops, b.ops).allSatisfy { ChangeRecordCodecTests.identical($0, $1) })
    }

    @Test("consecutive inserts into one table become runs of at most maximumRun, and decode back to the exact ops",
        arguments: [1, 7, 8, 9, 4095, 4096, 4097, 8192 + 8, 8192 + 7])
    func runLengths(count: Int) throws {
        let schema = try makeRealm().instance.schema
        let record = ChangeRecord(baseVersion: 3, ops: try Self.personInserts(schema, count: 10) + Self.dogInserts(schema, first: 0, count: count, people: 10))
        let bytes = ChangeRecordCodec.encode(record)
        Self.expectIdentical(try ChangeRecordCodec.decode(bytes, baseVersion: 3, schema: schema), record)
        var expected = [10]
        var left = count
        while left > 0 {
            let n = min(left, ChangeRecordCodec.maximumRun)
            if n >= ChangeRecordCodec.minimumRun { expected.append(n) }
            left -= n
        }
        let (runs, ops) = try Self.shape(bytes, schema)
        #expect(runs == expected)
        #expect(runs.reduce(0, +) + ops == record.ops.count)
        // Without runs (a version 1 segment) nothing is a run, and the ops are the same.
        let plain = ChangeRecordCodec.encode(record, insertRuns: false)
        #expect(try Self.shape(plain, schema).runs.isEmpty)
        Self.expectIdentical(try ChangeRecordCodec.decode(plain, baseVersion: 3, schema: schema), record)
        if count >= 4096 { #expect(bytes.count < plain.count * 3 / 4) }
    }

    @Test("a run's collection column decodes to placeholders (a count, no value per object), which read as null and append to the table's column as a count")
    func collectionPlaceholders() throws {
        let schema = try makeRealm().instance.schema
        let people = try #require(schema.tableByName["Person"])
        let list = try #require(schema[people].indexByName["dogs"])
        let ops = try Self.personInserts(schema, count: 300)
        var w = ByteWriter()
        ChangeRecordCodec.encodeRun(ops[...], into: &w)
        var r = ByteReader(w.bytes)
        let run = try ChangeRecordCodec.decodeRun(&r, schema)
        let column = run.columns[list]
        #expect(column.isTyped && column.typed.kind == .none && column.count == 300)
        #expect(column.allSatisfy { $0.isNull })
        var batch = BatchApplier(Snapshot(schema: schema, version: 0, schemaVersion: 0))
        #expect(batch.apply(run) == nil && batch.finish() == nil)
        #expect(batch.snapshot.tables[people.index].scalars[list].kind == .none && batch.snapshot.tables[people.index].scalars[list].count == 300)
    }

    @Test("runs interleaved with other ops, key gaps, other tables and every value kind round-trip exactly")
    func interleaved() throws {
        let (realm, records) = try ChangeRecordCodecTests.recordedWorkload(seed: 77, rounds: 60)
        let schema = realm.instance.schema
        var ops = try Self.personInserts(schema, count: 12)
        let dogs = try Self.dogInserts(schema, first: 0, count: 40, people: 12)
        let dogTable = try #require(schema.tableByName["Dog"])
        ops += dogs[0..<20]
        ops.append(.set(dogTable, ObjectKey(3), property: schema[dogTable].indexByName["name"]!, .string("renamed")))
        ops += dogs[20..<40]
        ops.append(.delete(dogTable, ObjectKey(39)))
        // A key gap splits a run: 10 + 9.
        ops += try Self.dogInserts(schema, first: 40, count: 10, people: 12) + Self.dogInserts(schema, first: 51, count: 9, people: 12)
        // Every kind of value in a tagged column: AllTypes inserts made live.
        var bulk = ChangeRecord(baseVersion: 0, ops: ops)
        do {
            realm.beginWrite()
            for i in 0..<12 {
                realm.add(AllTypes(value: ["id": ObjectId.generate(), "int": i, "string": "s\(i)", "any": i % 2 == 0 ? AnyRealmValue.string("x") : .double(Double(i)),
                    "optInt": (i % 3 == 0 ? nil : i) as Any, "float": Float(-0.0), "date": Date(timeIntervalSince1970: Double(i))]))
            }
            bulk.ops += realm.instance.transaction!.record.ops
            realm.cancelWrite()
        }
        for record in records.map({ $0.1 }) + [bulk] {
            Self.expectIdentical(try ChangeRecordCodec.decode(ChangeRecordCodec.encode(record), baseVersion: record.baseVersion, schema: schema), record)
        }
        let (runs, _) = try Self.shape(ChangeRecordCodec.encode(bulk), schema)
        #expect(runs == [12, 20, 20, 10, 9, 12], "people, dogs around a set, dogs around a key gap, AllTypes")
    }
}

@Suite struct ChangeRecordCodecRunDamageTests {
    let schema: Schema
    let dogs: TableKey
    let os: ObjectSchema

    init() throws {
        schema = try makeRealm().instance.schema
        dogs = try #require(schema.tableByName["Dog"])
        os = schema[dogs]
    }

    /// A payload of one run of `count` dogs from `key` whose columns
    /// `columns` writes (defaults: well-formed columns for three dogs).
    func payload(key: UInt64 = 0, count: UInt64 = 3, columnCount: Int? = nil, columns: ((inout ByteWriter, Int) -> Bool)? = nil) -> [UInt8] {
        var w = ByteWriter()
        w.varint(1)
        w.byte(13)
        w.varint(Int(dogs.rawValue))
        w.varint(key)
        w.varint(count)
        w.varint(columnCount ?? os.storedCount)
        // (Values for at most 3 objects: a bad count is refused before them.)
        let count = min(count, 3)
        for p in 0..<os.storedCount {
            if let columns, columns(&w, p) { continue }
            let property = os.properties[p]
            if property.collection != .none || property.isOptional {
                w.byte(0)
            } else if property.type == .int {
                w.byte(2)
                for i in 0..<count { w.signed(Int64(i)) }
            } else {
                w.byte(3)
                for _ in 0..<count { w.string("x") }
            }
        }
        return w.bytes
    }

    func failure(_ bytes: [UInt8]) -> DecodingFailure? {
        #expect(throws: DecodingFailure.self) { _ = try ChangeRecordCodec.decode(bytes, baseVersion: 0, schema: schema) }
    }

    var name: Int { os.indexByName["name"]! }
    var owner: Int { os.indexByName["owner"]! }
    var tags: Int { os.indexByName["tags"]! }

    @Test("a well-formed hand-made run decodes to its inserts")
    func wellFormed() throws {
        let record = try ChangeRecordCodec.decode(payload(key: 5), baseVersion: 0, schema: schema)
        #expect(record.ops.count == 3)
        #expect(record.ops.map(\.target.key) == [ObjectKey(5), ObjectKey(6), ObjectKey(7)])
    }

    @Test("a run count of 0 or above maximumRun is refused at the count's offset")
    func badCounts() {
        for count: UInt64 in [0, 4097, 1 << 40] {
            let error = failure(payload(count: count))
            #expect(error?.reason.contains("a run holds 1...4096") == true, "\(String(describing: error))")
            #expect(error?.offset == 4)
        }
    }

    @Test("a run whose keys overflow is refused")
    func keyOverflow() {
        let error = failure(payload(key: UInt64(Int64.max) - 2))
        #expect(error?.reason.contains("out of range") == true, "\(String(describing: error))")
        #expect(error?.offset == 3)
    }

    @Test("a run with the wrong number of columns is refused, naming the class")
    func columnCount() {
        let error = failure(payload(columnCount: os.storedCount + 1))
        #expect(error?.reason.contains("insert run into Dog has \(os.storedCount + 1) columns") == true, "\(String(describing: error))")
    }

    @Test("a link ref past the largest key is refused at the ref's offset, after refs of every length")
    func linkRefOutOfRange() {
        var offset = 0
        let error = failure(payload { w, p in
            guard p == owner else { return false }
            w.byte(4); w.varint(Int(schema.tableByName["Person"]!.rawValue))
            w.varint(0); w.varint(UInt64(1) << 40)
            offset = w.bytes.count
            w.varint(UInt64.max)
            return true
        })
        #expect(error?.reason.contains("link key out of range") == true, "\(String(describing: error))")
        #expect(error?.offset == offset)
    }

    @Test("a bad link ref before the payload's end is reported first, as reading ref by ref finds it")
    func firstDamageInLinkColumn() {
        var offset = 0
        var bytes = payload { w, p in
            guard p == owner else { return false }
            w.byte(4); w.varint(Int(schema.tableByName["Person"]!.rawValue))
            w.varint(0)
            offset = w.bytes.count
            w.varint(UInt64.max)
            return true
        }
        // The third ref and every column after it cut off.
        bytes.removeSubrange((offset + 10)...)
        let error = failure(bytes)
        #expect(error?.reason.contains("link key out of range") == true, "\(String(describing: error))")
        #expect(error?.offset == offset)
    }

    @Test("a column of the wrong kind for its property is refused at the column's offset, naming the property")
    func wrongKinds() {
        // Ints for a string property.
        var offset = 0
        var error = failure(payload { w, p in
            guard p == name else { return false }
            offset = w.bytes.count
            w.byte(2); for i in 0..<3 { w.signed(Int64(i)) }
            return true
        })
        #expect(error?.reason.contains("does not fit 'Dog.name'") == true, "\(String(describing: error))")
        #expect(error?.offset == offset)
        // Nulls for a required property.
        error = failure(payload { w, p in
            guard p == name else { return false }
            w.byte(0)
            return true
        })
        #expect(error?.reason.contains("does not fit 'Dog.name'") == true, "\(String(describing: error))")
        // Links into the wrong table.
        error = failure(payload { w, p in
            guard p == owner else { return false }
            w.byte(4); w.varint(Int(dogs.rawValue)); for _ in 0..<3 { w.varint(1) }
            return true
        })
        #expect(error?.reason.contains("does not fit 'Dog.owner'") == true, "\(String(describing: error))")
        // A tagged value in a collection column.
        error = failure(payload { w, p in
            guard p == tags else { return false }
            w.byte(1); for _ in 0..<3 { ChangeRecordCodec.encode(.string("t"), into: &w) }
            return true
        })
        #expect(error?.reason.contains("must start empty") == true, "\(String(describing: error))")
        // An unknown column kind.
        error = failure(payload { w, p in
            guard p == name else { return false }
            w.byte(9)
            return true
        })
        #expect(error?.reason.contains("unknown column kind 9") == true, "\(String(describing: error))")
    }

    @Test("a run cut anywhere is refused with an offset within the payload, never decoded")
    func truncated() {
        let bytes = payload()
        for end in 1..<bytes.count {
            let error = failure(Array(bytes[..<end]))
            #expect(error.map { $0.offset <= end } == true, "cut at \(end): \(String(describing: error))")
        }
    }
}
