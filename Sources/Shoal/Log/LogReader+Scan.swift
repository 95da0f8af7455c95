/// Receives what ``LogReader/scan(into:)`` finds, in file order; the shape of
/// LevelDB's `log::Reader::Reporter`, plus the records themselves.
protocol LogScanReporter {
    /// A record that verifies, including ones after damage and ones of unknown types.
    mutating func record(_ record: LogRecord, offset: Int64, byteCount: Int64)
    /// A damaged region: `byteCount` bytes at `offset` that hold no valid record,
    /// or a valid record that is out of version order.
    mutating func damage(_ damage: LogDamage)
}

extension LogReader {
    /// What ``LogReader/scan(into:)`` found overall; what `shoal check` prints.
    struct ScanSummary: Equatable, Sendable {
        let path: String
        let fileSize: Int64
        /// End of the valid prefix: where ``LogReader/replay(_:)`` would stop.
        let okUpTo: Int64
        /// Version of the last record of the valid prefix (the base version if none).
        let lastVersionInOrder: UInt64
        /// The first problem, classified exactly as ``LogReader/replay(_:)`` classifies it.
        let ending: Ending
        /// Every valid record reported, after damage too.
        let recordCount: Int
        /// Every damaged region reported.
        let damageCount: Int
        /// Bytes covered by the damaged regions.
        let damagedByteCount: Int64
    }

    /// Everything a scan found, collected; for `salvage` and tests.
    struct ScanReport: LogScanReporter, Sendable {
        struct Entry: Equatable, Sendable {
            let offset: Int64
            let byteCount: Int64
            let record: LogRecord
        }

        var records: [Entry] = []
        var damage: [LogDamage] = []

        mutating func record(_ record: LogRecord, offset: Int64, byteCount: Int64) {
            records.append(Entry(offset: offset, byteCount: byteCount, record: record))
        }

        mutating func damage(_ damage: LogDamage) { self.damage.append(damage) }
    }

    /// Scans the whole segment and collects what it finds.
    func scan() -> (report: ScanReport, summary: ScanSummary) {
        var report = ScanReport()
        let summary = scan(into: &report)
        return (report, summary)
    }

    /// Walks the whole segment, reporting every valid record and every damaged region.
    ///
    /// After damage, the scan resumes at the next offset where a record verifies.
    /// Versions must still increase: a valid record older than expected is reported
    /// as damage and skipped (a duplicate, for example); a version gap not explained
    /// by a damaged region just before it is reported as zero-length damage.
    func scan(into reporter: inout some LogScanReporter) -> ScanSummary {
        var offset = LogFormat.fileHeaderSize
        var expected = header.baseVersion + 1
        var afterDamage = false
        var first: (ending: Ending, offset: Int, lastVersion: UInt64)?
        var records = 0
        var damageCount = 0
        var damagedBytes: Int64 = 0

        func report(_ damage: LogDamage, _ ending: Ending, at offset: Int, reporter: inout some LogScanReporter) {
            if first == nil { first = (ending, offset, expected - 1) }
            damageCount += 1
            damagedBytes += damage.byteCount
            reporter.damage(damage)
        }

        while offset < contents.count {
            let frame: RecordFrame
            switch parseFrame(at: offset) {
            case .failure(let reason):
                let remaining = Int64(contents.count - offset)
                if isZero(from: offset) {
                    let damage = LogDamage(
                        offset: Int64(offset), byteCount: remaining, expectedVersion: expected, reason: .zeroFilled)
                    report(
                        damage, .zeroFilledTail(offset: Int64(offset), byteCount: remaining), at: offset,
                        reporter: &reporter)
                    offset = contents.count
                } else if let next = nextValidRecord(after: offset) {
                    let damage = LogDamage(
                        offset: Int64(offset), byteCount: Int64(next - offset), expectedVersion: expected,
                        reason: reason)
                    report(damage, .corruptRecord(damage), at: offset, reporter: &reporter)
                    offset = next
                    afterDamage = true
                } else {
                    let damage = LogDamage(
                        offset: Int64(offset), byteCount: remaining, expectedVersion: expected, reason: reason)
                    report(damage, .tornTail(damage), at: offset, reporter: &reporter)
                    offset = contents.count
                }
                continue
            case .success(let parsed): frame = parsed
            }

            let byteCount = Int64(frame.byteCount)
            if frame.version < expected || (frame.version > expected && !afterDamage) {
                let ending = Ending.nonMonotonicVersion(offset: Int64(offset), expected: expected, found: frame.version)
                let older = frame.version < expected
                let damage = LogDamage(
                    offset: Int64(offset), byteCount: older ? byteCount : 0, expectedVersion: expected,
                    reason: .nonMonotonicVersion(expected: expected, found: frame.version))
                report(damage, ending, at: offset, reporter: &reporter)
                if older {
                    offset += frame.byteCount
                    continue
                }
            }
            afterDamage = false
            expected = frame.version
            if !frame.type.isKnown && !frame.type.isSafeToIgnore && first == nil {
                first = (
                    .requiresNewerShoal(offset: Int64(offset), version: frame.version, type: frame.type),
                    offset, expected - 1
                )
            }
            switch decodePayload(of: frame) {
            case .failure(let reason):
                let damage = LogDamage(
                    offset: Int64(offset), byteCount: byteCount, expectedVersion: expected, reason: reason)
                report(damage, .corruptRecord(damage), at: offset, reporter: &reporter)
            case .success(let payload):
                records += 1
                reporter.record(
                    LogRecord(
                        type: frame.type, version: frame.version, timestampMicros: frame.timestampMicros,
                        payload: payload),
                    offset: Int64(offset), byteCount: byteCount)
            }
            expected = frame.version + 1
            offset += frame.byteCount
        }
        return ScanSummary(
            path: path, fileSize: fileSize, okUpTo: Int64(first?.offset ?? contents.count),
            lastVersionInOrder: first?.lastVersion ?? expected - 1, ending: first?.ending ?? .clean,
            recordCount: records, damageCount: damageCount, damagedByteCount: damagedBytes)
    }
}
