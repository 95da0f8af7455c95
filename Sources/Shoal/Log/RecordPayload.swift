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

    private static func decodeChunks(
        _ stored: UnsafeRawBufferPointer, rawLength: Int
    ) throws(LogDamage.Reason) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(rawLength)
        var offset = 0
        while offset < stored.count {
            guard stored.count - offset >= LogFormat.recordChunkHeaderSize else {
                throw .undecodablePayload("chunk header cut at payload offset \(offset)")
            }
            let chunkRaw = Int(stored.loadLittleEndian(UInt32.self, at: offset))
            let chunkStored = Int(stored.loadLittleEndian(UInt32.self, at: offset + 4))
            offset += LogFormat.recordChunkHeaderSize
            guard chunkRaw >= 1, chunkRaw <= LogFormat.chunkRawBytes, chunkStored >= 1, chunkStored <= chunkRaw,
                chunkStored <= stored.count - offset, output.count + chunkRaw <= rawLength
            else { throw .undecodablePayload("bad chunk lengths at payload offset \(offset - 8)") }
            let bytes = UnsafeRawBufferPointer(rebasing: stored[offset..<(offset + chunkStored)])
            if chunkStored == chunkRaw {
                output.append(contentsOf: bytes)
            } else {
                do { output.append(contentsOf: try Compression.decompress(bytes, rawLength: chunkRaw)) } catch {
                    throw .undecodablePayload("chunk at payload offset \(offset - 8): \(error.description)")
                }
            }
            offset += chunkStored
        }
        guard output.count == rawLength else {
            throw .undecodablePayload("chunks decode to \(output.count) bytes, expected \(rawLength)")
        }
        return output
    }
}
