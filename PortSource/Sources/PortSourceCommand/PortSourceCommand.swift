import ArgumentParser
import Foundation
import PortSourceKit

/// `shoal-port-source DIR`: the mechanical rewrites of a Realm Swift port,
/// shown as a diff and written with `--write`.
@main
struct PortSourceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shoal-port-source",
        abstract: "Rewrite Realm Swift sources for Shoal: imports and Objective-C-era model declarations.",
        discussion: """
            Reads every .swift file under PATH (skipping hidden directories such as .build), and prints \
            a unified diff of the rewrites: `import RealmSwift` to `import Shoal`; `import Combine` to \
            OpenCombine, OpenCombineDispatch and ShoalCombine; in Object subclasses, `@objc dynamic var`, \
            `List<T>()`, `LinkingObjects(fromType:property:)`, `RealmOptional<T>()` and `RealmProperty<T>()` \
            to `@Persisted` declarations, and `primaryKey()`, `indexedProperties()` and `ignoredProperties()` \
            to arguments of those declarations. Nothing is changed without --write. What needs a person is \
            printed on standard error as PATH:LINE: note: …, with the lines of the rewritten files.

            Exit status: 0 when there is nothing to change (or --write wrote it), 1 when changes are pending, \
            2 when PATH is missing or a file cannot be read or parsed (nothing is written then), 64 for a usage error.
            """,
        version: "0.1.0"
    )

    @Argument(help: "A directory of Swift sources, or one .swift file.")
    var path: String

    @Flag(help: "Write the rewritten files (the diff is printed too).")
    var write = false

    func run() throws {
        let files: [(path: String, text: String)]
        let ported: [PortedFile]
        do {
            files = try SourceFiles.read(under: path)
            ported = try SourcePorter.port(files)
        } catch {
            printError("shoal-port-source: error: \(error)")
            throw ExitCode(2)
        }
        let changed = ported.filter(\.changed)
        for file in changed {
            print(try UnifiedDiff.of(file), terminator: "")
        }
        for note in ported.flatMap(\.notes) { printError(note.description) }
        if write {
            for file in changed {
                do {
                    try Data(file.ported.utf8).write(to: URL(fileURLWithPath: file.path))
                } catch {
                    printError("shoal-port-source: error: \(file.path): cannot write (\(error.localizedDescription))")
                    throw ExitCode(2)
                }
            }
            printError("shoal-port-source: \(Self.count(changed.count)) rewritten, of \(files.count) read")
            return
        }
        if changed.isEmpty {
            printError("shoal-port-source: nothing to change in \(Self.count(files.count))")
            return
        }
        printError("shoal-port-source: \(Self.count(changed.count)) to change, of \(files.count) read; run again with --write to write them")
        throw ExitCode(1)
    }

    private static func count(_ files: Int) -> String { files == 1 ? "1 file" : "\(files) files" }
}

/// Writes a message and a newline to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// The Swift files to port.
enum SourceFiles {
    /// `path` itself when it is a file, or every `.swift` file under it,
    /// sorted, skipping hidden directories (`.build`, `.git`, `.swiftpm`).
    static func read(under path: String) throws(PortError) -> [(path: String, text: String)] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw PortError(path: path, message: "no such file or directory")
        }
        var paths: [String] = []
        if isDirectory.boolValue {
            guard let enumerator = FileManager.default.enumerator(atPath: path) else {
                throw PortError(path: path, message: "cannot list the directory")
            }
            while let relative = enumerator.nextObject() as? String {
                let name = (relative as NSString).lastPathComponent
                if name.hasPrefix(".") {
                    enumerator.skipDescendants()
                } else if name.hasSuffix(".swift") {
                    paths.append(path == "." || path == "./" ? relative : (path as NSString).appendingPathComponent(relative))
                }
            }
            paths.sort()
        } else {
            paths = [path]
        }
        var files: [(path: String, text: String)] = []
        for file in paths {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw PortError(path: file, message: "cannot read the file")
            }
            guard let text = String(validating: data, as: UTF8.self) else {
                throw PortError(path: file, message: "not UTF-8 text")
            }
            files.append((file, text))
        }
        return files
    }
}

/// A unified diff of a ported file, from the system's `diff -u`.
enum UnifiedDiff {
    static func of(_ file: PortedFile) throws -> String {
        guard let diff = executable(named: "diff") else {
            printError("shoal-port-source: error: no `diff` on PATH to show the changes (install diffutils)")
            throw ExitCode(2)
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shoal-port-source-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let old = directory.appendingPathComponent("old.swift")
        let new = directory.appendingPathComponent("new.swift")
        try Data(file.original.utf8).write(to: old)
        try Data(file.ported.utf8).write(to: new)
        let process = Process()
        process.executableURL = diff
        // git's a/ and b/ prefixes for relative paths, so `patch -p1` applies the diff where it was made.
        let relative = !file.path.hasPrefix("/")
        let labels = relative ? ("a/" + file.path, "b/" + file.path) : (file.path, file.path)
        process.arguments = ["-u", "--label", labels.0, "--label", labels.1, old.path, new.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        // diff exits 1 when the files differ, which they do here; 2 is trouble.
        guard process.terminationStatus == 1 else {
            printError("shoal-port-source: error: \(file.path): diff failed with status \(process.terminationStatus)")
            throw ExitCode(2)
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The first executable of that name on PATH.
    static func executable(named name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}
