import ShoalTestSupport
import Testing

@testable import Shoal

/// Damage kinds at the byte level (PERSISTENCE.md §9 cases 1–8, 15), one test each.
@Suite struct LogReaderTests {
    typealias F = LogFixture

    @Test("a clean segment replays every record in order and ends clean")
    func cleanReplay() throws {
        let records = (1...5).map { F.record($0, $0 % 2 == 0 ? .incompressible : .compressible) }
        let (bytes, receipts) = try F.segmentBytes(records)
        let (replayed, result) = try F.replay(bytes)
        #expect(replayed == records)
        #expect(result.ending == .clean)
        #expect(result.lastVersion == 5)
        #expect(result.validEnd == Int64(bytes.count))
        #expect(result.error(strict: true) == nil)
        #expect(receipts.map(\.offset).first == Int64(LogFormat.fileHeaderSize))
    }

    @Test("torn last record at every byte offset opens with the previous version", arguments: F.PayloadKind.allCases)
    func tornLastRecordEveryOffset(kind: F.PayloadKind) throws {
        let records = (1...3).map { F.record($0, kind) }
        let (bytes, receipts) = try F.segmentBytes(records)
        let last = receipts[2]
        for k in 0..<last.byteCount {
            let cut = Array(bytes.prefix(Int(last.offset) + k))
            let (replayed, result) = try F.replay(cut)
            #expect(replayed == Array(records.prefix(2)), "cut at +\(k)")
            #expect(result.validEnd == last.offset)
            #expect(result.lastVersion == 2)
            if k == 0 {
                #expect(result.ending == .clean)
                #expect(result.error(strict: true) == nil)
            } else {
                guard case .tornTail(let damage) = result.ending else {
                    Issue.record("cut at +\(k): \(result.ending)")
                    continue
                }
                #expect(damage.offset == last.offset && damage.expectedVersion == 3 && damage.byteCount == Int64(k))
                #expect(result.error() == nil)
                #expect(result.error(strict: true)?.code == .tornTail)
                #expect(result.error(isLastSegment: false)?.code == .corruptRecord)
            }
        }
    }

    @Test("torn tail is truncated on resume and the next append reuses its version")
    func tornTailResume() throws {
        let io = FaultyFileIO()
        let records = (1...3).map { F.record($0) }
        let (writer, receipts) = try F.writeLog(records, io: io)
        try writer.close()
        let full = try #require(io.contents(of: F.segmentPath))
        io.setContents(of: F.segmentPath, Array(full.prefix(Int(receipts[2].offset) + 20)))
        let result = try F.replay(io: io).result
        let resumed = try LogWriter.resume(after: result, io: io)
        #expect(io.contents(of: F.segmentPath)?.count == Int(receipts[2].offset))
        let quarantine = joinPath(F.directory, LogFormat.quarantineFileName(baseVersion: 0, offset: receipts[2].offset))
        #expect(io.contents(of: quarantine) == Array(full[Int(receipts[2].offset)..<(Int(receipts[2].offset) + 20)]))
        try resumed.append(F.record(3, .incompressible))
        let (replayed, final) = try F.replay(io: io)
        #expect(replayed == Array(records.prefix(2)) + [F.record(3, .incompressible)])
        #expect(final.ending == .clean)
    }

    @Test("torn group write keeps every complete record before the cut")
    func tornGroupWrite() throws {
        let records = (1...6).map { F.record($0, $0 % 2 == 0 ? .compressible : .incompressible) }
        let (bytes, receipts) = try F.segmentBytes(records)
        let groupStart = Int(receipts[2].offset)  // records 3...6 written by one group, then one sync
        for cut in groupStart...bytes.count {
            let (replayed, result) = try F.replay(Array(bytes.prefix(cut)))
            let complete = receipts.filter { Int($0.offset) + $0.byteCount <= cut }.count
            #expect(replayed == Array(records.prefix(complete)), "cut at \(cut)")
            #expect(result.ending.isTruncatable)
            #expect(result.error() == nil)
        }
    }

    @Test("zero-filled tail keeps every record and is cut without quarantine", arguments: [4096, 1 << 20])
    func zeroFilledTail(zeros: Int) throws {
        let io = FaultyFileIO()
        let records = (1...3).map { F.record($0) }
        let (writer, _) = try F.writeLog(records, io: io)
        try writer.close()
        let clean = try #require(io.contents(of: F.segmentPath))
        io.setContents(of: F.segmentPath, clean + [UInt8](repeating: 0, count: zeros))
        let (replayed, result) = try F.replay(io: io)
        #expect(replayed == records)
        #expect(result.ending == .zeroFilledTail(offset: Int64(clean.count), byteCount: Int64(zeros)))
        #expect(result.error(strict: true) == nil)
        _ = try LogWriter.resume(after: result, io: io)
        #expect(io.contents(of: F.segmentPath) == clean)
        #expect(io.allPaths.allSatisfy { !$0.hasSuffix(".corrupt") })
    }

    @Test("garbage tail after the last record is a torn tail and is quarantined on resume")
    func garbageTail() throws {
        let io = FaultyFileIO()
        let records = (1...3).map { F.record($0) }
        try F.writeLog(records, io: io).writer.close()
        let clean = try #require(io.contents(of: F.segmentPath))
        var random = SeededRandom(seed: 99)
        let garbage = (0..<777).map { _ in UInt8.random(in: 0...255, using: &random) }
        io.setContents(of: F.segmentPath, clean + garbage)
        let (replayed, result) = try F.replay(io: io)
        #expect(replayed == records)
        guard case .tornTail(let damage) = result.ending else {
            Issue.record("\(result.ending)")
            return
        }
        #expect(damage.offset == Int64(clean.count) && damage.byteCount == 777 && damage.expectedVersion == 4)
        _ = try LogWriter.resume(after: result, io: io)
        #expect(io.contents(of: F.segmentPath) == clean)
        let quarantine = joinPath(F.directory, LogFormat.quarantineFileName(baseVersion: 0, offset: Int64(clean.count)))
        #expect(io.contents(of: quarantine) == garbage)
    }

    @Test(
        "bit flip in a file header field is refused with a typed error and nothing is modified",
        arguments: [
            ("magic", 3, 0, ShoalError.notAShoalFile),
            // 4 (the version written) becomes 12 (newer: unsupported) or 0
            // (no version: damage).
            ("formatVersion", 8, 3, .unsupportedFormat),
            ("formatVersion", 8, 2, .corruptHeader),
            ("headerSize", 10, 2, .corruptHeader),
            ("flags", 12, 0, .corruptHeader),
            ("salt", 17, 5, .corruptHeader),
            ("baseVersion", 24, 0, .corruptHeader),
            ("schemaFingerprint", 35, 7, .corruptHeader),
            ("createdAt", 41, 3, .corruptHeader),
            ("reserved", 50, 1, .corruptHeader),
            ("checksum", 60, 4, .corruptHeader),
        ] as [(String, Int, Int, ShoalError.Code)])
    func headerBitFlip(field: String, offset: Int, bit: Int, code: ShoalError.Code) throws {
        let io = FaultyFileIO()
        try F.writeLog([F.record(1)], io: io).writer.close()
        let damaged = F.flipBit(try #require(io.contents(of: F.segmentPath)), at: offset, bit: bit)
        io.setContents(of: F.segmentPath, damaged)
        let error = #expect(throws: ShoalError.self) { try LogReader(path: F.segmentPath, io: io) }
        #expect(error?.code == code, "\(field)")
        #expect(error?.context["path"] == F.segmentPath)
        #expect(io.contents(of: F.segmentPath) == damaged)
    }

    @Test("a file shorter than its header is reported as a truncated header")
    func truncatedHeader() throws {
        let (bytes, _) = try F.segmentBytes([])
        let error = #expect(throws: ShoalError.self) {
            try LogReader(path: F.segmentPath, contents: Array(bytes.prefix(40)))
        }
        #expect(error?.code == .corruptHeader)
        #expect(error?.context["field"] == "length")
    }

    @Test(
        "bit flip in a record before the last is reported with offset and version, nothing modified",
        arguments: [0, 9, 13, 17, 25, 32, 33, 35, 36, -1])
    func bitFlipBeforeLast(byteInRecord: Int) throws {  // -1: the record's last byte
        let io = FaultyFileIO()
        let records = (1...5).map { F.record($0) }
        let (writer, receipts) = try F.writeLog(records, io: io)
        try writer.close()
        let target = receipts[2]  // version 3
        let position = byteInRecord < 0 ? target.byteCount + byteInRecord : byteInRecord
        let damaged = F.flipBit(try #require(io.contents(of: F.segmentPath)), at: Int(target.offset) + position, bit: 3)
        io.setContents(of: F.segmentPath, damaged)
        let (replayed, result) = try F.replay(io: io)
        #expect(replayed == Array(records.prefix(2)))
        guard case .corruptRecord(let damage) = result.ending else {
            Issue.record("byte \(byteInRecord): \(result.ending)")
            return
        }
        #expect(damage.offset == target.offset && damage.expectedVersion == 3)
        #expect(damage.byteCount == Int64(target.byteCount))  // the next record verifies
        let error = try #require(result.error())
        #expect(error.code == .corruptRecord)
        #expect(error.context["offset"] == String(target.offset) && error.context["version"] == "3")
        #expect(throws: ShoalError.self) { try LogWriter.resume(after: result, io: io) }
        #expect(io.contents(of: F.segmentPath) == damaged)
    }

    @Test("bit flip in the last record is a torn tail: open with the previous version", arguments: [0, 20, 36, -1])
    func bitFlipInLast(byteInRecord: Int) throws {  // -1: the record's last byte
        let records = (1...4).map { F.record($0) }
        let (bytes, receipts) = try F.segmentBytes(records)
        let position = byteInRecord < 0 ? receipts[3].byteCount + byteInRecord : byteInRecord
        let (replayed, result) = try F.replay(F.flipBit(bytes, at: Int(receipts[3].offset) + position, bit: 6))
        #expect(replayed == Array(records.prefix(3)))
        guard case .tornTail(let damage) = result.ending else {
            Issue.record("\(result.ending)")
            return
        }
        #expect(damage.offset == receipts[3].offset && damage.expectedVersion == 4)
    }

    @Test("duplicate last record is a non-monotonic version error")
    func duplicateRecord() throws {
        let records = (1...3).map { F.record($0) }
        let (bytes, receipts) = try F.segmentBytes(records)
        let last = receipts[2]
        let duplicated = bytes + bytes[Int(last.offset)...]
        let (replayed, result) = try F.replay(duplicated)
        #expect(replayed == records)
        #expect(result.ending == .nonMonotonicVersion(offset: Int64(bytes.count), expected: 4, found: 3))
        let error = try #require(result.error())
        #expect(error.code == .nonMonotonicVersion)
        #expect(error.context["expected"] == "4" && error.context["found"] == "3")
    }

    @Test("a record copied from another file fails its checksum: corrupt mid-file, torn at the end")
    func recordFromAnotherFile() throws {
        let records = (1...5).map { F.record($0) }
        let (ours, receipts) = try F.segmentBytes(records)
        let (theirs, _) = try F.segmentBytes(records + [F.record(6)], salt: F.otherSalt)
        // Same records, same lengths: only the salt differs. Splice their record 3 into ours.
        let r3 = Int(receipts[2].offset)..<(Int(receipts[2].offset) + receipts[2].byteCount)
        var spliced = ours
        spliced.replaceSubrange(r3, with: theirs[r3])
        #expect(spliced != ours)
        let (replayed, result) = try F.replay(spliced)
        #expect(replayed == Array(records.prefix(2)))
        #expect(
            result.ending
                == .corruptRecord(
                    LogDamage(
                        offset: Int64(r3.lowerBound), byteCount: Int64(r3.count), expectedVersion: 3,
                        reason: .checksumMismatch)))
        // Their record 6 appended at our end.
        let appended = ours + theirs[ours.count...]
        let tail = try F.replay(appended)
        #expect(tail.records == records)
        guard case .tornTail(let damage) = tail.result.ending else {
            Issue.record("\(tail.result.ending)")
            return
        }
        #expect(damage.reason == .checksumMismatch && damage.expectedVersion == 6)
    }

    @Test("unknown record type with 0x80 is skipped; without it replay stops with requiresNewerShoal")
    func unknownRecordTypes() throws {
        let ignorable = LogFormat.RecordType(rawValue: 0x85)
        let unknown = LogFormat.RecordType(rawValue: 0x05)
        let skipped = [F.record(1), F.record(2, type: ignorable), F.record(3)]
        let (bytes, _) = try F.segmentBytes(skipped)
        let (replayed, result) = try F.replay(bytes)
        #expect(replayed.map(\.version) == [1, 3])
        #expect(result.ignoredRecordCount == 1 && result.lastVersion == 3 && result.ending == .clean)

        let blocking = [F.record(1), F.record(2, type: unknown), F.record(3)]
        let (blockingBytes, receipts) = try F.segmentBytes(blocking)
        let stopped = try F.replay(blockingBytes)
        #expect(stopped.records.map(\.version) == [1])
        #expect(stopped.result.ending == .requiresNewerShoal(offset: receipts[1].offset, version: 2, type: unknown))
        #expect(stopped.result.error()?.code == .requiresNewerShoal)
        #expect(!stopped.result.ending.isTruncatable)
    }

    @Test("a version gap between valid records is a non-monotonic version error")
    func versionGap() throws {
        let (bytes, receipts) = try F.segmentBytes((1...4).map { F.record($0) })
        var gapped = Array(bytes.prefix(Int(receipts[1].offset)))
        gapped += bytes[Int(receipts[2].offset)...]  // drop record 2 exactly
        let (replayed, result) = try F.replay(gapped)
        #expect(replayed.map(\.version) == [1])
        #expect(result.ending == .nonMonotonicVersion(offset: receipts[1].offset, expected: 2, found: 3))
    }

    @Test("recovery scan lists every bad region and every valid record after it")
    func scanListsEverything() throws {
        let records = (1...7).map { F.record($0, $0 % 3 == 0 ? .incompressible : .compressible) }
        let (bytes, receipts) = try F.segmentBytes(records)
        var damaged = F.flipBit(bytes, at: Int(receipts[1].offset) + 50)
        damaged = F.flipBit(damaged, at: Int(receipts[4].offset) + 12)
        damaged += bytes[Int(receipts[5].offset)..<Int(receipts[6].offset)]  // duplicate of record 6 at the end
        let reader = try LogReader(path: F.segmentPath, contents: damaged)
        let (report, summary) = reader.scan()
        #expect(report.records.map(\.record.version) == [1, 3, 4, 6, 7])
        #expect(report.records.map(\.record) == [records[0], records[2], records[3], records[5], records[6]])
        #expect(report.damage.map(\.offset) == [receipts[1].offset, receipts[4].offset, Int64(bytes.count)])
        #expect(report.damage.map(\.expectedVersion) == [2, 5, 8])
        #expect(report.damage[2].reason == .nonMonotonicVersion(expected: 8, found: 6))
        #expect(summary.okUpTo == receipts[1].offset && summary.lastVersionInOrder == 1)
        #expect(summary.recordCount == 5 && summary.damageCount == 3)
        #expect(
            summary.damagedByteCount == Int64(receipts[1].byteCount + receipts[4].byteCount + receipts[5].byteCount))
        guard case .corruptRecord(let first) = summary.ending else {
            Issue.record("\(summary.ending)")
            return
        }
        #expect(first.offset == receipts[1].offset)
    }

    @Test("a payload over 1 MiB is chunked, verified and decoded exactly")
    func chunkedPayload() throws {
        var random = SeededRandom(seed: 5)
        let text = F.payload(.compressible, version: 1, size: 1_500_000)
        let noise = (0..<700_000).map { _ in UInt8.random(in: 0...255, using: &random) }
        let big = LogRecord(type: .transaction, version: 1, timestampMicros: 7, payload: text + noise)
        let framed = big.framed(salt: F.salt)
        #expect(framed[LogFormat.RecordHeaderLayout.codec] == LogFormat.Codec.lz4Chunks.rawValue)
        #expect(framed.count < big.payload.count)
        let (bytes, _) = try F.segmentBytes([big, F.record(2)])
        let (replayed, result) = try F.replay(bytes)
        #expect(replayed == [big, F.record(2)])
        #expect(result.ending == .clean)
    }
}
