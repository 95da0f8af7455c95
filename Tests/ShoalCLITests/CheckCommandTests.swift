import Foundation
import Testing

/// `shoal check` on every fixture of every format version: the exit code,
/// and the JSON compared with `Fixtures/v<N>/<scenario>.expected.json` (all
/// but the wall-clock `time`).
@Suite struct CheckCommandTests {
    /// Scenarios as `v<N>/<name>`, with `check`'s exit code.
    static let scenarios: [(String, Int32)] = ["v1", "v2", "v3", "v4", "v5"].flatMap { version in
        [("valid", Int32(0)), ("torn-tail", 1), ("zero-tail", 1), ("flipped-bit", 2), ("missing-snapshot", 2), ("schema-change", 0), ("migration", 0)]
            .map { ("\(version)/\($0.0)", $0.1) }
    } + [("v2/bulk", 0), ("v3/bulk", 0), ("v3/embedded", 0), ("v4/bulk", 0), ("v4/embedded", 0), ("v5/bulk", 0), ("v5/embedded", 0)]

    @Test("check --json prints the expected report and exits with the scenario's code", arguments: scenarios)
    func checkJSON(scenario: String, status: Int32) throws {
        let fixture = ShoalProcess.fixturesRoot.appendingPathComponent("\(scenario).shoal")
        let output = try ShoalProcess.run(["check", "--json", fixture.lastPathComponent], in: fixture.deletingLastPathComponent())
        #expect(output.status == status, "\(output.stderr)")
        var actual = try ShoalProcess.object(output.stdout)
        let expectedText = try String(contentsOf: ShoalProcess.fixturesRoot.appendingPathComponent("\(scenario).expected.json"), encoding: .utf8)
        var expected = try ShoalProcess.object(expectedText)
        actual["time"] = nil
        expected["time"] = nil
        #expect(NSDictionary(dictionary: actual) == NSDictionary(dictionary: expected))
        #expect(!output.stdout.contains("/"), "no absolute paths in the JSON")
    }

    @Test("check prints a text summary naming the first problem's offset, version and kind", arguments: scenarios)
    func checkText(scenario: String, status: Int32) throws {
        let output = try ShoalProcess.run(["check", ShoalProcess.fixturesRoot.appendingPathComponent("\(scenario).shoal").path])
        #expect(output.status == status)
        #expect(output.stdout.contains("\(scenario.split(separator: "/").last!).shoal: "))
        #expect(output.stdout.contains("format version   \(scenario.dropFirst().prefix { $0 != "/" })"))
        if status == 2 || status == 1 {
            #expect(output.stdout.contains("first problem"))
            #expect(output.stdout.contains("valid record"))
        }
        #expect(output.stderr.isEmpty, "no progress bar when standard error is not a terminal")
    }

    @Test("the flipped-bit report names the byte offset, version and kind, and the valid records after it")
    func flippedBitDetails() throws {
        let output = try ShoalProcess.run(["check", "--json", ShoalProcess.fixture("flipped-bit").path])
        let report = try ShoalProcess.object(output.stdout)
        let problem = try #require(report["firstProblem"] as? [String: Any])
        #expect(problem["kind"] as? String == "corruptRecord")
        #expect(problem["offset"] as? Int == 728)
        #expect(problem["version"] as? Int == 2)
        #expect(report["validRecordsAfterFirstProblem"] as? Int == 7)
    }
}
