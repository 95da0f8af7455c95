import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// The SIGKILL test over more of the write path: in rounds the seed picks, the
/// worker also compacts (`compact()`: a log roll and a snapshot), rolls its log
/// automatically (a tiny compaction threshold; segments roll only at a
/// compaction, so this is how they roll while committing), or opens at the
/// next schema version and is killed while the migration's snapshot is written.
extension CrashTests {
    /// What the worker said before it was killed.
    struct WorkerOutput {
        /// Items whose transaction `write` returned from.
        var acknowledged = 0
        /// CLOCK_MONOTONIC nanoseconds at which the migration block ended and the database was open.
        var migratingAt: UInt64?
        var openedAt: UInt64?
        /// Standard error, when the worker ended by itself (it never should).
        var failure: String?
    }

    /// Runs the worker in `scenario` mode and kills it `delayMicros` after its
    /// first acknowledgement, or, when `migrating`, after it says the migration
    /// block ran (the migration's write follows, then the open returns).
    static func runScenario(_ path: String, _ scenario: CrashScenario, migrating: Bool, delayMicros: UInt32) throws -> WorkerOutput {
        let process = Process()
        process.executableURL = workerURL
        process.arguments = [path, "scenario"] + scenario.arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        var received = ""
        var endedBySelf = false
        func lines() -> [Substring] { received.split(separator: "\n", omittingEmptySubsequences: false).dropLast() }
        func triggered() -> Bool {
            lines().contains { migrating ? $0.hasPrefix(CrashScenario.migratingLine) : Int($0) != nil }
        }
        while !triggered() {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty {
                endedBySelf = true
                break
            }
            received += String(decoding: chunk, as: UTF8.self)
        }
        if !endedBySelf { usleep(delayMicros) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        received += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        var result = WorkerOutput()
        if endedBySelf {
            result.failure = "exit \(process.terminationStatus): "
                + String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
        for line in lines() {
            let words = line.split(separator: " ")
            if Int(line) != nil {
                result.acknowledged += 1
            } else if words.first == Substring(CrashScenario.migratingLine), words.count == 2 {
                result.migratingAt = UInt64(words[1])
            } else if words.first == Substring(CrashScenario.openedLine), words.count == 2 {
                result.openedAt = UInt64(words[1])
            }
        }
        return result
    }

    /// The seed of ``scenarioKillLoop()``: `SHOAL_CRASH_SEED` (decimal or 0x-hex) if set.
    static var scenarioSeed: UInt64 {
        let text = ProcessInfo.processInfo.environment["SHOAL_CRASH_SEED"] ?? ""
        return text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) ?? 0x5EED_C4A5 : UInt64(text) ?? 0x5EED_C4A5
    }

    @Test("kills while compacting, rolling the log and migrating never lose an acknowledged transaction, and a migration is all or nothing")
    func scenarioKillLoop() throws {
        let seed = Self.scenarioSeed
        print("CrashTests.scenarioKillLoop: seed 0x\(String(seed, radix: 16)) (set SHOAL_CRASH_SEED to repeat)")
        var rng = SeededRandom(seed: seed)
        let url = temporaryDatabaseURL()
        var schemaVersion: UInt64 = 0
        var count = 300
        do {
            let realm = try Realm(configuration: CrashScenario.configuration(url, schemaVersion: 0))
            try realm.write {
                for id in 0..<count {
                    realm.create(CrashItemA.self, value: ["id": id, "stamp": 0, "note": CrashScenario.note(id: id)])
                }
                realm.create(CrashCounter.self, value: ["id": 0, "count": count])
            }
        }
        // The time from the end of the migration block to the end of the open
        // (the migration's write), as the worker measured it; killing within
        // 1.5 times it lands before, in and after the write.
        var snapshotBefore = try LogInspector(path: url.path).check().versions.snapshot
        var migrationWriteMicros = 5_000.0
        var tally = (migrations: 0, migrated: 0, notMigrated: 0, compactions: 0, leftovers: 0)
        for round in 0..<Self.scenarioRounds {
            let kind = rng.next() % 8
            let migrating = kind >= 5
            var scenario = CrashScenario(
                durable: rng.next() % 4 != 0, schemaVersion: schemaVersion + (migrating ? 1 : 0),
                compactEvery: kind <= 1 || kind == 4 || kind == 6 ? [1, 2, 3, 5][Int(rng.next() % 4)] : 0,
                autoCompactBytes: kind == 2 || kind == 3 || kind == 4 || kind == 7 ? [512, 2_048, 8_192][Int(rng.next() % 3)] : 0)
            if kind == 5 { scenario.compactEvery = 0 }
            let fraction = Double(rng.next() % 1_000) / 1_000
            let delay = migrating ? fraction * 1.5 * migrationWriteMicros : fraction * (scenario.durable ? 15_000 : 3_000)
            var label = "round \(round) of seed \(seed) (\(scenario.arguments.joined(separator: " ")))"
            let output = try Self.runScenario(url.path, scenario, migrating: migrating, delayMicros: UInt32(delay))
            if let failure = output.failure {
                Issue.record("\(label): the worker failed by itself: \(failure)")
                return
            }
            if let start = output.migratingAt, let end = output.openedAt, end > start {
                migrationWriteMicros = 0.5 * migrationWriteMicros + 0.5 * Double(end - start) / 1_000
            }

            // What the kill left, before anything repairs it: at most a torn tail.
            let report = try LogInspector(path: url.path).check()
            label += ", killed with \(report.files.map(\.name).filter { $0 != "LOCK" })"
            #expect(report.status != .damaged, "\(label): \(report.text)")
            if report.files.contains(where: { $0.kind == "temporary" }) || report.files.count(where: { $0.kind == "snapshot" }) > 1 {
                tally.leftovers += 1
            }
            if report.versions.snapshot != snapshotBefore { tally.compactions += 1 }
            let stored = report.schema.version
            if migrating {
                tally.migrations += 1
                if stored == scenario.schemaVersion { tally.migrated += 1 } else { tally.notMigrated += 1 }
                #expect(stored == schemaVersion || stored == scenario.schemaVersion, "\(label): stored schema version \(stored)")
            } else {
                #expect(stored == schemaVersion, "\(label): stored schema version \(stored)")
            }
            let before = count
            do {
                count = try Self.verifyScenarioDatabase(url, schemaVersion: stored, label: label)
            } catch {
                Issue.record("\(label): reopening failed: \(error)")
                return
            }
            schemaVersion = stored
            // Every acknowledged transaction is there, plus at most the one in flight.
            #expect(count >= before + output.acknowledged, "\(label): \(count) items after \(before) + \(output.acknowledged) acknowledged")
            #expect(count <= before + output.acknowledged + 1, "\(label): \(count) items after \(before) + \(output.acknowledged)")
            let after = try LogInspector(path: url.path).check()
            #expect(after.status == .healthy, "\(label), after reopening: \(after.text)")
            snapshotBefore = after.versions.snapshot
        }
        print("CrashTests.scenarioKillLoop: \(tally.migrations) migrations killed (\(tally.migrated) finished, \(tally.notMigrated) not), "
            + "\(tally.compactions) rounds compacted, \(tally.leftovers) killed mid-compaction, \(count) items, "
            + "migration write ~\(Int(migrationWriteMicros)) µs")
        // The kill window covers the migration's write: some kills land before
        // the new snapshot is in place, some after.
        #expect(tally.migrated > 0 && tally.notMigrated > 0, "seed \(seed): \(tally)")
        #expect(tally.compactions > 0)
    }

    static let scenarioRounds = 300

    /// Opens the database at its stored schema version and checks that it is
    /// one committed state: the counter equals the number of items, the ids
    /// are 0..<count, every item carries the stored schema version, its note
    /// under the property name of that version, and, at odd versions, its
    /// label. Returns the number of items.
    static func verifyScenarioDatabase(_ url: URL, schemaVersion: UInt64, label: String) throws -> Int {
        let realm = try Realm(configuration: CrashScenario.configuration(url, schemaVersion: schemaVersion))
        let items = realm.dynamicObjects("CrashItem")
        let count = items.count
        let counter = realm.object(ofType: CrashCounter.self, forPrimaryKey: 0)?.count
        #expect(counter == count, "\(label): counter \(counter ?? -1) for \(count) items")
        let noteName = schemaVersion % 2 == 0 ? "note" : "text"
        var ids = Set<Int>()
        var wrong: [String] = []
        for item in items {
            let id = item["id"] as? Int ?? -1
            ids.insert(id)
            if item["stamp"] as? Int != Int(schemaVersion) { wrong.append("\(id): stamp \(item["stamp"] ?? "nil")") }
            if item[noteName] as? String != CrashScenario.note(id: id) { wrong.append("\(id): \(noteName) \(item[noteName] ?? "nil")") }
            if schemaVersion % 2 == 1, item["label"] as? String != CrashScenario.label(schemaVersion: schemaVersion) {
                wrong.append("\(id): label \(item["label"] ?? "nil")")
            }
        }
        #expect(wrong.isEmpty, "\(label): at schema version \(schemaVersion), \(wrong.count) items are wrong: \(wrong.prefix(5))")
        #expect(ids == Set(0..<count), "\(label)")
        #expect(realm.instance.coordinator.latest.invariantViolation() == nil, "\(label)")
        return count
    }
}
