import Dispatch
import Glibc
import Testing

@testable import Shoal

/// Segment creation, durability policies, group commit, and the write-path
/// faults of PERSISTENCE.md §9 (cases 11, 11b, 12).
@Suite struct LogWriterTests {
    typealias F = LogFixture

    @Test("creating a segment writes a temporary file, syncs it, renames it and syncs the directory")
    func createProtocol() throws {
        let io = FaultyFileIO(captureSyncPoints: true)
        let writer = try F.writeLog([], io: io).writer
        let tmp = F.segmentPath + ".tmp"
        #expect(io.captures.map(\.label) == ["syncData \(tmp)", "rename \(tmp)", "syncDirectory /db"])
        #expect(io.allPaths == [F.segmentPath])
        #expect(writer.tail == 64 && writer.lastVersion == 0 && writer.header.salt == F.salt)
        // Before the directory sync, a crash may lose the rename: no segment under the final name.
        let beforeDirSync = try #require(io.captures.last).model
        #expect(
            FaultyFileIO.crashImage(of: beforeDirSync, fates: { _ in .persisted }).contents(of: F.segmentPath) == nil)
        let header = try FileHeader.decode(try #require(io.contents(of: F.segmentPath)), expecting: .log)
        #expect(header.baseVersion == 0 && header.schemaFingerprint == F.fingerprint)
    }

    @Test("creating a segment that exists fails and leaves it untouched")
    func createExisting() throws {
        let io = FaultyFileIO()
        try F.writeLog([F.record(1)], io: io).writer.close()
        let before = io.contents(of: F.segmentPath)
        let error = #expect(throws: ShoalError.self) { try F.writeLog([], io: io) }
        #expect(error?.code == .fileAccess)
        #expect(io.contents(of: F.segmentPath) == before)
    }

    @Test("a failed sync while creating a segment removes the temporary file and creates nothing")
    func createSyncFailure() throws {
        let io = FaultyFileIO()
        io.inject(.sync, onCall: 1)
        let error = #expect(throws: ShoalError.self) { try F.writeLog([], io: io) }
        #expect(error?.code == .logSyncFailed)
        #expect(io.allPaths.isEmpty)
    }

    @Test("durable appends sync once per append and report each version durable")
    func durableAppends() throws {
        let io = FaultyFileIO()
        let (writer, _) = try F.writeLog([], io: io)
        let syncs = io.callCount(.sync)
        for version in UInt64(1)...3 {
            try writer.append(F.record(version))
            #expect(writer.durableVersion == version)
        }
        #expect(io.callCount(.sync) == syncs + 3)
    }

    @Test("relaxed appends do not sync until sync() or the delay passes")
    func relaxedAppends() throws {
        let io = FaultyFileIO()
        let (writer, _) = try F.writeLog(
            (1...3).map { F.record($0) }, io: io, durability: .relaxed(maxDelay: .seconds(3600)))
        let syncs = io.callCount(.sync)
        #expect(writer.durableVersion == 0 && writer.lastVersion == 3)
        try writer.sync()
        #expect(writer.durableVersion == 3 && io.callCount(.sync) == syncs + 1)
        try writer.sync()  // nothing new: no second sync
        #expect(io.callCount(.sync) == syncs + 1)

        let eager = FaultyFileIO()
        let (due, _) = try F.writeLog((1...2).map { F.record($0) }, io: eager, durability: .relaxed(maxDelay: .zero))
        #expect(due.durableVersion == 2)
    }

    @Test("policy none never syncs records, even on close")
    func noneNeverSyncs() throws {
        let io = FaultyFileIO()
        let (writer, _) = try F.writeLog((1...3).map { F.record($0) }, io: io, durability: .none)
        let syncs = io.callCount(.sync)
        try writer.close()
        #expect(io.callCount(.sync) == syncs && writer.durableVersion == 0)
    }

    @Test("an append with a version other than the next one is refused and the writer stays usable")
    func wrongVersion() throws {
        let io = FaultyFileIO()
        let (writer, _) = try F.writeLog([F.record(1)], io: io)
        let error = #expect(throws: ShoalError.self) { try writer.append(F.record(3)) }
        #expect(error?.code == .nonMonotonicVersion)
        try writer.append(F.record(2))
        #expect(try F.replay(io: io).records.map(\.version) == [1, 2])
    }

    @Test("appending after close throws fileAccess")
    func appendAfterClose() throws {
        let io = FaultyFileIO()
        let (writer, _) = try F.writeLog([F.record(1)], io: io)
        try writer.close()
        let error = #expect(throws: ShoalError.self) { try writer.append(F.record(2)) }
        #expect(error?.code == .fileAccess)
    }

    @Test("concurrent committers waiting together share one fdatasync (group commit)")
    func groupCommitSharesSync() throws {
        let io = FaultyFileIO()
        let (writer, _) = try F.writeLog([], io: io)
        let syncsBefore = io.callCount(.sync)
        let leaderInSync = DispatchSemaphore(value: 0)
        let releaseLeader = DispatchSemaphore(value: 0)
        // Stall the first record sync until two more committers wait behind it.
        io.onSync.withLock {
            $0 = {
                if io.callCount(.sync) == syncsBefore {
                    leaderInSync.signal()
                    releaseLeader.wait()
                }
            }
        }
        defer { io.onSync.withLock { $0 = nil } }
        let failures = Locked(0)
        let group = DispatchGroup()
        func wait(_ receipt: LogWriter.Receipt) {
            // A serial queue of its own gets a thread at once; the global pool waits before adding threads.
            DispatchQueue(label: "committer \(receipt.version)").async(group: group) {
                do { try writer.waitUntilDurable(receipt) } catch { failures.withLock { $0 += 1 } }
            }
        }
        wait(try writer.enqueue(F.record(1)))
        leaderInSync.wait()
        wait(try writer.enqueue(F.record(2)))
        wait(try writer.enqueue(F.record(3)))
        while writer.state.withLock({ $0.followers.count }) < 2 { usleep(200) }
        releaseLeader.signal()
        group.wait()
        #expect(failures.withLock { $0 } == 0)
        #expect(writer.durableVersion == 3)
        // One sync for record 1 (already running), one shared by records 2 and 3.
        #expect(io.callCount(.sync) == syncsBefore + 2)
    }

    @Test("many threads committing durably all succeed in version order")
    func concurrentCommitters() throws {
        let io = FaultyFileIO()
        let (writer, _) = try F.writeLog([], io: io)
        let syncsBefore = io.callCount(.sync)
        let commitLock = Locked(UInt64(0))
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<25 {
                do {
                    // The database's write lock: assign the version and enqueue in order.
                    let receipt = try commitLock.withLock { last throws(ShoalError) in
                        last += 1
                        return try writer.enqueue(F.record(last))
                    }
                    try writer.waitUntilDurable(receipt)
                } catch { failures.withLock { $0 += 1 } }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(writer.durableVersion == 100)
        #expect(io.callCount(.sync) - syncsBefore <= 100)
        #expect(try F.replay(io: io).records.map(\.version) == Array(1...100))
    }

    @Test("ENOSPC on append cuts the file back to the tail and the next append succeeds", arguments: [0, 10])
    func noSpaceOnAppend(shortWriteBytes: Int) throws {
        let io = FaultyFileIO()
        let (writer, _) = try F.writeLog((1...2).map { F.record($0) }, io: io)
        let tail = writer.tail
        io.inject(.write, onCall: io.callCount(.write) + 1, errno: ENOSPC, shortWriteBytes: shortWriteBytes)
        let error = #expect(throws: ShoalError.self) { try writer.append(F.record(3)) }
        #expect(error?.code == .logWriteFailed)
        #expect(error?.context["reason"] == "noSpace" && error?.context["offset"] == String(tail))
        #expect(io.contents(of: F.segmentPath)?.count == Int(tail))
        #expect(!writer.isPoisoned && writer.lastVersion == 2 && writer.tail == tail)
        try writer.append(F.record(3))
        let (records, result) = try F.replay(io: io)
        #expect(records.map(\.version) == [1, 2, 3] && result.ending == .clean)
    }

    @Test("persistent ENOSPC fails every append until space returns")
    func persistentNoSpace() throws {
        let io = FaultyFileIO()
        let (writer, _) = try F.writeLog([F.record(1)], io: io)
        io.inject(.write, onCall: io.callCount(.write) + 1, errno: ENOSPC, persistent: true)
        for _ in 0..<3 {
            #expect(throws: ShoalError.self) { try writer.append(F.record(2)) }
        }
        io.clearFaults()
        try writer.append(F.record(2))
        #expect(try F.replay(io: io).records.map(\.version) == [1, 2])
    }

    @Test("ftruncate failure after ENOSPC poisons the writer; reopening treats the partial bytes as a torn tail")
    func truncateFailurePoisons() throws {
        let io = FaultyFileIO()
        let (writer, _) = try F.writeLog((1...2).map { F.record($0) }, io: io)
        let tail = writer.tail
        io.inject(.write, onCall: io.callCount(.write) + 1, errno: ENOSPC, shortWriteBytes: 10)
        io.inject(.truncate, onCall: 1)
        let error = #expect(throws: ShoalError.self) { try writer.append(F.record(3)) }
        #expect(error?.code == .logPoisoned)
        #expect(writer.isPoisoned)
        io.clearFaults()
        #expect((#expect(throws: ShoalError.self) { try writer.append(F.record(3)) })?.code == .logPoisoned)
        #expect((#expect(throws: ShoalError.self) { try writer.sync() })?.code == .logPoisoned)
        #expect(io.contents(of: F.segmentPath)?.count == Int(tail) + 10)
        let (records, result) = try F.replay(io: io)
        #expect(records.map(\.version) == [1, 2])
        guard case .tornTail(let damage) = result.ending else {
            Issue.record("\(result.ending)")
            return
        }
        #expect(damage.offset == tail && damage.byteCount == 10)
    }

    @Test("fdatasync failure poisons the writer and is never retried")
    func syncFailurePoisons() throws {
        let io = FaultyFileIO(captureSyncPoints: true)
        let (writer, _) = try F.writeLog((1...2).map { F.record($0) }, io: io)
        let syncs = io.callCount(.sync)
        io.inject(.sync, onCall: syncs + 1)  // transient: the next sync would succeed
        let error = #expect(throws: ShoalError.self) { try writer.append(F.record(3)) }
        #expect(error?.code == .logSyncFailed)
        #expect(writer.isPoisoned)
        #expect((#expect(throws: ShoalError.self) { try writer.append(F.record(4)) })?.code == .logPoisoned)
        // sync() covers record 3, whose sync failed: it reports that failure itself.
        #expect((#expect(throws: ShoalError.self) { try writer.sync() })?.code == .logSyncFailed)
        try writer.close()  // closes without another sync attempt
        #expect(io.callCount(.sync) == syncs + 1)
        // After reopening, record 3 may or may not be there; either way the log is a clean prefix.
        let withPageCache = try F.replay(io: io)
        #expect(withPageCache.records.map(\.version) == [1, 2, 3])
        let lost = FaultyFileIO.crashImage(of: try #require(io.captures.last).model, fates: { _ in .dropped })
        let afterPowerLoss = try F.replay(io: lost)
        #expect(afterPowerLoss.records.map(\.version) == [1, 2] && afterPowerLoss.result.ending == .clean)
    }

    @Test("waiters covered by a failed sync get logSyncFailed; later ones get logPoisoned")
    func syncFailureReachesFollowers() throws {
        let io = FaultyFileIO()
        let (writer, _) = try F.writeLog([], io: io, durability: .none)
        let receipt1 = try writer.enqueue(F.record(1))
        let receipt2 = try writer.enqueue(F.record(2))
        io.inject(.sync, onCall: io.callCount(.sync) + 1)
        #expect((#expect(throws: ShoalError.self) { try writer.waitUntilDurable(receipt2) })?.code == .logSyncFailed)
        #expect((#expect(throws: ShoalError.self) { try writer.waitUntilDurable(receipt1) })?.code == .logSyncFailed)
        #expect((#expect(throws: ShoalError.self) { try writer.enqueue(F.record(3)) })?.code == .logPoisoned)
    }

    @Test("resume continues after the last valid record and refuses a file that changed since it was read")
    func resumeContinues() throws {
        let io = FaultyFileIO()
        try F.writeLog((1...2).map { F.record($0) }, io: io).writer.close()
        let result = try F.replay(io: io).result
        let writer = try LogWriter.resume(after: result, io: io)
        #expect(writer.lastVersion == 2 && writer.tail == result.validEnd)
        try writer.append(F.record(3))
        try writer.close()
        #expect(try F.replay(io: io).records.map(\.version) == [1, 2, 3])
        let error = #expect(throws: ShoalError.self) { try LogWriter.resume(after: result, io: io) }
        #expect(error?.code == .fileAccess)
    }

    @Test("rolling syncs the old segment and continues in a new one based at its last version")
    func roll() throws {
        let io = FaultyFileIO()
        let (writer, _) = try F.writeLog(
            (1...3).map { F.record($0) }, io: io, durability: .relaxed(maxDelay: .seconds(3600)))
        let next = try writer.roll(schemaFingerprint: 7, salt: F.otherSalt)
        #expect(writer.durableVersion == 3)
        #expect(next.path == joinPath(F.directory, "log-0000000000000003.wal") && next.header.baseVersion == 3)
        try next.append(F.record(4))
        try next.close()
        #expect(throws: ShoalError.self) { try writer.append(F.record(4)) }
        let second = try LogReader(path: next.path, io: io)
        var versions: [UInt64] = []
        _ = second.replay { versions.append($0.version) }
        #expect(versions == [4])
    }
}
