/// One problem the recovery tool found in a database: what, where, and the
/// first version it affects.
///
/// ```swift
/// let report = try LogInspector(path: "app.shoal").check()
/// if let problem = report.firstProblem {
///     print("\(problem.kind) in \(problem.file) at offset \(problem.offset ?? 0), version \(problem.version)")
/// }
/// ```
public struct LogProblem: Codable, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem it is.
    public enum Kind: String, Codable, Sendable {
        /// The last segment ends in an incomplete record and no valid record follows:
        /// what a crash during an append leaves. Opening cuts it off by itself.
        case tornTail
        /// Only zero bytes follow the last record (preallocated or size-first space).
        /// Nothing is lost; opening cuts it off by itself.
        case zeroFilledTail
        /// Bytes that are not a valid record (bad length, checksum or payload), with a
        /// valid record after them, or at the end of a segment that is not the last.
        case corruptRecord
        /// A valid record with an unexpected version (a duplicate, for example).
        case nonMonotonicVersion
        /// A valid record of a type this Shoal does not know and may not skip.
        case requiresNewerShoal
        /// A record whose checksum verifies but whose payload does not decode
        /// against the schema in force.
        case undecodableRecord
        /// A record that decodes but does not apply to the state before it (it
        /// touches an object that does not exist, for example), usually because
        /// a record it depends on was lost.
        case inconsistentRecord
        /// Versions that no snapshot or segment holds (a deleted snapshot or segment).
        case missingVersions
        /// A segment whose file header does not verify; none of its records can be read.
        case corruptHeader
        /// A snapshot file that does not verify or decode.
        case corruptSnapshot
    }

    /// What kind of problem it is.
    public let kind: Kind
    /// The file's name inside the database directory.
    public let file: String
    /// Byte offset of the first bad byte in ``file``, when the problem is in a log segment.
    public let offset: Int64?
    /// The first version the problem affects (the version expected there).
    public let version: UInt64
    /// How many bytes the problem covers, when known.
    public let byteCount: Int64?
    /// Why, in words.
    public let reason: String

    /// Whether opening the database repairs this problem by itself (a torn or zero-filled tail).
    public var isTail: Bool { kind == .tornTail || kind == .zeroFilledTail }

    public var description: String {
        let at = offset.map { " at offset \($0)" } ?? ""
        return "\(kind.rawValue) in \(file)\(at), version \(version): \(reason)"
    }
}

/// A version that a repair, replay or dump could not keep, and why.
public struct LostVersion: Codable, Sendable, Equatable {
    /// The version.
    public let version: UInt64
    /// Why it was dropped.
    public let reason: String
    /// The objects its record touched, as `Class[primaryKey]` or `Class#key`;
    /// empty when the record itself is unreadable.
    public let objects: [String]
}
