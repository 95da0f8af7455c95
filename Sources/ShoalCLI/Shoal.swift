import ArgumentParser
import Shoal

/// The `shoal` recovery tool.
@main
struct ShoalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shoal",
        abstract: "Check, repair, dump and replay Shoal databases."
    )
}
