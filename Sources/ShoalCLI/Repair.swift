import ArgumentParser
import Shoal

struct Repair: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Repair a damaged database, keeping the original as a backup.",
        discussion: """
            Always keeps the original: the repaired database is written beside it and swapped in, \
            and the original is moved to --backup (by default PATH.backup-<UTC time>). \
            A torn tail is cut without options. For damage before the tail, choose --truncate \
            (keep every version before the first bad record) or --salvage (keep every record \
            that verifies and still applies, and list the versions lost and the objects they touched). \
            Interrupting leaves every file as it was.
            """)

    @OptionGroup var options: GlobalOptions

    @Flag(help: "Keep everything before the first bad record; drop the rest.")
    var truncate = false

    @Flag(help: "Keep every record that verifies and applies; drop the bad ones and those that depend on them.")
    var salvage = false

    @Option(help: "Where to keep the original database.")
    var backup: String?

    func validate() throws {
        if truncate && salvage { throw ValidationError("Choose one of --truncate and --salvage.") }
    }

    func run() throws {
        Interrupt.install()
        try runReporting(json: options.json) {
            let bar = options.progressBar("repairing")
            let report = try LogRepairer.repair(
                at: options.path, mode: salvage ? .salvage : truncate ? .truncate : .tailOnly, backupPath: backup,
                progress: bar?.update, isCancelled: { Interrupt.requested })
            bar?.finish()
            print(options.json ? report.json() : report.text)
            return .healthy
        }
    }
}
