import ArgumentParser
import Shoal

struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print transactions, as text or JSON lines.",
        discussion: """
            --from and --to take a version number or a time (ISO 8601, or @<unix seconds>). \
            With --class and --object (a primary key), only the ops on those objects are printed: \
            who changed this object, and when.
            """)

    @OptionGroup var options: GlobalOptions

    @Option(help: "The first version or time to print.", transform: parsePointInTime)
    var from: PointInTime?

    @Option(help: "The last version or time to print.", transform: parsePointInTime)
    var to: PointInTime?

    @Option(name: .customLong("class"), help: "Only ops on objects of this class.")
    var className: String?

    @Option(help: "Only ops on the object with this primary key.")
    var object: String?

    @Flag(help: "Read even while another process has the database open.")
    var force = false

    func run() throws {
        try runReporting(allowsForce: true, json: options.json) {
            let inspector = try LogInspector(path: options.path, ignoringLock: force)
            let filter = DumpFilter(from: from, to: to, className: className, primaryKey: object)
            let status = warnAboutDamage(inspector, json: options.json)
            try inspector.dump(filter, format: options.json ? .json : .text) { print($0) }
            return status
        }
    }
}
