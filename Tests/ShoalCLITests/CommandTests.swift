import Foundation
import Shoal
import ShoalTestSupport
import Testing

/// Every command but `check`, run as the built binary on copies of the fixtures.
@Suite struct CommandTests {
    // MARK: repair

    @Test("repair cuts a torn tail, keeps the original aside and says where")
    func repairTornTail() throws {
        let copy = try ShoalProcess.copy("torn-tail")
        let backup = copy.deletingLastPathComponent().appendingPathComponent("original.shoal")
        let output = try ShoalProcess.run(["repair", copy.path, "--backup", backup.path])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("original kept at \(backup.path)"))
        #expect(try ShoalProcess.contents(of: backup) == ShoalProcess.contents(of: ShoalProcess.fixture("torn-tail")))
        #expect(try ShoalProcess.run(["check", copy.path]).status == 0)
        let realm = try Realm(configuration: fileConfiguration(copy))
        #expect(realm.objects(Note.self).count == 5)
    }

    @Test("repair refuses damage before the tail without --truncate or --salvage, and changes nothing")
    func repairRefuses() throws {
        let copy = try ShoalProcess.copy("flipped-bit")
        let output = try ShoalProcess.run(["repair", copy.path])
        #expect(output.status == 2)
        #expect(output.stderr.contains("--truncate") && output.stderr.contains("--salvage"))
        #expect(output.stderr.contains("offset 728"))
        #expect(try ShoalProcess.contents(of: copy) == ShoalProcess.contents(of: ShoalProcess.fixture("flipped-bit")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: copy.deletingLastPathComponent().path) == ["flipped-bit.shoal"])
    }

    @Test("repair --truncate keeps the versions before the first bad record", arguments: ["--truncate", "--salvage"])
    func repairDamaged(flag: String) throws {
        let copy = try ShoalProcess.copy("flipped-bit")
        let output = try ShoalProcess.run(["repair", copy.path, flag, "--json"])
        #expect(output.status == 0, "\(output.stderr)")
        let report = try ShoalProcess.object(output.stdout)
        let lost = try #require(report["lostVersions"] as? [[String: Any]])
        #expect(lost.map { $0["version"] as? Int } == (2...9).map { $0 })
        #expect((lost.last?["objects"] as? [String]) == ["Note[14]"])
        #expect(try ShoalProcess.run(["check", copy.path]).status == 0)
        #expect(FileManager.default.fileExists(atPath: try #require(report["backupPath"] as? String)))
        _ = try Realm(configuration: fileConfiguration(copy))
    }

    @Test("repair of a healthy database changes nothing", arguments: ["valid", "schema-change", "migration"])
    func repairHealthy(scenario: String) throws {
        let copy = try ShoalProcess.copy(scenario)
        let output = try ShoalProcess.run(["repair", copy.path])
        #expect(output.status == 0)
        #expect(output.stdout.contains("nothing to repair"))
        #expect(try ShoalProcess.contents(of: copy) == ShoalProcess.contents(of: ShoalProcess.fixture(scenario)))
    }

    @Test("--truncate and --salvage together are a usage error")
    func repairUsage() throws {
        #expect(try ShoalProcess.run(["repair", "x", "--truncate", "--salvage"]).status == 64)
    }

    // MARK: dump, stats, export

    @Test("dump --class --object answers who changed an object, and when")
    func dumpObject() throws {
        let output = try ShoalProcess.run(["dump", ShoalProcess.fixture("valid").path, "--class", "Dog", "--object", "3"])
        #expect(output.status == 0)
        #expect(output.stdout.contains("insert Dog[3] {id: 3, name: \"dog 3\""))
        #expect(output.stdout.contains("set Dog[3].name = \"renamed\""))
        #expect(!output.stdout.contains("Dog[2]"))
        #expect(output.stdout.split(separator: "\n").filter { $0.hasPrefix("version ") }.count == 2)
    }

    @Test("dump --json prints one parseable line per record, within --from and --to")
    func dumpJSON() throws {
        let output = try ShoalProcess.run(["dump", ShoalProcess.fixture("valid").path, "--json", "--from", "4", "--to", "6"])
        let lines = output.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        let records = try lines.map(ShoalProcess.object)
        #expect(records.map { $0["version"] as? Int } == [4, 5, 6])
        let time = try #require(records[1]["time"] as? String)
        let byTime = try ShoalProcess.run(["dump", ShoalProcess.fixture("valid").path, "--json", "--from", time, "--to", time])
        #expect(try byTime.stdout.split(separator: "\n").map { try ShoalProcess.object(String($0))["version"] as? Int } == [5])
    }

    @Test("dump shows damage where it is met, and the records that still apply")
    func dumpDamaged() throws {
        let output = try ShoalProcess.run(["dump", ShoalProcess.fixture("flipped-bit").path])
        #expect(output.status == 2)
        #expect(output.stdout.contains("!! corruptRecord in log-0000000000000000.wal at offset 728, version 2"))
    }

    @Test("stats counts objects per class and says what compaction would save")
    func stats() throws {
        let output = try ShoalProcess.run(["stats", ShoalProcess.fixture("valid").path, "--json", "--largest", "2"])
        let report = try ShoalProcess.object(output.stdout)
        let classes = try #require(report["classes"] as? [[String: Any]])
        #expect(classes.first { $0["name"] as? String == "Note" }?["objects"] as? Int == 6)
        let bytes = try #require(report["bytes"] as? [String: Int])
        #expect(bytes["onDisk"] == 1742 && bytes["compactionSavings"]! > 0)
        #expect((report["largestTransactions"] as? [[String: Any]])?.first?["version"] as? Int == 2)
    }

    @Test("export prints a class as JSON or CSV, at the latest or a given version")
    func export() throws {
        let path = ShoalProcess.fixture("valid").path
        let json = try ShoalProcess.run(["export", path, "--class", "Note"])
        let notes = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(notes.map { $0["id"] as? Int } == [1, 10, 11, 12, 13, 14])
        let csv = try ShoalProcess.run(["export", path, "--class", "Dog", "--format", "csv", "--version", "2"])
        #expect(csv.stdout.split(separator: "\n").first == "id,name,age,breed,tags,scores,owner")
        #expect(csv.stdout.contains("3,dog 3,6,breed 0"))
        #expect(try ShoalProcess.run(["export", path, "--class", "Cat"]).status == 64)
    }

    // MARK: compact, replay

    @Test("compact replaces the log with a snapshot and keeps every object")
    func compact() throws {
        let copy = try ShoalProcess.copy("valid")
        let before = try ShoalProcess.run(["export", copy.path, "--class", "Dog"]).stdout
        let output = try ShoalProcess.run(["compact", copy.path])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: copy.path).contains("snapshot-0000000000000009.snap"))
        #expect(try ShoalProcess.run(["check", copy.path]).status == 0)
        #expect(try ShoalProcess.run(["export", copy.path, "--class", "Dog"]).stdout == before)
        #expect(try ShoalProcess.run(["compact", ShoalProcess.copy("flipped-bit").path]).status == 2)
    }

    @Test("replay writes the state as of a version or a time to a new database and leaves the original")
    func replay() throws {
        let original = try ShoalProcess.copy("valid")
        let parent = original.deletingLastPathComponent()
        let output = try ShoalProcess.run(["replay", original.path, "--to-version", "3", "--output", parent.appendingPathComponent("at3.shoal").path])
        #expect(output.status == 0, "\(output.stderr)")
        let at3 = try ShoalProcess.object(try ShoalProcess.run(["check", "--json", parent.appendingPathComponent("at3.shoal").path]).stdout)
        #expect((at3["versions"] as? [String: Int])?["last"] == 3)
        let dump = try ShoalProcess.run(["dump", original.path, "--json", "--from", "2", "--to", "2"]).stdout
        let time = try #require(try ShoalProcess.object(dump)["time"] as? String)
        let byTime = try ShoalProcess.run(["replay", original.path, "--to-time", time, "--output", parent.appendingPathComponent("at-time.shoal").path, "--json"])
        #expect(try ShoalProcess.object(byTime.stdout)["version"] as? Int == 2)
        #expect(try ShoalProcess.contents(of: original) == ShoalProcess.contents(of: ShoalProcess.fixture("valid")))
        #expect(try ShoalProcess.run(["replay", original.path, "--to-version", "3", "--output", parent.appendingPathComponent("at3.shoal").path]).status == 3)
        #expect(try ShoalProcess.run(["replay", original.path, "--to-version", "99", "--output", parent.appendingPathComponent("x.shoal").path]).status == 64)
        #expect(try ShoalProcess.run(["replay", original.path, "--output", "y"]).status == 64)
    }

    // MARK: bad input

    @Test("bad input gets a clear message naming the path, and exit code 3")
    func badInput() throws {
        let parent = try ShoalProcess.copy("valid").deletingLastPathComponent()
        let file = parent.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: file)
        let newer = try ShoalProcess.copy("valid")
        let segment = newer.appendingPathComponent("log-0000000000000000.wal")
        var bytes = try Data(contentsOf: segment)
        bytes[8] = 0xFF  // format version 255, newer than any build
        try bytes.write(to: segment)
        let cases: [(String, String)] = [
            (parent.appendingPathComponent("missing").path, "no such file or directory"),
            (parent.path, "is not a Shoal database"),
            (file.path, "is not a Shoal database"),
            (segment.path, "pass the database directory"),
            (newer.path, "newer"),
        ]
        for (path, message) in cases {
            for command in ["check", "dump", "stats", "repair"] {
                let output = try ShoalProcess.run([command, path])
                #expect(output.status == 3, "\(command) \(path)")
                #expect(output.stderr.contains(path) && output.stderr.contains(message), "\(output.stderr)")
                #expect(!output.stderr.contains("Stack") && output.stderr.split(separator: "\n").count == 1)
            }
        }
        #expect(try ShoalProcess.run(["check"]).status == 64)
    }

    @Test("a database open in a live process: read-only commands need --force, writing ones refuse")
    func locked() throws {
        let copy = try ShoalProcess.copy("valid")
        let realm = try Realm(configuration: fileConfiguration(copy))
        defer { withExtendedLifetime(realm) {} }
        let check = try ShoalProcess.run(["check", copy.path])
        #expect(check.status == 3)
        #expect(check.stderr.contains("open in a running process") && check.stderr.contains("--force"))
        #expect(try ShoalProcess.run(["check", copy.path, "--force"]).status == 0)
        let repair = try ShoalProcess.run(["repair", copy.path, "--salvage"])
        #expect(repair.status == 3 && !repair.stderr.contains("--force"))
        #expect(try ShoalProcess.run(["compact", copy.path]).status == 3)
    }

    @Test("--help lists every command")
    func help() throws {
        let output = try ShoalProcess.run(["--help"])
        for command in ["check", "repair", "dump", "stats", "compact", "replay", "export"] {
            #expect(output.stdout.contains("  \(command) "), "\(command)")
        }
    }
}
