import Testing

@testable import Shoal

@Suite struct FileHeaderTests {
    static let header = FileHeader(
        kind: .log, salt: 0x1122_3344_5566_7788, baseVersion: 0x99, schemaFingerprint: 0xFEED, createdAtMicros: 12345)

    @Test("a header encodes to 64 bytes with every field at its documented offset")
    func layout() {
        typealias L = LogFormat.FileHeaderLayout
        let bytes = Self.header.encoded()
        #expect(bytes.count == 64)
        #expect(Array(bytes[0..<8]) == Array("SHOALWAL".utf8))
        #expect(bytes.loadLittleEndian(UInt16.self, at: L.formatVersion) == LogFormat.version)
        #expect(bytes.loadLittleEndian(UInt16.self, at: L.headerSize) == 64)
        #expect(bytes.loadLittleEndian(UInt32.self, at: L.flags) == 0x0701)
        #expect(bytes.loadLittleEndian(UInt64.self, at: L.salt) == 0x1122_3344_5566_7788)
        #expect(bytes.loadLittleEndian(UInt64.self, at: L.baseVersion) == 0x99)
        #expect(bytes.loadLittleEndian(UInt64.self, at: L.schemaFingerprint) == 0xFEED)
        #expect(bytes.loadLittleEndian(UInt64.self, at: L.createdAt) == 12345)
        #expect(bytes.loadLittleEndian(UInt64.self, at: L.reserved) == 0)
        #expect(bytes.loadLittleEndian(UInt64.self, at: L.checksum) == Checksum.xxh3(bytes, range: 0..<56, seed: 0))
    }

    @Test("a version 1 header still decodes, as version 1")
    func versionOne() throws {
        var bytes = Self.header.encoded()
        bytes.storeLittleEndian(UInt16(1), at: LogFormat.FileHeaderLayout.formatVersion)
        bytes.storeLittleEndian(Checksum.xxh3(bytes, range: 0..<56, seed: 0), at: 56)
        #expect(try FileHeader.decode(bytes, expecting: .log).formatVersion == 1)
    }

    @Test("a header decodes to what was encoded, and only as its own kind")
    func roundTrip() throws {
        #expect(try FileHeader.decode(Self.header.encoded(), expecting: .log) == Self.header)
        #expect(throws: FileHeaderError.wrongMagic(found: Array("SHOALWAL".utf8), expected: .snapshot)) {
            try FileHeader.decode(Self.header.encoded(), expecting: .snapshot)
        }
    }

    @Test("a newer format version is unsupported even when its checksum is valid")
    func newerVersion() {
        var bytes = Self.header.encoded()
        let newer = LogFormat.version + 1
        bytes.storeLittleEndian(newer, at: LogFormat.FileHeaderLayout.formatVersion)
        bytes.storeLittleEndian(Checksum.xxh3(bytes, range: 0..<56, seed: 0), at: 56)
        #expect(throws: FileHeaderError.unsupportedVersion(found: newer)) { try FileHeader.decode(bytes, expecting: .log) }
        #expect(FileHeaderError.unsupportedVersion(found: newer).shoalError(path: "p").code == .unsupportedFormat)
    }

    @Test("an unknown flag bit is unsupported, not corrupt")
    func unknownFlag() {
        var bytes = Self.header.encoded()
        bytes.storeLittleEndian(LogFormat.defaultFlags | 1 << 20, at: LogFormat.FileHeaderLayout.flags)
        bytes.storeLittleEndian(Checksum.xxh3(bytes, range: 0..<56, seed: 0), at: 56)
        #expect(throws: FileHeaderError.unsupportedFlags(LogFormat.defaultFlags | 1 << 20)) {
            try FileHeader.decode(bytes, expecting: .log)
        }
    }
}
