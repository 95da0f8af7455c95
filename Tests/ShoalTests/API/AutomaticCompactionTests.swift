import Dispatch
import Foundation
import Glibc
import Logging
import ShoalTestSupport
import Testing

@testable import Shoal

/// Automatic compaction through a Realm whose files live in a
/// ``FaultyFileIO``: it runs off the committing thread, and when the disk
/// refuses its snapshot (ENOSPC) it changes nothing, backs off until the log
/// has doubled, and says so (``Realm/lastCompactionError``, a logged warning).
@Suite struct AutomaticCompactionTests {
    /// A log handler that keeps the messages logged through it.
    struct CapturingLogHandler: LogHandler {
        let messages: Locked<[(Logger.Level, String)]>
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?
        var logLevel: Logger.Level = .trace

        func log(event: LogEvent) {
            messages.withLock { $0.append((event.level, event.message.description)) }
        }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
    }

    /// A coordinator opened on a ``FaultyFileIO`` (so that a `Realm` for
    /// ``config`` finds it while it is held), compacting automatically once
    /// the log passes 2 KiB and twice the snapshot.
    final class Fixture {
        let io: FaultyFileIO
        let config: Realm.Configuration
        let coordinator: RealmCoordinator
        let messages = Locked<[(Logger.Level, String)]>([])

        init(io: FaultyFileIO = FaultyFileIO(), url: URL = temporaryDatabaseURL()) throws {
            self.io = io
            var config = fileConfiguration(url, durability: .none)
            config.compactionMinimumLogBytes = 2048
            config.compactionLogGrowthFactor = 2
            self.config = config
            let messages = messages
            coordinator = try RealmCoordinator.coordinator(for: config, io: io,
                logger: Logger(label: "shoal") { _ in CapturingLogHandler(messages: messages) })
        }

        var log: DatabaseLog { coordinator.log! }
        var compactor: Compactor { coordinator.compactor! }
        var warnings: [String] { messages.withLock { $0.filter { $0.0 == .warning }.map(\.1) } }
        /// How many snapshots were begun (each compaction begins one).
        var snapshotAttempts: Int { io.callCount(.create, onPathsEndingWith: ".snap.tmp") }

        func names(endingWith suffix: String) throws -> [String] {
            try io.listDirectory(at: log.directory).filter { $0.hasSuffix(suffix) }.sorted()
        }

        /// Commits dog `id`, whose name does not compress away.
        func commit(_ realm: Realm, _ id: Int) throws {
            try realm.write { realm.create(Dog.self, value: ["id": id, "name": Self.name(id)]) }
        }

        static func name(_ id: Int) -> String { "dog \(id) \(UUID().uuidString) \(UUID().uuidString)" }
    }

    /// Commits (waiting for any compaction each starts) until a compaction
    /// has begun a snapshot; returns the next id.
    static func commitUntilAttempt(_ f: Fixture, _ realm: Realm, from id: Int) throws -> Int {
        let attempts = f.snapshotAttempts
        var id = id
        while f.snapshotAttempts == attempts && id < 1_000 {
            try f.commit(realm, id)
            id += 1
            f.compactor.waitUntilIdle()
        }
        try #require(f.snapshotAttempts == attempts + 1)
        return id
    }

    @Test("a failing automatic compaction (ENOSPC on its snapshot) adds no segment on the commits after it, and is not tried again until the log has doubled")
    func failureBacksOffAndAddsNoSegments() throws {
        let f = try Fixture()
        let realm = try Realm(configuration: f.config)
        f.io.inject(.write, onPathsEndingWith: ".snap.tmp", errno: ENOSPC)
        var id = try Self.commitUntilAttempt(f, realm, from: 0)
        let failedAt = f.log.sizes.logBytes
        let segments = try f.names(endingWith: ".wal")
        #expect(segments.count == 1)
        // Every commit until the log has doubled: no attempt, no segment.
        while f.log.sizes.logBytes < 2 * failedAt {
            try f.commit(realm, id)
            id += 1
            f.compactor.waitUntilIdle()
            if f.log.sizes.logBytes < 2 * failedAt {
                #expect(f.snapshotAttempts == 1, "tried again at \(f.log.sizes.logBytes) bytes of log, the first failed at \(failedAt)")
            }
            #expect(try f.names(endingWith: ".wal") == segments)
        }
        // Then one more attempt, which fails the same way, still adding nothing.
        #expect(f.snapshotAttempts == 2)
        #expect(try f.names(endingWith: ".wal") == segments)
        #expect(try f.names(endingWith: ".snap").isEmpty)
    }

    @Test("a failing automatic compaction is reported in lastCompactionError and a logged warning, until one succeeds")
    func failureIsReported() throws {
        let f = try Fixture()
        let realm = try Realm(configuration: f.config)
        #expect(realm.lastCompactionError == nil)
        f.io.inject(.write, onPathsEndingWith: ".snap.tmp", errno: ENOSPC)
        var id = try Self.commitUntilAttempt(f, realm, from: 0)
        let error = try #require(realm.lastCompactionError)
        #expect(error.code == .fileAccess && error.context["errno"] == String(ENOSPC), "\(error.detailedDescription())")
        #expect(error.message.hasPrefix("Automatic compaction of '\(f.log.directory)' failed"), "\(error.message)")
        #expect(error.context["path"] == f.log.directory)
        #expect(f.warnings == [error.message])
        // The disk has room again: the next attempt, once the log has
        // doubled, succeeds and clears the error.
        f.io.clearFaults()
        id = try Self.commitUntilAttempt(f, realm, from: id)
        #expect(realm.lastCompactionError == nil)
        #expect(try f.names(endingWith: ".snap").count == 1)
        #expect(try f.names(endingWith: ".wal").count == 1)
        #expect(f.warnings.count == 1)
        // An explicit compaction still throws its error, and is recorded too.
        f.io.inject(.write, onPathsEndingWith: ".snap.tmp", errno: ENOSPC)
        try f.commit(realm, id)
        let thrown = #expect(throws: ShoalError.self) { try realm.compact() }
        #expect(thrown?.context["errno"] == String(ENOSPC))
        #expect(realm.lastCompactionError?.message == thrown?.message)
        f.io.clearFaults()
        try realm.compact()
        #expect(realm.lastCompactionError == nil)
    }

    @Test("after automatic compactions that failed, every commit is there on reopen")
    func everyCommitSurvivesFailures() throws {
        let io = FaultyFileIO()
        let url = temporaryDatabaseURL()
        var names: [Int: String] = [:]
        do {
            let f = try Fixture(io: io, url: url)
            let realm = try Realm(configuration: f.config)
            io.inject(.write, onPathsEndingWith: ".snap.tmp", errno: ENOSPC)
            var id = 0
            for _ in 0..<2 { id = try Self.commitUntilAttempt(f, realm, from: id) }
            for _ in 0..<5 {
                try f.commit(realm, id)
                id += 1
            }
            for dog in realm.objects(Dog.self) { names[dog.id] = dog.name }
            #expect(names.count == id)
            #expect(try f.names(endingWith: ".wal").count == 1)
        }
        #expect(!RealmCoordinator.isOpen(fileConfiguration(url).storeIdentifier))
        let f = try Fixture(io: io, url: url)
        let realm = try Realm(configuration: f.config)
        var reopened: [Int: String] = [:]
        for dog in realm.objects(Dog.self) { reopened[dog.id] = dog.name }
        #expect(reopened == names)
    }

    /// Blocks the first `syncData` after ``arm()`` (under `.none` only a
    /// compaction syncs) until ``release()``, noting the thread it ran on.
    final class SyncGate: Sendable {
        let armed = Locked(false)
        let thread = Locked<pthread_t?>(nil)
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)

        init(_ io: FaultyFileIO) {
            io.onSync.withLock { hook in
                hook = { [self] in
                    guard armed.withLock({ (armed: inout Bool) -> Bool in defer { armed = false }; return armed }) else { return }
                    thread.withLock { $0 = pthread_self() }
                    entered.signal()
                    _ = gate.wait(timeout: .now() + 2)
                }
            }
        }

        func arm() { armed.withLock { $0 = true } }
        func release() { gate.signal() }
        var ranOnThisThread: Bool { thread.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false } }
    }

    /// Commits until a compaction has started and is held at the gate.
    static func startBlockedCompaction(_ f: Fixture, _ realm: Realm, _ gate: SyncGate) throws {
        gate.arm()
        var id = 0
        while id < 1_000 {
            try f.commit(realm, id)
            id += 1
            if gate.entered.wait(timeout: .now()) == .success { return }
            if f.log.needsCompaction(factor: 2, minimumBytes: 2048) {
                try #require(gate.entered.wait(timeout: .now() + 5) == .success)
                return
            }
        }
        Issue.record("no compaction started")
    }

    @Test("automatic compaction runs off the committing thread: the commit that starts it returns while it is held up")
    func runsOffTheCommittingThread() throws {
        let f = try Fixture()
        let realm = try Realm(configuration: f.config)
        let gate = SyncGate(f.io)
        try Self.startBlockedCompaction(f, realm, gate)
        #expect(!gate.ranOnThisThread)
        #expect(try f.names(endingWith: ".snap").isEmpty, "the compaction finished before the commit returned")
        gate.release()
        f.compactor.waitUntilIdle()
        #expect(try f.names(endingWith: ".snap").count == 1)
        #expect(try f.names(endingWith: ".wal").count == 1)
        #expect(realm.lastCompactionError == nil)
    }

    @Test("releasing the last Realm while an automatic compaction runs waits for it before closing the log")
    func closeWaitsForCompaction() throws {
        let io = FaultyFileIO()
        let url = temporaryDatabaseURL()
        var count = 0
        let gate: SyncGate
        do {
            let f = try Fixture(io: io, url: url)
            let realm = try Realm(configuration: f.config)
            gate = SyncGate(io)
            try Self.startBlockedCompaction(f, realm, gate)
            count = realm.objects(Dog.self).count
            #expect(!gate.ranOnThisThread)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(200)) { gate.release() }
        }
        // The coordinator went away only after the compaction ended, which
        // then found its log open: it rolled the log and dropped the old segment.
        #expect(!RealmCoordinator.isOpen(fileConfiguration(url).storeIdentifier))
        let f = try Fixture(io: io, url: url)
        let snapshots = try f.names(endingWith: ".snap")
        let version = try #require(snapshots.first.flatMap(LogFormat.version(ofSnapshotFileName:)))
        #expect(snapshots.count == 1)
        #expect(try f.names(endingWith: ".wal") == [LogFormat.segmentFileName(baseVersion: version)])
        let realm = try Realm(configuration: f.config)
        #expect(realm.objects(Dog.self).count == count)
    }

    @Test("closing gives up a compaction still waiting for the write lock (a write left open), rather than waiting for the write")
    func closeCancelsCompactionWaitingForTheLock() throws {
        let io = FaultyFileIO()
        let opened = try DatabaseLog.open(directory: "/db", schema: DatabaseLogTests.schemaA, durability: .none, io: io)
        var state = opened.snapshot
        for n in 0..<20 { state = try DatabaseLogCrashTests.commit(opened.log, state, n) }
        let writeLock = DispatchSemaphore(value: 1)
        let pending = state
        let compactor = Compactor(log: opened.log, writeLock: writeLock, growthFactor: 2, minimumLogBytes: 0,
            pendingSnapshot: { pending })
        writeLock.wait()
        compactor.commitDidFinish()
        let closed = DispatchSemaphore(value: 0)
        Thread {
            compactor.close()
            closed.signal()
        }.start()
        let gaveUp = closed.wait(timeout: .now() + 5) == .success
        #expect(gaveUp, "close waited for the write lock")
        writeLock.signal()
        if !gaveUp { closed.wait() }
        #expect(try io.listDirectory(at: "/db").count { $0.hasSuffix(".snap") } == 0)
        opened.log.close()
    }
}
