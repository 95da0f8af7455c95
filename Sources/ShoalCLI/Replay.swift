import ArgumentParser
import Shoal

struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a new database holding the state as of a version or time (point-in-time recovery).",
        discussion: "The original is not modified. Times are ISO 8601 (2024-05-01T12:00:00Z) or @<unix seconds>.")

    @OptionGroup var options: GlobalOptions

    @Option(help: "The version to stop after.")
    var toVersion: UInt64?

    @Option(help: "Stop before the first transaction committed after this time.", transform: parseTime)
    var toTime: UInt64?

    @Option(help: "The new database directory; it must not exist.")
    var output: String

    @Flag(help: "Read even while another process has the database open.")
    var force = false

    func validate() throws {
        guard (toVersion == nil) != (toTime == nil) else {
            throw ValidationError("Give exactly one of --to-version and --to-time.")
        }
    }

    func run() throws {
        Interrupt.install()
        try runReporting(allowsForce: true, json: options.json) {
            let target: PointInTime = toVersion.map { .version($0) } ?? .time(microsSinceEpoch: toTime!)
            let version = try LogRepairer.replay(
                at: options.path, to: target, output: output, ignoringLock: force, isCancelled: { Interrupt.requested })
            if options.json {
                print(#"{"output":"\#(output)","version":\#(version)}"#)
            } else {
                print("Wrote \(output) at version \(version); \(options.path) is unchanged.")
            }
            return .healthy
        }
    }
}
