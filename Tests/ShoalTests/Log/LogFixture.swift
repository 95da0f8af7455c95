import ShoalTestSupport
import Testing

@testable import Shoal

/// Builders shared by the Log tests: deterministic payloads and small segments
/// written through a ``FaultyFileIO``.
enum LogFixture {
    static let directory = "/db"
    static let salt: UInt64 = 0x5A17_0000_C0FF_EE01
    static let otherSalt: UInt64 = 0x0BAD_5A17_0000_0002
    static let fingerprint: UInt64 = 0xF1F1_F1F1
    static var segmentPath: String { joinPath(directory, LogFormat.segmentFileName(baseVersion: 0)) }

    /// Compressible payloads are stored LZ4; incompressible ones raw.
    enum PayloadKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case compressible, incompressible
        var testDescription: String { rawValue }
    }

    /// About `size` bytes: repetitive text (LZ4 saves) or seeded random bytes (stored raw).
    static func payload(_ kind: PayloadKind, version: UInt64, size: Int = 300) -> [UInt8] {
        switch kind {
        case .compressible:
            let op = Array(#"{"op":"insert","table":"Dog","name":"Rex \#(version)","age":\#(version % 17)}"#.utf8)
            return Array((0..<(size / op.count + 1)).flatMap { _ in op }.prefix(size))
        case .incompressible:
            var random = SeededRandom(seed: 0xA11CE + version)
            return (0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }
        }
    }

    static func record(
        _ version: UInt64, _ kind: PayloadKind = .compressible, type: LogFormat.RecordType = .transaction
    )
        -> LogRecord
    {
        LogRecord(
            type: type, version: version, timestampMicros: 1_700_000_000_000_000 + version,
            payload: payload(kind, version: version))
    }

    /// Creates the segment with base 0 and appends `records`; returns the writer and each record's receipt.
    @discardableResult
    static func writeLog(
        _ records: [LogRecord], io: FaultyFileIO, durability: LogWriter.Durability = .durable, salt: UInt64 = salt
    ) throws -> (writer: LogWriter, receipts: [LogWriter.Receipt]) {
        let writer = try LogWriter.create(
            directory: directory, baseVersion: 0, schemaFingerprint: fingerprint, durability: durability, io: io,
            salt: salt, createdAtMicros: 1_700_000_000_000_000)
        let receipts = try records.map { try writer.append($0) }
        return (writer, receipts)
    }

    /// The bytes of a segment holding `records` (in a throwaway file system).
    static func segmentBytes(
        _ records: [LogRecord], salt: UInt64 = salt
    ) throws -> (
        bytes: [UInt8], receipts: [LogWriter.Receipt]
    ) {
        let io = FaultyFileIO()
        let (writer, receipts) = try writeLog(records, io: io, durability: .none, salt: salt)
        try writer.close()
        return (try #require(io.contents(of: segmentPath)), receipts)
    }

    /// Replays a segment held in memory, collecting the records.
    static func replay(_ bytes: [UInt8]) throws -> (records: [LogRecord], result: LogReader.ReplayResult) {
        let reader = try LogReader(path: segmentPath, contents: bytes)
        var records: [LogRecord] = []
        let result = reader.replay { records.append($0) }
        // The recovery scan must classify the first problem exactly as replay does.
        let summary = reader.scan().summary
        #expect(summary.ending == result.ending)
        #expect(summary.okUpTo == result.validEnd)
        return (records, result)
    }

    /// Replays the segment at `path` in `io`.
    static func replay(
        io: FaultyFileIO, path: String = segmentPath
    ) throws -> (
        records: [LogRecord], result: LogReader.ReplayResult
    ) {
        try replay(try #require(io.contents(of: path)))
    }

    static func flipBit(_ bytes: [UInt8], at offset: Int, bit: Int = 0) -> [UInt8] {
        var copy = bytes
        copy[offset] ^= UInt8(1 << bit)
        return copy
    }
}
