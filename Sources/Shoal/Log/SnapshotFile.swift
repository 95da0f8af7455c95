import Dispatch
// Snapshot file grammar, format versions 1 and 2 (all integers little-endian; FORMAT.md has the prose;
// the payload is SnapshotCodec.swift's):
//
//   snapshot  := fileHeader(64, magic "SHOALSNP", baseVersion = V) chunk* trailer
//   chunk     := rawLen:u32 compLen:u32 checksum:u64 bytes[compLen]
//                1 <= compLen <= rawLen <= 1 MiB; compLen == rawLen means stored raw, else one LZ4 block
//   checksum  := XXH3-64(seed: file salt, rawLen ++ compLen ++ bytes)
//   trailer   := chunkCount:u64 chunksChecksum:u64 "SNPEND\0\0"
//   chunksChecksum := XXH3-64(seed: file salt, every chunk checksum as u64, in order)

/// A snapshot file, `snapshot-<V:016x>.snap`: the whole state at version V as an
/// opaque payload (the layers above put the schema and the tables in it),
/// split into checksummed chunks of at most 1 MiB (PERSISTENCE.md §8.6 step 3).
///
/// ```swift
/// let path = try SnapshotFile.write(bytes, version: 42, schemaFingerprint: fp, directory: dir, io: io)
/// let snapshot = try SnapshotFile.read(at: path, io: io)   // snapshot.payload == bytes
/// ```
struct SnapshotFile: Sendable {
    static let chunkHeaderSize = 16
    static let trailerSize = 24
    static let trailerMagic: [UInt8] = Array("SNPEND".utf8) + [0, 0]

    let path: String
    let header: FileHeader
    let payload: [UInt8]

    /// The snapshot's version.
    var version: UInt64 { header.baseVersion }

    /// The state the payload holds, which must be at the header's version
    /// (a payload version past it would carry the state beyond the limits
    /// of FORMAT.md).
    func decodedSnapshot() throws(DecodingFailure) -> Snapshot {
        try Self.atVersion(of: header, SnapshotCodec.decode(payload, formatVersion: header.formatVersion))
    }

    /// `snapshot`, a payload's state, if it is at `header`'s version.
    private static func atVersion(of header: FileHeader, _ snapshot: Snapshot) throws(DecodingFailure) -> Snapshot {
        guard snapshot.version == header.baseVersion else {
            throw DecodingFailure(
                offset: 0, reason: "the payload is at version \(snapshot.version), the header at \(header.baseVersion)")
        }
        return snapshot
    }

    /// Writes `payload` as the snapshot of `version`, crash-safely: into
    /// `snapshot-V.snap.tmp` in the same directory, `fdatasync`, close, rename
    /// to `snapshot-V.snap`, `fsync` the directory (PERSISTENCE.md §5 protocol 3,
    /// steps 1–4). Deleting older snapshots and segments is the caller's step 5.
    ///
    /// - Returns: the snapshot's path.
    /// - Throws: `ShoalError.fileAccess`; on failure before the rename the
    ///   temporary file is removed and no snapshot name changes.
    @discardableResult
    static func write(
        _ payload: [UInt8], version: UInt64, schemaFingerprint: UInt64, directory: String, io: any FileIO,
        salt: UInt64 = .random(in: .min ... .max), createdAtMicros: UInt64 = LogFormat.nowMicros()
    ) throws(ShoalError) -> String {
        let path = joinPath(directory, LogFormat.snapshotFileName(version: version))
        let temporary = path + LogFormat.temporarySuffix
        if io.fileExists(at: temporary) { try? io.unlink(at: temporary) }  // left by a crashed attempt
        let header = FileHeader(
            kind: .snapshot, salt: salt, baseVersion: version, schemaFingerprint: schemaFingerprint,
            createdAtMicros: createdAtMicros)
        let file: OpenFile
        do { file = try io.createExclusive(at: temporary) } catch { throw .logFileAccess(error.named(path), "create") }
        do throws(FileIOError) {
            var offset: Int64 = 0
            func put(_ bytes: [UInt8]) throws(FileIOError) {
                try io.write(file, bytes, at: offset)
                offset += Int64(bytes.count)
            }
            try put(header.encoded())
            var trailerHasher = Checksum.Hasher(seed: salt)
            var chunkCount: UInt64 = 0
            var start = 0
            while start < payload.count {
                let end = min(start + LogFormat.chunkRawBytes, payload.count)
                let chunk = encodeChunk(payload, range: start..<end, salt: salt)
                withUnsafeBytes(of: chunk.checksum.littleEndian) { trailerHasher.update($0) }
                try put(chunk.bytes)
                chunkCount += 1
                start = end
            }
            var trailer: [UInt8] = []
            trailer.appendLittleEndian(chunkCount)
            trailer.appendLittleEndian(trailerHasher.finalize())
            trailer.append(contentsOf: trailerMagic)
            try put(trailer)
            try io.syncData(file)
        } catch {
            io.close(file)
            try? io.unlink(at: temporary)
            throw .logFileAccess(error.named(path), error.operation == .sync ? "sync" : "write")
        }
        io.close(file)
        do throws(FileIOError) {
            try io.rename(temporary, to: path)
        } catch {
            try? io.unlink(at: temporary)
            throw .logFileAccess(error, "rename")
        }
        do { try io.syncDirectory(at: directory) } catch { throw .logFileAccess(error, "sync the directory of") }
        return path
    }

    /// Reads and verifies the snapshot at `path`: header, every chunk's lengths,
    /// checksum and exact decoded size, and the trailer.
    ///
    /// - Throws: `ShoalError.fileAccess`, `.notAShoalFile`, `.unsupportedFormat`,
    ///   `.corruptHeader`, `.corruptSnapshot` (with the offset of the first bad byte range).
    static func read(at path: String, io: any FileIO) throws(ShoalError) -> SnapshotFile {
        try decode(path: path, contents: try contents(at: path, io: io))
    }

    /// The bytes of the file at `path`.
    private static func contents(at path: String, io: any FileIO) throws(ShoalError) -> [UInt8] {
        do { return try io.readWholeFile(at: path) } catch { throw .logFileAccess(error, "read") }
    }

    /// Damage at `offset` of the snapshot at `path`.
    private static func corrupt(_ path: String, _ reason: String, at offset: Int) -> ShoalError {
        .corruptSnapshot(path: path, offset: Int64(offset), reason: reason)
    }

    /// Verifies and decodes a snapshot already in memory.
    ///
    /// The chunks' framing is read first, then their checksums are verified
    /// and their bytes decompressed in parallel (``ChunkDecoding``),
    /// and the damage found first in file order is reported, as reading
    /// chunk by chunk would: a chunk's checksum, then the framing after it,
    /// then the trailer, then a chunk whose verified bytes do not decode.
    /// - Parameter parallelThreshold: the payload size from which two
    ///   threads share the chunks (tests lower it to check both ways agree).
    static func decode(path: String, contents: [UInt8], parallelThreshold: Int = ChunkDecoding.parallelThreshold) throws(ShoalError) -> SnapshotFile {
        let framing = try frame(path: path, contents: contents)
        let (header, chunks) = (framing.header, framing.chunks)
        let salt = header.salt
        let (payload, outcomes) = contents.withUnsafeBytes { input in
            // A chunk is decoded only once its checksum matches.
            ChunkDecoding.payload(framing.places, from: input, parallelThreshold: parallelThreshold) { i in
                chunks[i].verify(in: input, salt: salt)
            }
        }
        if let bad = outcomes.firstIndex(of: .rejected) { throw Self.corrupt(path, "chunk checksum mismatch", at: chunks[bad].offset) }
        if let damage = framing.damage { throw damage }
        guard framing.trailerChecksumMatches(contents) else {
            throw Self.corrupt(path, "trailer checksum mismatch", at: framing.trailerOffset + 8)
        }
        for (chunk, outcome) in zip(chunks, outcomes) {
            if case .undecodable(let failure) = outcome { throw Self.corrupt(path, "chunk does not decode: \(failure)", at: chunk.offset) }
        }
        return SnapshotFile(path: path, header: header, payload: payload)
    }

    /// Reads the snapshot at `path` and the state it holds: what
    /// ``read(at:io:)`` then ``decodedSnapshot()`` give, with the same
    /// errors, but a large snapshot whose framing and trailer are sound is
    /// decoded as its chunks are verified and decompressed
    /// (``ProgressivePayload``), from `progressiveFrom` bytes of payload.
    /// Any failure that way reads it again the whole way, so that the
    /// damage reported is the one reading it whole finds first.
    ///
    /// - Returns: the state, and the size of its payload.
    /// - Throws: what ``read(at:io:)`` throws, and `corruptSnapshot` when
    ///   the payload does not decode or is not at the header's version.
    static func load(
        at path: String, io: any FileIO, progressiveFrom threshold: Int = ChunkDecoding.parallelThreshold
    ) throws(ShoalError) -> (snapshot: Snapshot, payloadBytes: Int) {
        let contents = try contents(at: path, io: io)
        if let loaded = loadProgressively(path: path, contents: contents, threshold: threshold) { return loaded }
        // Read the whole way (again, after a failure: the framing and every
        // chunk's checksum are checked a second time), for the error it finds first.
        let file = try decode(path: path, contents: contents)
        do { return (try file.decodedSnapshot(), file.payload.count) } catch {
            throw ShoalError(.corruptSnapshot, "\(path): the snapshot's contents do not decode: \(error)",
                context: ["path": path, "offset": String(error.offset)])
        }
    }

    /// The state of a large columnar snapshot, decoded as it is
    /// decompressed; `nil` when it is small, of the row format, damaged
    /// anywhere, or its payload fails to decode (``load(at:io:progressiveFrom:)``
    /// then reads it the whole way).
    static func loadProgressively(path: String, contents: [UInt8], threshold: Int) -> (snapshot: Snapshot, payloadBytes: Int)? {
        guard let framing = try? frame(path: path, contents: contents), framing.damage == nil,
            framing.header.formatVersion >= LogFormat.columnarSnapshotVersion,
            framing.places.count > 1, let size = framing.places.last?.raw.upperBound, size >= threshold,
            framing.trailerChecksumMatches(contents)
        else { return nil }
        let (chunks, salt) = (framing.chunks, framing.header.salt)
        let progress = ProgressivePayload(input: contents, chunks: framing.places) { i, input in
            chunks[i].verify(in: input, salt: salt)
        }
        guard let snapshot = try? atVersion(of: framing.header, SnapshotCodec.decode(progress, formatVersion: framing.header.formatVersion)),
            // Decoding read up to the payload's end, so every chunk was verified.
            progress.isComplete
        else { return nil }
        return (snapshot, size)
    }

    /// A snapshot file's chunks as its framing gives them, before any is verified.
    private struct Framing {
        let header: FileHeader
        let chunks: [Chunk]
        /// Each chunk's place in the payload.
        let places: [ChunkDecoding.Chunk]
        /// The first damage in the framing or the trailer (all but the
        /// trailer's checksum), reported after any bad checksum of a chunk before it.
        let damage: ShoalError?
        let trailerOffset: Int

        /// Whether the trailer's checksum is that of the chunks' stated
        /// checksums (`false` when the framing or the trailer is damaged).
        func trailerChecksumMatches(_ contents: [UInt8]) -> Bool {
            guard damage == nil, contents.count - trailerOffset == trailerSize else { return false }
            var trailerHasher = Checksum.Hasher(seed: header.salt)
            for chunk in chunks { withUnsafeBytes(of: chunk.checksum.littleEndian) { trailerHasher.update($0) } }
            return contents.loadLittleEndian(UInt64.self, at: trailerOffset + 8) == trailerHasher.finalize()
        }
    }

    /// Reads the header, the chunks' lengths and the trailer of `contents`.
    ///
    /// - Throws: the header's errors; damage after it is in ``Framing/damage``.
    private static func frame(path: String, contents: [UInt8]) throws(ShoalError) -> Framing {
        let header: FileHeader
        do { header = try FileHeader.decode(contents, expecting: .snapshot) } catch {
            throw error.shoalError(path: path)
        }
        var chunks: [Chunk] = []
        var framingDamage: ShoalError?
        var offset = LogFormat.fileHeaderSize
        while contents.count - offset > trailerSize {
            let remaining = contents.count - offset
            let rawLength = Int(contents.loadLittleEndian(UInt32.self, at: offset))
            let storedLength = Int(contents.loadLittleEndian(UInt32.self, at: offset + 4))
            guard rawLength >= 1, rawLength <= LogFormat.chunkRawBytes, storedLength >= 1, storedLength <= rawLength,
                rawLength <= storedLength * LogFormat.maximumExpansion + 64
            else {
                framingDamage = Self.corrupt(path, "impossible chunk lengths (raw \(rawLength), stored \(storedLength))", at: offset)
                break
            }
            guard storedLength <= remaining - chunkHeaderSize else {
                framingDamage = Self.corrupt(path, "chunk cut short (\(remaining - chunkHeaderSize) of \(storedLength) bytes)", at: offset)
                break
            }
            let body = (offset + chunkHeaderSize)..<(offset + chunkHeaderSize + storedLength)
            chunks.append(Chunk(offset: offset, body: body, rawLength: rawLength, checksum: contents.loadLittleEndian(UInt64.self, at: offset + 8)))
            offset = body.upperBound
        }
        if framingDamage == nil {
            framingDamage = trailerDamage(contents, at: offset, chunkCount: chunks.count).map { Self.corrupt(path, $0.reason, at: $0.offset) }
        }
        var end = 0
        let places = chunks.map { chunk in
            defer { end += chunk.rawLength }
            return ChunkDecoding.Chunk(stored: chunk.body, raw: end..<(end + chunk.rawLength))
        }
        return Framing(header: header, chunks: chunks, places: places, damage: framingDamage, trailerOffset: offset)
    }

    /// One chunk's place in the file, with its stated checksum.
    private struct Chunk: Sendable {
        let offset: Int
        let body: Range<Int>
        let rawLength: Int
        let checksum: UInt64

        /// Whether the chunk's lengths and bytes in `input` (the file) have its stated checksum.
        func verify(in input: UnsafeRawBufferPointer, salt: UInt64) -> Bool {
            var hasher = Checksum.Hasher(seed: salt)
            hasher.update(UnsafeRawBufferPointer(rebasing: input[offset..<(offset + 8)]))
            hasher.update(UnsafeRawBufferPointer(rebasing: input[body]))
            return hasher.finalize() == checksum
        }
    }

    /// Why the trailer at `offset` is damaged, if it is (all but its checksum).
    private static func trailerDamage(_ contents: [UInt8], at offset: Int, chunkCount: Int) -> (reason: String, offset: Int)? {
        let remaining = contents.count - offset
        guard remaining == trailerSize else {
            return (remaining == 0 ? "trailer missing" : "trailer cut short (\(remaining) bytes)", offset)
        }
        guard Array(contents[(offset + 16)..<(offset + 24)]) == trailerMagic else { return ("trailer magic is wrong", offset + 16) }
        guard contents.loadLittleEndian(UInt64.self, at: offset) == UInt64(chunkCount) else {
            return ("trailer chunk count is not \(chunkCount)", offset)
        }
        return nil
    }

    private static func encodeChunk(
        _ payload: [UInt8], range: Range<Int>, salt: UInt64
    ) -> (bytes: [UInt8], checksum: UInt64) {
        payload.withUnsafeBytes { all in
            let raw = UnsafeRawBufferPointer(rebasing: all[range])
            let block = Compression.compress(raw)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(chunkHeaderSize + (block?.count ?? raw.count))
            bytes.appendLittleEndian(UInt32(raw.count))
            bytes.appendLittleEndian(UInt32(block?.count ?? raw.count))
            bytes.appendLittleEndian(UInt64(0))  // checksum, filled in below
            if let block { bytes.append(contentsOf: block) } else { bytes.append(contentsOf: raw) }
            var hasher = Checksum.Hasher(seed: salt)
            bytes.withUnsafeBytes { chunk in
                hasher.update(UnsafeRawBufferPointer(rebasing: chunk[0..<8]))
                hasher.update(UnsafeRawBufferPointer(rebasing: chunk[chunkHeaderSize...]))
            }
            let checksum = hasher.finalize()
            bytes.storeLittleEndian(checksum, at: 8)
            return (bytes, checksum)
        }
    }
}
