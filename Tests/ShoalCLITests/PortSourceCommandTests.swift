import Foundation
import Testing

/// `shoal port-source`, which only runs the separately built `shoal-port-source`.
@Suite struct PortSourceCommandTests {
    /// A directory holding a stand-in `shoal-port-source` that prints its
    /// arguments and exits 1, as the real one does when changes are pending.
    static func standIn() throws -> URL {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("shoal-port-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let tool = directory.appendingPathComponent("shoal-port-source")
        try Data("#!/bin/sh\necho \"arguments: $*\"\necho 'to stderr' >&2\nexit 1\n".utf8).write(to: tool)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool.path)
        return directory
    }

    @Test("port-source passes every argument, --help included, to shoal-port-source on PATH and exits with its status")
    func forwards() throws {
        let directory = try Self.standIn()
        let environment = ["PATH": "\(directory.path):/usr/bin:/bin"]
        let output = try ShoalProcess.run(["port-source", "Sources", "--write"], environment: environment)
        #expect(output.status == 1)
        #expect(output.stdout == "arguments: Sources --write\n")
        #expect(output.stderr == "to stderr\n")
        let help = try ShoalProcess.run(["port-source", "--help"], environment: environment)
        #expect(help.stdout == "arguments: --help\n")
    }

    @Test("without shoal-port-source, port-source says how to build it and exits 127")
    func notFound() throws {
        let empty = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("shoal-port-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let output = try ShoalProcess.run(["port-source", "Sources"], environment: ["PATH": empty.path])
        #expect(output.status == 127)
        #expect(output.stderr.contains("found neither beside shoal nor on PATH"))
        #expect(output.stderr.contains("`swift build --package-path PortSource -c release`"))
        #expect(output.stderr.contains("PortSource/.build/release/shoal-port-source"))
    }
}
