import ShoalTestSupport
import Testing

@testable import Shoal

@Suite struct LogFormatTests {
    @Test("segment and snapshot names carry 16 lowercase hex digits and parse back")
    func fileNames() {
        #expect(LogFormat.segmentFileName(baseVersion: 0x2A) == "log-000000000000002a.wal")
        #expect(LogFormat.snapshotFileName(version: .max) == "snapshot-ffffffffffffffff.snap")
        #expect(LogFormat.baseVersion(ofSegmentFileName: "log-000000000000002a.wal") == 0x2A)
        #expect(LogFormat.version(ofSnapshotFileName: "snapshot-7ffffffffffffffe.snap") == LogFormat.maximumVersion)
        // A name past the highest version is no file of the database's (a file no writer made).
        #expect(LogFormat.version(ofSnapshotFileName: "snapshot-ffffffffffffffff.snap") == nil)
        #expect(LogFormat.baseVersion(ofSegmentFileName: "log-7fffffffffffffff.wal") == nil)
        #expect(LogFormat.baseVersion(ofSegmentFileName: "log-000000000000002A.wal") == nil)
        #expect(LogFormat.baseVersion(ofSegmentFileName: "log-2a.wal") == nil)
        #expect(LogFormat.baseVersion(ofSegmentFileName: "log-000000000000002a.wal.tmp") == nil)
        #expect(LogFormat.quarantineFileName(baseVersion: 1, offset: 0x1F4) == "log-0000000000000001.tail-1f4.corrupt")
    }

    @Test("record types know which are known and which may be skipped")
    func recordTypes() {
        #expect(LogFormat.RecordType.transaction.rawValue == 1 && LogFormat.RecordType.noOp.isKnown)
        #expect(!LogFormat.RecordType(rawValue: 0x85).isKnown && LogFormat.RecordType(rawValue: 0x85).isSafeToIgnore)
        #expect(!LogFormat.RecordType(rawValue: 0x05).isSafeToIgnore)
        #expect(LogFormat.Codec(rawValue: 0x11) == .lz4Chunks && !LogFormat.Codec.lz4Dictionary.isSupported)
    }

    @Test("a framed record puts every field at its documented offset")
    func recordLayout() throws {
        typealias L = LogFormat.RecordHeaderLayout
        let record = LogRecord(type: .schemaChange, version: 0x0102_0304, timestampMicros: 0xAABB, payload: [9, 8, 7])
        let bytes = record.framed(salt: 77)
        #expect(bytes.count == LogFormat.recordHeaderSize + 3)
        #expect(bytes.loadLittleEndian(UInt32.self, at: L.payloadLength) == 3)
        #expect(bytes.loadLittleEndian(UInt32.self, at: L.rawLength) == 3)
        #expect(bytes.loadLittleEndian(UInt64.self, at: L.version) == 0x0102_0304)
        #expect(bytes.loadLittleEndian(UInt64.self, at: L.timestamp) == 0xAABB)
        #expect(bytes[L.type] == 2 && bytes[L.codec] == 0 && bytes[L.reserved] == 0 && bytes[L.reserved + 1] == 0)
        #expect(Array(bytes[36...]) == [9, 8, 7])
        #expect(bytes.loadLittleEndian(UInt64.self, at: L.checksum) == Checksum.xxh3(bytes, range: 8..<39, seed: 77))
    }

    @Test("a payload is stored raw unless LZ4 saves at least one byte")
    func codecChoice() {
        let text = LogFixture.payload(.compressible, version: 1)
        let noise = LogFixture.payload(.incompressible, version: 1)
        #expect(RecordPayload.encode(text).0 == .lz4)
        #expect(RecordPayload.encode(noise) == (.raw, noise))
        #expect(RecordPayload.encode([]) == (.raw, []))
    }

    @Test("a chunked payload large enough to decode on two threads round-trips; with damage, the failure met first in chunk order is reported")
    func largeChunkedPayloads() throws {
        // Six chunks, compressed and stored raw, over the two-thread threshold.
        var random = SeededRandom(seed: 9)
        var raw: [UInt8] = []
        for n in 0..<6 {
            raw += n % 2 == 0
                ? LogFixture.payload(.compressible, version: UInt64(n), size: LogFormat.chunkRawBytes)
                : (0..<LogFormat.chunkRawBytes).map { _ in UInt8.random(in: 0...255, using: &random) }
        }
        raw += [1, 2, 3]
        #expect(raw.count >= ChunkDecoding.parallelThreshold)
        let (codec, stored) = RecordPayload.encode(raw)
        #expect(codec == .lz4Chunks)
        func decode(_ stored: [UInt8]) -> Result<[UInt8], LogDamage.Reason> {
            stored.withUnsafeBytes { buffer in
                Result { () throws(LogDamage.Reason) in try RecordPayload.decode(buffer, codec: .lz4Chunks, rawLength: raw.count) }
            }
        }
        #expect(try decode(stored).get() == raw)
        // The chunks' header offsets.
        var headers: [Int] = []
        var at = 0
        while at < stored.count {
            headers.append(at)
            at += 8 + Int(stored.loadLittleEndian(UInt32.self, at: at + 4))
        }
        #expect(headers.count == 7)
        // Chunk 2 (compressed) broken, and chunk 4's header too: chunk 2 is reported.
        var damaged = stored
        for i in (headers[2] + 8)..<(headers[2] + 40) { damaged[i] = 0xFF }
        damaged.storeLittleEndian(UInt32(0), at: headers[4])
        guard case .failure(.undecodablePayload(let first)) = decode(damaged) else {
            Issue.record("damage not reported")
            return
        }
        #expect(first.contains("chunk at payload offset \(headers[2])"), "\(first)")
        // Chunk 4's header alone.
        var header = stored
        header.storeLittleEndian(UInt32(0), at: headers[4])
        guard case .failure(.undecodablePayload(let second)) = decode(header) else {
            Issue.record("damage not reported")
            return
        }
        #expect(second.contains("bad chunk lengths at payload offset \(headers[4])"), "\(second)")
        // The last chunk cut short.
        guard case .failure(.undecodablePayload(let third)) = decode(Array(stored.dropLast(2))) else {
            Issue.record("damage not reported")
            return
        }
        #expect(third.contains("payload offset \(headers[6])"), "\(third)")
    }

    @Test("chunked payloads with impossible chunk lengths are rejected")
    func badChunks() throws {
        var stored: [UInt8] = []
        stored.appendLittleEndian(UInt32(LogFormat.chunkRawBytes + 1))  // chunk larger than 1 MiB
        stored.appendLittleEndian(UInt32(4))
        stored += [1, 2, 3, 4]
        let error = stored.withUnsafeBytes { buffer in
            Result { () throws(LogDamage.Reason) in
                try RecordPayload.decode(buffer, codec: .lz4Chunks, rawLength: LogFormat.chunkRawBytes + 1)
            }
        }
        guard case .failure(.undecodablePayload) = error else {
            Issue.record("\(error)")
            return
        }
    }
}
