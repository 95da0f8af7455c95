import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// Format version 6 (nested lists and dictionaries in mixed values): the
/// value kinds round-trip, damaged nesting is reported, and a record holding
/// one never goes into an older segment.
@Suite struct NestedCollectionFormatTests {
    @Test("nested lists and dictionaries round-trip exactly through the value codec, keys in order")
    func valuesRoundTrip() throws {
        let schema = try makeRealm().instance.schema
        let value = Value.dictionary([
            "b": .list([.int(1), .string("x"), .null, .list([]), .dictionary([:])]),
            "a": .dictionary(["z": .double(.nan), "y": .decimal(Decimal128(stringLiteral: "1.5"))]),
        ])
        var w = ByteWriter()
        ChangeRecordCodec.encode(value, into: &w)
        var r = ByteReader(w.bytes)
        let decoded = try ChangeRecordCodec.decodeValue(&r, schema)
        #expect(decoded.isIdentical(to: value))
        #expect(r.offset == w.bytes.count)
        // Keys are written in ascending order, so equal dictionaries encode equally.
        var again = ByteWriter()
        ChangeRecordCodec.encode(Value.dictionary(["a": .dictionary(["y": .decimal(Decimal128(stringLiteral: "1.5")), "z": .double(.nan)]),
            "b": .list([.int(1), .string("x"), .null, .list([]), .dictionary([:])])]), into: &again)
        #expect(again.bytes == w.bytes)
    }

    @Test("collections nested deeper than the limit, and a repeated dictionary key, are damage with an offset")
    func damagedNesting() throws {
        let schema = try makeRealm().instance.schema
        var deep = Value.int(1)
        for _ in 0...ChangeRecordCodec.maximumNesting { deep = .list([deep]) }
        var w = ByteWriter()
        ChangeRecordCodec.encode(deep, into: &w)
        var r = ByteReader(w.bytes)
        let failure = #expect(throws: DecodingFailure.self) { _ = try ChangeRecordCodec.decodeValue(&r, schema) }
        #expect(failure?.reason.contains("nested deeper") == true)

        var repeated = ByteWriter()
        repeated.byte(14)
        repeated.varint(2)
        for _ in 0..<2 {
            repeated.string("k")
            ChangeRecordCodec.encode(.int(1), into: &repeated)
        }
        var rr = ByteReader(repeated.bytes)
        let twice = #expect(throws: DecodingFailure.self) { _ = try ChangeRecordCodec.decodeValue(&rr, schema) }
        #expect(twice?.reason.contains("repeated") == true)
        #expect(twice?.offset == 6)
    }

    @Test("in a version 5 segment, scalar records stay; the first nested collection continues the log in a new segment of this version")
    func rollsFromOlderSegment() throws {
        let url = temporaryDatabaseURL("format6")
        do {
            let realm = try Realm(configuration: fileConfiguration(url))
            try realm.write { realm.create(AllTypes.self, value: ["id": ObjectId.generate(), "any": AnyRealmValue.int(1)]) }
        }
        let first = try #require(try EmbeddedFormatTests.segments(url).first)
        try Self.markVersion(5, url.appendingPathComponent(first.name).path)
        do {
            let realm = try Realm(configuration: fileConfiguration(url))
            let object = try #require(realm.objects(AllTypes.self).first)
            try realm.write { object.any = .string("scalar") }
            #expect(try EmbeddedFormatTests.segments(url).map(\.version) == [5])
            try realm.write { object.any = .fromArray([.int(1), .fromDictionary(["k": .bool(true)])]) }
        }
        #expect(try EmbeddedFormatTests.segments(url).map(\.version) == [5, LogFormat.version])
        let realm = try Realm(configuration: fileConfiguration(url))
        let any = try #require(realm.objects(AllTypes.self).first?.any)
        #expect(any.listValue?[1].dictionaryValue?["k"] == .bool(true))
    }

    /// Rewrites a file's header as format `version` (the records are the same).
    static func markVersion(_ version: UInt16, _ path: String) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        bytes.storeLittleEndian(version, at: LogFormat.FileHeaderLayout.formatVersion)
        bytes.storeLittleEndian(Checksum.xxh3(bytes, range: 0..<56, seed: 0), at: LogFormat.FileHeaderLayout.checksum)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}
