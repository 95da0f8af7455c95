import Foundation
import Shoal
import ShoalTestSupport

/// The worker's `scenario` mode: opens the database under a ``CrashScenario``
/// (migrating it when the scenario's schema version is above the stored one),
/// then commits one item and the counter per transaction until killed, from
/// ``CrashScenario/writers`` threads, compacting explicitly or automatically
/// as the scenario says. Prints ``CrashScenario/openingLine`` before opening,
/// ``CrashScenario/migratingLine`` when the migration block has run (the
/// migration's write follows) and ``CrashScenario/openedLine`` once open, each
/// followed by the monotonic clock in nanoseconds, and the id of each item
/// after `write` returns.
enum ScenarioWorker {
    static func run(_ path: String, _ scenario: CrashScenario) throws -> Never {
        var config = CrashScenario.configuration(URL(fileURLWithPath: path), schemaVersion: scenario.schemaVersion,
            durable: scenario.durable)
        let migrate = config.migrationBlock
        config.migrationBlock = { migration, oldVersion in
            migrate?(migration, oldVersion)
            say("\(CrashScenario.migratingLine) \(monotonicNanos())")
        }
        if scenario.autoCompactBytes > 0 {
            config.compactionMinimumLogBytes = scenario.autoCompactBytes
            config.compactionLogGrowthFactor = 0
        }
        if scenario.compactOnLaunch { config.shouldCompactOnLaunch = { _, _ in true } }
        say("\(CrashScenario.openingLine) \(monotonicNanos())")
        let realm = try Realm(configuration: config)
        say("\(CrashScenario.openedLine) \(monotonicNanos())")
        if scenario.compactOnLaunch {
            // Again, with nothing committed since: the snapshot is kept.
            try realm.compact()
        }
        let shared = config
        for _ in 1..<max(scenario.writers, 1) {
            Thread.detachNewThread {
                do { try commitLoop(Realm(configuration: shared), scenario) } catch {
                    FileHandle.standardError.write(Data("\(error)\n".utf8))
                    exit(1)
                }
            }
        }
        try commitLoop(realm, scenario)
    }

    /// Commits one item and the counter per transaction, forever; the item's
    /// id is the count before it, read inside the transaction, so writers on
    /// several threads take turns.
    static func commitLoop(_ realm: Realm, _ scenario: CrashScenario) throws -> Never {
        let noteName = scenario.schemaVersion % 2 == 0 ? "note" : "text"
        var commits = 0
        while true {
            var id = 0
            try realm.write {
                id = realm.object(ofType: CrashCounter.self, forPrimaryKey: 0)?.count ?? 0
                var value: [String: Any] = ["id": id, "stamp": Int(scenario.schemaVersion), noteName: CrashScenario.note(id: id)]
                if scenario.schemaVersion % 2 == 1 { value["label"] = CrashScenario.label(schemaVersion: scenario.schemaVersion) }
                realm.dynamicCreate("CrashItem", value: value)
                let padding = scenario.bulkBytes > 0 ? CrashScenario.padding(count: id + 1, bytes: scenario.bulkBytes) : ""
                realm.create(CrashCounter.self, value: ["id": 0, "count": id + 1, "padding": padding], update: .modified)
            }
            say(String(id))
            commits += 1
            if scenario.compactEvery > 0, commits % scenario.compactEvery == 0 { try realm.compact() }
        }
    }

    /// CLOCK_MONOTONIC in nanoseconds, the same clock in the test process.
    static func monotonicNanos() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// Writes a line to standard output at once (no buffering to lose at the kill).
    static func say(_ line: String) {
        (line + "\n").withCString { _ = write(1, $0, strlen($0)) }
    }
}
