import Foundation
import Glibc
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
    static let schemaA = Schema([ObjectSchema(className: "A", properties: [Property(name: "n", type: .int)])])

    /// A log in `/db` with `count` commits, and its state.
    static func logWithCommits(_ count: Int, io: FaultyFileIO) throws -> (DatabaseLog, Snapshot) {
        let opened = try DatabaseLog.open(directory: "/db", schema: schemaA, durability: .durable, io: io)
        var state = opened.snapshot
        for n in 0..<count { state = try DatabaseLogCrashTests.commit(opened.log, state, n) }
        return (opened.log, state)
    }

    /// Every file of `/db` with its bytes.
    static func files(_ io: FaultyFileIO) throws -> [String: [UInt8]] {
        Dictionary(uniqueKeysWithValues: try io.listDirectory(at: "/db").map { ($0, io.contents(of: "/db/" + $0) ?? []) })
    }

    @Test("a compaction whose snapshot the disk refuses (ENOSPC) leaves every file as it was: no new segment")
    func snapshotRefusedLeavesTheLog() throws {
        let io = FaultyFileIO()
        var (log, state) = try Self.logWithCommits(3, io: io)
        let before = try Self.files(io)
        io.inject(.write, onPathsEndingWith: ".snap.tmp", errno: ENOSPC)
        let error = #expect(throws: ShoalError.self) { try log.compact(state) }
        #expect(error?.code == .fileAccess && error?.context["errno"] == String(ENOSPC), "\(String(describing: error))")
        #expect(try Self.files(io) == before)
        // The log goes on in its segment, and everything reopens.
        state = try DatabaseLogCrashTests.commit(log, state, 3)
        #expect(try io.listDirectory(at: "/db").count { $0.hasSuffix(".wal") } == 1)
        log.close()
        let reopened = try DatabaseLog.open(directory: "/db", schema: Self.schemaA, durability: .durable, io: io)
        #expect(reopened.snapshot.hasSameContents(as: state))
        reopened.log.close()
    }

    @Test("a compaction whose snapshot's rename is refused leaves the log as it was, succeeds when retried, and a third keeps the snapshot")
    func retryAfterFailedCompaction() throws {
        let io = FaultyFileIO()
        var (log, state) = try Self.logWithCommits(3, io: io)
        let before = try Self.files(io)
        // The snapshot's rename comes first; the roll's, after it, is never reached.
        io.inject(.rename, onCall: io.callCount(.rename) + 1, errno: ENOSPC)
        #expect(throws: ShoalError.self) { try log.compact(state) }
        #expect(try Self.files(io) == before)
        try log.compact(state)
        #expect(try io.listDirectory(at: "/db").filter { $0.hasSuffix(".wal") } == [LogFormat.segmentFileName(baseVersion: state.version)])
        // Once more: the snapshot on disk is kept, never renamed over.
        let renames = io.callCount(.rename)
        try log.compact(state)
        #expect(io.callCount(.rename) == renames)
        state = try DatabaseLogCrashTests.commit(log, state, 3)
        log.close()
        let reopened = try DatabaseLog.open(directory: "/db", schema: Self.schemaA, durability: .durable, io: io)
        #expect(reopened.snapshot.hasSameContents(as: state))
        reopened.log.close()
    }

    @Test("a compaction whose roll fails after the snapshot is written keeps every commit: the log goes on in its segment, and the next compaction keeps that snapshot")
    func rollRefusedAfterSnapshot() throws {
        let io = FaultyFileIO()
        var (log, state) = try Self.logWithCommits(3, io: io)
        let compacted = state
        io.inject(.create, onPathsEndingWith: ".wal.tmp", errno: ENOSPC)
        #expect(throws: ShoalError.self) { try log.compact(state) }
        let names = try io.listDirectory(at: "/db")
        #expect(names.contains(LogFormat.snapshotFileName(version: state.version)))
        #expect(names.filter { $0.hasSuffix(".wal") } == [LogFormat.segmentFileName(baseVersion: 0)])
        for n in 3..<5 { state = try DatabaseLogCrashTests.commit(log, state, n) }
        log.close()
        // The snapshot, then the rest of the segment it falls in.
        var reopened = try DatabaseLog.open(directory: "/db", schema: Self.schemaA, durability: .durable, io: io)
        #expect(reopened.snapshot.hasSameContents(as: state))
        io.clearFaults()
        let renames = io.callCount(.rename)
        try reopened.log.compact(reopened.snapshot)
        #expect(io.callCount(.rename) == renames + 2, "a new snapshot and a new segment")
        #expect(try io.listDirectory(at: "/db").filter { $0.hasSuffix(".wal") || $0.hasSuffix(".snap") }.sorted()
            == [LogFormat.segmentFileName(baseVersion: state.version), LogFormat.snapshotFileName(version: state.version)])
        reopened.log.close()
        reopened = try DatabaseLog.open(directory: "/db", schema: Self.schemaA, durability: .durable, io: io)
        #expect(reopened.snapshot.hasSameContents(as: state) && !compacted.hasSameContents(as: state))
        reopened.log.close()
    }

    @Test("a roll whose directory sync fails leaves the new segment's name behind, so the log is poisoned: no commit goes where open would skip it")
    func rollLeavingItsNamePoisons() throws {
        let io = FaultyFileIO()
        let (log, state) = try Self.logWithCommits(3, io: io)
        // The snapshot's directory sync, then the roll's.
        io.inject(.syncDirectory, onCall: io.callCount(.syncDirectory) + 2, errno: EIO)
        #expect(throws: ShoalError.self) { try log.compact(state) }
        #expect(io.contents(of: "/db/" + LogFormat.segmentFileName(baseVersion: state.version)) != nil)
        let error = #expect(throws: ShoalError.self) { try DatabaseLogCrashTests.commit(log, state, 3) }
        #expect(error?.code == .logPoisoned, "\(String(describing: error))")
        log.close()
        let reopened = try DatabaseLog.open(directory: "/db", schema: Self.schemaA, durability: .durable, io: io)
        #expect(reopened.snapshot.hasSameContents(as: state))
        let next = try DatabaseLogCrashTests.commit(reopened.log, reopened.snapshot, 3)
        reopened.log.close()
        let again = try DatabaseLog.open(directory: "/db", schema: Self.schemaA, durability: .durable, io: io)
        #expect(again.snapshot.hasSameContents(as: next))
        again.log.close()
    }

    @Test("a compaction of more deleted slots than a snapshot may hold is refused and keeps the log, which still opens")
    func compactionOfTooManyDeletedSlots() throws {
        let io = FaultyFileIO()
        let schema = Schema([ObjectSchema(className: "A", properties: [Property(name: "n", type: .int)])])
        let opened = try DatabaseLog.open(directory: "/db", schema: schema, durability: .durable, io: io)
        var state = try DatabaseLogCrashTests.commit(opened.log, opened.snapshot, 0)
        let files = try io.listDirectory(at: "/db").sorted()
        // As if that many objects had been inserted and deleted before (the
        // slots are shared placeholders, so this is cheap).
        var crowded = state
        crowded.tables[0].appendSlots(SnapshotCodec.maximumDeletedSlots + 1, alive: false)
        for p in crowded.tables[0].scalars.indices { crowded.tables[0].scalars[p].appendNulls(SnapshotCodec.maximumDeletedSlots + 1) }
        let error = #expect(throws: ShoalError.self) { try opened.log.compact(crowded) }
        #expect(error?.code == .unsupported && error?.message.contains("deleted objects") == true, "\(String(describing: error))")
        #expect(try io.listDirectory(at: "/db").sorted() == files)
        // Every other writer of snapshots refuses it too (a migration, a
        // copy and a repair go through this), before writing anything.
        let encodeError = #expect(throws: ShoalError.self) { try SnapshotCodec.encodeLoadable(crowded, what: "Migration", path: "/db") }
        #expect(encodeError?.code == .unsupported && encodeError?.message.contains("nothing was written") == true)
        let repaired = NSTemporaryDirectory() + "shoal-crowded-\(UUID().uuidString)"
        #expect(throws: ShoalError.self) { try LogRepairer.writeDatabase(base: crowded, records: [], into: repaired, io: io) }
        #expect(!FileManager.default.fileExists(atPath: repaired))
        #expect(SnapshotCodec.unloadableProblem(state) == nil)
        // Within the bound, the same log compacts.
        try opened.log.compact(state)
        state = try DatabaseLogCrashTests.commit(opened.log, state, 1)
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

extension DatabaseLogTests {
    @Test("deleteRealmIfMigrationNeeded whose deletions fail part way refuses to open, and once the disk recovers, deletes the old data and keeps the new")
    func deleteStoredDataWithFailedUnlink() throws {
        let other = Schema([ObjectSchema(className: "B", properties: [Property(name: "n", type: .int)])])
        // The files: a snapshot and a segment after it, and a stale segment
        // left by a crash before the compaction could delete it.
        for failing in 1...3 {
            let io = FaultyFileIO()
            let opened = try DatabaseLog.open(directory: "/db", schema: DatabaseLogCrashTests.v0, durability: .durable, io: io)
            var state = opened.snapshot
            var states: [UInt64: Snapshot] = [:]
            var stale: [UInt8] = []
            for n in 0..<5 {
                state = try DatabaseLogCrashTests.commit(opened.log, state, n)
                states[state.version] = state
                if n == 2 {
                    stale = try #require(io.contents(of: "/db/" + LogFormat.segmentFileName(baseVersion: 0)))
                    try opened.log.compact(state)
                }
            }
            opened.log.close()
            io.setContents(of: "/db/" + LogFormat.segmentFileName(baseVersion: 0), stale)
            #expect(try io.listDirectory(at: "/db").count(where: { $0.hasSuffix(".wal") || $0.hasSuffix(".snap") }) == 3)

            io.inject(.unlink, onCall: io.callCount(.unlink) + failing, errno: EIO)
            let error = #expect(throws: ShoalError.self) {
                try DatabaseLog.open(directory: "/db", schema: other, durability: .durable, io: io, deleteIfSchemaDiffers: true)
            }
            #expect(error?.code == .fileAccess && error?.message.contains("deleteRealmIfMigrationNeeded") == true, "\(String(describing: error))")
            // What is left still opens, under the old schema, to a committed
            // state of the old data (the newest segment went first)…
            let left = try DatabaseLog.open(directory: "/db", schema: DatabaseLogCrashTests.v0, durability: .durable, io: io)
            #expect(states[left.snapshot.version].map { left.snapshot.hasSameContents(as: $0) } == true, "unlink \(failing)")
            left.log.close()
            // …and, the disk healthy again, the deletion completes and new data stays.
            io.clearFaults()
            let fresh = try DatabaseLog.open(directory: "/db", schema: other, durability: .durable, io: io, deleteIfSchemaDiffers: true)
            let table = try #require(fresh.snapshot.schema.tableByName["B"])
            var record = ChangeRecord(baseVersion: fresh.snapshot.version)
            record.ops = [.insert(table, ObjectKey(0), [.int(42)])]
            try fresh.log.waitUntilDurable(try fresh.log.enqueue(record, version: fresh.snapshot.version + 1, schemaFingerprint: fresh.snapshot.schema.fingerprint))
            fresh.log.close()
            let reopened = try DatabaseLog.open(directory: "/db", schema: other, durability: .durable, io: io)
            #expect(reopened.snapshot.value(table, ObjectKey(0), 0) == .int(42), "unlink \(failing)")
            reopened.log.close()
        }
    }
}
