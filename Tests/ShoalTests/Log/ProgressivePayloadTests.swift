import Foundation
import ShoalTestSupport
import Testing

@testable import Shoal

/// Loading a large snapshot while its chunks are decompressed
/// (``ProgressivePayload``): the state is the one a whole payload gives,
/// wherever the chunks end, and any damage is reported as reading the file
/// whole reports it.
@Suite struct ProgressivePayloadTests {
    typealias F = LogFixture

    /// `payload` cut into raw chunks of `size` bytes (the last shorter),
    /// each refused by `verify` when it says so.
    static func progress(_ payload: [UInt8], chunkSize size: Int, refusing refused: Int? = nil) -> ProgressivePayload {
        let chunks = stride(from: 0, to: payload.count, by: size).map { start in
            let range = start..<min(start + size, payload.count)
            return ChunkDecoding.Chunk(stored: range, raw: range)
        }
        return ProgressivePayload(input: payload, chunks: chunks) { i, _ in i != refused }
    }

    /// A random state of every property type, deleted slots, links,
    /// collections and backlinks, as the columnar codec writes it.
    static func randomPayload(seed: UInt64) throws -> (snapshot: Snapshot, payload: [UInt8]) {
        let (realm, _) = try ChangeRecordCodecTests.recordedWorkload(seed: seed, rounds: 150)
        let snapshot = realm.instance.coordinator.latest
        return (snapshot, SnapshotCodec.encode(snapshot))
    }

    /// Four random states, made once for every test case.
    static let randomPayloads: [(snapshot: Snapshot, payload: [UInt8])] = (1...4).map { try! randomPayload(seed: $0) }

    @Test(
        "a payload read as its chunks come in gives the state the whole payload gives, wherever the chunks end, decoded here or ahead",
        arguments: [1, 2, 3, 7, 64, 1000, 4096], [false, true])
    func chunkedAnywhere(chunkSize: Int, ahead: Bool) throws {
        for (seed, (snapshot, payload)) in Self.randomPayloads.prefix(3).enumerated() {
            let progress = Self.progress(payload, chunkSize: chunkSize)
            #expect(progress.readyBytes == 0)
            let restored = try SnapshotCodec.decode(progress, formatVersion: LogFormat.version, decodeAheadFrom: ahead ? 0 : .max)
            #expect(progress.isComplete)
            #expect(progress.bytes == payload)
            #expect(restored.hasSameContents(as: snapshot), "seed \(seed), chunks of \(chunkSize)")
            #expect(restored.invariantViolation() == nil)
        }
    }

    @Test("a chunk that fails stops the payload there: decoding fails, whichever chunk it is, and nothing waits forever", arguments: [false, true])
    func failingChunk(ahead: Bool) throws {
        let payload = Self.randomPayloads[3].payload
        let size = 512
        let chunkCount = (payload.count + size - 1) / size
        #expect(chunkCount > 4)
        for refused in 0..<chunkCount {
            let progress = Self.progress(payload, chunkSize: size, refusing: refused)
            #expect(throws: DecodingFailure.self, "chunk \(refused) refused") {
                _ = try SnapshotCodec.decode(progress, formatVersion: LogFormat.version, decodeAheadFrom: ahead ? 0 : .max)
            }
            #expect(!progress.isComplete)
            // No byte past the refused chunk was handed out.
            #expect(progress.readyBytes <= refused * size)
        }
    }

    @Test("a reader waits at a chunk's end for the next, reading every field across it")
    func readerAcrossChunks() throws {
        var w = ByteWriter()
        w.varint(UInt64(1) << 62)
        w.fixed64(0x0102_0304_0506_0708)
        w.string("a string across chunks")
        w.fixed32(7)
        w.signed(-5)
        let bytes = w.bytes
        for size in 1...bytes.count {
            var r = ByteReader(Self.progress(bytes, chunkSize: size))
            #expect(try r.varint() == UInt64(1) << 62)
            #expect(try r.fixed64() == 0x0102_0304_0506_0708)
            #expect(try r.string() == "a string across chunks")
            #expect(try r.fixed32() == 7)
            #expect(try r.signed() == -5)
            #expect(r.isAtEnd)
            #expect(throws: DecodingFailure.self) { try r.byte() }
        }
        // A refused chunk is the end of what can be read.
        var r = ByteReader(Self.progress(bytes, chunkSize: 4, refusing: 1))
        #expect(throws: DecodingFailure.self) { try r.varint() }
    }

    /// A state whose snapshot payload takes several 1 MiB chunks, made once.
    static let large: (snapshot: Snapshot, payload: [UInt8]) = {
        let snapshot = try! largeSnapshot()
        return (snapshot, SnapshotCodec.encode(snapshot))
    }()

    static func largeSnapshot() throws -> Snapshot {
        let realm = try makeRealm(types: [Person.self, Dog.self])
        var rng = SeededRandom(seed: 9)
        try realm.write {
            var owners: [Person] = []
            for i in 0..<2_000 {
                owners.append(realm.create(Person.self, value: ["id": i, "name": "person \(i)", "city": ["Oslo", "Riga"][i % 2]]))
            }
            for i in 0..<60_000 {
                let name = String((0..<40).map { _ in Character(Unicode.Scalar(UInt8.random(in: 97...122, using: &rng))) })
                realm.create(Dog.self, value: ["id": i, "name": name, "age": i % 16, "breed": ["Pug", "Akita"][i % 2],
                    "owner": owners[i % owners.count]])
            }
        }
        try realm.write { realm.delete(realm.objects(Dog.self).filter("id < 50 OR (id >= 20000 AND id < 20100)")) }
        return realm.instance.coordinator.latest
    }

    @Test("a large snapshot file loads as its chunks are verified and decompressed, to the state reading it whole gives")
    func loadsLargeSnapshot() throws {
        let (snapshot, payload) = Self.large
        #expect(payload.count > 2 * LogFormat.chunkRawBytes)
        let io = FaultyFileIO()
        let path = try SnapshotFile.write(
            payload, version: snapshot.version, schemaFingerprint: F.fingerprint, directory: F.directory, io: io, salt: F.salt)
        let contents = try #require(io.contents(of: path))
        // This way, not the whole way after a failure.
        let progressive = try #require(SnapshotFile.loadProgressively(path: path, contents: contents, threshold: 0))
        #expect(progressive.payloadBytes == payload.count)
        #expect(progressive.snapshot.hasSameContents(as: snapshot))
        #expect(progressive.snapshot.invariantViolation() == nil)
        let whole = try SnapshotFile.read(at: path, io: io).decodedSnapshot()
        #expect(progressive.snapshot.hasSameContents(as: whole))
        let loaded = try SnapshotFile.load(at: path, io: io, progressiveFrom: 0)
        #expect(loaded.snapshot.hasSameContents(as: snapshot) && loaded.payloadBytes == payload.count)
        // Below the threshold, and for the row format, the whole way.
        #expect(SnapshotFile.loadProgressively(path: path, contents: contents, threshold: payload.count + 1) == nil)
    }

    @Test(
        "damage met while loading as the chunks come in is reported as reading the file whole reports it",
        arguments: ["chunk 2 body", "chunk 3 checksum", "chunk 1 rawLen", "trailer checksum", "trailer magic", "truncated", "payload"])
    func damageAsReadWhole(damage: String) throws {
        let snapshot = Self.large.snapshot
        var payload = Self.large.payload
        if damage == "payload" {
            // Chunks that verify, holding a payload that does not decode.
            payload[payload.count / 2] ^= 0xFF
            payload[payload.count / 2 + 1] ^= 0xFF
        }
        let io = FaultyFileIO()
        let path = try SnapshotFile.write(
            payload, version: snapshot.version, schemaFingerprint: F.fingerprint, directory: F.directory, io: io, salt: F.salt)
        let bytes = try #require(io.contents(of: path))
        let chunks = SnapshotFileTests.chunkOffsets(bytes)
        let trailer = bytes.count - SnapshotFile.trailerSize
        let damaged: [UInt8] =
            switch damage {
            case "chunk 2 body": F.flipBit(bytes, at: chunks[1] + 5000)
            case "chunk 3 checksum": F.flipBit(bytes, at: chunks[2] + 9)
            case "chunk 1 rawLen": F.flipBit(bytes, at: chunks[0] + 1)
            case "trailer checksum": F.flipBit(bytes, at: trailer + 8)
            case "trailer magic": F.flipBit(bytes, at: trailer + 17)
            case "truncated": Array(bytes.prefix(chunks[2]))
            default: bytes
            }
        io.setContents(of: path, damaged)
        var wholeError: ShoalError?
        do { _ = try SnapshotFile.read(at: path, io: io) } catch { wholeError = error }
        #expect(SnapshotFile.loadProgressively(path: path, contents: damaged, threshold: 0) == nil)
        let error = #expect(throws: ShoalError.self) { try SnapshotFile.load(at: path, io: io, progressiveFrom: 0) }
        #expect(error?.code == .corruptSnapshot)
        if let wholeError {
            #expect(damage != "payload")
            #expect(error?.message == wholeError.message, "\(damage)")
            #expect(error?.context["offset"] == wholeError.context["offset"])
        } else {
            // The chunks verify: the payload's own failure, as opening reports it.
            #expect(damage == "payload")
            #expect(error?.message.contains("the snapshot's contents do not decode") == true, "\(error?.message ?? "")")
            let failure = #expect(throws: DecodingFailure.self) { _ = try SnapshotCodec.decode(payload, formatVersion: LogFormat.version) }
            #expect(error?.context["offset"] == failure.map { String($0.offset) })
        }
        #expect(io.contents(of: path) == damaged)
    }
}
