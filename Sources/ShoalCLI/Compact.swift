import ArgumentParser
import Shoal

struct Compact: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compact the database offline, as the library does: a snapshot replaces the log.",
        discussion: "Crash-safe: the old files stay until the new snapshot is on disk. Refuses a damaged database.")

    @OptionGroup var options: GlobalOptions

    func run() throws {
        Interrupt.install()
        try runReporting(json: options.json) {
            if Interrupt.requested { throw CancellationError() }
            let (before, after) = try LogRepairer.compact(at: options.path)
            if options.json {
                print(#"{"bytesAfter":\#(after),"bytesBefore":\#(before)}"#)
            } else {
                print("\(options.path): compacted from \(before) to \(after) bytes")
            }
            return .healthy
        }
    }
}
