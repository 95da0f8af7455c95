import ArgumentParser
import Shoal

/// The `shoal` recovery tool: every command is a thin layer over the
/// library's recovery API (``LogInspector``, ``LogRepairer``), which works
/// from the log's own schema, so no application types are needed.
@main
struct ShoalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shoal",
        abstract: "Check, repair, dump and replay Shoal databases.",
        discussion: """
            PATH is a database directory (<name>.shoal) holding log-<version>.wal segments \
            and snapshot-<version>.snap files.

            Exit codes: 0 healthy, 1 torn tail only (what a crash leaves; opening repairs it), \
            2 damage before the tail, 3 not a Shoal database or unreadable, 64 usage error.
            """,
        subcommands: [Check.self, Repair.self, Dump.self, Stats.self, Compact.self, Replay.self, Export.self]
    )
}
