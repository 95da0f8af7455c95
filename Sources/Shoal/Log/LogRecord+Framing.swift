// Record grammar, format version 1 (all integers little-endian; FORMAT.md has the prose):
//
//   segment   := fileHeader(64) record*
//   record    := checksum:u64 payloadLen:u32 rawLen:u32 version:u64 timestamp:u64
//                type:u8 codec:u8 reserved:u16(=0) payload[payloadLen]
//   checksum  := XXH3-64(seed: file salt, bytes 8..<36 of the record ++ payload)
//   payload   := bytes[rawLen]                    codec 0, raw: payloadLen == rawLen
//              | lz4Block                         codec 1: payloadLen < rawLen
//              | chunk+                           codec 0x11, only when rawLen > 1 MiB
//   chunk     := chunkRaw:u32 chunkComp:u32 bytes[chunkComp]
//                1 <= chunkComp <= chunkRaw <= 1 MiB; chunkComp == chunkRaw means stored raw

extension LogRecord {
    /// The record's on-disk bytes: header, encoded payload and checksum seeded with `salt`.
    ///
    /// The payload is stored raw unless LZ4 saves at least one byte.
    /// Precondition: `payload.count <= LogFormat.maxPayloadBytes`.
    func framed(salt: UInt64) -> [UInt8] {
        precondition(payload.count <= LogFormat.maxPayloadBytes, "record payload over 1 GiB")
        let (codec, stored) = RecordPayload.encode(payload)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(LogFormat.recordHeaderSize + stored.count)
        bytes.appendLittleEndian(UInt64(0))  // checksum, filled in below
        bytes.appendLittleEndian(UInt32(stored.count))
        bytes.appendLittleEndian(UInt32(payload.count))
        bytes.appendLittleEndian(version)
        bytes.appendLittleEndian(timestampMicros)
        bytes.append(type.rawValue)
        bytes.append(codec.rawValue)
        bytes.appendLittleEndian(UInt16(0))
        bytes.append(contentsOf: stored)
        let checksum = Checksum.xxh3(
            bytes, range: LogFormat.RecordHeaderLayout.checksummedFrom..<bytes.count, seed: salt)
        bytes.storeLittleEndian(checksum, at: LogFormat.RecordHeaderLayout.checksum)
        return bytes
    }
}

/// A record header that passed every check, including its checksum, found at `offset`.
struct RecordFrame: Equatable, Sendable {
    let offset: Int
    let payloadLength: Int
    let rawLength: Int
    let version: UInt64
    let timestampMicros: UInt64
    let type: LogFormat.RecordType
    let codec: LogFormat.Codec

    /// Header plus payload.
    var byteCount: Int { LogFormat.recordHeaderSize + payloadLength }
    /// Where the on-disk payload lies in the buffer the frame was parsed from.
    var payloadRange: Range<Int> { (offset + LogFormat.recordHeaderSize)..<(offset + byteCount) }

    /// Parses and verifies the record starting at `offset`, cheapest checks first:
    /// header length, reserved bytes, type, codec, length bounds, payload length
    /// against the bytes available, the version (at most ``LogFormat/maximumVersion``),
    /// then the checksum. The scan for valid records
    /// after damage calls this at every byte offset, so the early checks matter.
    static func parse(
        _ buffer: UnsafeRawBufferPointer, at offset: Int, salt: UInt64
    ) -> Result<RecordFrame, LogDamage.Reason> {
        typealias L = LogFormat.RecordHeaderLayout
        let available = buffer.count - offset
        guard available >= LogFormat.recordHeaderSize else { return .failure(.truncatedHeader(available: available)) }
        guard buffer.loadLittleEndian(UInt16.self, at: offset + L.reserved) == 0 else {
            return .failure(.invalidField("reserved"))
        }
        let type = LogFormat.RecordType(rawValue: buffer[offset + L.type])
        guard type.rawValue != 0 else { return .failure(.invalidField("type")) }
        guard let codec = LogFormat.Codec(rawValue: buffer[offset + L.codec]) else {
            return .failure(.invalidField("codec"))
        }
        let payloadLength = Int(buffer.loadLittleEndian(UInt32.self, at: offset + L.payloadLength))
        let rawLength = Int(buffer.loadLittleEndian(UInt32.self, at: offset + L.rawLength))
        guard lengthsAreConsistent(codec: codec, payloadLength: payloadLength, rawLength: rawLength) else {
            return .failure(.lengthOutOfBounds(payloadLength: payloadLength, rawLength: rawLength))
        }
        guard payloadLength <= available - LogFormat.recordHeaderSize else {
            return .failure(
                .truncatedPayload(declared: payloadLength, available: available - LogFormat.recordHeaderSize))
        }
        let version = buffer.loadLittleEndian(UInt64.self, at: offset + L.version)
        guard version <= LogFormat.maximumVersion else { return .failure(.invalidField("version")) }
        let end = offset + LogFormat.recordHeaderSize + payloadLength
        let checksummed = UnsafeRawBufferPointer(rebasing: buffer[(offset + L.checksummedFrom)..<end])
        guard Checksum.xxh3(checksummed, seed: salt) == buffer.loadLittleEndian(UInt64.self, at: offset + L.checksum)
        else { return .failure(.checksumMismatch) }
        return .success(
            RecordFrame(
                offset: offset, payloadLength: payloadLength, rawLength: rawLength,
                version: version,
                timestampMicros: buffer.loadLittleEndian(UInt64.self, at: offset + L.timestamp),
                type: type, codec: codec))
    }

    /// Decodes the payload of this frame from the buffer it was parsed from.
    func decodePayload(_ buffer: UnsafeRawBufferPointer) throws(LogDamage.Reason) -> [UInt8] {
        try RecordPayload.decode(
            UnsafeRawBufferPointer(rebasing: buffer[payloadRange]), codec: codec, rawLength: rawLength)
    }

    private static func lengthsAreConsistent(codec: LogFormat.Codec, payloadLength: Int, rawLength: Int) -> Bool {
        guard payloadLength <= LogFormat.maxPayloadBytes, rawLength <= LogFormat.maxPayloadBytes else { return false }
        // LZ4 expands a byte to at most 255 (a match-length byte), so a larger
        // stated raw length is impossible; checked before anything is allocated for it.
        guard codec == .raw || rawLength <= payloadLength * LogFormat.maximumExpansion + 64 else { return false }
        switch codec {
        case .raw: return payloadLength == rawLength
        case .lz4, .lz4Dictionary: return payloadLength > 0 && payloadLength < rawLength
        case .lz4Chunks:
            let chunks = (rawLength + LogFormat.chunkRawBytes - 1) / LogFormat.chunkRawBytes
            return rawLength > LogFormat.chunkRawBytes && payloadLength < rawLength
                && payloadLength >= chunks * (LogFormat.recordChunkHeaderSize + 1)
        }
    }
}
