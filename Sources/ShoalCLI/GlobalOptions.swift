import ArgumentParser
import Foundation
import Shoal

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Argument(help: "The database directory (<name>.shoal).")
    var path: String

    @Flag(help: "Print JSON, for scripts.")
    var json = false

    @Flag(name: .shortAndLong, help: "Show no progress bar.")
    var quiet = false

    /// A progress bar on standard error, or nothing when it is not a terminal or with --quiet.
    func progressBar(_ label: String) -> ProgressBar? {
        quiet ? nil : ProgressBar(label: label)
    }
}

/// Parses `42` as a version and an ISO 8601 time (`2024-05-01T12:00:00Z`,
/// fractional seconds allowed) or `@<unix seconds>` as a time.
func parsePointInTime(_ text: String) throws -> PointInTime {
    if let version = UInt64(text) { return .version(version) }
    guard let time = try? parseTime(text) else {
        throw ValidationError("'\(text)' is not a version number, an ISO 8601 time (2024-05-01T12:00:00Z) or @<unix seconds>")
    }
    return .time(microsSinceEpoch: time)
}

/// Parses an ISO 8601 time or `@<unix seconds>` into microseconds since the epoch.
func parseTime(_ text: String) throws -> UInt64 {
    if text.hasPrefix("@"), let seconds = Double(text.dropFirst()), seconds >= 0 {
        return UInt64((seconds * 1_000_000).rounded())
    }
    for style in [Date.ISO8601FormatStyle(includingFractionalSeconds: true), Date.ISO8601FormatStyle()] {
        if let date = try? style.parse(text), date.timeIntervalSince1970 >= 0 {
            return UInt64((date.timeIntervalSince1970 * 1_000_000).rounded())
        }
    }
    throw ValidationError("'\(text)' is not a time: give an ISO 8601 time (2024-05-01T12:00:00Z) or @<unix seconds>")
}
