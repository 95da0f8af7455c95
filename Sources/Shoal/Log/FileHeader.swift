/// The 64-byte header at the start of every log segment and snapshot file
/// (PERSISTENCE.md §8.2; layout in ``LogFormat/FileHeaderLayout``).
struct FileHeader: Equatable, Sendable {
    /// Which kind of file the header starts, told apart by the magic.
    enum Kind: Sendable, CustomStringConvertible {
        case log, snapshot

        var magic: [UInt8] { self == .log ? LogFormat.logMagic : LogFormat.snapshotMagic }
        var description: String { self == .log ? "log segment" : "snapshot" }
    }

    var kind: Kind
    var formatVersion: UInt16 = LogFormat.version
    var flags: UInt32 = LogFormat.defaultFlags
    /// Random value that seeds every checksum inside the file.
    var salt: UInt64
    /// For a log segment, the version before its first record; for a snapshot, its version.
    var baseVersion: UInt64
    /// XXH3-64 of the canonical schema encoding in force at `baseVersion`.
    var schemaFingerprint: UInt64
    /// Microseconds since the Unix epoch.
    var createdAtMicros: UInt64

    /// The 64 header bytes, checksum included.
    func encoded() -> [UInt8] {
        typealias L = LogFormat.FileHeaderLayout
        var bytes = kind.magic
        bytes.reserveCapacity(LogFormat.fileHeaderSize)
        bytes.appendLittleEndian(formatVersion)
        bytes.appendLittleEndian(UInt16(LogFormat.fileHeaderSize))
        bytes.appendLittleEndian(flags)
        bytes.appendLittleEndian(salt)
        bytes.appendLittleEndian(baseVersion)
        bytes.appendLittleEndian(schemaFingerprint)
        bytes.appendLittleEndian(createdAtMicros)
        bytes.appendLittleEndian(UInt64(0))
        assert(bytes.count == L.checksum)
        bytes.appendLittleEndian(Checksum.xxh3(bytes, seed: 0))
        return bytes
    }

    /// Decodes and verifies a header of the given kind from the first bytes of a file.
    ///
    /// The checks run in this order: length, magic, format version (a greater one
    /// is reported as unsupported, since a later format may lay the header out
    /// differently), header checksum, header size, flags, reserved bytes, base
    /// version (at most ``LogFormat/maximumVersion``).
    static func decode(_ bytes: [UInt8], expecting kind: Kind) throws(FileHeaderError) -> FileHeader {
        typealias L = LogFormat.FileHeaderLayout
        guard bytes.count >= LogFormat.fileHeaderSize else { throw .truncated(length: bytes.count) }
        let magic = Array(bytes[0..<8])
        guard magic == kind.magic else { throw .wrongMagic(found: magic, expected: kind) }
        let formatVersion = bytes.loadLittleEndian(UInt16.self, at: L.formatVersion)
        guard formatVersion <= LogFormat.version else { throw .unsupportedVersion(found: formatVersion) }
        guard formatVersion >= 1 else { throw .corrupt(field: "formatVersion") }
        let stored = bytes.loadLittleEndian(UInt64.self, at: L.checksum)
        guard Checksum.xxh3(bytes, range: 0..<L.checksum, seed: 0) == stored else { throw .corrupt(field: "checksum") }
        guard bytes.loadLittleEndian(UInt16.self, at: L.headerSize) == LogFormat.fileHeaderSize else {
            throw .corrupt(field: "headerSize")
        }
        let flags = bytes.loadLittleEndian(UInt32.self, at: L.flags)
        guard flags & 0xFF == LogFormat.checksumAlgorithmXXH3, flags & ~LogFormat.knownFlags == 0 else {
            throw .unsupportedFlags(flags)
        }
        guard bytes.loadLittleEndian(UInt64.self, at: L.reserved) == 0 else { throw .corrupt(field: "reserved") }
        let baseVersion = bytes.loadLittleEndian(UInt64.self, at: L.baseVersion)
        guard baseVersion <= LogFormat.maximumVersion else { throw .corrupt(field: "baseVersion") }
        return FileHeader(
            kind: kind, formatVersion: formatVersion, flags: flags,
            salt: bytes.loadLittleEndian(UInt64.self, at: L.salt),
            baseVersion: baseVersion,
            schemaFingerprint: bytes.loadLittleEndian(UInt64.self, at: L.schemaFingerprint),
            createdAtMicros: bytes.loadLittleEndian(UInt64.self, at: L.createdAt))
    }
}

/// Why a file header was rejected.
enum FileHeaderError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file is shorter than a header (for example, a crash while creating it).
    case truncated(length: Int)
    /// The file does not start with the expected magic.
    case wrongMagic(found: [UInt8], expected: FileHeader.Kind)
    /// The file was written by a newer format version.
    case unsupportedVersion(found: UInt16)
    /// A flag names a checksum algorithm or codec this build does not know.
    case unsupportedFlags(UInt32)
    /// A field is damaged; `field` is `checksum` when only the header checksum tells.
    case corrupt(field: String)

    var description: String {
        switch self {
        case .truncated(let length): "file header is truncated (\(length) of \(LogFormat.fileHeaderSize) bytes)"
        case .wrongMagic(let found, let expected):
            "not a Shoal \(expected): magic is \(found.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: " "))"
        case .unsupportedVersion(let found): "format version \(found) is newer than \(LogFormat.version)"
        case .unsupportedFlags(let flags): "unsupported header flags 0x\(String(flags, radix: 16))"
        case .corrupt(let field): "file header field \(field) is damaged"
        }
    }

    /// The public error for this problem in the file at `path`.
    func shoalError(path: String) -> ShoalError {
        var context = ["path": path]
        switch self {
        case .truncated(let length):
            context["field"] = "length"
            context["length"] = String(length)
            return ShoalError(.corruptHeader, "\(path): \(description)", context: context)
        case .wrongMagic:
            return ShoalError(.notAShoalFile, "\(path): \(description)", context: context)
        case .unsupportedVersion(let found):
            context["found"] = String(found)
            context["max"] = String(LogFormat.version)
            return ShoalError(
                .unsupportedFormat, "\(path): \(description); a newer Shoal is required", context: context)
        case .unsupportedFlags(let flags):
            context["flags"] = "0x" + String(flags, radix: 16)
            return ShoalError(
                .unsupportedFormat, "\(path): \(description); a newer Shoal is required", context: context)
        case .corrupt(let field):
            context["field"] = field
            return ShoalError(.corruptHeader, "\(path): \(description)", context: context)
        }
    }
}
