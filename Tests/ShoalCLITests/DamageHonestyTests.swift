import Foundation
import Testing

/// The tool never presents damaged data as fine, never accepts a filter that
/// cannot match, and speaks JSON when asked to.
@Suite struct DamageHonestyTests {
    @Test("stats, export and dump on a damaged database warn on standard error and exit 2", arguments: [
        ["stats"], ["export", "--class", "Dog"], ["dump"], ["stats", "--json"], ["dump", "--json"],
    ])
    func readingCommandsWarn(command: [String]) throws {
        let path = ShoalProcess.fixture("flipped-bit").path
        let output = try ShoalProcess.run([command[0], path] + command.dropFirst())
        #expect(output.status == 2, "\(output.stderr)")
        #expect(output.stderr.contains("DAMAGED before the tail"))
        #expect(output.stderr.contains("corruptRecord in log-0000000000000000.wal at offset 728, version 2"))
        if command.contains("--json") {
            let warning = try ShoalProcess.object(output.stderr)["warning"] as? [String: Any]
            #expect(warning?["status"] as? Int == 2 && warning?["kind"] as? String == "corruptRecord")
        }
        let healthy = try ShoalProcess.run([command[0], ShoalProcess.fixture("valid").path] + command.dropFirst())
        #expect(healthy.status == 0 && healthy.stderr.isEmpty, "\(healthy.stderr)")
    }

    @Test("replay past a damaged record names the damage and writes nothing; before it, replay works")
    func replayPastDamage() throws {
        let parent = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("shoal-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        let output = parent.appendingPathComponent("out.shoal")
        let path = ShoalProcess.fixture("flipped-bit").path
        let past = try ShoalProcess.run(["replay", path, "--to-version", "5", "--output", output.path])
        #expect(past.status == 2)
        #expect(past.stderr.contains("can be read only through version 1") && past.stderr.contains("checksum mismatch"), "\(past.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
        let byTime = try ShoalProcess.run(["replay", path, "--to-time", "2100-01-01T00:00:00Z", "--output", output.path])
        #expect(byTime.status == 2 && byTime.stderr.contains("corruptRecord"), "\(byTime.stderr)")
        let before = try ShoalProcess.run(["replay", path, "--to-version", "1", "--output", output.path])
        #expect(before.status == 0, "\(before.stderr)")
    }

    @Test("filters that cannot match are errors: a key of the wrong type, an inverted range, a missing object, a class without a key")
    func impossibleFilters() throws {
        let path = ShoalProcess.fixture("valid").path
        let cases: [([String], String)] = [
            (["--class", "Dog", "--object", "abc"], "'abc' cannot be a primary key of 'Dog': its primary key 'id' is of type 'int'"),
            (["--from", "7", "--to", "3"], "starts at version 7, after it ends at version 3"),
            (["--class", "Dog", "--object", "999"], "no record that touches the object Dog[999]"),
            (["--class", "Puppy", "--object", "1"], "'Puppy' has no primary key"),
        ]
        for (arguments, message) in cases {
            let output = try ShoalProcess.run(["dump", path] + arguments)
            #expect(output.status == 64, "\(arguments)")
            #expect(output.stderr.contains(message), "\(output.stderr)")
            #expect(output.stdout.isEmpty || arguments.contains("999"))
        }
        #expect(try ShoalProcess.run(["dump", path, "--class", "Dog", "--object", "3"]).status == 0)
    }

    @Test("a zero-byte log is a torn tail, not damage before the tail; opening removes it")
    func zeroByteLog() throws {
        let parent = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("shoal-cli-\(UUID().uuidString)")
        let database = parent.appendingPathComponent("empty.shoal")
        try FileManager.default.createDirectory(at: database, withIntermediateDirectories: true)
        try Data().write(to: database.appendingPathComponent("log-0000000000000000.wal"))
        let check = try ShoalProcess.run(["check", database.path])
        #expect(check.status == 1, "\(check.stdout)")
        #expect(!check.stdout.contains("DAMAGED") && check.stdout.contains("torn tail"))
        let copy = try ShoalProcess.copy("valid")
        try Data().write(to: copy.appendingPathComponent("log-0000000000000009.wal"))
        #expect(try ShoalProcess.run(["check", copy.path]).status == 1)
        #expect(try ShoalProcess.run(["compact", copy.path]).status == 0)
        #expect(try ShoalProcess.run(["check", copy.path]).status == 0)
    }

    @Test("a file of random bytes is not a Shoal database: exit 3, no header fields, the magic zero-padded")
    func randomBytes() throws {
        let parent = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("shoal-cli-\(UUID().uuidString)")
        let database = parent.appendingPathComponent("noise.shoal")
        try FileManager.default.createDirectory(at: database, withIntermediateDirectories: true)
        var bytes = Data((0..<4096).map { _ in UInt8.random(in: 0...255) })
        bytes.replaceSubrange(0..<8, with: [0xF3, 0x0B, 0x31, 0x04, 0x70, 0x3D, 0x00, 0x3F])
        try bytes.write(to: database.appendingPathComponent("log-0000000000000000.wal"))
        for command in ["check", "stats", "dump"] {
            let output = try ShoalProcess.run([command, database.path])
            #expect(output.status == 3, "\(command)")
            #expect(output.stdout.isEmpty, "\(output.stdout)")
            #expect(output.stderr.contains("is not a Shoal database") && output.stderr.contains("magic is f3 0b 31 04 70 3d 00 3f"), "\(output.stderr)")
            #expect(!output.stderr.contains("format version") && !output.stderr.contains("fingerprint"))
        }
    }

    @Test("--to-time errors speak of times; usage and library errors are JSON with --json")
    func timesAndJSON() throws {
        let path = ShoalProcess.fixture("valid").path
        let time = try ShoalProcess.run(["replay", path, "--to-time", "5", "--output", "/tmp/never.shoal"])
        #expect(time.status == 64)
        #expect(time.stderr.contains("'5' is not a time") && !time.stderr.contains("version number"), "\(time.stderr)")
        let usage = try ShoalProcess.run(["replay", path, "--to-time", "5", "--output", "/tmp/never.shoal", "--json"])
        let usageError = try ShoalProcess.object(usage.stderr)["error"] as? [String: Any]
        #expect(usage.status == 64 && usageError?["status"] as? Int == 64)
        let missing = try ShoalProcess.run(["check", "/nonexistent/db.shoal", "--json"])
        let missingError = try ShoalProcess.object(missing.stderr)["error"] as? [String: Any]
        #expect(missing.status == 3)
        #expect(missingError?["codeName"] as? String == "fileAccess")
        #expect((missingError?["message"] as? String)?.contains("no such file or directory") == true)
    }

    @Test("shoal --version prints the version; counts of one are singular")
    func versionAndPlurals() throws {
        let version = try ShoalProcess.run(["--version"])
        #expect(version.status == 0 && version.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)
        let check = try ShoalProcess.run(["check", ShoalProcess.fixture("valid").path])
        #expect(check.stdout.contains("Kennel         1 object\n"))
        let stats = try ShoalProcess.run(["stats", ShoalProcess.copy("flipped-bit").path])
        #expect(stats.stdout.contains("1 record (0 transactions)"), "\(stats.stdout)")
        let dump = try ShoalProcess.run(["dump", ShoalProcess.fixture("valid").path, "--from", "2", "--to", "9"])
        #expect(!dump.stdout.contains(" 1 ops") && !dump.stdout.contains(" 1 bytes"))
    }
}
