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
                "uuid": UUID(), "decimal": Decimal128(stringLiteral: "-3.25"), "any": AnyRealmValue.double(4), "optStrings": ["a", nil], "anys": [AnyRealmValue.none],
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
            .date(Date(timeIntervalSinceReferenceDate: -1.5)), .objectId(ObjectId.generate()), .decimal(Decimal128(stringLiteral: "1e-20")),
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
    @Test("the ASCII check finds a high bit at any position of any length, in the word loop and in the tail")
    func asciiCheck() {
        for length in 0...40 {
            let plain = [UInt8](repeating: 0x7F, count: length)
            #expect(plain.withUnsafeBufferPointer(ByteReader.isASCII), "\(length)")
            for position in 0..<length {
                var bytes = plain
                bytes[position] = 0x80
                #expect(!bytes.withUnsafeBufferPointer(ByteReader.isASCII), "\(length) at \(position)")
            }
        }
    }

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
