import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// Compactions with nothing committed since the last one: an explicit second
/// `compact()`, and `shouldCompactOnLaunch` when the previous session's last
/// act was a compaction (a kill right after it, in the SIGKILL crash test).
extension DatabaseLogTests {
    @Test("compacting twice with no commit between succeeds, and the database opens to the same state")
    func compactTwice() throws {
        let url = temporaryDatabaseURL()
        let config = fileConfiguration(url)
        let expected: Snapshot
        do {
            let realm = try Realm(configuration: config)
            try realm.write { for i in 0..<5 { realm.create(Dog.self, value: ["id": i]) } }
            try realm.compact()
            try realm.compact()
            try realm.write { realm.create(Dog.self, value: ["id": 5]) }
            expected = realm.instance.coordinator.latest
        }
        let realm = try Realm(configuration: config)
        #expect(realm.instance.coordinator.latest.hasSameContents(as: expected))
    }

    @Test("a database whose last act was a compaction opens with shouldCompactOnLaunch")
    func compactOnLaunchAfterCompaction() throws {
        let url = temporaryDatabaseURL()
        var config = fileConfiguration(url)
        do {
            let realm = try Realm(configuration: config)
            try realm.write { for i in 0..<5 { realm.create(Dog.self, value: ["id": i]) } }
            try realm.compact()
        }
        config.shouldCompactOnLaunch = { _, _ in true }
        let realm = try Realm(configuration: config)
        #expect(realm.objects(Dog.self).count == 5)
    }
}

extension DatabaseLogTests {
    @Test("a compaction that failed after rolling the log (the snapshot's rename refused) succeeds when retried, and a third keeps the snapshot")
    func retryAfterFailedCompaction() throws {
        let io = FaultyFileIO()
        let schema = Schema([ObjectSchema(className: "A", properties: [Property(name: "n", type: .int)])])
        let opened = try DatabaseLog.open(directory: "/db", schema: schema, durability: .durable, io: io)
        var state = opened.snapshot
        for n in 0..<3 {
            state = try DatabaseLogCrashTests.commit(opened.log, state, n)
        }
        // The roll renames its new segment into place; the snapshot's rename is the next one.
        io.inject(.rename, onCall: io.callCount(.rename) + 2, errno: ENOSPC)
        #expect(throws: ShoalError.self) { try opened.log.compact(state) }
        #expect(io.contents(of: "/db/" + LogFormat.segmentFileName(baseVersion: state.version)) != nil)
        try opened.log.compact(state)
        #expect(try io.listDirectory(at: "/db").filter { $0.hasSuffix(".wal") } == [LogFormat.segmentFileName(baseVersion: state.version)])
        // Once more: the snapshot on disk is kept, never renamed over.
        let renames = io.callCount(.rename)
        try opened.log.compact(state)
        #expect(io.callCount(.rename) == renames)
        state = try DatabaseLogCrashTests.commit(opened.log, state, 3)
        opened.log.close()
        let reopened = try DatabaseLog.open(directory: "/db", schema: schema, durability: .durable, io: io)
        #expect(reopened.snapshot.hasSameContents(as: state))
        reopened.log.close()
    }

    @Test("a migration on an open with shouldCompactOnLaunch succeeds, and so does the next open")
    func compactOnLaunchAfterMigration() throws {
        let url = temporaryDatabaseURL()
        do {
            let realm = try Realm(configuration: CrashScenario.configuration(url, schemaVersion: 0))
            try realm.write { realm.create(CrashItemA.self, value: ["id": 0, "stamp": 0, "note": CrashScenario.note(id: 0)]) }
        }
        var config = CrashScenario.configuration(url, schemaVersion: 1)
        config.shouldCompactOnLaunch = { _, _ in true }
        for _ in 0..<2 {
            let realm = try Realm(configuration: config)
            let item = try #require(realm.dynamicObjects("CrashItem").first)
            #expect(item["stamp"] as? Int == 1)
            #expect(item["text"] as? String == CrashScenario.note(id: 0))
        }
    }
}

extension DatabaseLogTests {
    @Test("`shoal compact` twice in a row, and on a copy written by writeCopy (a snapshot and no log), succeeds and keeps the data")
    func toolCompactionWithNothingNew() throws {
        let url = temporaryDatabaseURL()
        let copy = url.deletingLastPathComponent().appendingPathComponent("copy.realm")
        do {
            let realm = try Realm(configuration: fileConfiguration(url))
            try realm.write { for i in 0..<5 { realm.create(Dog.self, value: ["id": i]) } }
            try realm.writeCopy(toFile: copy)
        }
        for path in [url.path, url.path, copy.path, copy.path] {
            _ = try LogRepairer.compact(at: path)
        }
        for path in [url, copy] {
            #expect(try Realm(configuration: fileConfiguration(path)).objects(Dog.self).count == 5)
        }
    }
}
