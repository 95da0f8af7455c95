import ArgumentParser
import Shoal

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Verify every record and summarize the database.",
        discussion: """
            Reads every record and verifies checksums, versions and decoding against the log's own schema. \
            Exits 0 when healthy, 1 for a torn tail only, 2 for damage before the tail, \
            3 when PATH is not a Shoal database or cannot be read.
            """)

    @OptionGroup var options: GlobalOptions

    @Flag(help: "Read even while another process has the database open.")
    var force = false

    func run() throws {
        try runReporting(allowsForce: true, json: options.json) {
            let bar = options.progressBar("checking")
            let inspector = try LogInspector(path: options.path, ignoringLock: force, progress: bar?.update)
            let report = inspector.check(progress: bar?.update)
            bar?.finish()
            print(options.json ? report.json() : report.text)
            return ExitStatus(report.status)
        }
    }
}
