import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

final class FormatInner: EmbeddedObject {
    @Persisted var v = 0
}

final class FormatOuter: Object {
    @Persisted var inner: FormatInner?
}

/// Format version 3 (embedded classes in the schema): a schema with an
/// embedded class never goes into an older segment.
@Suite struct EmbeddedFormatTests {
    /// Rewrites a file's header as format version 2 (the records are the same).
    static func markVersion2(_ path: String) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        bytes.storeLittleEndian(UInt16(2), at: LogFormat.FileHeaderLayout.formatVersion)
        bytes.storeLittleEndian(Checksum.xxh3(bytes, range: 0..<56, seed: 0), at: LogFormat.FileHeaderLayout.checksum)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func segments(_ url: URL) throws -> [(name: String, version: UInt16)] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".wal") }.sorted().map {
            ($0, try LogReader(path: url.appendingPathComponent($0).path, io: PosixFileIO()).header.formatVersion)
        }
    }

    @Test("an empty database in a version 2 segment takes an embedded schema in a new segment of the current version; the old one stays version 2")
    func rollsFromOlderSegment() throws {
        let url = temporaryDatabaseURL("format3")
        _ = try Realm(configuration: fileConfiguration(url, types: [Person.self, Dog.self]))
        let first = try #require(try Self.segments(url).first)
        try Self.markVersion2(url.appendingPathComponent(first.name).path)
        do {
            let realm = try Realm(configuration: fileConfiguration(url, types: [FormatOuter.self, FormatInner.self]))
            try realm.write { realm.create(FormatOuter.self, value: ["inner": ["v": 7]]) }
        }
        let segments = try Self.segments(url)
        #expect(segments.map(\.version) == [2, LogFormat.version])
        let realm = try Realm(configuration: fileConfiguration(url, types: [FormatOuter.self, FormatInner.self]))
        #expect(realm.schema["FormatInner"]?.isEmbedded == true)
        #expect(realm.objects(FormatOuter.self).first?.inner?.v == 7)
    }

    @Test("a version 2 segment with no record yet (after a compaction) is replaced by one of the current version")
    func replacesEmptyOlderSegment() throws {
        let url = temporaryDatabaseURL("format3-empty")
        do {
            let realm = try Realm(configuration: fileConfiguration(url, types: [Person.self, Dog.self]))
            try realm.compact()
        }
        let last = try #require(try Self.segments(url).last)
        try Self.markVersion2(url.appendingPathComponent(last.name).path)
        do { _ = try Realm(configuration: fileConfiguration(url, types: [FormatOuter.self, FormatInner.self])) }
        let segments = try Self.segments(url)
        #expect(segments.count == 1 && segments[0].name == last.name && segments[0].version == LogFormat.version)
        let realm = try Realm(configuration: fileConfiguration(url, types: [FormatOuter.self, FormatInner.self]))
        #expect(realm.schema["FormatInner"]?.isEmbedded == true)
    }

    @Test("a version 2 fixture opens and grows with this build: its segment stays version 2 without an embedded class")
    func olderFixtureKeepsItsVersion() throws {
        let realm = try FixtureTests.openCopy("valid", "v2")
        try realm.write { realm.create(Note.self, value: ["id": 99, "title": "more"]) }
        let url = try #require(realm.configuration.fileURL)
        #expect(try Self.segments(url).map(\.version) == [2])
    }
}
