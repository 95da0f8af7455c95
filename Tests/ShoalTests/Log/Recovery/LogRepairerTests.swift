import Foundation
import ShoalTestSupport
import Testing

@testable import Shoal

@Suite struct LogRepairerTests {
    @Test("salvage drops a damaged record and keeps the independent ones after it")
    func salvageIndependent() throws {
        let url = try RecoveryFixture.notes()
        try RecoveryFixture.damage(version: 3, in: url)
        let backup = url.path + ".original"
        let report = try LogRepairer.repair(at: url.path, mode: .salvage, backupPath: backup)
        #expect(report.repaired && report.backupPath == backup && report.lastVersion == 6)
        #expect(report.lostVersions.map(\.version) == [3])
        #expect(try RecoveryFixture.titles(url) == [1: "note 1", 2: "two", 3: "note 3", 4: "four"])
        #expect(try LogInspector(path: backup).check().status == .damaged)
    }

    @Test("salvage also drops the records that depended on a dropped one, naming the objects they touched")
    func salvageDependent() throws {
        let url = try RecoveryFixture.notes()
        try RecoveryFixture.damage(version: 4, in: url)
        let report = try LogRepairer.repair(at: url.path, mode: .salvage)
        #expect(report.lostVersions.map(\.version) == [4, 5])
        #expect(report.lostVersions[1].objects == ["Note#3"] && report.lostVersions[0].objects.isEmpty)
        #expect(try RecoveryFixture.titles(url) == [1: "one", 2: "two", 3: "note 3"])
        #expect(try LogInspector(path: url.path).check().versions.last == 6)
    }

    @Test("truncate keeps the versions before the first bad record; the default refuses and changes nothing")
    func truncate() throws {
        let url = try RecoveryFixture.notes()
        try RecoveryFixture.damage(version: 4, in: url)
        let before = try FileManager.default.contentsOfDirectory(atPath: url.path)
        let error = #expect(throws: ShoalError.self) { try LogRepairer.repair(at: url.path) }
        #expect(error?.code == .corruptRecord && error?.message.contains("--salvage") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.path) == before)
        let report = try LogRepairer.repair(at: url.path, mode: .truncate)
        #expect(report.lastVersion == 3 && report.lostVersions.map(\.version) == [4, 5, 6])
        #expect(report.lostVersions[2].objects == ["Note[2]"])
        #expect(try RecoveryFixture.titles(url) == [1: "one", 2: "note 2", 3: "note 3"])
    }

    @Test("a cancelled repair deletes its work and leaves every file as it was")
    func cancelled() throws {
        let url = try RecoveryFixture.copy("torn-tail")
        let parent = url.deletingLastPathComponent()
        let before = try FileManager.default.contentsOfDirectory(atPath: parent.path)
        var polls = 0
        #expect(throws: CancellationError.self) {
            try LogRepairer.repair(at: url.path, isCancelled: { polls += 1; return polls > 0 })
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.path) == ["log-0000000000000000.wal"])
    }

    @Test("the swap leaves the repaired database in place, the original at the backup, and no temporary directory")
    func swap() throws {
        let url = try RecoveryFixture.copy("zero-tail")
        let original = try Data(contentsOf: url.appendingPathComponent("log-0000000000000000.wal"))
        let report = try LogRepairer.repair(at: url.path)
        let backup = try #require(report.backupPath)
        #expect(try Data(contentsOf: URL(fileURLWithPath: backup).appendingPathComponent("log-0000000000000000.wal")) == original)
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path).sorted()
            == [url.lastPathComponent, URL(fileURLWithPath: backup).lastPathComponent].sorted())
        #expect(try LogInspector(path: url.path).check().status == .healthy)
    }

    @Test("replay writes a new database at a version or time and leaves the original untouched")
    func replay() throws {
        let url = try RecoveryFixture.notes()
        let output = url.deletingLastPathComponent().appendingPathComponent("at3.shoal")
        #expect(try LogRepairer.replay(at: url.path, to: .version(3), output: output.path) == 3)
        #expect(try RecoveryFixture.titles(output) == [1: "one", 2: "note 2", 3: "note 3"])
        #expect(throws: ShoalError.self) { try LogRepairer.replay(at: url.path, to: .version(3), output: output.path) }
        let early = url.deletingLastPathComponent().appendingPathComponent("early.shoal")
        #expect(try LogRepairer.replay(at: url.path, to: .time(microsSinceEpoch: 1), output: early.path) == 0)
        #expect(try LogInspector(path: url.path).check().versions.last == 6)
    }

    @Test("compact writes a snapshot and keeps every object")
    func compact() throws {
        let url = try RecoveryFixture.notes()
        let (before, after) = try LogRepairer.compact(at: url.path)
        #expect(before > 0 && after > 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.path).contains("snapshot-0000000000000006.snap"))
        #expect(try RecoveryFixture.titles(url) == [1: "one", 2: "two", 3: "note 3", 4: "four"])
    }
}
