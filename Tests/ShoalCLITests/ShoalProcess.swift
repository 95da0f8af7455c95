import Foundation
import Testing

/// Runs the built `shoal` executable and captures what it prints.
struct ShoalProcess {
    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// The repository's `Fixtures`, found from this file.
    static let fixturesRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")
    /// The fixtures of format version 1, which the command tests run on.
    static let fixtures = fixturesRoot.appendingPathComponent("v1")

    /// The built binary: beside the test runner (`Bundle.main`), or beside the test bundle.
    static let binary: URL = {
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("shoal"),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("shoal"),
        ] + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent().appendingPathComponent("shoal") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }()

    /// Runs `shoal arguments…` in `directory`, with `environment` in place
    /// of this process's when given, and waits for it.
    @discardableResult
    static func run(_ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil) throws -> Output {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if let environment { process.environment = environment }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read before waiting, so a large output cannot fill the pipe and block the child.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// A copy of a fixture in a new temporary directory.
    static func copy(_ scenario: String) throws -> URL {
        let parent = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("shoal-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        let copy = parent.appendingPathComponent("\(scenario).shoal")
        try FileManager.default.copyItem(at: fixture(scenario), to: copy)
        return copy
    }

    static func fixture(_ scenario: String) -> URL { fixtures.appendingPathComponent("\(scenario).shoal") }

    /// The bytes of every file in a directory, by name.
    static func contents(of directory: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            out[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return out
    }

    /// Parses JSON text into a dictionary.
    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }
}
