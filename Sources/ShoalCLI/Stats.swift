import ArgumentParser
import Shoal

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show objects per class, bytes on disk, and what compaction would save.")

    @OptionGroup var options: GlobalOptions

    @Option(help: "How many of the largest transactions to list.")
    var largest = 5

    @Flag(help: "Read even while another process has the database open.")
    var force = false

    func run() throws {
        try runReporting(allowsForce: true, json: options.json) {
            let bar = options.progressBar("reading")
            let inspector = try LogInspector(path: options.path, ignoringLock: force, progress: bar?.update)
            bar?.finish()
            let report = inspector.stats(largest: largest)
            let status = warnAboutDamage(inspector, json: options.json)
            print(options.json ? report.json() : report.text)
            return status
        }
    }
}
