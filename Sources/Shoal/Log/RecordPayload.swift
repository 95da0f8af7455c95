/// Encoding of a record's payload: raw, one LZ4 block, or LZ4 chunks for payloads over 1 MiB.
///
/// Chunking bounds the buffers LZ4 works on and lets a dump stream a large record.
enum RecordPayload {
    /// Chooses the codec for `raw` and encodes it. Stores raw unless LZ4 saves at least one byte.
    static func encode(_ raw: [UInt8]) -> (LogFormat.Codec, [UInt8]) {
        guard raw.count > LogFormat.chunkRawBytes else {
            if let block = Compression.compress(raw) { return (.lz4, block) }
            return (.raw, raw)
        }
        var stored: [UInt8] = []
        raw.withUnsafeBytes { all in
            var start = 0
            while start < all.count {
                let chunk = UnsafeRawBufferPointer(
                    rebasing: all[start..<min(start + LogFormat.chunkRawBytes, all.count)])
                stored.appendLittleEndian(UInt32(chunk.count))
                if let block = Compression.compress(chunk) {
                    stored.appendLittleEndian(UInt32(block.count))
                    stored.append(contentsOf: block)
                } else {
                    stored.appendLittleEndian(UInt32(chunk.count))
                    stored.append(contentsOf: chunk)
                }
                start += chunk.count
            }
        }
        return stored.count < raw.count ? (.lz4Chunks, stored) : (.raw, raw)
    }

    /// Decodes a stored payload that must decode to exactly `rawLength` bytes.
    static func decode(
        _ stored: UnsafeRawBufferPointer, codec: LogFormat.Codec, rawLength: Int
    ) throws(LogDamage.Reason) -> [UInt8] {
        switch codec {
        case .raw:
            guard stored.count == rawLength else {
                throw .undecodablePayload("raw payload of \(stored.count) bytes, expected \(rawLength)")
            }
            return [UInt8](stored)
        case .lz4:
            do { return try Compression.decompress(stored, rawLength: rawLength) } catch {
                throw .undecodablePayload(error.description)
            }
        case .lz4Dictionary:
            throw .undecodablePayload("codec lz4Dictionary is reserved and not supported by format version 1")
        case .lz4Chunks:
            return try decodeChunks(stored, rawLength: rawLength)
        }
    }

    /// Decodes chunked LZ4 (``ChunkDecoding``: every chunk straight into
    /// its place, on two threads for a large payload). The failure reported is the one
    /// reading the chunks in order meets first: a chunk that does not
    /// decode before any later chunk's bad header.
    private static func decodeChunks(
        _ stored: UnsafeRawBufferPointer, rawLength: Int
    ) throws(LogDamage.Reason) -> [UInt8] {
        // The chunks' headers, up to the first bad one.
        var chunks: [ChunkDecoding.Chunk] = []
        var headerFailure: LogDamage.Reason?
        var offset = 0, decoded = 0
        while offset < stored.count {
            guard stored.count - offset >= LogFormat.recordChunkHeaderSize else {
                headerFailure = .undecodablePayload("chunk header cut at payload offset \(offset)")
                break
            }
            let chunkRaw = Int(stored.loadLittleEndian(UInt32.self, at: offset))
            let chunkStored = Int(stored.loadLittleEndian(UInt32.self, at: offset + 4))
            offset += LogFormat.recordChunkHeaderSize
            guard chunkRaw >= 1, chunkRaw <= LogFormat.chunkRawBytes, chunkStored >= 1, chunkStored <= chunkRaw,
                chunkStored <= stored.count - offset, decoded + chunkRaw <= rawLength
            else {
                headerFailure = .undecodablePayload("bad chunk lengths at payload offset \(offset - 8)")
                break
            }
            chunks.append(ChunkDecoding.Chunk(stored: offset..<(offset + chunkStored), raw: decoded..<(decoded + chunkRaw)))
            offset += chunkStored
            decoded += chunkRaw
        }
        let (output, outcomes) = ChunkDecoding.payload(chunks, from: stored)
        for (chunk, outcome) in zip(chunks, outcomes) {
            if case .undecodable(let failure) = outcome {
                throw .undecodablePayload("chunk at payload offset \(chunk.stored.lowerBound - 8): \(failure.description)")
            }
        }
        if let headerFailure { throw headerFailure }
        guard decoded == rawLength else {
            throw .undecodablePayload("chunks decode to \(decoded) bytes, expected \(rawLength)")
        }
        return output
    }
}
