internal import Dispatch

/// Appends records to one log segment, with group commit and a durability policy.
///
/// Create a segment with ``create(directory:baseVersion:schemaFingerprint:durability:io:salt:createdAtMicros:)``
/// (PERSISTENCE.md §5 protocol 1: write `.tmp`, `fdatasync`, `rename`, `fsync` the
/// directory), or continue an existing one after reading it with
/// ``resume(after:durability:io:quarantine:)``.
///
/// ```swift
/// let writer = try LogWriter.create(directory: dir, baseVersion: 0, schemaFingerprint: fp, io: PosixFileIO())
/// try writer.append(LogRecord(type: .transaction, version: 1, timestampMicros: now, payload: bytes))
/// ```
///
/// ## Appending and group commit
/// ``append(_:)`` is ``enqueue(_:)`` (frame, compress, checksum, `pwrite` at the
/// tail, under a mutex) followed, under `.durable`, by ``waitUntilDurable(_:)``.
/// Versions must arrive in order, so callers enqueue while holding their own
/// write lock and wait for durability after releasing it: then committers that
/// wait at the same time share one `fdatasync`. The first waiter becomes the
/// leader and syncs everything written so far; the others wait for it and
/// return if its sync covered them, or one of them leads the next sync.
///
/// ## Errors
/// - A failed or short `pwrite`: the file is cut back to the tail and
///   `ShoalError.logWriteFailed` is thrown; the writer stays usable.
/// - A failed `ftruncate` after that, or a failed `fdatasync`: the writer is
///   poisoned. The failing call throws `.logPoisoned` or `.logSyncFailed`, and
///   every later append or sync throws `.logPoisoned` until the database is
///   reopened. A failed `fdatasync` is never retried (fsyncgate).
final class LogWriter: Sendable {
    /// When appended records reach stable storage.
    enum Durability: Equatable, Sendable {
        /// `append` returns only after `fdatasync` covered the record (the default).
        case durable
        /// `append` returns after `pwrite`: the record survives a process crash but
        /// not necessarily power loss. A sync runs when an append finds the last
        /// one older than `maxDelay`, and on ``LogWriter/sync()`` and ``LogWriter/close()``.
        /// Power loss may drop the newest records, never leave a hole.
        case relaxed(maxDelay: Duration)
        /// The operating system decides; ``LogWriter/sync()`` still works. For tests and benchmarks.
        case none
    }

    /// Where an enqueued record lies.
    struct Receipt: Equatable, Sendable {
        let version: UInt64
        let offset: Int64
        let byteCount: Int
    }

    struct State: Sendable {
        /// End of the last record written; the next record goes here.
        var tail: Int64
        /// Version of the last record written (the base version if none).
        var lastVersion: UInt64
        /// Version of the last record known durable.
        var durableVersion: UInt64
        var syncInProgress = false
        var followers: [DispatchSemaphore] = []
        var lastSync: ContinuousClock.Instant
        /// Set by a failed `ftruncate` or `fdatasync`; every later write throws.
        var poison: ShoalError?
        /// Records up to this version were covered by the sync that failed.
        var failedSyncVersion: UInt64 = 0
        var closed = false
    }

    let path: String
    let directory: String
    let header: FileHeader
    let durability: Durability
    let io: any FileIO
    let file: OpenFile
    let state: Locked<State>

    init(
        path: String, header: FileHeader, durability: Durability, io: any FileIO, file: OpenFile, tail: Int64,
        lastVersion: UInt64
    ) {
        self.path = path
        self.directory = parentDirectory(of: path)
        self.header = header
        self.durability = durability
        self.io = io
        self.file = file
        self.state = Locked(
            State(tail: tail, lastVersion: lastVersion, durableVersion: lastVersion, lastSync: .now))
    }

    deinit {
        if !state.withLock({ $0.closed }) { io.close(file) }
    }

    /// Version of the last record written.
    var lastVersion: UInt64 { state.withLock { $0.lastVersion } }
    /// Version of the last record known to be on stable storage.
    var durableVersion: UInt64 { state.withLock { $0.durableVersion } }
    /// Offset where the next record will be written.
    var tail: Int64 { state.withLock { $0.tail } }
    /// Whether a failed sync or truncate poisoned the writer.
    var isPoisoned: Bool { state.withLock { $0.poison != nil } }

    /// Appends `record` and, under `.durable`, waits until it is on stable storage.
    ///
    /// - Throws: `ShoalError.logWriteFailed` (not written; the writer stays usable),
    ///   `.logSyncFailed` or `.logPoisoned` (the writer is poisoned),
    ///   `.nonMonotonicVersion` if `record.version` is not ``lastVersion`` + 1.
    @discardableResult
    func append(_ record: LogRecord) throws(ShoalError) -> Receipt {
        let receipt = try enqueue(record)
        switch durability {
        case .durable: try waitUntilDurable(receipt)
        case .relaxed(let maxDelay): try syncIfDue(maxDelay: maxDelay)
        case .none: break
        }
        return receipt
    }

    /// Writes `record` at the tail without waiting for durability.
    ///
    /// Encoding, compression and checksumming happen before the lock is taken.
    /// - Throws: as ``append(_:)``, except `.logSyncFailed`.
    func enqueue(_ record: LogRecord) throws(ShoalError) -> Receipt {
        guard record.payload.count <= LogFormat.maxPayloadBytes else {
            throw ShoalError(
                .logWriteFailed, "A record of \(record.payload.count) bytes exceeds the 1 GiB limit",
                context: ["path": path, "version": String(record.version), "reason": "tooLarge"])
        }
        let bytes = record.framed(salt: header.salt)
        #if SHOAL_INTERNAL_CHECKS
            // Paired check (STYLE.md 15): what we append must read back as this record.
            let parsed = bytes.withUnsafeBytes { RecordFrame.parse($0, at: 0, salt: header.salt) }
            precondition((try? parsed.get())?.version == record.version, "framed record does not verify: \(parsed)")
        #endif
        return try state.withLock { state throws(ShoalError) -> Receipt in
            try checkWritable(state)
            guard record.version == state.lastVersion + 1 else {
                throw .nonMonotonicVersion(
                    path: path, offset: state.tail, expected: state.lastVersion + 1, found: record.version)
            }
            do throws(FileIOError) {
                try io.write(file, bytes, at: state.tail)
            } catch let writeError {
                let failure = ShoalError.logWriteFailed(path: path, offset: state.tail, writeError)
                do throws(FileIOError) {
                    try io.truncate(file, to: state.tail)
                } catch let truncateError {
                    let cause = ShoalError(
                        .logPoisoned,
                        "Could not cut \(path) back to offset \(state.tail) after a failed write: \(truncateError.errnoDescription)",
                        context: ["path": path, "offset": String(state.tail), "errno": String(truncateError.errno)],
                        underlying: failure)
                    state.poison = cause
                    throw cause
                }
                throw failure
            }
            let receipt = Receipt(version: record.version, offset: state.tail, byteCount: bytes.count)
            state.tail += Int64(bytes.count)
            state.lastVersion = record.version
            return receipt
        }
    }

    /// Returns once the record of `receipt` is on stable storage, sharing one
    /// `fdatasync` with other threads waiting at the same time.
    ///
    /// - Throws: `ShoalError.logSyncFailed` if the sync covering the record failed,
    ///   `.logPoisoned` if the writer was poisoned before.
    func waitUntilDurable(_ receipt: Receipt) throws(ShoalError) {
        try syncThrough(version: receipt.version)
    }

    /// Makes every record written so far durable (`db.sync()`).
    ///
    /// - Throws: `ShoalError.logSyncFailed`, `.logPoisoned`.
    func sync() throws(ShoalError) {
        try syncThrough(version: lastVersion)
    }

    /// Under `.relaxed`, syncs if the last sync is older than `maxDelay` and no sync
    /// is running; a timer in the database may call it too.
    func syncIfDue(maxDelay: Duration) throws(ShoalError) {
        let due = state.withLock { state in
            state.poison == nil && !state.syncInProgress && state.durableVersion < state.lastVersion
                && state.lastSync.duration(to: .now) >= maxDelay
        }
        if due { try sync() }
    }

    /// Syncs pending records (unless poisoned or `.none`) and closes the file.
    /// Later appends throw `ShoalError.fileAccess`.
    ///
    /// - Throws: `ShoalError.logSyncFailed`; the file is closed anyway.
    func close() throws(ShoalError) {
        defer {
            let wasClosed = state.withLock { state in
                defer { state.closed = true }
                return state.closed
            }
            if !wasClosed { io.close(file) }
        }
        if durability != .none, !isPoisoned { try sync() }
    }

    /// Refuses every later append and sync, with `cause` underneath: for a
    /// failure outside this writer that makes appending to it unsafe (a
    /// roll that left the next segment's name behind).
    func poison(_ cause: ShoalError) {
        state.withLock { state in
            if state.poison == nil { state.poison = cause }
        }
    }

    func checkWritable(_ state: State) throws(ShoalError) {
        if state.closed {
            throw ShoalError(.fileAccess, "The log writer for \(path) is closed", context: ["path": path])
        }
        if let poison = state.poison { throw .logPoisoned(path: path, cause: poison) }
    }
}
