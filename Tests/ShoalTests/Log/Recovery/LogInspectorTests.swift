import Foundation
import ShoalTestSupport
import Testing

@testable import Shoal

@Suite struct LogInspectorTests {
    @Test("check classifies every fixture as the tool's exit codes need", arguments: [
        ("valid", CheckReport.Status.healthy), ("torn-tail", .tornTail), ("zero-tail", .tornTail),
        ("flipped-bit", .damaged), ("missing-snapshot", .damaged), ("schema-change", .healthy), ("migration", .healthy),
    ])
    func checkFixtures(scenario: String, status: CheckReport.Status) throws {
        let report = try LogInspector(path: RecoveryFixture.fixtures.appendingPathComponent("\(scenario).shoal").path).check()
        #expect(report.status == status)
        #expect(report.database == "\(scenario).shoal")
    }

    @Test("check summarizes schema, classes, versions and bytes without model types")
    func summary() throws {
        let report = try LogInspector(path: RecoveryFixture.notes().path).check()
        #expect(report.status == .healthy)
        #expect(report.schema.classes.map(\.name) == ["Note"] && report.schema.classes[0].objects == 4)
        #expect(report.versions.first == 1 && report.versions.last == 6 && report.records == 6)
        #expect(report.bytes.onDisk == report.bytes.log && report.time != nil && report.firstProblem == nil)
    }

    @Test("a damaged record before the tail is reported with its offset, version, kind and the valid records after it")
    func damaged() throws {
        let url = try RecoveryFixture.notes()
        try RecoveryFixture.damage(version: 3, in: url)
        let report = try LogInspector(path: url.path).check()
        #expect(report.status == .damaged)
        #expect(report.firstProblem?.kind == .corruptRecord && report.firstProblem?.version == 3)
        #expect(report.validRecordsAfterFirstProblem == 3 && report.versions.last == 2)
    }

    @Test("the progress callback reaches the total")
    func progress() throws {
        var last: RecoveryProgress?
        let inspector = try LogInspector(path: RecoveryFixture.notes().path, progress: { last = $0 })
        #expect(last.map { $0.bytesDone == $0.bytesTotal } == true)
        _ = inspector.check(progress: { last = $0 })
        #expect(last?.records == 6)
    }

    @Test("dump filters by class, primary key and version, and names objects by primary key")
    func dump() throws {
        let inspector = try LogInspector(path: RecoveryFixture.notes().path)
        var lines: [String] = []
        try inspector.dump(DumpFilter(className: "Note", primaryKey: "4"), format: .text) { lines.append($0) }
        #expect(lines.contains("    insert Note[4] {id: 4, title: \"note 4\"}"))
        #expect(lines.contains("    set Note[4].title = \"four\""))
        #expect(lines.count(where: { $0.hasPrefix("version ") }) == 2)
        var json: [String] = []
        try inspector.dump(DumpFilter(from: .version(6), to: .version(6)), format: .json) { json.append($0) }
        #expect(json.count == 1 && json[0].contains(#""op":"set","class":"Note","key":1,"primaryKey":2,"property":"title","value":"two""#))
        #expect(throws: ShoalError.self) { try inspector.dump(DumpFilter(className: "Cat")) { _ in } }
    }

    @Test("export writes a class at the latest or a given version")
    func export() throws {
        let inspector = try LogInspector(path: RecoveryFixture.notes().path)
        var csv: [String] = []
        try inspector.export(className: "Note", at: .version(3), format: .csv) { csv.append($0) }
        #expect(csv == ["id,title,tags", "1,one,[]", "2,note 2,[]", "3,note 3,[]"])
        var json: [String] = []
        try inspector.export(className: "Note", format: .json) { json.append($0) }
        #expect(json.count == 6 && json[2] == #"{"id":2,"title":"two","tags":[]},"#)
    }

    @Test("stats measures log against live data and lists the largest transactions")
    func stats() throws {
        let stats = try LogInspector(path: RecoveryFixture.notes().path).stats(largest: 1)
        #expect(stats.version == 6 && stats.transactions == 5 && stats.records == 6)
        #expect(stats.largestTransactions.map(\.version) == [2])
        #expect(stats.bytes.liveData > 0 && stats.bytes.compactionSavings == stats.bytes.onDisk - stats.bytes.liveData)
    }

    @Test("a missing path, a plain directory and a plain file are refused with the right codes")
    func badPaths() throws {
        let dir = temporaryDatabaseURL("x").deletingLastPathComponent()
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("f")
        try Data("x".utf8).write(to: file)
        for (path, code) in [(dir.appendingPathComponent("none").path, ShoalError.fileAccess), (dir.path, .notAShoalFile), (file.path, .notAShoalFile)] {
            let error = #expect(throws: ShoalError.self) { _ = try LogInspector(path: path) }
            #expect(error?.code == code && error?.message.contains(path) == true)
        }
    }
}
