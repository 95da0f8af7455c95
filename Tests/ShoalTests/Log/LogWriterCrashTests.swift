import Testing

@testable import Shoal

/// Power loss at every persistence point of a small workload (PERSISTENCE.md §9
/// case 13, after CrashMonkey): every crash image must open, hold a gap-free
/// prefix of what was written, and hold at least everything acknowledged as durable.
@Suite struct LogWriterCrashTests {
    typealias F = LogFixture

    enum Policy: String, CaseIterable, CustomTestStringConvertible {
        case durable, relaxed
        var durability: LogWriter.Durability {
            self == .durable ? .durable : .relaxed(maxDelay: .seconds(3600))
        }
        var testDescription: String { rawValue }
    }

    static let fates: [FaultyFileIO.Fate] = [.dropped, .zeroed, .garbage, .torn(keptBytes: 7), .torn(keptBytes: 45)]

    /// Runs 4 commits (relaxed: with a `sync()` after the second), capturing the
    /// state before every sync point; markers hold the count of durable commits.
    static func workload(_ policy: Policy) throws -> (io: FaultyFileIO, records: [LogRecord]) {
        let io = FaultyFileIO(captureSyncPoints: true)
        let records = (1...4).map { F.record($0, $0 % 2 == 0 ? .incompressible : .compressible) }
        let writer = try F.writeLog([], io: io, durability: policy.durability).writer
        for record in records {
            try writer.append(record)
            if policy == .relaxed, record.version == 2 { try writer.sync() }
            io.mark(Int(writer.durableVersion))
        }
        io.capture("end")
        return (io, records)
    }

    @Test("power loss at each sync point keeps every durable record and leaves no hole", arguments: Policy.allCases)
    func powerLossSweep(policy: Policy) throws {
        let (io, records) = try Self.workload(policy)
        #expect(io.captures.count >= (policy == .durable ? 8 : 5))
        var images = 0
        var sawLoss = false
        for capture in io.captures {
            let pending = capture.model.pendingOperations.count
            for kept in 0...pending {
                for fate in kept == pending ? [.persisted] : Self.fates {
                    for keepDirectoryChanges in [false, true] {
                        let image = FaultyFileIO.crashImage(
                            of: capture.model, keptPending: kept, then: fate,
                            keepDirectoryChanges: keepDirectoryChanges)
                        let label = "\(capture.label), kept \(kept) then \(fate), dir \(keepDirectoryChanges)"
                        let survivors = try Self.check(image, durable: capture.marker, records: records, label)
                        sawLoss = sawLoss || survivors < capture.marker + pending
                        images += 1
                    }
                }
            }
        }
        #expect(images > 50)
        #expect(sawLoss)  // the sweep did produce images that lost unsynced writes
    }

    /// Opens a crash image as the database would and checks the invariants;
    /// returns how many records survived.
    static func check(_ image: FaultyFileIO, durable: Int, records: [LogRecord], _ label: String) throws -> Int {
        guard image.contents(of: F.segmentPath) != nil else {
            // Only a segment whose creation was never acknowledged can be missing.
            #expect(durable == 0, "\(label): segment missing")
            return 0
        }
        let (replayed, result) = try F.replay(io: image)
        #expect(result.error() == nil, "\(label): \(result.ending)")
        #expect(replayed == Array(records.prefix(replayed.count)), "\(label): not a prefix")
        #expect(replayed.count >= durable, "\(label): lost a durable record")
        // The database opens: cut the tail, then the next commit gets the next version.
        let writer = try LogWriter.resume(after: result, io: image)
        try writer.append(F.record(UInt64(replayed.count + 1), .compressible))
        let reopened = try F.replay(io: image)
        #expect(reopened.records.count == replayed.count + 1 && reopened.result.ending == .clean, "\(label)")
        return replayed.count
    }

    @Test("a later unsynced record surviving without an earlier one is refused as corruption, never cut silently")
    func reorderedUnsyncedWrites() throws {
        let (io, records) = try Self.workload(.relaxed)
        let end = try #require(io.captures.last).model  // records 3 and 4 unsynced
        #expect(end.pendingOperations.count == 2)
        let image = FaultyFileIO.crashImage(of: end, fates: { $0 == 0 ? .dropped : .persisted })
        let before = image.contents(of: F.segmentPath)
        let (replayed, result) = try F.replay(io: image)
        #expect(replayed == Array(records.prefix(2)))
        guard case .corruptRecord(let damage) = result.ending else {
            Issue.record("\(result.ending)")
            return
        }
        #expect(damage.expectedVersion == 3)
        #expect(throws: ShoalError.self) { try LogWriter.resume(after: result, io: image) }
        #expect(image.contents(of: F.segmentPath) == before)
    }
}
