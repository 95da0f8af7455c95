import ArgumentParser
import Foundation

/// `shoal port-source`: runs `shoal-port-source`, which the separate
/// `PortSource` package builds, so that this package (and every user of
/// Shoal) never builds swift-syntax.
struct PortSource: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "port-source",
        abstract: "Rewrite Realm Swift sources for Shoal (runs shoal-port-source).",
        discussion: """
            Passes its arguments to shoal-port-source, found beside shoal or on PATH, and exits with its status \
            (`shoal port-source DIR` prints a diff of the rewrites, `--write` writes them; `shoal port-source --help` \
            shows its options). shoal-port-source is built separately: \(PortSource.buildHint) \
            Exits 127 when it is not found.
            """)

    /// How to build the tool, from the repository's root.
    static let buildHint = """
        `swift build --package-path PortSource -c release` in Shoal's repository builds it \
        into PortSource/.build/release/shoal-port-source; put that beside shoal or on PATH.
        """

    @Argument(parsing: .captureForPassthrough, help: "The arguments of shoal-port-source (DIR, --write).")
    var arguments: [String] = []

    func run() throws {
        guard let tool = Self.locate() else {
            printError("shoal: error: shoal port-source needs the shoal-port-source tool, which is built on its own so that Shoal does not depend on swift-syntax, and was found neither beside shoal nor on PATH. \(Self.buildHint)")
            throw ExitCode(127)
        }
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        do {
            try process.run()
        } catch {
            printError("shoal: error: cannot run \(tool.path): \(error.localizedDescription)")
            throw ExitCode(126)
        }
        process.waitUntilExit()
        let status = process.terminationStatus
        guard process.terminationReason == .exit else { throw ExitCode(128 + status) }
        if status != 0 { throw ExitCode(status) }
    }

    /// `shoal-port-source` in the directory of the running `shoal` (symbolic
    /// links resolved), or else the first on PATH.
    static func locate() -> URL? {
        let name = "shoal-port-source"
        let running = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let executable = FileManager.default.isExecutableFile(atPath: running.path)
            ? running : URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let beside = executable.deletingLastPathComponent().appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}
