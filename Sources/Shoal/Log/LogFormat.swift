internal import Glibc

/// Constants and byte layouts of Shoal's on-disk formats, format version 6.
///
/// The prose specification, with the grammar and a worked example, is
/// `Sources/Shoal/Log/FORMAT.md`; keep the two in step. All integers are
/// little-endian.
///
/// Choices (PERSISTENCE.md §7, §8): LZ4 *block* API with our own framing (one
/// checksum covers header and payload, exact decoded length, raw-store flag),
/// XXH3-64 checksums seeded with a random per-file salt so that a record copied
/// from another file, or left over in a recycled one, never verifies.
enum LogFormat {
    /// The format version this build writes and the highest it reads.
    ///
    /// Version 2 adds insert runs to transaction payloads (op tag 13) and
    /// writes snapshot payloads in columnar form (runs of objects stored a
    /// column at a time, loaded as log replay applies insert runs). It reads
    /// version 1 files: their records never hold runs, and their snapshots
    /// are read in row form. A version 1 reader refuses a version 2 file as
    /// unsupported instead of meeting an op it would call corrupt. A segment
    /// keeps the version it was created with: records appended to a version
    /// 1 segment are written without runs.
    ///
    /// Version 3 adds embedded classes: a schema entry of class flags (see
    /// `SchemaCodec`). Every version 2 schema is a version 3 schema with the
    /// same meaning, so version 2 files are read as they are; a version 2
    /// reader refuses a version 3 file by its header. A schema with an
    /// embedded class is never written to an older segment: the log
    /// continues in a new segment first.
    ///
    /// Version 4 lets snapshot runs store a column as the table keeps it in
    /// memory: integers and links as packed leaves, strings as a leaf of
    /// bytes and ends (column kinds 5, 6 and 7), which loading copies and
    /// checks rather than decoding value by value. Nothing else changed:
    /// versions 1 to 3 are read as they are, and a version 3 reader refuses
    /// a version 4 file by its header.
    ///
    /// Version 5 lets snapshot runs store a dictionary-encoded string
    /// column as the table keeps it (column kind 8): the dictionary's new
    /// strings, then a packed leaf of codes. Versions 1 to 4 are read as
    /// they are.
    ///
    /// Version 6 adds nested collections to values (value kinds 13, a list,
    /// and 14, a dictionary), which only a mixed property holds. Versions 1
    /// to 5 are read as they are; a version 5 reader refuses a version 6
    /// file by its header. A record holding a nested collection is never
    /// written to an older segment: the log continues in a new segment first.
    static let version: UInt16 = 6
    /// The first format version whose values may be nested collections.
    static let nestedCollectionsVersion: UInt16 = 6
    /// The first format version whose snapshot runs may hold packed leaves.
    static let leafSnapshotVersion: UInt16 = 4
    /// The first format version whose snapshot runs may hold coded strings.
    static let codedSnapshotVersion: UInt16 = 5
    /// The first format version whose schemas may hold embedded classes.
    static let embeddedObjectsVersion: UInt16 = 3
    /// The first format version whose transaction payloads may hold insert runs.
    static let insertRunsVersion: UInt16 = 2
    /// The first format version whose snapshot payloads are columnar.
    static let columnarSnapshotVersion: UInt16 = 2
    /// Size of the header at the start of every log segment and snapshot file.
    static let fileHeaderSize = 64
    /// Size of the fixed header in front of every record's payload.
    static let recordHeaderSize = 36
    /// Largest on-disk payload of one record (1 GiB).
    static let maxPayloadBytes = 1 << 30
    /// Raw payloads larger than this are split into LZ4 chunks of at most this size,
    /// and snapshot chunks hold at most this many raw bytes (1 MiB).
    static let chunkRawBytes = 1 << 20
    /// Size of a chunk header inside a chunked record payload: `[rawLen u32][compLen u32]`.
    static let recordChunkHeaderSize = 8
    /// The most raw bytes LZ4 decodes from one compressed byte (a match-length
    /// byte of 255); a stated raw length past the payload length times this
    /// (plus 64) is damage (FORMAT.md, "Limits").
    static let maximumExpansion = 256
    /// The highest version a record, a segment base or a snapshot may carry:
    /// 2^63 − 2, so that the version after it still fits an `Int64` (JSON
    /// output, offsets) and `version + 1` never overflows. A header or record
    /// with a greater version is damaged (FORMAT.md, "Limits").
    static let maximumVersion = UInt64(Int64.max) - 1
    /// How many versions a segment whose file is missing is assumed to have
    /// held at most: a record further ahead of the versions before it than the
    /// damaged bytes between them could hold (one version per
    /// ``recordHeaderSize`` bytes), plus this much at each segment boundary, is
    /// not credible. Recovery reports it instead of listing every version
    /// skipped (FORMAT.md, "Limits").
    static let maximumMissingSegmentVersions: UInt64 = 1 << 16

    /// Magic of a log segment, bytes 0–7 of its header.
    static let logMagic: [UInt8] = Array("SHOALWAL".utf8)
    /// Magic of a snapshot file, bytes 0–7 of its header.
    static let snapshotMagic: [UInt8] = Array("SHOALSNP".utf8)

    /// Checksum algorithm id stored in the low byte of the header flags.
    static let checksumAlgorithmXXH3: UInt32 = 1
    /// Header flags bits 8–15: the set of codecs the file may use.
    static let codecSetRaw: UInt32 = 1 << 8
    static let codecSetLZ4: UInt32 = 1 << 9
    static let codecSetLZ4Chunks: UInt32 = 1 << 10
    /// The flags this build writes: XXH3-64, codecs raw, LZ4 and LZ4 chunks.
    static let defaultFlags: UInt32 = checksumAlgorithmXXH3 | codecSetRaw | codecSetLZ4 | codecSetLZ4Chunks
    /// Every flag bit this build understands; a file with any other bit set is unsupported.
    static let knownFlags: UInt32 = 0xFF | codecSetRaw | codecSetLZ4 | codecSetLZ4Chunks

    /// Byte offsets of the 64-byte file header (PERSISTENCE.md §8.2).
    enum FileHeaderLayout {
        static let magic = 0
        static let formatVersion = 8
        static let headerSize = 10
        static let flags = 12
        static let salt = 16
        static let baseVersion = 24
        static let schemaFingerprint = 32
        static let createdAt = 40
        static let reserved = 48
        static let checksum = 56
    }

    /// Byte offsets of the 36-byte record header (PERSISTENCE.md §8.3).
    ///
    /// The checksum at offset 0 is XXH3-64, seeded with the file salt, of bytes
    /// `checksummedFrom..<36` followed by the on-disk payload.
    enum RecordHeaderLayout {
        static let checksum = 0
        static let payloadLength = 8
        static let rawLength = 12
        static let version = 16
        static let timestamp = 24
        static let type = 32
        static let codec = 33
        static let reserved = 34
        static let checksummedFrom = 8
    }

    /// What a record holds. Bit 0x80 marks a type that an older reader may skip.
    struct RecordType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        var rawValue: UInt8
        init(rawValue: UInt8) { self.rawValue = rawValue }

        /// One committed write transaction.
        static let transaction = RecordType(rawValue: 1)
        /// A schema change (new schema version, canonical encoding, fingerprint).
        static let schemaChange = RecordType(rawValue: 2)
        /// No operation; padding. Consumes a version like any record.
        static let noOp = RecordType(rawValue: 3)
        /// Set on types that readers which do not know them may skip.
        static let safeToIgnoreBit: UInt8 = 0x80

        /// Whether this build knows the type.
        var isKnown: Bool { self == .transaction || self == .schemaChange || self == .noOp }
        /// Whether a reader that does not know the type may skip the record.
        var isSafeToIgnore: Bool { rawValue & Self.safeToIgnoreBit != 0 }

        var description: String {
            switch self {
            case .transaction: "transaction"
            case .schemaChange: "schemaChange"
            case .noOp: "noOp"
            default: "type(0x\(String(rawValue, radix: 16)))"
            }
        }
    }

    /// How a record's payload is stored on disk.
    enum Codec: UInt8, Sendable, CustomStringConvertible {
        /// The payload bytes as given.
        case raw = 0
        /// One LZ4 block; `rawLen` is its exact decoded size.
        case lz4 = 1
        /// Reserved: LZ4 with a per-segment dictionary. Never written by version 1.
        case lz4Dictionary = 2
        /// Chunk flag 0x10 with LZ4: a sequence of `[rawLen u32][compLen u32][bytes]`
        /// chunks of at most 1 MiB raw each; a chunk with `compLen == rawLen` is stored raw.
        case lz4Chunks = 0x11

        /// Whether version 1 can decode the codec.
        var isSupported: Bool { self != .lz4Dictionary }

        var description: String {
            switch self {
            case .raw: "raw"
            case .lz4: "lz4"
            case .lz4Dictionary: "lz4Dictionary"
            case .lz4Chunks: "lz4Chunks"
            }
        }
    }

    // MARK: File names

    /// Suffix of a file being written; such files are ignored and deleted on open.
    static let temporarySuffix = ".tmp"

    /// `log-<base:016x>.wal`: the segment whose first record has version `base + 1`.
    static func segmentFileName(baseVersion: UInt64) -> String {
        "log-\(hex16(baseVersion)).wal"
    }

    /// `snapshot-<V:016x>.snap`: the snapshot of the state at version `V`.
    static func snapshotFileName(version: UInt64) -> String {
        "snapshot-\(hex16(version)).snap"
    }

    /// The base version named by a segment file name, or `nil` if the name is not one.
    static func baseVersion(ofSegmentFileName name: String) -> UInt64? {
        parseHex(name, prefix: "log-", suffix: ".wal")
    }

    /// The version named by a snapshot file name, or `nil` if the name is not one.
    static func version(ofSnapshotFileName name: String) -> UInt64? {
        parseHex(name, prefix: "snapshot-", suffix: ".snap")
    }

    /// `log-<base:016x>.tail-<offset:x>.corrupt`: bytes cut from a torn tail, kept for inspection.
    static func quarantineFileName(baseVersion: UInt64, offset: Int64) -> String {
        "log-\(hex16(baseVersion)).tail-\(String(offset, radix: 16)).corrupt"
    }

    /// `LOCK`: the file a process holding the database locks (beside the
    /// lock on the directory itself, see ``DatabaseLock``).
    static let lockFileName = "LOCK"

    /// Whether `name` is a quarantine file name (``quarantineFileName(baseVersion:offset:)``).
    static func isQuarantineFileName(_ name: String) -> Bool {
        let segment = "log-".count + 16
        guard name.count > segment, name.hasSuffix(".corrupt") else { return false }
        let tail = name.dropFirst(segment)
        guard tail.hasPrefix(".tail-") else { return false }
        let offset = tail.dropFirst(".tail-".count).dropLast(".corrupt".count)
        return baseVersion(ofSegmentFileName: String(name.prefix(segment)) + ".wal") != nil
            && !offset.isEmpty && offset.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    /// Whether `name` is a file Shoal writes while making a segment or a
    /// snapshot: one of their names followed by ``temporarySuffix``.
    static func isTemporaryFileName(_ name: String) -> Bool {
        guard name.hasSuffix(temporarySuffix) else { return false }
        let final = String(name.dropLast(temporarySuffix.count))
        return baseVersion(ofSegmentFileName: final) != nil || version(ofSnapshotFileName: final) != nil
    }

    /// Whether `name` is one of the names Shoal writes in a database
    /// directory: a segment, a snapshot, `LOCK`, a temporary file or a kept
    /// torn tail. Nothing else in the directory is Shoal's.
    static func isShoalFileName(_ name: String) -> Bool {
        name == lockFileName || baseVersion(ofSegmentFileName: name) != nil || version(ofSnapshotFileName: name) != nil
            || isTemporaryFileName(name) || isQuarantineFileName(name)
    }

    /// Microseconds since the Unix epoch, for `createdAt` and record timestamps.
    static func nowMicros() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return UInt64(now.tv_sec) &* 1_000_000 &+ UInt64(now.tv_nsec / 1_000)
    }

    private static func hex16(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    private static func parseHex(_ name: String, prefix: String, suffix: String) -> UInt64? {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
        let digits = name.dropFirst(prefix.count).dropLast(suffix.count)
        guard digits.count == 16, digits.allSatisfy({ $0.isHexDigit && !$0.isUppercase }),
            let version = UInt64(digits, radix: 16), version <= maximumVersion
        else { return nil }
        return version
    }
}
