/// Reads one log segment: verifies its header, then walks its records,
/// verifying length bounds, checksum and version order, and decoding payloads.
///
/// Two entry points:
/// - ``replay(_:)`` for the database's open path: streams records in order to a
///   closure and stops at the first problem, which it classifies (see ``Ending``).
/// - ``scan(into:)`` for the recovery tool (`check`, `dump`, `salvage`): walks the
///   whole file, reporting every damaged region and every valid record after it.
///
/// Classification of the first bad record at offset X (PERSISTENCE.md §8.5):
/// - only zeros from X to the end: a zero-filled tail (preallocation or an
///   append whose size became durable before its data); truncatable at X;
/// - otherwise, if no record verifies at any byte offset after X: a torn tail,
///   truncatable at X;
/// - otherwise: a damaged record before the tail; nothing may be modified.
///
/// The reader never modifies the file; ``LogWriter/resume(after:durability:io:quarantine:)``
/// does the truncation. It holds the segment's bytes in memory: segments are
/// bounded by compaction, and replay must decode all of them anyway.
struct LogReader: Sendable {
    /// The segment's path, used in errors and reports.
    let path: String
    /// The verified file header.
    let header: FileHeader
    /// The whole segment, header included.
    let contents: [UInt8]

    /// The segment's size in bytes.
    var fileSize: Int64 { Int64(contents.count) }

    /// Reads the segment at `path` and verifies its header.
    ///
    /// - Throws: `ShoalError.fileAccess`, `.notAShoalFile`, `.unsupportedFormat`, `.corruptHeader`.
    init(path: String, io: any FileIO) throws(ShoalError) {
        let contents: [UInt8]
        do { contents = try io.readWholeFile(at: path) } catch { throw .logFileAccess(error, "read") }
        try self.init(path: path, contents: contents)
    }

    /// Reads a segment already in memory (for tools and tests).
    init(path: String, contents: [UInt8]) throws(ShoalError) {
        do { header = try FileHeader.decode(contents, expecting: .log) } catch { throw error.shoalError(path: path) }
        self.path = path
        self.contents = contents
    }

    /// Streams every record, in order, to `body` until the end of the file or the
    /// first problem, and returns where it stopped and why.
    ///
    /// Records of unknown types with bit 0x80 are skipped (they still consume
    /// their version, and their payload must still decode); all known types,
    /// no-ops included, are passed to `body`.
    /// Nothing is thrown for damage: the caller decides with
    /// ``ReplayResult/error(strict:isLastSegment:)``. Errors thrown by `body` stop the
    /// replay and are rethrown.
    func replay<E: Error>(_ body: (LogRecord) throws(E) -> Void) throws(E) -> ReplayResult {
        var offset = LogFormat.fileHeaderSize
        var expected = header.baseVersion + 1
        var delivered = 0
        var ignored = 0
        var ending = Ending.clean
        walk: while offset < contents.count {
            let frame: RecordFrame
            switch parseFrame(at: offset) {
            case .failure(let reason):
                ending = classify(at: offset, expectedVersion: expected, reason: reason)
                break walk
            case .success(let parsed): frame = parsed
            }
            guard frame.version == expected else {
                ending = .nonMonotonicVersion(offset: Int64(offset), expected: expected, found: frame.version)
                break walk
            }
            if !frame.type.isKnown && !frame.type.isSafeToIgnore {
                ending = .requiresNewerShoal(offset: Int64(offset), version: frame.version, type: frame.type)
                break walk
            }
            // A record to skip is still verified: its payload must decode, as the recovery scan requires.
            let payload: [UInt8]
            switch decodePayload(of: frame) {
            case .failure(let reason):
                ending = .corruptRecord(
                    LogDamage(
                        offset: Int64(offset), byteCount: Int64(frame.byteCount), expectedVersion: expected,
                        reason: reason))
                break walk
            case .success(let decoded): payload = decoded
            }
            guard frame.type.isKnown else {
                ignored += 1
                expected += 1
                offset += frame.byteCount
                continue
            }
            try body(
                LogRecord(
                    type: frame.type, version: frame.version, timestampMicros: frame.timestampMicros,
                    payload: payload))
            delivered += 1
            expected += 1
            offset += frame.byteCount
        }
        return ReplayResult(
            path: path, header: header, fileSize: fileSize, validEnd: Int64(offset), lastVersion: expected - 1,
            recordCount: delivered, ignoredRecordCount: ignored, ending: ending)
    }

    // MARK: Shared by replay and scan

    func parseFrame(at offset: Int) -> Result<RecordFrame, LogDamage.Reason> {
        contents.withUnsafeBytes { RecordFrame.parse($0, at: offset, salt: header.salt) }
    }

    func decodePayload(of frame: RecordFrame) -> Result<[UInt8], LogDamage.Reason> {
        contents.withUnsafeBytes { buffer in
            do throws(LogDamage.Reason) { return .success(try frame.decodePayload(buffer)) } catch {
                return .failure(error)
            }
        }
    }

    /// Classifies the first bad bytes at `offset`: zero-filled tail, torn tail, or damage before the tail.
    func classify(at offset: Int, expectedVersion: UInt64, reason: LogDamage.Reason) -> Ending {
        let remaining = Int64(contents.count - offset)
        if isZero(from: offset) { return .zeroFilledTail(offset: Int64(offset), byteCount: remaining) }
        if let next = nextValidRecord(after: offset) {
            return .corruptRecord(
                LogDamage(
                    offset: Int64(offset), byteCount: Int64(next - offset), expectedVersion: expectedVersion,
                    reason: reason))
        }
        return .tornTail(
            LogDamage(offset: Int64(offset), byteCount: remaining, expectedVersion: expectedVersion, reason: reason))
    }

    /// Whether every byte from `offset` to the end is zero.
    func isZero(from offset: Int) -> Bool {
        contents.withUnsafeBytes { UnsafeRawBufferPointer(rebasing: $0[offset...]).allSatisfy { $0 == 0 } }
    }

    /// The first offset after `offset` where a record verifies (any version, any type), if any.
    func nextValidRecord(after offset: Int) -> Int? {
        contents.withUnsafeBytes { buffer in
            var candidate = offset + 1
            while candidate + LogFormat.recordHeaderSize <= buffer.count {
                if case .success = RecordFrame.parse(buffer, at: candidate, salt: header.salt) { return candidate }
                candidate += 1
            }
            return nil
        }
    }
}
