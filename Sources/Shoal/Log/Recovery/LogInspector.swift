/// Reads a Shoal database for the recovery tool, without modifying it and
/// without the application's model types: the schema comes from the log's own
/// schema records and snapshot.
///
/// Shaped like LevelDB's `DumpFile(env, fname, dst)`: create one from a path,
/// then ask it for a ``CheckReport``, a ``StatsReport``, or have it write a
/// dump or an export to a sink. Everything is in memory after `init`, so the
/// calls are cheap to repeat and easy to test without a process.
///
/// ```swift
/// let inspector = try LogInspector(path: "Fixtures/v1/flipped-bit.shoal")
/// let report = inspector.check()
/// print(report.text)                   // or report.json()
/// if report.status == .damaged { … }   // exit code 2 in `shoal check`
///
/// try inspector.dump(DumpFilter(className: "Dog", primaryKey: "3"), format: .text) { print($0) }
/// ```
///
/// Reading follows the rules of opening (PERSISTENCE.md §8.5): the newest
/// snapshot that verifies, then the segments after it in version order, each
/// record's checksum, version, payload decoding against the schema in force,
/// and the check that each op applies, for every op.
///
/// ## Topics
/// - ``check(progress:)``
/// - ``dump(_:format:progress:to:)``
/// - ``stats(largest:)``
/// - ``export(className:at:format:to:)``
public struct LogInspector: Sendable {
    let source: RecoverySource

    /// Reads every file of the database directory at `path` and verifies it.
    ///
    /// - Parameters:
    ///   - path: the database directory (`<name>.shoal`).
    ///   - ignoringLock: read even while another process has the database
    ///     open (it holds `LOCK`); what is read may then be mid-append.
    ///   - progress: called after each file is read.
    /// - Throws: ``ShoalError`` with code `fileAccess` (the path does not
    ///   exist or cannot be read), `notAShoalFile` (not a Shoal database
    ///   directory), `unsupportedFormat` (a file from a newer Shoal), or
    ///   `alreadyOpen` (another process holds the lock and `ignoringLock` is false).
    ///   Damage is never thrown: it is what ``check(progress:)`` reports.
    public init(path: String, ignoringLock: Bool = false, progress: ((RecoveryProgress) -> Void)? = nil) throws {
        source = try RecoverySource.load(path: path, ignoringLock: ignoringLock) { done, total in
            progress?(RecoveryProgress(bytesDone: done, bytesTotal: total, records: 0))
        }
    }

    /// The database directory's name (its last path component).
    public var databaseName: String { source.name }

    /// Verifies every record and summarizes the database.
    ///
    /// The summary describes the valid prefix, the state that opening would
    /// recover; the first problem names its file, byte offset, version and
    /// kind, and how many valid records follow it.
    ///
    /// ```swift
    /// let report = try LogInspector(path: path).check()
    /// switch report.status {
    /// case .healthy: print("ok up to version \(report.versions.last)")
    /// case .tornTail: print("a crash left a torn tail; opening cuts it")
    /// case .damaged: print(report.firstProblem!)
    /// }
    /// ```
    /// - Parameter progress: called while records are replayed.
    /// - Returns: the report; ``CheckReport/json()`` is what `shoal check --json` prints.
    public func check(progress: ((RecoveryProgress) -> Void)? = nil) -> CheckReport {
        var first: UInt64?
        var firstTime: UInt64?
        var lastTime: UInt64?
        var stored: Int64 = 0
        var raw: Int64 = 0
        var records = 0
        let walk = RecoveryWalk.run(source, policy: .stopAtFirstProblem, progress: Self.adapt(progress), visit: { step in
            first = first ?? step.record.version
            firstTime = firstTime ?? step.record.timestampMicros
            lastTime = step.record.timestampMicros
            stored += step.byteCount - Int64(LogFormat.recordHeaderSize)
            raw += Int64(step.record.payload.count)
            records += 1
        })
        let state = walk.prefix
        let problem = walk.firstProblem
        let status: CheckReport.Status = problem == nil ? .healthy : problem!.isTail ? .tornTail : .damaged
        let damagedRegions = source.segments.reduce(0) { count, segment in
            count + (segment.header == nil ? 1 : segment.events.count { if case .damage = $0 { true } else { false } })
        }
        let logBytes = source.files.filter { $0.kind == .log }.reduce(Int64(0)) { $0 + $1.byteCount }
        let snapshotBytes = source.files.filter { $0.kind == .snapshot }.reduce(Int64(0)) { $0 + $1.byteCount }
        let formatVersion = source.segments.compactMap { $0.header?.formatVersion }.max() ?? LogFormat.version
        return CheckReport(
            database: source.name, status: status, formatVersion: Int(formatVersion),
            schema: Self.schemaSummary(state),
            versions: .init(
                first: walk.base.version > 0 ? walk.base.version : (first ?? 0), last: state.version,
                snapshot: source.baseSnapshot?.version, highestValid: walk.highestValidVersion),
            records: records,
            bytes: .init(
                onDisk: logBytes + snapshotBytes, log: logBytes, snapshot: snapshotBytes, recordsStored: stored,
                recordsRaw: raw, compressionRatio: stored > 0 ? (Double(raw) / Double(stored) * 100).rounded() / 100 : 1),
            time: firstTime.map { start in
                let end = lastTime ?? start
                return .init(
                    first: RecoveryRendering.timestamp(micros: start), last: RecoveryRendering.timestamp(micros: end),
                    seconds: Double(end &- start) / 1_000_000)
            },
            files: source.files.map { .init(name: $0.name, kind: $0.kind.rawValue, bytes: $0.byteCount) },
            firstProblem: problem, validRecordsAfterFirstProblem: problem.map { _ in walk.validRecordsAfterFirstProblem },
            damagedRegions: damagedRegions)
    }

    /// The state at `target` (the valid prefix, cut at a version or time), for
    /// replay and export.
    ///
    /// - Throws: ``ShoalError`` `missingVersions` when the version is before the
    ///   database's snapshot or after its last valid version.
    func state(at target: RecoveryWalk.Limit?) throws(ShoalError) -> Snapshot {
        let walk = RecoveryWalk.run(source, policy: .stopAtFirstProblem, limit: target)
        let beyond: Bool =
            switch target {
            case .version(let v)?: v > walk.state.version
            // (Whether the damaged record was stamped before the time cannot be known.)
            case .time?: true
            case nil: false
            }
        if beyond, let problem = walk.firstProblem, !problem.isTail {
            // The target lies past damage: say so, rather than hand back the
            // state before the damage as if it were the one asked for.
            throw ShoalError(
                .corruptRecord,
                "\(source.path) can be read only through version \(walk.state.version): \(problem). "
                    + "Run `shoal repair --salvage` to keep the records that verify after it, then replay the repaired database",
                context: ["path": source.path, "file": problem.file, "version": String(problem.version),
                    "offset": problem.offset.map(String.init) ?? ""])
        }
        if case .version(let v)? = target {
            guard v >= walk.base.version, v <= walk.state.version else {
                throw ShoalError(
                    .missingVersions,
                    "\(source.path) holds versions \(walk.base.version) through \(walk.state.version), not \(v)"
                        + (v < walk.base.version ? " (history before version \(walk.base.version) was compacted into a snapshot)" : ""),
                    context: ["path": source.path, "version": String(v)])
            }
        }
        return walk.state
    }

    static func schemaSummary(_ state: Snapshot) -> CheckReport.SchemaSummary {
        .init(
            version: state.schemaVersion, fingerprint: "0x" + String(state.schema.fingerprint, radix: 16),
            classes: state.schema.objectSchema.enumerated().map { i, os in
                .init(name: os.className, objects: state.tables[i].count, properties: os.properties.count(where: \.isStored))
            })
    }

    static func adapt(_ progress: ((RecoveryProgress) -> Void)?) -> ((Int64, Int64, Int) -> Void)? {
        progress.map { callback in { callback(RecoveryProgress(bytesDone: $0, bytesTotal: $1, records: $2)) } }
    }
}

/// How far a long recovery operation has got.
public struct RecoveryProgress: Sendable, Equatable {
    /// Bytes read or replayed so far.
    public let bytesDone: Int64
    /// Bytes in all.
    public let bytesTotal: Int64
    /// Records replayed so far (0 while files are read).
    public let records: Int
}
