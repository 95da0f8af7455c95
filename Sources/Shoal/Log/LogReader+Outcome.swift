extension LogReader {
    /// Where and why reading a segment stopped.
    enum Ending: Equatable, Sendable {
        /// The file ends exactly after the last valid record.
        case clean
        /// Only zero bytes follow the last valid record; truncatable at `offset`, nothing lost.
        case zeroFilledTail(offset: Int64, byteCount: Int64)
        /// The bytes after the last valid record are not a record and no valid record
        /// follows: an append cut by a crash. Truncatable at `damage.offset`.
        case tornTail(LogDamage)
        /// A damaged record with a valid record after it (or a record whose checksum
        /// verifies but whose payload does not decode). Must not be truncated.
        case corruptRecord(LogDamage)
        /// A valid record with the wrong version (for example, a duplicated record).
        case nonMonotonicVersion(offset: Int64, expected: UInt64, found: UInt64)
        /// A valid record of an unknown type without the safe-to-ignore bit.
        case requiresNewerShoal(offset: Int64, version: UInt64, type: LogFormat.RecordType)

        /// Whether the segment can be opened by cutting it at the last valid record.
        var isTruncatable: Bool {
            switch self {
            case .clean, .zeroFilledTail, .tornTail: true
            case .corruptRecord, .nonMonotonicVersion, .requiresNewerShoal: false
            }
        }
    }

    /// What ``LogReader/replay(_:)`` found.
    struct ReplayResult: Equatable, Sendable {
        let path: String
        let header: FileHeader
        let fileSize: Int64
        /// Offset just after the last record accepted; appends resume here.
        let validEnd: Int64
        /// Version of the last record accepted, or the segment's base version if none was.
        let lastVersion: UInt64
        /// Records passed to the closure.
        let recordCount: Int
        /// Records of unknown, safe-to-ignore types that were skipped.
        let ignoredRecordCount: Int
        let ending: Ending

        /// Bytes that a resume would cut off (0 for a clean segment).
        var droppedByteCount: Int64 { fileSize - validEnd }

        /// The error opening must fail with, or `nil` if the segment may be used,
        /// after truncation to ``validEnd`` when ``droppedByteCount`` is not 0.
        ///
        /// - Parameters:
        ///   - strict: refuse torn tails too (`recoveryMode: .strict`).
        ///   - isLastSegment: a torn tail is tolerated only in the last segment;
        ///     in an earlier one it is reported as a damaged record.
        func error(strict: Bool = false, isLastSegment: Bool = true) -> ShoalError? {
            switch ending {
            case .clean, .zeroFilledTail: nil
            case .tornTail(let damage):
                if !isLastSegment {
                    .corruptRecord(path: path, damage)
                } else if strict {
                    .tornTail(path: path, damage)
                } else {
                    nil
                }
            case .corruptRecord(let damage): .corruptRecord(path: path, damage)
            case .nonMonotonicVersion(let offset, let expected, let found):
                .nonMonotonicVersion(path: path, offset: offset, expected: expected, found: found)
            case .requiresNewerShoal(let offset, let version, let type):
                .requiresNewerShoal(path: path, offset: offset, version: version, type: type)
            }
        }
    }
}
