import ArgumentParser
import Foundation
import Shoal

/// The `shoal` recovery tool: every command is a thin layer over the
/// library's recovery API (``LogInspector``, ``LogRepairer``), which works
/// from the log's own schema, so no application types are needed.
@main
struct ShoalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shoal",
        abstract: "Check, repair, dump and replay Shoal databases; port Realm Swift sources.",
        discussion: """
            PATH is a database directory (<name>.shoal) holding log-<version>.wal segments \
            and snapshot-<version>.snap files.

            Exit codes: 0 healthy, 1 torn tail only (what a crash leaves; opening repairs it), \
            2 damage before the tail, 3 not a Shoal database or unreadable, 64 usage error. \
            port-source exits with shoal-port-source's status (127 when that tool is not found).
            """,
        version: ShoalCommand.version,
        subcommands: [Check.self, Repair.self, Dump.self, Stats.self, Compact.self, Replay.self, Export.self, PortSource.self]
    )

    /// The tool's version, printed by `shoal --version`.
    static let version = "0.1.0"

    /// Runs the command; with `--json`, a usage error is printed as JSON too
    /// (`{"error":{"message":…,"status":64}}`), so a script reading JSON
    /// never meets plain text.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let status = exitCode(for: error)
            if CommandLine.arguments.contains("--json"), !status.isSuccess, !(error is ExitCode) {
                printJSONError(fullMessage(for: error), status: status.rawValue)
                Foundation.exit(status.rawValue)
            }
            exit(withError: error)
        }
    }
}
