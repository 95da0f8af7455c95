import Foundation
import ShoalTestSupport
import Testing

/// Realm's own example apps (realm-swift's `examples/ios/swift`), their models
/// and logic rewritten as command-line programs that change only the import
/// (Tests/RealmExamples), each run in a directory of its own for its default
/// Realm, printing what the app would show.
@Suite struct RealmExampleAppTests {
    @Test("Simple: a standalone object, a default Realm with no objectTypes, chained queries, another thread")
    func simple() throws {
        #expect(try Self.run("Simple") == [
            "Name of dog: Rex",
            "Number of dogs: 1",
            "Dogs older than eight: 1",
            "Number of dogs 1",
        ])
    }

    @Test("Backlink: objects created from nested arrays, owners through LinkingObjects")
    func backlink() throws {
        #expect(try Self.run("Backlink") == [
            #"Fido has 1 owners (["John"])"#,
            #"Rex has 1 owners (["Mary"])"#,
        ])
    }

    @Test("GettingStarted: unmanaged graphs, a filtered and sorted query, an update, deleteAll")
    func gettingStarted() throws {
        #expect(try Self.run("GettingStarted") == [
            "Person {Jennifer, 47, Marty}",
            "Person {Marty, 47, Jennifer}",
            "Jennifer",
            "47",
            "nil",
            "BMW",
            "1981",
            "Car {BMW, nil, 1981}",
            "0",
        ])
    }

    @Test("TableView: a sorted Results observed on the main run loop, writes from the main and a background thread")
    func tableView() throws {
        #expect(try Self.run("TableView") == [
            "reloadData: 0 rows",
            "tap +",
            "update: 0 deleted, 1 inserted, 0 modified; 1 rows",
            "tap BG Add",
            "update: 0 deleted, 5 inserted, 0 modified; 6 rows",
            "swipe to delete the first row",
            "update: 1 deleted, 0 inserted, 0 modified; 5 rows",
            "5 rows, sorted by date: true",
        ])
    }

    @Test("GroupedTableView: sectioned results observed on the main run loop, with an exhaustive switch")
    func groupedTableView() throws {
        #expect(try Self.run("GroupedTableView") == [
            "reloadData: 0 rows",
            "tap +",
            "update: 0 deleted, 1 inserted, 0 modified; 1 rows",
            "tap BG Add",
            "update: 0 deleted, 5 inserted, 0 modified; 6 rows",
            "swipe to delete the first row",
            "update: 1 deleted, 0 inserted, 0 modified; 5 rows",
            "5 rows in sections titled by their first letter: true",
        ])
    }

    @Test("Migration: each schema version's example data migrated to version 5 (lists of migration objects, a renamed class, Object to EmbeddedObject) and checked")
    func migration() throws {
        let migrated = "John Doe, 42, Broadway, New York, pets [Marley (kind 1), Lassie (kind 1)]; Jane Doe, 43, no address, pets [Toto (kind 1)]; John Smith, 44, no address, pets []; all pets [Lassie (kind 1), Marley (kind 1), Slinkey (kind 1), Toto (kind 1)]"
        #expect(try Self.run("Migration") == (0..<5).map { "v\($0) -> v5: \(migrated)" })
    }

    /// Runs the example program `RealmExample<name>` in a new directory and
    /// returns the lines it printed; records its standard error if it failed.
    private static func run(_ name: String) throws -> [String] {
        let directory = temporaryDatabaseURL().deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: directory) }
        let process = Process()
        process.executableURL = executable("RealmExample\(name)")
        process.currentDirectoryURL = directory
        // Files rather than pipes, so that a long backtrace cannot fill a pipe
        // nobody reads yet.
        let outputURL = directory.appendingPathComponent("stdout")
        let errorURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        try process.run()
        process.waitUntilExit()
        let printed = try Data(contentsOf: outputURL)
        if process.terminationStatus != 0 {
            let complaints = (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
            Issue.record("RealmExample\(name) exited with \(process.terminationStatus): \(complaints.prefix(4000))")
        }
        return String(decoding: printed, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// An executable built beside the test bundle.
    private static func executable(_ name: String) -> URL {
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent(name),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }
}
