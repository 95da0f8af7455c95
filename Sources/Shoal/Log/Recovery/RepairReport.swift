import Foundation

/// What ``LogRepairer/repair(at:mode:backupPath:progress:isCancelled:)`` did.
///
/// ```swift
/// let report = try LogRepairer.repair(at: path, mode: .salvage)
/// if report.repaired { print("original kept at \(report.backupPath!)") }
/// for lost in report.lostVersions { print("lost \(lost.version): \(lost.objects)") }
/// ```
public struct RepairReport: Codable, Sendable, Equatable {
    /// The database directory's name.
    public let database: String
    /// The mode the repair ran in.
    public let mode: LogRepairer.Mode
    /// Whether anything was rewritten; `false` for a healthy database.
    public let repaired: Bool
    /// Where the original database now is.
    public let backupPath: String?
    /// The problems found (in salvage mode every one; otherwise the first).
    public let problems: [LogProblem]
    /// The version the repaired database is at.
    public let lastVersion: UInt64
    /// Versions that the repaired database does not hold, with the objects
    /// their records touched when the records are readable.
    public let lostVersions: [LostVersion]

    /// The report as pretty-printed JSON with sorted keys.
    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding plain value types cannot fail.
        return String(decoding: try! encoder.encode(self), as: UTF8.self)
    }

    /// The report as text for a terminal.
    public var text: String {
        guard repaired else { return "\(database): healthy, nothing to repair (version \(lastVersion))" }
        var lines = ["\(database): repaired (\(mode.rawValue)); the database is now at version \(lastVersion)"]
        if let backupPath { lines.append("  original kept at \(backupPath)") }
        for problem in problems { lines.append("  found: \(problem)") }
        if lostVersions.isEmpty {
            lines.append("  no committed version was lost")
        } else {
            lines.append("  lost \(lostVersions.count) version\(lostVersions.count == 1 ? "" : "s"): "
                + Self.ranges(lostVersions.map(\.version)))
            for lost in lostVersions {
                let objects = lost.objects.isEmpty ? "objects unknown (record unreadable)" : "touched " + lost.objects.joined(separator: ", ")
                lines.append("    version \(lost.version): \(lost.reason); \(objects)")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `3, 5-7, 9` for [3, 5, 6, 7, 9].
    static func ranges(_ versions: [UInt64]) -> String {
        var parts: [String] = []
        var i = 0
        while i < versions.count {
            var j = i
            while j + 1 < versions.count && versions[j + 1] == versions[j] + 1 { j += 1 }
            parts.append(i == j ? "\(versions[i])" : "\(versions[i])-\(versions[j])")
            i = j + 1
        }
        return parts.joined(separator: ", ")
    }
}
