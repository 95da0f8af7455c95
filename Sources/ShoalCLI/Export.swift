import ArgumentParser
import Shoal

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the objects of a class as JSON or CSV, at the latest or a given version.")

    @OptionGroup var options: GlobalOptions

    @Option(name: .customLong("class"), help: "The class to export.")
    var className: String

    @Option(help: "json or csv.", transform: { text in
        guard let format = ExportFormat(rawValue: text) else { throw ValidationError("--format must be json or csv") }
        return format
    })
    var format: ExportFormat = .json

    @Option(help: "The version to export (by default the last valid one).")
    var version: UInt64?

    @Flag(help: "Read even while another process has the database open.")
    var force = false

    func run() throws {
        try runReporting(allowsForce: true, json: options.json) {
            let inspector = try LogInspector(path: options.path, ignoringLock: force)
            let status = warnAboutDamage(inspector, json: options.json)
            try inspector.export(className: className, at: version.map { .version($0) }, format: format) { print($0) }
            return status
        }
    }
}
