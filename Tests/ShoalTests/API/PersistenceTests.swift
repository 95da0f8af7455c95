import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

@Suite struct PersistenceTests {
    /// Opens a Realm, runs `body`, and releases every Realm for the file before returning.
    @discardableResult
    static func withRealm<R>(_ config: Realm.Configuration, _ body: (Realm) throws -> R) throws -> R {
        try autoreleasepoolIfAvailable { try body(try Realm(configuration: config)) }
    }

    static func autoreleasepoolIfAvailable<R>(_ body: () throws -> R) rethrows -> R { try body() }

    static func segments(_ url: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".wal") }.sorted()
    }

    @Test("reopening a file replays the log into exactly the state that was committed", arguments: [
        Realm.Durability.durable, .relaxed(maxDelay: .milliseconds(5)), .none,
    ])
    func reopen(durability: Realm.Durability) throws {
        let url = temporaryDatabaseURL()
        let config = fileConfiguration(url, durability: durability)
        var rng = SeededRandom(seed: 2026)
        let before: Snapshot = try Self.withRealm(config) { realm in
            for _ in 0..<60 {
                try realm.write { RandomWorkload.step(realm, &rng, operations: 6) }
            }
            try realm.write {
                realm.create(AllTypes.self, value: ["id": ObjectId.generate(), "decimal": Decimal128(stringLiteral: "2.5"), "ints": [3, 1], "doubles": ["x": 1.0]])
            }
            return realm.instance.coordinator.latest
        }
        #expect(!RealmCoordinator.isOpen(config.storeIdentifier))
        try Self.withRealm(config) { realm in
            let after = realm.instance.coordinator.latest
            #expect(after.hasSameContents(as: before))
            #expect(after.invariantViolation() == nil)
            #expect(realm.objects(AllTypes.self).last?.ints.map { $0 } == [3, 1])
        }
        try Realm.deleteFiles(for: config)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test("the database is a directory with a lock, a segment and, after compaction, a snapshot; compaction keeps every object")
    func compaction() throws {
        let url = temporaryDatabaseURL()
        let config = fileConfiguration(url)
        let before: Snapshot = try Self.withRealm(config) { realm in
            try realm.write { for i in 0..<200 { realm.create(Dog.self, value: ["id": i, "name": "d\(i)"]) } }
            try realm.write { for i in 0..<50 { realm.delete(realm.object(ofType: Dog.self, forPrimaryKey: i)!) } }
            #expect(try Self.segments(url).count == 1)
            try realm.compact()
            try realm.write { realm.create(Dog.self, value: ["id": 1000]) }
            return realm.instance.coordinator.latest
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
        #expect(files.contains("LOCK"))
        #expect(files.filter { $0.hasSuffix(".snap") }.count == 1)
        #expect(try Self.segments(url).count == 1)
        try Self.withRealm(config) { realm in
            #expect(realm.instance.coordinator.latest.hasSameContents(as: before))
            #expect(realm.objects(Dog.self).count == 151)
        }
    }

    @Test("shouldCompactOnLaunch is asked with the sizes on disk and compacts when it says so")
    func compactOnLaunch() throws {
        let url = temporaryDatabaseURL()
        var config = fileConfiguration(url)
        try Self.withRealm(config) { realm in try realm.write { for i in 0..<20 { realm.create(Dog.self, value: ["id": i]) } } }
        let asked = Locked<(Int, Int)?>(nil)
        config.shouldCompactOnLaunch = { total, used in
            asked.withLock { $0 = (total, used) }
            return true
        }
        try Self.withRealm(config) { realm in #expect(realm.objects(Dog.self).count == 20) }
        let sizes = try #require(asked.withLock { $0 })
        #expect(sizes.0 > 0 && sizes.1 == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.path).contains { $0.hasSuffix(".snap") })
    }

    @Test("the log compacts itself when it grows past the configured multiple of the live data")
    func automaticCompaction() throws {
        let url = temporaryDatabaseURL()
        var config = fileConfiguration(url, durability: .none)
        config.compactionMinimumLogBytes = 4096
        config.compactionLogGrowthFactor = 2
        try Self.withRealm(config) { realm in
            for i in 0..<300 { try realm.write { realm.create(Dog.self, value: ["id": i, "name": String(repeating: "x", count: 40)]) } }
            // Automatic compaction runs in the background; closing would drop one still queued.
            realm.instance.coordinator.compactor?.waitUntilIdle()
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: url.path)
        #expect(files.contains { $0.hasSuffix(".snap") })
        try Self.withRealm(config) { realm in #expect(realm.objects(Dog.self).count == 300) }
    }

    @Test("a torn last record is cut off on open, kept beside the log, and its version is reused by the next commit")
    func tornTail() throws {
        let url = temporaryDatabaseURL()
        let config = fileConfiguration(url)
        try Self.withRealm(config) { realm in
            for i in 0..<5 { try realm.write { realm.create(Dog.self, value: ["id": i]) } }
        }
        let segment = url.appendingPathComponent(try Self.segments(url)[0])
        let data = try Data(contentsOf: segment)
        try data.prefix(data.count - 7).write(to: segment)
        try Self.withRealm(config) { realm in
            #expect(realm.objects(Dog.self).count == 4)
            let version = realm.instance.coordinator.latest.version
            try realm.write { realm.create(Dog.self, value: ["id": 99]) }
            #expect(realm.instance.coordinator.latest.version == version + 1)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.path).contains { $0.contains(".corrupt") })
        try Self.withRealm(config) { realm in #expect(realm.objects(Dog.self).map(\.id) == [0, 1, 2, 3, 99]) }
    }

    @Test("damage before the tail refuses to open, names the file, offset and version, and changes nothing")
    func midFileDamage() throws {
        let url = temporaryDatabaseURL()
        let config = fileConfiguration(url)
        try Self.withRealm(config) { realm in
            for i in 0..<5 { try realm.write { realm.create(Dog.self, value: ["id": i, "name": "dog number \(i)"]) } }
        }
        let segment = url.appendingPathComponent(try Self.segments(url)[0])
        var data = try Data(contentsOf: segment)
        let middle = data.count / 2
        data[middle] ^= 0x40
        try data.write(to: segment)
        let error = #expect(throws: ShoalError.self) { _ = try Realm(configuration: config) }
        #expect(error?.code == .corruptRecord)
        #expect(error?.context["path"]?.hasSuffix(segment.lastPathComponent) == true)
        #expect(error?.context["offset"] != nil)
        #expect(error?.context["version"] != nil)
        #expect(try Data(contentsOf: segment) == data)
    }

    @Test("opening a file whose stored schema differs fails listing the differences, or deletes it when asked")
    func schemaMismatch() throws {
        let url = temporaryDatabaseURL()
        try Self.withRealm(fileConfiguration(url, types: [Person.self, Dog.self])) { realm in
            try realm.write { realm.create(Person.self, value: ["id": 1]) }
        }
        var changed = fileConfiguration(url, types: [Person.self, Dog.self, Note.self])
        let error = #expect(throws: ShoalError.self) { _ = try Realm(configuration: changed) }
        #expect(error?.code == .schemaMismatch)
        #expect(error?.message.contains("Class 'Note' was added.") == true)
        changed.deleteRealmIfMigrationNeeded = true
        try Self.withRealm(changed) { realm in #expect(realm.objects(Person.self).isEmpty) }
        try Self.withRealm(fileConfiguration(url, types: [Dog.self, Person.self, Note.self])) { realm in
            try realm.write { realm.create(Note.self, value: ["id": 1]) }
        }
        try Self.withRealm(changed) { realm in #expect(realm.objects(Note.self).count == 1) }
    }

    @Test("deleteFiles refuses while the Realm is open")
    func deleteWhileOpen() throws {
        let config = fileConfiguration(temporaryDatabaseURL())
        let realm = try Realm(configuration: config)
        #expect(throws: ShoalError.self) { try Realm.deleteFiles(for: config) }
        _ = realm
    }

    @Test("four writer threads under the durable policy all land, sharing fsyncs")
    func groupCommit() throws {
        let url = temporaryDatabaseURL()
        let config = fileConfiguration(url)
        let holder = try Realm(configuration: config)
        let group = DispatchGroup()
        for t in 0..<4 {
            group.enter()
            Thread.detachNewThread {
                let realm = try! Realm(configuration: config)
                for i in 0..<50 { try! realm.write { realm.create(Dog.self, value: ["id": t * 1000 + i]) } }
                group.leave()
            }
        }
        group.wait()
        holder.refresh()
        #expect(holder.objects(Dog.self).count == 200)
    }

    @Test("a replay reports its progress")
    func replayProgress() throws {
        let url = temporaryDatabaseURL()
        var config = fileConfiguration(url, durability: .none)
        try Self.withRealm(config) { realm in for i in 0..<5000 { try realm.write { realm.create(Dog.self, value: ["id": i]) } } }
        let reports = Locked<[Realm.ReplayProgress]>([])
        config.replayProgress = { p in reports.withLock { $0.append(p) } }
        try Self.withRealm(config) { realm in #expect(realm.objects(Dog.self).count == 5000) }
        let all = reports.withLock { $0 }
        #expect(all.count >= 2)
        #expect(all.last?.transactions == 5000)
        #expect(all.last.map { $0.bytesRead == $0.bytesTotal } == true)
    }
}
