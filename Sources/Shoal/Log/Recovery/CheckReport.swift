import Foundation

/// What ``LogInspector/check(progress:)`` found: a summary of the database
/// and its first problem, if any.
///
/// The JSON form (``json()``) is what `shoal check --json` prints. It holds no
/// absolute path (the database is named by its directory's last component)
/// and, apart from ``time``, nothing that changes when the same content is
/// written again.
///
/// ```swift
/// let report = try LogInspector(path: "app.shoal").check()
/// print(report.status, report.versions.last, report.schema.classes.map(\.name))
/// ```
public struct CheckReport: Codable, Sendable, Equatable {
    /// The verdict; `shoal check` exits with 0, 1 or 2 accordingly.
    public enum Status: String, Codable, Sendable {
        /// Every record verifies, decodes and applies.
        case healthy
        /// Only a torn or zero-filled tail: what a crash leaves, and what opening repairs by itself.
        case tornTail
        /// Damage before the tail: opening refuses; `shoal repair` with `--truncate` or `--salvage` recovers.
        case damaged
    }

    /// The schema in force at the last valid version.
    public struct SchemaSummary: Codable, Sendable, Equatable {
        /// The application's `schemaVersion`.
        public let version: UInt64
        /// The schema's XXH3 fingerprint, in hex.
        public let fingerprint: String
        /// The classes, in schema order.
        public let classes: [ClassSummary]
    }

    /// One class and its live objects at the last valid version.
    public struct ClassSummary: Codable, Sendable, Equatable {
        /// The class name.
        public let name: String
        /// Live objects of the class.
        public let objects: Int
        /// Stored properties.
        public let properties: Int
    }

    /// The versions the database holds.
    public struct Versions: Codable, Sendable, Equatable {
        /// The first version available: the snapshot's, or the first record's.
        public let first: UInt64
        /// The last version of the valid prefix: what opening recovers.
        public let last: UInt64
        /// The snapshot's version, if there is one.
        public let snapshot: UInt64?
        /// The highest version of any record that verifies, after damage too.
        public let highestValid: UInt64
    }

    /// Sizes, in bytes.
    public struct Bytes: Codable, Sendable, Equatable {
        /// Log segments and snapshots.
        public let onDisk: Int64
        /// Log segments.
        public let log: Int64
        /// Snapshot files.
        public let snapshot: Int64
        /// Payload bytes of the valid records as stored (compressed).
        public let recordsStored: Int64
        /// The same payloads decoded.
        public let recordsRaw: Int64
        /// `recordsRaw / recordsStored`, to two decimals.
        public let compressionRatio: Double
    }

    /// Commit times of the first and last valid records (UTC, ISO 8601).
    public struct TimeSpan: Codable, Sendable, Equatable {
        /// The first valid record's commit time.
        public let first: String
        /// The last valid record's commit time.
        public let last: String
        /// The seconds from the first to the last.
        public let seconds: Double
    }

    /// One file of the database directory.
    public struct FileSummary: Codable, Sendable, Equatable {
        /// The file's name in the database directory.
        public let name: String
        /// `log`, `snapshot`, `lock`, `quarantine`, `temporary` or `other`.
        public let kind: String
        /// The file's size.
        public let bytes: Int64
    }

    /// The database directory's name.
    public let database: String
    /// The verdict.
    public let status: Status
    /// The log format version of the segments (the highest, if they differ;
    /// this Shoal's when no segment header is readable).
    public let formatVersion: Int
    /// The schema at the last valid version.
    public let schema: SchemaSummary
    /// The versions the database holds.
    public let versions: Versions
    /// Valid records after the snapshot.
    public let records: Int
    /// Where the bytes are.
    public let bytes: Bytes
    /// `nil` when there are no records.
    public let time: TimeSpan?
    /// Every file of the database directory.
    public let files: [FileSummary]
    /// The first problem, in version order.
    public let firstProblem: LogProblem?
    /// How many records that verify follow the first problem.
    public let validRecordsAfterFirstProblem: Int?
    /// Damaged byte ranges (and unreadable segment headers) in all segments.
    public let damagedRegions: Int

    /// The report as pretty-printed JSON with sorted keys.
    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding plain value types cannot fail.
        return String(decoding: try! encoder.encode(self), as: UTF8.self)
    }

    /// The report as text for a terminal.
    public var text: String {
        var lines: [String] = []
        let verdict =
            switch status {
            case .healthy: "healthy"
            case .tornTail: "torn tail (what a crash leaves; opening the database cuts it off)"
            case .damaged: "DAMAGED before the tail (opening refuses; see `shoal repair --help`)"
            }
        lines.append("\(database): \(verdict)")
        lines.append("  format version   \(formatVersion)")
        lines.append("  schema           version \(schema.version), fingerprint \(schema.fingerprint)")
        for c in schema.classes {
            lines.append("    \(c.name.padding(toLength: max(14, c.name.count), withPad: " ", startingAt: 0)) \(RecoveryRendering.count(c.objects, "object"))")
        }
        var versionLine = "  versions         \(versions.first) through \(versions.last)"
        if let snapshot = versions.snapshot { versionLine += " (snapshot at \(snapshot))" }
        lines.append(versionLine + ", \(RecoveryRendering.count(records, "record"))")
        lines.append(
            "  bytes            \(bytes.onDisk) on disk (log \(bytes.log), snapshot \(bytes.snapshot)), "
                + "compression \(bytes.compressionRatio)x")
        if let time {
            lines.append("  time span        \(time.first) to \(time.last) (\(time.seconds) s)")
        }
        if let problem = firstProblem {
            lines.append("  first problem    \(problem.kind.rawValue) in \(problem.file)"
                + (problem.offset.map { " at byte offset \($0)" } ?? "") + ", version \(problem.version)")
            lines.append("                   \(problem.reason)")
            lines.append("  followed by      \(RecoveryRendering.count(validRecordsAfterFirstProblem ?? 0, "valid record"))"
                + " (\(RecoveryRendering.count(damagedRegions, "damaged region")) in all)")
        }
        return lines.joined(separator: "\n")
    }
}
