import Foundation

/// The durable side of one database: a directory holding a `LOCK` file, at
/// most one current snapshot and the log segments after it (PERSISTENCE.md §8),
/// held by one process at a time through a ``DatabaseLock``.
///
/// Opening recovers the latest state: the newest snapshot that verifies, then
/// every record after it, decoded op by op with ``ChangeRecordCodec`` and
/// handed to a ``BatchApplier``, which checks each op with
/// ``Snapshot/problem(applying:checkingPrimaryKey:pending:)`` and applies it
/// through ``Snapshot/apply(_:indexing:)``, the code path of a live commit
/// (runs of inserts a column at a time, index entries in bulk, on other
/// threads for a large record). A torn tail is cut off (and kept beside the
/// segment); damage before the tail refuses to open and names the file,
/// offset and version.
final class DatabaseLog: @unchecked Sendable {
    // Safe because: `writer` and `lastSnapshotBytes` are guarded by `state`;
    // everything else is immutable.
    let directory: String
    let io: any FileIO
    let durability: LogWriter.Durability
    private let lock: DatabaseLock
    private let state: Locked<State>
    private var syncTimer: (any DispatchSourceTimer)?

    private struct State {
        var writer: LogWriter
        /// Size of the snapshot written by the last compaction (0 without one).
        var snapshotBytes: Int
        /// Bytes of log written since the last compaction.
        var logBytesSinceSnapshot: Int64
        var closed = false
    }

    /// Progress of a replay on open.
    struct ReplayProgress: Sendable {
        var bytesRead: Int64
        var bytesTotal: Int64
        var records: Int
    }

    struct Opened {
        let log: DatabaseLog
        let snapshot: Snapshot
        /// Torn tails cut off and snapshots skipped, for the open to report.
        let warnings: [String]
    }

    private init(directory: String, io: any FileIO, durability: LogWriter.Durability, lock: DatabaseLock, writer: LogWriter, snapshotBytes: Int, logBytes: Int64) {
        self.directory = directory
        self.io = io
        self.durability = durability
        self.lock = lock
        self.state = Locked(State(writer: writer, snapshotBytes: snapshotBytes, logBytesSinceSnapshot: logBytes))
        if case .relaxed(let maxDelay) = durability { startSyncTimer(maxDelay) }
    }

    deinit { close() }

    // MARK: Opening

    /// Opens (creating if needed) the database in `directory` for `schema`,
    /// or, with a `nil` schema, for the schema it stores (a new database
    /// then starts with no classes, and classes join it later by schema
    /// records: ``Snapshot/applyingSchemaRecord(_:)``).
    ///
    /// A directory that holds other files and no segment or snapshot is
    /// refused, and left as it was: a database has a directory of its own,
    /// and a path that names someone else's directory is a mistake that
    /// would mix the database's files with theirs.
    ///
    /// - Throws: `alreadyOpen` when another process holds the database's
    ///   lock (``DatabaseLock``); for any other failure to create or lock
    ///   the directory, the code its system error means
    ///   (``ShoalError/databaseFiles(_:_:database:)``: `filePermissionDenied`,
    ///   `fileNotFound`, `fileAccess`); `notAShoalFile` when `directory`
    ///   names a file, or a directory of other files; the log layer's damage
    ///   errors (`corruptRecord`, `corruptHeader`, `missingVersions`, …);
    ///   `schemaMismatch` when the stored schema differs.
    /// - Parameters:
    ///   - schemaVersion: the application's version of `schema`.
    ///   - migrate: turns the stored state into one under `schema` (version + 1)
    ///     when the stored `schemaVersion` is lower; `nil` refuses to migrate.
    static func open(
        directory: String, schema declared: Schema?, schemaVersion: UInt64 = 0, durability: LogWriter.Durability, io: any FileIO,
        deleteIfSchemaDiffers: Bool = false, migrate: ((Snapshot) throws(ShoalError) -> Snapshot)? = nil,
        progress: ((ReplayProgress) -> Void)? = nil
    ) throws(ShoalError) -> Opened {
        let lock = try lockCreating(directory, io: io)
        var creating = false
        do {
            creating = !(try LogDirectory.list(at: directory, io: io)).holdsDatabase
            return try recover(directory: directory, declared: declared, schemaVersion: schemaVersion, durability: durability, io: io,
                lock: lock, deleteIfSchemaDiffers: deleteIfSchemaDiffers, migrate: migrate, progress: progress)
        } catch {
            lock.release(io: io)
            throw creating ? creationFailed(error, directory: directory) : error
        }
    }

    /// `error`, which stopped the creation of a new database in
    /// `directory`, said as that: the system error (the file and `errno`)
    /// when there is one, not what it would mean for a commit.
    private static func creationFailed(_ error: ShoalError, directory: String) -> ShoalError {
        let cause = (error.underlying as? FileIOError).map(\.description) ?? error.message
        var context = error.context
        context["database"] = directory
        return ShoalError(error.code, "The database at '\(directory)' could not be created: \(cause).", context: context, underlying: error)
    }

    private static func isEmptyFile(_ path: String, io: any FileIO) -> Bool {
        guard let file = try? io.open(at: path, mode: .readOnly) else { return false }
        defer { io.close(file) }
        return (try? io.size(of: file)) == 0
    }

    private static func recover(
        directory: String, declared given: Schema?, schemaVersion: UInt64, durability: LogWriter.Durability, io: any FileIO, lock: DatabaseLock,
        deleteIfSchemaDiffers: Bool, migrate: ((Snapshot) throws(ShoalError) -> Snapshot)?, progress: ((ReplayProgress) -> Void)?
    ) throws(ShoalError) -> Opened {
        var listing = try LogDirectory.list(at: directory, io: io)
        for name in listing.temporaryFiles { try? io.unlink(at: joinPath(directory, name)) }
        var warnings: [String] = []
        if let last = listing.segmentBases.last, isEmptyFile(listing.segmentPath(base: last), io: io) {
            // An empty last segment holds no record (`shoal check` calls it a
            // torn tail): remove it, and continue from the one before.
            try? io.unlink(at: listing.segmentPath(base: last))
            listing = try LogDirectory.list(at: directory, io: io)
            warnings.append("Removed the empty log segment \(LogFormat.segmentFileName(baseVersion: last)).")
        }

        // The newest snapshot that verifies; an older one only if segments cover it.
        var snapshot: Snapshot?
        var snapshotBytes = 0
        var snapshotError: ShoalError?
        for version in listing.snapshotVersions.reversed() {
            let path = joinPath(directory, LogFormat.snapshotFileName(version: version))
            do throws(ShoalError) {
                (snapshot, snapshotBytes) = try SnapshotFile.load(at: path, io: io)
                break
            } catch {
                snapshotError = snapshotError ?? error
                warnings.append("Skipped snapshot \(path): \(error.message)")
            }
        }
        if snapshot == nil, let snapshotError, listing.segmentBases.first.map({ $0 > 0 }) ?? true {
            throw snapshotError
        }

        // Moved out, so that replay holds the only reference to the state.
        var state = snapshot.take() ?? Snapshot(schema: Schema([]))
        let snapshotVersion = state.version
        let bases = try listing.segmentsToReplay(afterSnapshot: snapshotVersion)
        // Sizes only, for progress: the segments are read once, by replay.
        let totalBytes = bases.reduce(Int64(0)) { sum, base in
            guard let file = try? io.open(at: listing.segmentPath(base: base), mode: .readOnly) else { return sum }
            defer { io.close(file) }
            return sum + ((try? io.size(of: file)) ?? 0)
        }
        var bytesBefore: Int64 = 0
        var records = 0
        var lastResult: LogReader.ReplayResult?
        var logBytes: Int64 = 0
        for (i, base) in bases.enumerated() {
            if let previous = lastResult { try listing.checkContiguous(lastVersion: previous.lastVersion, nextBase: base) }
            let path = listing.segmentPath(base: base)
            let reader = try LogReader(path: path, io: io)
            let result = try reader.replay { (record: LogRecord) throws(ShoalError) in
                guard record.version > state.version else { return }
                try apply(record, to: &state, path: path)
                if record.type == .transaction { records += 1 }
                if records % 4096 == 0, let progress {
                    progress(ReplayProgress(bytesRead: bytesBefore, bytesTotal: totalBytes, records: records))
                }
            }
            let isLast = i == bases.count - 1
            if let error = result.error(isLastSegment: isLast) { throw error }
            if isLast, result.droppedByteCount > 0 {
                warnings.append("Cut a torn tail of \(result.droppedByteCount) bytes after version \(result.lastVersion) from \(path); the bytes were kept beside it.")
            }
            bytesBefore += result.fileSize
            logBytes += result.validEnd
            lastResult = result
        }
        progress?(ReplayProgress(bytesRead: totalBytes, bytesTotal: totalBytes, records: records))

        // The schema: a database without data takes the declared one (and
        // records it, so the log describes itself); one with data must match.
        // Without a declared schema, the stored one is declared.
        let stored = state.schema
        let declared = given ?? stored
        let hasData = state.tables.contains { $0.alive.count > 0 }
        let sameSchema = stored.reordering(declared) != nil && !stored.objectSchema.isEmpty
        var needsSchemaRecord = false
        var migrated: Snapshot?
        if hasData && schemaVersion < state.schemaVersion {
            throw ShoalError(.schemaMismatch,
                "Provided schema version \(schemaVersion) is less than last set version \(state.schemaVersion) for '\(directory)'.",
                context: ["path": directory])
        } else if sameSchema && schemaVersion == state.schemaVersion {
            // Same classes, perhaps in another order: the stored table order
            // stays (links hold table keys); the Realm maps classes by name.
        } else if !hasData {
            needsSchemaRecord = true
        } else if schemaVersion > state.schemaVersion, let migrate {
            migrated = try migrate(state)
            warnings.append("Migrated from schema version \(state.schemaVersion) to \(schemaVersion).")
        } else if deleteIfSchemaDiffers {
            lastResult = nil
            try deleteStoredData(listing, directory: directory, io: io)
            listing = try LogDirectory.list(at: directory, io: io)
            state = Snapshot(schema: Schema([]))
            needsSchemaRecord = true
            warnings.append("Deleted the stored data because the schema changed.")
        } else {
            let differences = stored.differences(to: declared)
            throw ShoalError(.schemaMismatch,
                "Migration is required for '\(directory)': the stored schema differs from the declared one. "
                    + differences.joined(separator: " ")
                    + " Increase Configuration.schemaVersion (and give a migrationBlock), or set deleteRealmIfMigrationNeeded.",
                context: ["path": directory, "differences": differences.joined(separator: "\n")])
        }
        if let migrated {
            // Install the migrated state as a snapshot (tmp, fsync, rename,
            // fsync of the directory); the log restarts after it, and the
            // segments before it are dropped only once it is on disk.
            // (Refused, keeping every file, when the snapshot would not load.)
            let payload = try SnapshotCodec.encodeLoadable(migrated, what: "Migration", path: directory)
            _ = try SnapshotFile.write(payload, version: migrated.version, schemaFingerprint: migrated.schema.fingerprint,
                directory: directory, io: io)
            state = migrated
            snapshotBytes = payload.count
        }
        if let result = lastResult, result.lastVersion < state.version {
            // A snapshot newer than the log (a migration's): continue in a
            // fresh segment after it.
            _ = try LogWriter.resume(after: result, durability: .none, io: io)
            lastResult = nil
            logBytes = 0
        }

        let writer: LogWriter
        if let lastResult {
            writer = try LogWriter.resume(after: lastResult, durability: durability, io: io)
        } else {
            writer = try LogWriter.create(directory: directory, baseVersion: state.version, schemaFingerprint: declared.fingerprint,
                durability: durability, io: io)
        }
        let log = DatabaseLog(directory: directory, io: io, durability: durability, lock: lock, writer: writer,
            snapshotBytes: snapshotBytes, logBytes: logBytes)
        if migrated != nil {
            for base in listing.segmentBases where base < state.version { try? io.unlink(at: listing.segmentPath(base: base)) }
            for v in listing.snapshotVersions where v < state.version {
                try? io.unlink(at: joinPath(directory, LogFormat.snapshotFileName(version: v)))
            }
            try? io.syncDirectory(at: directory)
        }
        if needsSchemaRecord, declared.objectSchema.contains(where: \.isEmbedded) {
            // An older segment's schema encoding has no embedded classes.
            try log.continueInFormat(LogFormat.embeddedObjectsVersion, schemaFingerprint: declared.fingerprint)
        }
        if needsSchemaRecord {
            // Record the schema so the log describes itself.
            var next = state.applyingSchema(declared)
            next.schemaVersion = schemaVersion
            let receipt = try log.enqueue(LogRecord(type: .schemaChange, version: next.version,
                timestampMicros: LogFormat.nowMicros(), payload: SchemaRecord.encode(declared, schemaVersion: schemaVersion)))
            try log.waitUntilDurable(receipt)
            state = next
        }
        return Opened(log: log, snapshot: state, warnings: warnings)
    }

    /// Deletes every segment and snapshot `listing` names, for
    /// `deleteRealmIfMigrationNeeded`: the newest segment first, then the
    /// snapshots, so that a crash part way leaves the old data openable (and
    /// the next open deletes it again). A deletion that fails stops the open:
    /// a new log started beside old files would not open again, or would be
    /// read after an old snapshot.
    private static func deleteStoredData(_ listing: LogDirectory, directory: String, io: any FileIO) throws(ShoalError) {
        for path in listing.dataFilesInDeletionOrder.map({ joinPath(directory, $0) }) {
            do throws(FileIOError) { try io.unlink(at: path) } catch {
                if error.errno == ENOENT { continue }
                throw ShoalError(.fileAccess,
                    "Cannot delete \(path) to discard the data stored under the old schema (deleteRealmIfMigrationNeeded): \(error.errnoDescription)",
                    context: ["path": path, "errno": String(error.errno)])
            }
        }
        do throws(FileIOError) { try io.syncDirectory(at: directory) } catch { throw .logSyncFailed(path: directory, error) }
    }

    /// Applies one replayed record to `state`.
    ///
    /// On a throw `state` may be left empty: open fails, and nothing uses it
    /// again (the recovery tool, which goes on past a bad record, applies
    /// records to a copy instead: ``RecoveryWalk``).
    private static func apply(_ record: LogRecord, to state: inout Snapshot, path: String) throws(ShoalError) {
        func corrupt(_ reason: String) -> ShoalError {
            ShoalError(.corruptRecord,
                "\(path): the record of version \(record.version) is damaged: \(reason). Run `shoal check \(parentDirectory(of: path))` to see the damage and `shoal repair` to recover.",
                context: ["path": path, "version": String(record.version), "reason": reason])
        }
        guard record.version == state.version + 1 else {
            throw corrupt("it follows version \(state.version)")
        }
        switch record.type {
        case .transaction:
            // Decoded and applied op by op: a large record is never held as ops.
            // The batch takes the state over, so that ops change it in place.
            let schema = state.schema
            var batch = BatchApplier(taking: &state)
            var problem: String?
            do {
                func apply(_ op: ChangeOp) -> Bool {
                    problem = batch.apply(op)
                    return problem == nil
                }
                func apply(_ run: InsertColumns) -> Bool {
                    problem = batch.apply(run)
                    return problem == nil
                }
                // A large record (a bulk insert) is decoded on another
                // thread while this one applies it.
                if record.payload.count >= ChangeRecordCodec.decodeAheadThreshold {
                    try ChangeRecordCodec.forEachChangeDecodedAhead(in: record.payload, schema: schema, op: apply, run: apply)
                } else {
                    try ChangeRecordCodec.forEachChange(in: record.payload, schema: schema, op: apply, run: apply)
                }
            } catch {
                throw corrupt(error.description)
            }
            if let problem { throw corrupt(problem) }
            if let problem = batch.finish() { throw corrupt(problem) }
            state = batch.snapshot
            state.version = record.version
        case .schemaChange:
            let schema: Schema
            let schemaVersion: UInt64
            do { (schema, schemaVersion) = try SchemaRecord.decode(record.payload) } catch { throw corrupt(error.description) }
            guard let next = try state.applyingSchemaRecord(schema) else {
                throw ShoalError(.schemaMismatch,
                    "\(path): version \(record.version) changes the schema of stored data; migrations are not supported by this version of Shoal.",
                    context: ["path": path, "version": String(record.version)])
            }
            state = next
            state.schemaVersion = schemaVersion
        default:
            // Types with the ignorable bit are skipped by the reader; no-ops carry nothing.
            state.version = record.version
        }
    }

    // MARK: Appending

    /// Appends a committed change record as the transaction record of
    /// `version` (under the caller's write lock, so versions stay in order);
    /// pair with ``waitUntilDurable(_:)`` after releasing the lock.
    /// `schemaFingerprint` is the schema's at `version`, for a new segment.
    func enqueue(_ change: ChangeRecord, version: UInt64, schemaFingerprint: UInt64) throws(ShoalError) -> LogWriter.Receipt {
        // (The segment's version, not this build's: a version 1 segment
        // resumed by this build must stay readable by version 1.)
        var format = state.withLock { $0.writer.header.formatVersion }
        if format < LogFormat.nestedCollectionsVersion && change.holdsNestedCollection {
            // An older segment's value encoding has no nested collections.
            try continueInFormat(LogFormat.nestedCollectionsVersion, schemaFingerprint: schemaFingerprint)
            format = LogFormat.version
        }
        let insertRuns = format >= LogFormat.insertRunsVersion
        return try enqueue(LogRecord(type: .transaction, version: version, timestampMicros: LogFormat.nowMicros(),
            payload: ChangeRecordCodec.encode(change, insertRuns: insertRuns)))
    }

    /// Writes a record at the tail (under the caller's write lock, so versions
    /// stay in order); pair with ``waitUntilDurable(_:)`` after releasing it.
    func enqueue(_ record: LogRecord) throws(ShoalError) -> LogWriter.Receipt {
        try state.withLock { (s: inout State) throws(ShoalError) -> LogWriter.Receipt in
            let receipt = try s.writer.enqueue(record)
            s.logBytesSinceSnapshot += Int64(receipt.byteCount)
            return receipt
        }
    }

    /// Makes sure records go to a segment of at least format `version`: a
    /// segment resumed from an older build keeps its version (so that build
    /// can still read it), and a record it cannot express (a schema with
    /// embedded classes) must start a new segment of this build's format.
    /// An older segment with no record yet is replaced, since the new one
    /// would take its name.
    func continueInFormat(_ version: UInt16, schemaFingerprint: UInt64) throws(ShoalError) {
        try state.withLock { (s: inout State) throws(ShoalError) in
            let old = s.writer
            guard old.header.formatVersion < version else { return }
            if old.lastVersion == old.header.baseVersion {
                try old.close()
                do throws(FileIOError) { try io.unlink(at: old.path) } catch { throw .logFileAccess(error, "replace") }
                s.writer = try LogWriter.create(directory: directory, baseVersion: old.lastVersion,
                    schemaFingerprint: schemaFingerprint, durability: durability, io: io)
            } else {
                s.writer = try old.roll(schemaFingerprint: schemaFingerprint)
            }
        }
    }

    /// Waits until a record is on stable storage as the durability policy
    /// requires; returns at once under `.none`, and under `.relaxed` syncs
    /// only when the last sync is older than its delay.
    func waitUntilDurable(_ receipt: LogWriter.Receipt) throws(ShoalError) {
        let writer = state.withLock { $0.writer }
        switch durability {
        case .durable: try writer.waitUntilDurable(receipt)
        case .relaxed(let maxDelay): try writer.syncIfDue(maxDelay: maxDelay)
        case .none: break
        }
    }

    /// Forces everything written so far onto stable storage.
    func sync() throws(ShoalError) {
        try state.withLock { $0.writer }.sync()
    }

    /// Whether the log has grown past `factor` times the live data (and a floor).
    func needsCompaction(factor: Double, minimumBytes: Int64) -> Bool {
        state.withLock { s in
            s.logBytesSinceSnapshot > max(minimumBytes, Int64(Double(max(s.snapshotBytes, 1)) * factor))
        }
    }

    var sizes: (snapshotBytes: Int, logBytes: Int64) {
        state.withLock { ($0.snapshotBytes, $0.logBytesSinceSnapshot) }
    }

    // MARK: Compaction

    /// Writes `snapshot` as the new base and drops the log before it, crash-
    /// safely: write the snapshot (tmp, fdatasync, rename, fsync of the
    /// directory), then roll to a new segment at the snapshot's version, and
    /// only then delete older snapshots and segments. Call with the write
    /// lock held (nothing may be appended meanwhile).
    ///
    /// The snapshot comes first so that a failure to write it (a full disk)
    /// leaves the log exactly as it was: no new segment, nothing deleted.
    /// Once it is on disk, every crash point opens to the same state: before
    /// the roll, open loads the snapshot and replays the segment it falls in,
    /// skipping the versions it holds (PERSISTENCE.md §8.5 step 3).
    ///
    /// With nothing committed since the segment began at the snapshot's
    /// version (a compaction, a migration, or a compaction cut short by a
    /// crash, just before), there is no roll: that segment already follows
    /// the snapshot, and the next one would take its name. A snapshot of the
    /// version already on disk that verifies is kept, not written again:
    /// renaming over it would risk the only copy (PERSISTENCE.md §5).
    ///
    /// - Throws: `unsupported`, changing nothing, when the state holds more
    ///   deleted objects' slots than a snapshot may
    ///   (``SnapshotCodec/maximumDeletedSlots``): the snapshot would be
    ///   refused on the next open, so the log is kept instead. The snapshot
    ///   file's errors (`fileAccess`, with the errno), changing nothing. The
    ///   roll's errors, the snapshot then on disk and the log continuing in
    ///   its segment (a roll that left the new segment's name behind
    ///   poisons the log: records appended to the old segment would then be
    ///   skipped on open).
    func compact(_ snapshot: Snapshot) throws(ShoalError) {
        if let problem = SnapshotCodec.unloadableProblem(snapshot) {
            throw ShoalError(.unsupported, "Compaction refused: \(problem); the log is kept as it is.", context: ["path": directory])
        }
        let alreadyRolled = try state.withLock { (s: inout State) throws(ShoalError) -> Bool in
            try checkOpen(s)
            precondition(s.writer.lastVersion == snapshot.version, "compaction of version \(snapshot.version) with the log at \(s.writer.lastVersion)")
            return s.writer.header.baseVersion == snapshot.version
        }
        // 1. The snapshot, durable under its name.
        let path = joinPath(directory, LogFormat.snapshotFileName(version: snapshot.version))
        let existing = io.fileExists(at: path) ? try? SnapshotFile.read(at: path, io: io) : nil
        let snapshotBytes: Int
        if let kept = existing, kept.header.schemaFingerprint == snapshot.schema.fingerprint {
            // Its name may not be durable yet (a crash between its rename and the directory's sync).
            do throws(FileIOError) { try io.syncDirectory(at: directory) } catch { throw .logSyncFailed(path: directory, error) }
            snapshotBytes = kept.payload.count
        } else {
            let payload = SnapshotCodec.encode(snapshot)
            _ = try SnapshotFile.write(payload, version: snapshot.version, schemaFingerprint: snapshot.schema.fingerprint,
                directory: directory, io: io)
            snapshotBytes = payload.count
        }
        // 2. The roll: appends continue in a segment based at the snapshot.
        try state.withLock { (s: inout State) throws(ShoalError) in
            try checkOpen(s)
            if !alreadyRolled {
                let old = s.writer
                do throws(ShoalError) {
                    s.writer = try old.roll(schemaFingerprint: snapshot.schema.fingerprint)
                } catch {
                    if io.fileExists(at: joinPath(directory, LogFormat.segmentFileName(baseVersion: snapshot.version))) {
                        old.poison(error)
                    }
                    throw error
                }
            }
            s.snapshotBytes = snapshotBytes
            s.logBytesSinceSnapshot = 0
        }
        // 3. What the snapshot replaces.
        let listing = try LogDirectory.list(at: directory, io: io)
        for v in listing.snapshotVersions where v < snapshot.version {
            try? io.unlink(at: joinPath(directory, LogFormat.snapshotFileName(version: v)))
        }
        for base in listing.segmentBases where base < snapshot.version {
            try? io.unlink(at: listing.segmentPath(base: base))
        }
        try? io.syncDirectory(at: directory)
    }

    private func checkOpen(_ s: State) throws(ShoalError) {
        if s.closed {
            throw ShoalError(.fileAccess, "The database at '\(directory)' is closed", context: ["path": directory])
        }
    }

    // MARK: Closing

    /// Syncs and closes the log and releases the lock. Idempotent.
    func close() {
        syncTimer?.cancel()
        let writer: LogWriter? = state.withLock { s in
            if s.closed { return nil }
            s.closed = true
            return s.writer
        }
        guard let writer else { return }
        try? writer.close()
        lock.release(io: io)
    }

    private func startSyncTimer(_ maxDelay: Duration) {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        let nanos = Int(maxDelay.components.seconds) * 1_000_000_000 + Int(maxDelay.components.attoseconds / 1_000_000_000)
        timer.schedule(deadline: .now() + .nanoseconds(nanos), repeating: .nanoseconds(max(nanos, 1_000_000)))
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            let writer: LogWriter? = self.state.withLock { $0.closed ? nil : $0.writer }
            try? writer?.syncIfDue(maxDelay: maxDelay)
        }
        timer.resume()
        syncTimer = timer
    }
}

/// The payload of a schema-change record: the schema's encoding, its
/// fingerprint (which the reader checks) and the application's schema version.
enum SchemaRecord {
    static func encode(_ schema: Schema, schemaVersion: UInt64) -> [UInt8] {
        var w = ByteWriter()
        SchemaCodec.encode(schema, into: &w)
        w.fixed64(schema.fingerprint)
        w.varint(schemaVersion)
        return w.bytes
    }

    static func decode(_ bytes: [UInt8]) throws(DecodingFailure) -> (Schema, UInt64) {
        var r = ByteReader(bytes)
        let schema = try SchemaCodec.decode(&r)
        let fingerprint = try r.fixed64()
        guard fingerprint == schema.fingerprint else { throw r.fail("schema fingerprint \(fingerprint) does not match its encoding") }
        let schemaVersion = try r.varint()
        guard r.isAtEnd else { throw r.fail("bytes left after the schema record") }
        return (schema, schemaVersion)
    }
}

extension Snapshot {
    /// This snapshot after a schema record read from the log, one version
    /// later; `nil` when the record changes stored data in a way no schema
    /// record may (that needs a migration, which is written as a snapshot).
    ///
    /// A database that never held an object takes the record's schema, and
    /// one whose schema has the same classes keeps its own
    /// (``applyingSchema(_:)``); otherwise the record must extend the
    /// schema additively, as a class joining the database does
    /// (``joining(_:)``).
    ///
    /// - Throws: `schemaMismatch` when the stored objects do not fit the
    ///   extended schema.
    func applyingSchemaRecord(_ schema: Schema) throws(ShoalError) -> Snapshot? {
        if tables.allSatisfy({ $0.alive.count == 0 }) || self.schema.reordering(schema) != nil { return applyingSchema(schema) }
        guard schema.extendsAdditively(self.schema) else { return nil }
        return try joining(schema)
    }

    /// This snapshot after a schema record, one version later: an empty
    /// database takes the new schema; one whose schema has the same classes
    /// keeps its own (and its table order). Other changes need a migration,
    /// which the caller rules out first.
    func applyingSchema(_ schema: Schema) -> Snapshot {
        if self.schema.reordering(schema) != nil && !self.schema.objectSchema.isEmpty {
            var next = self
            next.version = version + 1
            return next
        }
        return Snapshot(schema: schema, version: version + 1)
    }
}

extension Schema {
    /// `other` when it has the same classes with the same properties as this
    /// schema, possibly in another class order; `nil` otherwise.
    func reordering(_ other: Schema) -> Schema? {
        guard objectSchema.count == other.objectSchema.count else { return nil }
        for os in objectSchema {
            guard let match = other[os.className], match == os else { return nil }
        }
        return other
    }
}
