import Foundation
import Testing

/// Runs the built `shoal-port-source` on temporary directories.
@Suite struct CommandTests {
    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// The built binary, beside the test bundle or runner.
    static let binary: URL = {
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("shoal-port-source"),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("shoal-port-source"),
        ] + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent().appendingPathComponent("shoal-port-source") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }()

    static func run(_ arguments: [String], in directory: URL) throws -> Output {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }

    static let model = """
        import RealmSwift

        class Dog: Object {
            @objc dynamic var name = ""
            @objc dynamic var age = 0
            @objc dynamic var nickname = ""
            @objc dynamic var total: Int { age * 7 }
        }

        """

    /// A project: a model in Sources/App, a file with nothing to port, and
    /// copies in .build and a hidden directory, which are not read.
    static func project() throws -> URL {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("port-source-\(UUID().uuidString)")
        for (path, text) in [
            "Sources/App/Dog.swift": model,
            "Sources/App/main.swift": "print(\"hello\")\n",
            ".build/checkouts/Dog.swift": model,
            "Sources/.hidden/Dog.swift": model,
        ] {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return root
    }

    static func read(_ root: URL, _ path: String) throws -> String {
        try String(decoding: Data(contentsOf: root.appendingPathComponent(path)), as: UTF8.self)
    }

    @Test("without --write: a unified diff, notes on standard error, status 1, nothing changed")
    func diff() throws {
        let root = try Self.project()
        let output = try Self.run(["."], in: root)
        #expect(output.status == 1, "\(output.stderr)")
        #expect(output.stdout == """
            --- a/Sources/App/Dog.swift
            +++ b/Sources/App/Dog.swift
            @@ -1,8 +1,8 @@
            -import RealmSwift
            +import Shoal
             
             class Dog: Object {
            -    @objc dynamic var name = ""
            -    @objc dynamic var age = 0
            -    @objc dynamic var nickname = ""
            +    @Persisted var name = ""
            +    @Persisted var age = 0
            +    @Persisted var nickname = ""
                 @objc dynamic var total: Int { age * 7 }
             }

            """)
        #expect(output.stderr.contains("Sources/App/Dog.swift:7: note: A computed or observed property"))
        #expect(output.stderr.contains("1 file to change, of 2 read; run again with --write"))
        #expect(try Self.read(root, "Sources/App/Dog.swift") == Self.model)
    }

    @Test("--write writes the files and exits 0; a second run finds nothing to change")
    func write() throws {
        let root = try Self.project()
        let written = try Self.run([root.path, "--write"], in: root)
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.stdout.contains("+    @Persisted var name = \"\""))
        #expect(try Self.read(root, "Sources/App/Dog.swift").contains("@Persisted var nickname = \"\""))
        #expect(try Self.read(root, ".build/checkouts/Dog.swift") == Self.model)
        #expect(try Self.read(root, "Sources/.hidden/Dog.swift") == Self.model)
        let again = try Self.run([root.path], in: root)
        #expect(again.status == 0)
        #expect(again.stdout.isEmpty)
        #expect(again.stderr.contains("nothing to change in 2 files"))
    }

    @Test("a missing directory or a file that does not parse is status 2 with the path, and nothing is written")
    func errors() throws {
        let root = try Self.project()
        let missing = try Self.run(["no-such-dir", "--write"], in: root)
        #expect(missing.status == 2)
        #expect(missing.stderr == "shoal-port-source: error: no-such-dir: no such file or directory\n")
        try Data("class Broken: Object {\n".utf8).write(to: root.appendingPathComponent("Sources/App/Broken.swift"))
        let broken = try Self.run(["Sources", "--write"], in: root)
        #expect(broken.status == 2)
        #expect(broken.stderr.hasPrefix("shoal-port-source: error: Sources/App/Broken.swift: cannot parse (line "))
        #expect(try Self.read(root, "Sources/App/Dog.swift") == Self.model)
    }

    @Test("--help documents the exit status")
    func help() throws {
        let output = try Self.run(["--help"], in: URL(fileURLWithPath: NSTemporaryDirectory()))
        #expect(output.status == 0)
        let text = output.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("Exit status: 0 when there is nothing to change (or --write wrote it), 1 when changes are pending"))
    }
}
