import Glibc
import ShoalTestSupport
import Testing

@testable import Shoal

/// Snapshot files: round trip, damage reported with its offset (§9 case 9c),
/// and crash safety of the write protocol (§9 case 10b).
@Suite struct SnapshotFileTests {
    typealias F = LogFixture
    static let path = joinPath(F.directory, LogFormat.snapshotFileName(version: 42))

    /// 2.5 MiB: a compressible chunk, an incompressible chunk, and a short compressible one.
    static let payload: [UInt8] = {
        var random = SeededRandom(seed: 8)
        return F.payload(.compressible, version: 1, size: 1 << 20)
            + (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) }
            + F.payload(.compressible, version: 2, size: 1 << 19)
    }()

    @discardableResult
    static func write(_ payload: [UInt8] = payload, io: FaultyFileIO) throws -> String {
        try SnapshotFile.write(
            payload, version: 42, schemaFingerprint: F.fingerprint, directory: F.directory, io: io, salt: F.salt,
            createdAtMicros: 1)
    }

    /// Offsets of each chunk header in a snapshot file.
    static func chunkOffsets(_ bytes: [UInt8]) -> [Int] {
        var offsets: [Int] = []
        var offset = LogFormat.fileHeaderSize
        while bytes.count - offset > SnapshotFile.trailerSize {
            offsets.append(offset)
            offset += SnapshotFile.chunkHeaderSize + Int(bytes.loadLittleEndian(UInt32.self, at: offset + 4))
        }
        return offsets
    }

    @Test("a snapshot reads back exactly what was written, by one thread or two", arguments: [0, 1, 1000, payload.count])
    func roundTrip(size: Int) throws {
        let io = FaultyFileIO()
        let payload = Array(Self.payload.prefix(size))
        let path = try Self.write(payload, io: io)
        #expect(path == Self.path && io.allPaths == [path])
        let snapshot = try SnapshotFile.read(at: path, io: io)
        #expect(
            snapshot.payload == payload && snapshot.version == 42 && snapshot.header.schemaFingerprint == F.fingerprint)
        let bytes = try #require(io.contents(of: path))
        #expect(try SnapshotFile.decode(path: path, contents: bytes, parallelThreshold: 0).payload == payload)
        #expect(Self.chunkOffsets(bytes).count == (size + (1 << 20) - 1) >> 20)
    }

    @Test("compressible chunks are stored LZ4 and incompressible ones raw")
    func chunkCodecs() throws {
        let io = FaultyFileIO()
        let bytes = try #require(io.contents(of: try Self.write(io: io)))
        let stored = Self.chunkOffsets(bytes).map {
            (raw: bytes.loadLittleEndian(UInt32.self, at: $0), stored: bytes.loadLittleEndian(UInt32.self, at: $0 + 4))
        }
        #expect(stored.count == 3)
        #expect(
            stored[0].stored < stored[0].raw && stored[1].stored == stored[1].raw && stored[2].stored < stored[2].raw)
    }

    @Test(
        "a damaged chunk or trailer is reported with the offset of the bad bytes",
        arguments: [
            "chunk 2 body", "chunk 2 rawLen", "chunk 1 compLen", "chunk 3 checksum", "trailer count",
            "trailer checksum", "trailer magic", "truncated",
        ])
    func corruptSnapshot(damage: String) throws {
        let io = FaultyFileIO()
        let bytes = try #require(io.contents(of: try Self.write(io: io)))
        let chunks = Self.chunkOffsets(bytes)
        let trailer = bytes.count - SnapshotFile.trailerSize
        let (damaged, expectedOffset): ([UInt8], Int) =
            switch damage {
            case "chunk 2 body": (F.flipBit(bytes, at: chunks[1] + 5000), chunks[1])
            case "chunk 2 rawLen": (F.flipBit(bytes, at: chunks[1] + 1), chunks[1])
            case "chunk 1 compLen": (F.flipBit(bytes, at: chunks[0] + 4), chunks[0])
            case "chunk 3 checksum": (F.flipBit(bytes, at: chunks[2] + 9), chunks[2])
            case "trailer count": (F.flipBit(bytes, at: trailer), trailer)
            case "trailer checksum": (F.flipBit(bytes, at: trailer + 8), trailer + 8)
            case "trailer magic": (F.flipBit(bytes, at: trailer + 17), trailer + 16)
            default: (Array(bytes.prefix(chunks[2])), chunks[2])
            }
        io.setContents(of: Self.path, damaged)
        let error = #expect(throws: ShoalError.self) { try SnapshotFile.read(at: Self.path, io: io) }
        #expect(error?.code == .corruptSnapshot)
        #expect(error?.context["offset"] == String(expectedOffset), "\(damage): \(error?.message ?? "")")
        #expect(io.contents(of: Self.path) == damaged)
        // Chunks shared between two threads find the same damage.
        let parallel = #expect(throws: ShoalError.self) { try SnapshotFile.decode(path: Self.path, contents: damaged, parallelThreshold: 0) }
        #expect(parallel?.message == error?.message)
    }

    @Test("with two damages, the one first in the file is reported, whether one thread or two read the chunks", arguments: [
        ("chunk 3 checksum", "trailer magic"), ("chunk 3 body", "chunk 2 body"), ("chunk 2 rawLen", "chunk 1 body"),
        ("chunk 1 body", "truncated"),
    ])
    func firstDamageWins(damages: (String, String)) throws {
        let io = FaultyFileIO()
        let bytes = try #require(io.contents(of: try Self.write(io: io)))
        let chunks = Self.chunkOffsets(bytes)
        let trailer = bytes.count - SnapshotFile.trailerSize
        func damage(_ name: String, _ bytes: [UInt8]) -> (bytes: [UInt8], offset: Int) {
            switch name {
            case "chunk 1 body": (F.flipBit(bytes, at: chunks[0] + SnapshotFile.chunkHeaderSize + 4), chunks[0])
            case "chunk 2 body": (F.flipBit(bytes, at: chunks[1] + 5000), chunks[1])
            case "chunk 3 body": (F.flipBit(bytes, at: chunks[2] + SnapshotFile.chunkHeaderSize + 4), chunks[2])
            case "chunk 2 rawLen": (F.flipBit(bytes, at: chunks[1] + 1), chunks[1])
            case "chunk 3 checksum": (F.flipBit(bytes, at: chunks[2] + 9), chunks[2])
            case "trailer magic": (F.flipBit(bytes, at: trailer + 17), trailer + 16)
            default: (Array(bytes.prefix(chunks[2])), chunks[2])
            }
        }
        let first = damage(damages.1, bytes)
        let both = damage(damages.0, first.bytes)
        let expected = min(first.offset, both.offset)
        for threshold in [Int.max, 0] {
            let error = #expect(throws: ShoalError.self) { try SnapshotFile.decode(path: Self.path, contents: both.bytes, parallelThreshold: threshold) }
            #expect(error?.code == .corruptSnapshot)
            #expect(error?.context["offset"] == String(expected), "\(damages), threshold \(threshold): \(error?.message ?? "")")
        }
    }

    @Test("an LZ4 chunk whose checksum verifies but whose block does not decode is reported at the chunk")
    func undecodableChunk() throws {
        let io = FaultyFileIO()
        var bytes = try #require(io.contents(of: try Self.write(io: io)))
        let chunks = Self.chunkOffsets(bytes)
        let chunk = chunks[2]  // compressed
        let stored = Int(bytes.loadLittleEndian(UInt32.self, at: chunk + 4))
        #expect(stored < Int(bytes.loadLittleEndian(UInt32.self, at: chunk)))
        // A literal run longer than the block, then the checksums made right.
        bytes[chunk + SnapshotFile.chunkHeaderSize] = 0xF0
        bytes[chunk + SnapshotFile.chunkHeaderSize + 1] = 0xFF
        let checksum = Checksum.xxh3(
            Array(bytes[chunk..<(chunk + 8)]) + Array(bytes[(chunk + SnapshotFile.chunkHeaderSize)..<(chunk + SnapshotFile.chunkHeaderSize + stored)]),
            range: 0..<(8 + stored), seed: F.salt)
        bytes.storeLittleEndian(checksum, at: chunk + 8)
        var trailerHasher = Checksum.Hasher(seed: F.salt)
        for offset in chunks { withUnsafeBytes(of: bytes.loadLittleEndian(UInt64.self, at: offset + 8).littleEndian) { trailerHasher.update($0) } }
        bytes.storeLittleEndian(trailerHasher.finalize(), at: bytes.count - SnapshotFile.trailerSize + 8)
        io.setContents(of: Self.path, bytes)
        let error = #expect(throws: ShoalError.self) { try SnapshotFile.read(at: Self.path, io: io) }
        #expect(error?.code == .corruptSnapshot)
        #expect(error?.context["offset"] == String(chunk), "\(error?.message ?? "")")
        #expect(error?.message.contains("does not decode") == true, "\(error?.message ?? "")")
        let parallel = #expect(throws: ShoalError.self) { try SnapshotFile.decode(path: Self.path, contents: bytes, parallelThreshold: 0) }
        #expect(parallel?.message == error?.message)
    }

    @Test("a damaged snapshot header is refused like a log header")
    func corruptHeader() throws {
        let io = FaultyFileIO()
        let bytes = try #require(io.contents(of: try Self.write(io: io)))
        io.setContents(of: Self.path, F.flipBit(bytes, at: 30))
        #expect(
            (#expect(throws: ShoalError.self) { try SnapshotFile.read(at: Self.path, io: io) })?.code == .corruptHeader)
        io.setContents(of: Self.path, F.flipBit(bytes, at: 7))
        #expect(
            (#expect(throws: ShoalError.self) { try SnapshotFile.read(at: Self.path, io: io) })?.code == .notAShoalFile)
    }

    @Test("crash during snapshot write: the snapshot name is absent or holds the whole snapshot")
    func crashDuringWrite() throws {
        let io = FaultyFileIO(captureSyncPoints: true)
        let older = try SnapshotFile.write(
            [1, 2, 3], version: 7, schemaFingerprint: 0, directory: F.directory, io: io, salt: 1)
        io.mark(1)
        try Self.write(io: io)
        io.capture("end")
        var sawAbsent = false
        var sawPresent = false
        for capture in io.captures where capture.marker == 1 {
            let pending = capture.model.pendingOperations.count
            for kept in 0...pending {
                for fate in kept == pending ? [.persisted] : LogWriterCrashTests.fates {
                    for keepDirectoryChanges in [false, true] {
                        let image = FaultyFileIO.crashImage(
                            of: capture.model, keptPending: kept, then: fate,
                            keepDirectoryChanges: keepDirectoryChanges)
                        #expect(try SnapshotFile.read(at: older, io: image).payload == [1, 2, 3])
                        if image.contents(of: Self.path) == nil {
                            sawAbsent = true
                        } else {
                            sawPresent = true
                            #expect(
                                try SnapshotFile.read(at: Self.path, io: image).payload == Self.payload,
                                "\(capture.label)")
                        }
                    }
                }
            }
        }
        #expect(sawAbsent && sawPresent)
    }

    @Test("a failed write leaves no snapshot and no temporary file", arguments: [FileIOError.Operation.write, .sync])
    func failedWrite(operation: FileIOError.Operation) throws {
        let io = FaultyFileIO()
        io.inject(operation, onCall: operation == .write ? 3 : 1, errno: ENOSPC)
        let error = #expect(throws: ShoalError.self) { try Self.write(io: io) }
        #expect(error?.code == .fileAccess)
        #expect(io.allPaths.isEmpty)
    }
}
