/// Rewrites Shoal databases for the recovery tool: repair, offline compaction
/// and point-in-time replay. Like ``LogInspector`` it needs no model types.
///
/// Nothing is ever written in place. `repair` writes the repaired database
/// into a new directory beside the original, syncs it, reads it back, and
/// only then swaps it in, keeping the original as a backup (see
/// `swap(_:into:backup:io:)` for the crash-safety argument). `replay` writes
/// to a new path and leaves the original untouched. `compact` is the
/// library's own compaction (PERSISTENCE.md §8.6), which is crash-safe in place.
///
/// ```swift
/// let report = try LogRepairer.repair(at: "app.shoal", mode: .salvage)
/// print(report.text)   // where the original went, which versions were lost
/// ```
///
/// ## Topics
/// - ``repair(at:mode:backupPath:progress:isCancelled:)``
/// - ``compact(at:)``
/// - ``replay(at:to:output:ignoringLock:isCancelled:)``
public enum LogRepairer {
    /// How `repair` treats damage before the tail.
    public enum Mode: String, Codable, Sendable {
        /// Cut a torn or zero-filled tail; refuse when there is damage before it.
        case tailOnly
        /// Keep every version before the first problem; drop the rest.
        case truncate
        /// Keep every record that verifies and still applies; drop the others,
        /// and every later record that depended on them.
        case salvage
    }

    /// Repairs the database at `path`.
    ///
    /// A healthy database is left alone. Otherwise the repaired database is
    /// written beside it and swapped in, and the original is kept at
    /// `backupPath`. Versions keep their numbers: a version dropped by
    /// ``Mode/salvage`` holds a no-op record in the repaired log.
    ///
    /// ```swift
    /// do {
    ///     let report = try LogRepairer.repair(at: path)          // a torn tail only
    ///     print(report.backupPath ?? "nothing to repair")
    /// } catch ShoalError.corruptRecord {
    ///     let report = try LogRepairer.repair(at: path, mode: .salvage)
    ///     for lost in report.lostVersions { print(lost.version, lost.objects) }
    /// }
    /// ```
    /// - Parameters:
    ///   - path: the database directory to repair.
    ///   - mode: what to do about damage before the tail.
    ///   - backupPath: where to keep the original; by default `<path>.backup-<UTC time>`.
    ///   - progress: called while records are replayed.
    ///   - isCancelled: polled between records and before the swap; when it
    ///     returns `true`, the work so far is deleted and nothing has changed.
    /// - Returns: what was found, kept and lost, and where the original went.
    /// - Throws: ``ShoalError`` as ``LogInspector/init(path:ignoringLock:progress:)``,
    ///   and `corruptRecord` when ``Mode/tailOnly`` meets damage before the tail
    ///   (nothing is modified); `fileAccess` when writing fails (the original
    ///   stays in place); `CancellationError` when cancelled.
    public static func repair(
        at path: String, mode: Mode = .tailOnly, backupPath: String? = nil,
        progress: ((RecoveryProgress) -> Void)? = nil, isCancelled: () -> Bool = { false }
    ) throws -> RepairReport {
        let io = PosixFileIO()
        try RecoverySource.checkIsDatabaseDirectory(path)
        let source = try RecoverySource.load(path: path, ignoringLock: true, io: io)
        let (lock, createdLock) = try lockForWriting(path, io: io)
        var lockDirectory = path  // where LOCK is after a swap: the backup
        defer {
            // A LOCK file the repair created goes again, so the original is kept exactly as it was.
            if createdLock { try? io.unlink(at: joinPath(lockDirectory, LogFormat.lockFileName)) }
            lock.release(io: io)
        }
        let stop = RecoveryWalk.run(source, policy: .stopAtFirstProblem, progress: LogInspector.adapt(progress), isCancelled: isCancelled)
        var salvage = RecoveryWalk.run(source, policy: .skipBadRecords, isCancelled: isCancelled)
        if stop.cancelled || salvage.cancelled { throw CancellationError() }
        guard let first = stop.firstProblem else {
            return RepairReport(database: source.name, mode: mode, repaired: false, backupPath: nil, problems: [],
                lastVersion: stop.state.version, lostVersions: [])
        }
        let kept: [LogRecord]
        var lost: [LostVersion]
        switch mode {
        case .tailOnly where !first.isTail:
            throw ShoalError(
                .corruptRecord,
                "\(path): \(first); valid records follow it, so this is damage before the tail and nothing was changed. "
                    + "Rerun with --truncate to keep versions up to \(stop.state.version), "
                    + "or --salvage to keep every record that verifies.",
                context: ["path": path, "offset": String(first.offset ?? 0), "version": String(first.version)])
        case .tailOnly, .truncate:
            kept = stop.kept
            // Versions after the cut, with the objects of those that salvage could have applied.
            var touched: [UInt64: [String]] = [:]
            salvage = RecoveryWalk.run(source, policy: .skipBadRecords, visit: { step in
                if step.record.version > stop.state.version, let change = step.change {
                    touched[step.record.version] = RecoveryRendering.objectLabels(of: change, before: step.before, after: step.after)
                }
            })
            let lostBySalvage = Dictionary(salvage.lost.map { ($0.version, $0) }, uniquingKeysWith: { a, _ in a })
            let highest = max(stop.highestValidVersion, stop.state.version)
            lost = highest > stop.state.version
                ? ((stop.state.version + 1)...highest).map { v in
                    lostBySalvage[v] ?? LostVersion(version: v, reason: "after the first problem (truncated)", objects: touched[v] ?? [])
                } : []
        case .salvage:
            kept = salvage.kept
            lost = salvage.lost
        }
        let temporary = trimmed(path) + ".repair.tmp"
        removeTemporary(temporary)
        do {
            let records = mode == .salvage ? rewrittenRecords(kept: kept, lost: lost) : kept
            try writeDatabase(base: stop.base, records: records, into: temporary, io: io)
            // Paired check (STYLE.md 15): the new database must read back healthy, at the version we wrote.
            let written = RecoveryWalk.run(try RecoverySource.load(path: temporary, io: io), policy: .stopAtFirstProblem)
            let expected = records.last?.version ?? stop.base.version
            guard written.firstProblem == nil, written.state.version == expected else {
                throw ShoalError(.corruptLog, "\(temporary): the repaired database does not read back healthy: "
                    + (written.firstProblem?.description ?? "version \(written.state.version), expected \(expected)"),
                    context: ["path": temporary])
            }
            if isCancelled() { throw CancellationError() }
        } catch {
            removeTemporary(temporary)
            throw error
        }
        let backup = backupPath ?? defaultBackupPath(for: path)
        try swap(temporary, into: path, backup: backup, io: io)
        lockDirectory = backup
        if mode != .salvage { lost = lost.filter { $0.version > stop.state.version } }
        return RepairReport(database: source.name, mode: mode, repaired: true, backupPath: backup,
            problems: mode == .salvage ? salvage.problems : [first],
            lastVersion: (mode == .salvage ? salvage.state : stop.state).version, lostVersions: lost)
    }

    /// Compacts the database at `path` offline, as the library does: writes a
    /// snapshot of the latest version and drops the log before it (snapshot
    /// written to a temporary file, synced, renamed, directory synced; only
    /// then are older files deleted). A torn tail is cut first, as opening does.
    ///
    /// ```swift
    /// let (before, after) = try LogRepairer.compact(at: "app.shoal")
    /// print("saved \(before - after) bytes")
    /// ```
    /// - Returns: the bytes of log and snapshot files before and after.
    /// - Throws: ``ShoalError`` as ``LogInspector/init(path:ignoringLock:progress:)``,
    ///   `corruptRecord` (or the damage found) when there is damage before the
    ///   tail; repair it first.
    public static func compact(at path: String) throws -> (bytesBefore: Int64, bytesAfter: Int64) {
        let source = try RecoverySource.load(path: path)
        let walk = RecoveryWalk.run(source, policy: .stopAtFirstProblem)
        if let first = walk.firstProblem, !first.isTail {
            throw ShoalError(.corruptRecord, "\(path): \(first); repair it first (`shoal repair --help`)",
                context: ["path": path, "offset": String(first.offset ?? 0), "version": String(first.version)])
        }
        let opened = try DatabaseLog.open(
            directory: path, schema: walk.state.schema, schemaVersion: walk.state.schemaVersion, durability: .durable,
            io: PosixFileIO())
        defer { opened.log.close() }
        try opened.log.sync()
        try opened.log.compact(opened.snapshot)
        let after = try RecoverySource.load(path: path, ignoringLock: true)
        return (source.databaseByteCount, after.databaseByteCount)
    }

    /// Writes a new database at `output` holding the state of the database at
    /// `path` as of a version or a time (point-in-time recovery), with its
    /// history up to there. The original is not modified.
    ///
    /// ```swift
    /// try LogRepairer.replay(at: "app.shoal", to: .version(42), output: "app-at-42.shoal")
    /// ```
    /// - Parameters:
    ///   - path: the database directory to read.
    ///   - target: the version or time to stop at.
    ///   - output: where to write the new database (must not exist).
    ///   - ignoringLock: read even while another process has the database open.
    ///   - isCancelled: polled before the new database is renamed into
    ///     place; when it returns `true`, what was written is deleted.
    /// - Returns: the version the new database is at.
    /// - Throws: ``ShoalError`` as ``LogInspector/init(path:ignoringLock:progress:)``;
    ///   `missingVersions` when the version is not in the database;
    ///   `fileAccess` when `output` exists or cannot be written.
    @discardableResult
    public static func replay(
        at path: String, to target: PointInTime, output: String, ignoringLock: Bool = false,
        isCancelled: () -> Bool = { false }
    ) throws -> UInt64 {
        let io = PosixFileIO()
        let inspector = try LogInspector(path: path, ignoringLock: ignoringLock)
        let limit: RecoveryWalk.Limit =
            switch target {
            case .version(let v): .version(v)
            case .time(let micros): .time(micros)
            }
        _ = try inspector.state(at: limit)
        let walk = RecoveryWalk.run(inspector.source, policy: .stopAtFirstProblem, limit: limit)
        if RecoverySource.fileSize(output) > 0 || (try? io.listDirectory(at: output)) != nil {
            throw ShoalError(.fileAccess, "\(output) already exists; choose a new path", context: ["path": output])
        }
        let temporary = trimmed(output) + ".tmp"
        removeTemporary(temporary)
        do {
            try writeDatabase(base: walk.base, records: walk.kept, into: temporary, io: io)
            if isCancelled() { throw CancellationError() }
            try io.rename(temporary, to: output)
            try io.syncDirectory(at: parentDirectory(of: trimmed(output)))
        } catch let error as FileIOError {
            removeTemporary(temporary)
            throw ShoalError.logFileAccess(error, "write")
        } catch {
            removeTemporary(temporary)
            throw error
        }
        return walk.state.version
    }

    private static func trimmed(_ path: String) -> String {
        path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    }
}

/// A point in a database's history.
public enum PointInTime: Sendable, Equatable {
    /// Right after the record of this version.
    case version(UInt64)
    /// Right before the first record committed later than this, in
    /// microseconds since the Unix epoch.
    case time(microsSinceEpoch: UInt64)
}
