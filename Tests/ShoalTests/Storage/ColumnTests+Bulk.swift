import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// The typed bulk path: insert runs decoded straight into typed columns,
/// and typed columns appended to a table's column leaf by leaf.
@Suite struct ColumnBulkTests {
    /// The columns of the runs `bytes` decodes to.
    static func runColumns(_ bytes: [UInt8], _ schema: Schema) throws -> [[RunColumn]] {
        var runs: [[RunColumn]] = []
        try ChangeRecordCodec.forEachChange(in: bytes, schema: schema, op: { _ in true }) { run in
            runs.append(run.columns)
            return true
        }
        return runs
    }

    @Test("a decoded insert run holds its int, string and link properties as typed columns, with exactly the encoded values")
    func decodedRunsAreTyped() throws {
        let schema = try makeRealm().instance.schema
        let dogs = try ChangeRecordCodecRunTests.dogInserts(schema, first: 0, count: 300, people: 10)
        let record = ChangeRecord(baseVersion: 3, ops: try ChangeRecordCodecRunTests.personInserts(schema, count: 10) + dogs)
        let runs = try Self.runColumns(ChangeRecordCodec.encode(record), schema)
        let dogTable = try #require(schema.tableByName["Dog"])
        let dogSchema = schema[dogTable]
        let run = try #require(runs.last)
        #expect(run.first?.count == 300)
        let expectedKinds: [String: Column.Kind] = ["id": .int, "age": .int, "name": .string, "owner": .link]
        for (name, kind) in expectedKinds {
            let p = try #require(dogSchema.indexByName[name])
            #expect(run[p].isTyped, "\(name) should decode typed")
            #expect(run[p].typed.kind == kind)
            for (i, op) in dogs.enumerated() {
                guard case .insert(_, _, let values) = op else { continue }
                #expect(run[p][i].isIdentical(to: values[p]), "Dog \(i).\(name)")
            }
        }
        // The people's strings are not all ASCII: still typed, still exact.
        let people = try #require(runs.first)
        let personTable = try #require(schema.tableByName["Person"])
        let city = try #require(schema[personTable].indexByName["city"])
        #expect(people[city].isTyped)
        #expect(people[city][1].isIdentical(to: .string("Zürich 🏔")))
    }

    @Test("an insert run whose string is not valid UTF-8 is refused as damage, typed or not")
    func invalidUTF8() throws {
        let schema = try makeRealm().instance.schema
        let record = ChangeRecord(baseVersion: 3, ops: try ChangeRecordCodecRunTests.personInserts(schema, count: 10))
        var bytes = ChangeRecordCodec.encode(record)
        // "Zürich": "ü" is two bytes; make its continuation byte an ASCII letter.
        let umlaut: [UInt8] = [UInt8(ascii: "Z"), 0xC3, 0xBC]
        let z = try #require(bytes.indices.first { Array(bytes[$0..<min($0 + 3, bytes.count)]) == umlaut })
        bytes[z + 2] = UInt8(ascii: "u")
        #expect(throws: DecodingFailure.self) { try Self.runColumns(bytes, schema) }
    }

    /// `count` random values of a typed kind, never null.
    static func values(_ kind: Column.Kind, count: Int, _ rng: inout some RandomNumberGenerator) -> [Value] {
        (0..<count).map { _ in
            switch kind {
            case .int: .int(Int64.random(in: -1_000_000...1_000_000, using: &rng))
            case .string: ColumnTests.value(.string, &rng, nullOneIn: .max)
            default: Int.random(in: 0..<6, using: &rng) == 0 ? .null : .link(Link(table: TableKey(2), key: ObjectKey(Int64.random(in: 0...99, using: &rng))))
            }
        }
    }

    /// A typed column of `values`, built as the decoder builds one.
    static func typedColumn(_ kind: Column.Kind, _ values: [Value]) -> Column {
        var column = Column(kind: kind, linkTarget: kind == .link ? TableKey(2) : nil)
        // In pieces of up to a leaf, as the decoder appends them.
        for start in stride(from: 0, to: values.count, by: 4096) {
            let piece = values[start..<min(start + 4096, values.count)]
            if kind == .string {
                var bytes = ContiguousArray<UInt8>(), ends = ContiguousArray<UInt32>()
                for case .string(let s) in piece {
                    bytes.append(contentsOf: s.utf8)
                    ends.append(UInt32(bytes.count))
                }
                column.appendBytes(bytes, ends: ends)
            } else {
                column.appendInts(ContiguousArray(piece.map { v in
                    switch v {
                    case .int(let x): x
                    case .link(let link): link.key.rawValue
                    default: -1
                    }
                }))
            }
        }
        return column
    }

    @Test("appending a typed column gives the storage and values that appending its values one by one gives, on and off leaf boundaries, after nulls",
        arguments: [Column.Kind.int, .string, .link], [0, 1, 4096, 4097, 8192 - 5])
    func appendTyped(kind: Column.Kind, prefix: Int) {
        var rng = SeededRandom(seed: UInt64(prefix) &* 31 &+ UInt64(kind.rawValue.count))
        let type: PropertyType = kind == .int ? .int : kind == .string ? .string : .object
        let property = Property(name: "p", type: type, isOptional: true, objectClassName: type == .object ? "Target" : nil)
        var bulk = Column(for: property)
        var single = Column(for: property)
        var expected: [Value] = []
        // A prefix with a run of nulls in it (as deleted slots make).
        let head = Self.values(kind, count: prefix / 2, &rng)
        for v in head { bulk.append(v); single.append(v) }
        bulk.appendNulls(prefix - prefix / 2)
        single.appendNulls(prefix - prefix / 2)
        expected = head + repeatElement(.null, count: prefix - prefix / 2)
        for n in [5000, 1, 4096, 300] {
            let values = Self.values(kind, count: n, &rng)
            bulk.append(contentsOf: Self.typedColumn(kind, values))
            for v in values { single.append(v) }
            expected += values
        }
        #expect(bulk.count == expected.count)
        #expect(bulk.storageKind == single.storageKind)
        #expect((0..<expected.count).allSatisfy { bulk[$0].isIdentical(to: expected[$0]) && bulk.isNull($0) == single.isNull($0) })
        #expect((0..<expected.count).allSatisfy { single[$0].isIdentical(to: expected[$0]) })
    }

    @Test("at a leaf boundary the appended column's leaves are taken as they are, and a later write to either copies only its own")
    func adoptsLeaves() {
        var rng = SeededRandom(seed: 99)
        let values = Self.values(.int, count: 2 * 4096 + 10, &rng)
        let typed = Self.typedColumn(.int, values)
        var column = Column(for: Property(name: "n", type: .int))
        column.append(contentsOf: typed)
        func address(_ c: Column, leaf: Int) -> UnsafeRawPointer? {
            let leaf = c.ints.leaves[leaf]
            return leaf.width == 8
                ? leaf.wide.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
                : leaf.packed.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        }
        #expect((0..<3).allSatisfy { address(column, leaf: $0) == address(typed, leaf: $0) })
        column.set(0, .int(42))
        #expect(address(column, leaf: 0) != address(typed, leaf: 0))
        #expect(address(column, leaf: 1) == address(typed, leaf: 1))
        #expect(typed[0].isIdentical(to: values[0]))
        #expect(column[0].isIdentical(to: .int(42)))
    }

    @Test("a typed run column set, appended to and shortened reads back what an array of the same values holds")
    func typedRunColumnChanges() {
        var rng = SeededRandom(seed: 7)
        var expected = Self.values(.link, count: 200, &rng)
        var run = RunColumn(typed: Self.typedColumn(.link, expected))
        #expect(run.mayHoldLinks)
        // A set keeps it typed (a snapshot's links set aside for later).
        run[3] = .null
        expected[3] = .null
        #expect(run.isTyped)
        #expect(Array(run).elementsEqual(expected) { $0.isIdentical(to: $1) })
        run.append(.link(Link(table: TableKey(2), key: ObjectKey(5))))
        expected.append(.link(Link(table: TableKey(2), key: ObjectKey(5))))
        run.removeLast()
        expected.removeLast()
        #expect(!run.isTyped)
        #expect(run == RunColumn(expected))
        #expect(!RunColumn(typed: Self.typedColumn(.int, Self.values(.int, count: 10, &rng))).mayHoldLinks)
    }
}

extension ColumnBulkTests {
    @Test("runs of live slots appended at a leaf boundary share one liveness leaf across tables; a deletion copies only the leaf it changes, in its own table")
    func sharedLiveLeaf() {
        let schema = ObjectSchema(className: "A", properties: [Property(name: "n", type: .int)])
        let width = Chunks<Bool>.width
        var a = Table(key: TableKey(0), schema: schema)
        var b = Table(key: TableKey(1), schema: schema)
        a.appendSlots(2 * width + 5, alive: true)
        b.appendSlots(width, alive: true)
        b.appendSlots(width, alive: true)
        func address(_ leaf: ContiguousArray<Bool>) -> UnsafeRawPointer? { leaf.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } }
        let shared = address(a.alive.leaves[0])
        #expect(address(a.alive.leaves[1]) == shared && address(b.alive.leaves[0]) == shared && address(b.alive.leaves[1]) == shared)
        // The partial leaf is its own.
        #expect(address(a.alive.leaves[2]) != shared && a.alive.count == 2 * width + 5 && a.alive.allSatisfy { $0 })
        a.alive[width + 3] = false
        #expect(address(a.alive.leaves[1]) != shared && address(a.alive.leaves[0]) == shared && address(b.alive.leaves[1]) == shared)
        #expect(!a.alive[width + 3] && a.alive.count { !$0 } == 1 && b.alive.allSatisfy { $0 })
        // Dead slots are not the live leaf.
        var c = Table(key: TableKey(2), schema: schema)
        c.appendSlots(width, alive: false)
        #expect(address(c.alive.leaves[0]) != shared && c.alive.allSatisfy { !$0 })
    }
}
