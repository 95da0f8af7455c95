import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// The SIGKILL test over more of the write path: in rounds the seed picks, the
/// worker also compacts (`compact()`: a snapshot and a log roll), rolls its log
/// automatically (a tiny compaction threshold; segments roll only at a
/// compaction, so this is how they roll while committing), opens at the next
/// schema version and is killed while the migration's snapshot is written, or
/// is killed while opening with `shouldCompactOnLaunch`; some rounds commit
/// from several threads (group commit) or write records of up to 1 MiB (which
/// a kill can tear). The seed fixes the rounds; where each kill lands depends
/// on the machine, within windows scaled by the worker's own timings.
extension CrashTests {
    /// The seed of ``scenarioKillLoop()``: `SHOAL_CRASH_SEED` (decimal or 0x-hex) if set.
    static var scenarioSeed: UInt64 {
        let text = ProcessInfo.processInfo.environment["SHOAL_CRASH_SEED"] ?? ""
        return text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) ?? 0x5EED_C4A5 : UInt64(text) ?? 0x5EED_C4A5
    }

    /// About 30 s on the 2-core CI machine.
    static let scenarioRounds = 300

    /// A round's scenario and kill trigger, drawn from `rng`, at the stored `schemaVersion`.
    static func drawScenario(_ rng: inout SeededRandom, schemaVersion: UInt64) -> (CrashScenario, KillTrigger) {
        let kind = rng.next() % 10
        let durable = rng.next() % 4 != 0
        let every = [1, 2, 3, 5][Int(rng.next() % 4)]
        let bytes: Int64 = [512, 2_048, 8_192][Int(rng.next() % 3)]
        // One round in four writes records long enough for the kill to tear.
        let bulk = rng.next() % 4 == 0 ? [65_536, 1 << 20][Int(rng.next() % 2)] : 0
        // One in three has several threads committing at once (group commit).
        let writers = rng.next() % 3 == 0 ? 2 + Int(rng.next() % 3) : 1
        var scenario = CrashScenario(
            durable: durable, schemaVersion: schemaVersion, compactEvery: 0, autoCompactBytes: 0, bulkBytes: bulk,
            writers: writers)
        switch kind {
        case 0, 1: scenario.compactEvery = every
        case 2, 3: scenario.autoCompactBytes = bytes
        case 4:
            scenario.compactEvery = every
            scenario.autoCompactBytes = bytes
        case 5, 6, 7:
            scenario.schemaVersion += 1
            if kind == 6 { scenario.compactEvery = every }
            if kind == 7 { scenario.autoCompactBytes = bytes }
            return (scenario, .migrating)
        case 8:
            scenario.compactOnLaunch = true
            return (scenario, .opening)
        default: break
        }
        return (scenario, .firstAcknowledgement)
    }

    @Test("kills while compacting, rolling the log, migrating and opening never lose an acknowledged transaction, and a migration is all or nothing")
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
        var snapshotBefore = try LogInspector(path: url.path).check().versions.snapshot
        // Killing within 1.5 times what the migration's write (from the end
        // of the migration block to the end of the open), or twice what an
        // open (any round's; with a compaction on launch it takes longer)
        // took lately, as the worker measured them, lands before, in and
        // after it, whatever the machine's load.
        var migrationWriteMicros = 5_000.0
        var openMicros = 20_000.0
        var tally = (migrations: 0, migrated: 0, notMigrated: 0, compactions: 0, temporaryFiles: 0, opens: 0, tornTails: 0)
        for round in 0..<Self.scenarioRounds {
            let (scenario, trigger) = Self.drawScenario(&rng, schemaVersion: schemaVersion)
            let fraction = Double(rng.next() % 1_000) / 1_000
            let window: Double =
                switch trigger {
                case .migrating: 1.5 * migrationWriteMicros
                case .opening: 2 * openMicros
                case .firstAcknowledgement: scenario.durable ? 15_000 : 3_000
                }
            var label = "round \(round) of seed 0x\(String(seed, radix: 16)) (\(scenario.arguments.joined(separator: " ")))"
            let output = try Self.runWorker(
                [url.path, "scenario"] + scenario.arguments, trigger: trigger, delayMicros: UInt32(fraction * window))
            if let failure = output.failure {
                Issue.record("\(label): the worker failed by itself: \(failure)")
                return
            }
            if let micros = output.micros(from: CrashScenario.migratingLine, to: CrashScenario.openedLine) {
                migrationWriteMicros = 0.5 * migrationWriteMicros + 0.5 * micros
            }
            if let micros = output.micros(from: CrashScenario.openingLine, to: CrashScenario.openedLine) {
                openMicros = 0.5 * openMicros + 0.5 * micros
            }

            // What the kill left, before anything repairs it: at most a torn tail.
            let report = try LogInspector(path: url.path).check()
            label += ", killed with \(report.files.map(\.name).filter { $0 != "LOCK" })"
            #expect(report.status != .damaged, "\(label): \(report.text)")
            if report.status == .tornTail { tally.tornTails += 1 }
            if report.files.contains(where: { $0.kind == "temporary" }) { tally.temporaryFiles += 1 }
            if report.versions.snapshot != snapshotBefore { tally.compactions += 1 }
            if trigger == .opening, output.marks[CrashScenario.openedLine] == nil { tally.opens += 1 }
            let stored = report.schema.version
            if trigger == .migrating {
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
            // Every acknowledged transaction is there, plus at most one in
            // flight per writer.
            let acknowledged = output.acknowledged.count
            #expect(output.acknowledged.allSatisfy { $0 >= before && $0 < count },
                "\(label): acknowledged \(output.acknowledged.filter { $0 < before || $0 >= count }) missing from \(count) items")
            #expect(count >= before + acknowledged, "\(label): \(count) items after \(before) + \(acknowledged) acknowledged")
            #expect(count <= before + acknowledged + scenario.writers, "\(label): \(count) items after \(before) + \(acknowledged)")
            let after = try LogInspector(path: url.path).check()
            #expect(after.status == .healthy, "\(label), after reopening: \(after.text)")
            snapshotBefore = after.versions.snapshot
        }
        print("CrashTests.scenarioKillLoop: \(tally.migrations) migrations killed (\(tally.migrated) done, \(tally.notMigrated) not), "
            + "\(tally.opens) opens killed, \(tally.compactions) rounds compacted, \(tally.temporaryFiles) left a temporary file, "
            + "\(tally.tornTails) a torn tail, "
            + "\(count) items; a migration's write took ~\(Int(migrationWriteMicros)) µs, an open ~\(Int(openMicros)) µs")
        // The kill window covers the migration's write: some kills land before
        // the new snapshot is in place, some after.
        #expect(tally.migrated > 0 && tally.notMigrated > 0, "seed \(seed): \(tally)")
        #expect(tally.compactions > 0 && tally.opens > 0, "seed \(seed): \(tally)")
    }

    /// Opens the database at its stored schema version and checks that it is
    /// one committed state: the counter equals the number of items, the ids
    /// are 0..<count, every item carries the stored schema version, its note
    /// under the property name of that version, and, at odd versions, its
    /// label. Returns the number of items.
    static func verifyScenarioDatabase(_ url: URL, schemaVersion: UInt64, label: String) throws -> Int {
        let realm = try Realm(configuration: CrashScenario.configuration(url, schemaVersion: schemaVersion))
        let items = realm.dynamicObjects("CrashItem")
        let count = items.count
        let counter = realm.object(ofType: CrashCounter.self, forPrimaryKey: 0)
        #expect(counter?.count == count, "\(label): counter \(counter?.count ?? -1) for \(count) items")
        let padding = counter?.padding ?? ""
        #expect(padding.isEmpty || padding.hasPrefix("\(count):"), "\(label): padding \(padding.prefix(12)) for \(count) items")
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
