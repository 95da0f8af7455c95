/// Replays a ``RecoverySource`` from its newest valid snapshot through every
/// record of its segments, in version order, with the same decoding
/// (``ChangeRecordCodec``, ``SchemaRecord``) and the same checks
/// (``Snapshot/problem(applying:)``) as opening the database.
///
/// Two policies:
/// - ``Policy/stopAtFirstProblem``: what opening does; the state is the valid
///   prefix. Used by `check`, `repair --truncate`, `replay`, `export`.
/// - ``Policy/skipBadRecords``: `salvage`. A record that is damaged, missing,
///   does not decode, or whose ops do not apply to the state before it (because
///   a record it depends on was dropped) is dropped and reported, and the walk
///   goes on, so the state is always one that the checks accept.
///
/// Versions keep their numbers: a dropped version is still a version, and a
/// rewritten log holds a no-op record in its place.
///
/// A record further ahead of the versions before it than the damage between
/// them could hold (one version per record header's worth of damaged bytes,
/// plus one, plus ``LogFormat/maximumMissingSegmentVersions`` per missing
/// segment) is not credible: it is reported as `nonMonotonicVersion` and
/// dropped, so that a hostile version never makes the walk list billions of
/// lost versions.
struct RecoveryWalk {
    enum Policy { case stopAtFirstProblem, skipBadRecords }

    /// Where to stop replaying (point-in-time recovery).
    enum Limit: Sendable {
        case version(UInt64)
        /// Microseconds since the Unix epoch: stop before the first record stamped later.
        case time(UInt64)
    }

    /// One record applied: the state before and after it.
    struct Step {
        let record: LogRecord
        let file: String
        let offset: Int64
        let byteCount: Int64
        /// The decoded ops of a transaction record.
        let change: ChangeRecord?
        let before: Snapshot
        let after: Snapshot
    }

    /// The state the walk started from (the snapshot, or an empty database).
    private(set) var base: Snapshot
    /// The state after the last record kept.
    private(set) var state: Snapshot
    private(set) var problems: [LogProblem] = []
    /// Versions dropped under ``Policy/skipBadRecords``.
    private(set) var lost: [LostVersion] = []
    /// The records kept, in order; with ``lost``, what a rewritten log holds.
    private(set) var kept: [LogRecord] = []
    /// The state just before the first problem.
    private(set) var prefix: Snapshot
    /// Records whose checksum verifies, found after the first problem.
    private(set) var validRecordsAfterFirstProblem = 0
    /// The highest version of any record that verifies.
    private(set) var highestValidVersion: UInt64 = 0
    private(set) var limitReached = false
    private(set) var cancelled = false

    var firstProblem: LogProblem? { problems.first }

    /// Replays `source` under `policy`, calling `visit` for every record applied.
    static func run(
        _ source: RecoverySource, policy: Policy, limit: Limit? = nil,
        progress: ((_ bytesDone: Int64, _ bytesTotal: Int64, _ records: Int) -> Void)? = nil,
        isCancelled: () -> Bool = { false }, onProblem: (LogProblem) -> Void = { _ in },
        visit: (Step) -> Void = { _ in }
    ) -> RecoveryWalk {
        let base = source.baseSnapshot?.snapshot ?? Snapshot(schema: Schema([]))
        var walk = RecoveryWalk(base: base, state: base, prefix: base)
        walk.highestValidVersion = base.version
        walk.walk(
            source, policy: policy, limit: limit, progress: progress, isCancelled: isCancelled, onProblem: onProblem,
            visit: visit)
        return walk
    }

    private mutating func walk(
        _ source: RecoverySource, policy: Policy, limit: Limit?,
        progress: ((Int64, Int64, Int) -> Void)?, isCancelled: () -> Bool, onProblem: (LogProblem) -> Void,
        visit: (Step) -> Void
    ) {
        func note(_ problem: LogProblem) {
            if problems.isEmpty { prefix = state }
            problems.append(problem)
            onProblem(problem)
        }
        for entry in source.snapshots.prefix(while: { $0.snapshot == nil }) {
            note(LogProblem(kind: .corruptSnapshot, file: entry.name, offset: Int64(entry.error?.context["offset"] ?? ""),
                version: entry.version, byteCount: nil, reason: entry.error?.message ?? "does not verify"))
        }
        let start = source.segments.lastIndex { $0.base <= base.version } ?? 0
        let segments = Array(source.segments[start...])
        let bytesTotal = segments.reduce(Int64(0)) { $0 + $1.byteCount }
        var bytesBefore: Int64 = 0
        var records = 0
        var stopped = policy == .stopAtFirstProblem && !problems.isEmpty
        var damageSinceLastRecord = false
        // Bounds on version gaps (LogFormat.maximumMissingSegmentVersions): the highest credible
        // version seen, and what could hold the versions between it and the next record.
        var frontier = base.version
        var damagedBytesSinceFrontier: Int64 = 0
        var missingSegmentsSinceFrontier: UInt64 = 0

        segmentLoop: for (index, segment) in segments.enumerated() {
            defer { bytesBefore += segment.byteCount }
            let isLast = index == segments.count - 1
            if segment.base > frontier { missingSegmentsSinceFrontier += 1 }
            guard segment.header != nil else {
                if isLast && segment.byteCount == 0 && !stopped {
                    // An empty last segment holds no record: what a crash while
                    // it was created leaves. Opening removes it; nothing is lost.
                    note(LogProblem(kind: .tornTail, file: segment.name, offset: 0, version: state.version + 1, byteCount: 0,
                        reason: "the last log segment is empty (no header, no record); opening removes it"))
                    continue
                }
                damagedBytesSinceFrontier += segment.byteCount
                note(LogProblem(kind: .corruptHeader, file: segment.name, offset: 0, version: state.version + 1,
                    byteCount: segment.byteCount, reason: segment.headerError?.message ?? "header does not verify"))
                stopped = stopped || policy == .stopAtFirstProblem
                damageSinceLastRecord = true
                continue
            }
            if segment.base > state.version, !stopped, !damageSinceLastRecord {
                note(LogProblem(kind: .missingVersions, file: segment.name, offset: nil, version: state.version + 1,
                    byteCount: nil, reason: "versions \(state.version + 1) through \(segment.base) are in no snapshot or log segment"))
                stopped = policy == .stopAtFirstProblem
                damageSinceLastRecord = true
            }
            for event in segment.events {
                switch event {
                case .damage(let damage):
                    damagedBytesSinceFrontier += damage.byteCount
                    if stopped { continue }
                    note(problem(for: damage, in: segment, isLastSegment: isLast))
                    stopped = policy == .stopAtFirstProblem
                    damageSinceLastRecord = true
                case .record(let record, let offset, let byteCount):
                    if record.version <= base.version { continue }
                    if record.version > frontier {
                        let allowed = UInt64(damagedBytesSinceFrontier) / UInt64(LogFormat.recordHeaderSize) + 1
                            + missingSegmentsSinceFrontier * LogFormat.maximumMissingSegmentVersions
                        guard record.version - frontier - 1 <= allowed else {
                            damagedBytesSinceFrontier += byteCount
                            if stopped { continue }
                            note(LogProblem(kind: .nonMonotonicVersion, file: segment.name, offset: offset,
                                version: frontier + 1, byteCount: byteCount,
                                reason: "version \(record.version) is \(record.version - frontier - 1) versions after "
                                    + "\(frontier), more than the damage or missing segments before it could hold"))
                            stopped = policy == .stopAtFirstProblem
                            damageSinceLastRecord = true
                            continue
                        }
                        frontier = record.version
                        damagedBytesSinceFrontier = 0
                        missingSegmentsSinceFrontier = 0
                    }
                    highestValidVersion = max(highestValidVersion, record.version)
                    if !problems.isEmpty { validRecordsAfterFirstProblem += 1 }
                    if stopped || record.version <= state.version { continue }
                    if case .version(let last)? = limit, record.version > last { limitReached = true; break segmentLoop }
                    if case .time(let last)? = limit, record.timestampMicros > last { limitReached = true; break segmentLoop }
                    records += 1
                    if records % 256 == 0 {
                        if isCancelled() { cancelled = true; break segmentLoop }
                        progress?(bytesBefore + offset, bytesTotal, records)
                    }
                    if record.version > state.version + 1 {
                        if !damageSinceLastRecord {
                            note(LogProblem(kind: .missingVersions, file: segment.name, offset: offset,
                                version: state.version + 1, byteCount: nil,
                                reason: "versions \(state.version + 1) through \(record.version - 1) are missing"))
                            if policy == .stopAtFirstProblem { stopped = true; continue }
                        }
                        for v in (state.version + 1)..<record.version {
                            lost.append(LostVersion(version: v, reason: "its record is damaged or missing", objects: []))
                        }
                        state.version = record.version - 1
                    }
                    damageSinceLastRecord = false
                    switch apply(record) {
                    case .success(let (next, change)):
                        let before = state
                        state = next
                        kept.append(record)
                        if problems.isEmpty { prefix = state }
                        visit(Step(record: record, file: segment.name, offset: offset, byteCount: byteCount,
                            change: change, before: before, after: next))
                    case .failure(let failure):
                        note(LogProblem(kind: failure.kind, file: segment.name, offset: offset, version: record.version,
                            byteCount: byteCount, reason: failure.reason))
                        if policy == .stopAtFirstProblem { stopped = true; continue }
                        lost.append(LostVersion(version: record.version, reason: failure.reason, objects: failure.objects))
                        state.version = record.version
                    }
                }
            }
        }
        progress?(bytesTotal, bytesTotal, records)
    }

    private func problem(for damage: LogDamage, in segment: RecoverySource.Segment, isLastSegment: Bool) -> LogProblem {
        let kind: LogProblem.Kind
        switch damage.reason {
        case .zeroFilled: kind = .zeroFilledTail
        case .nonMonotonicVersion: kind = .nonMonotonicVersion
        default:
            kind = isLastSegment && damage.offset + damage.byteCount == segment.byteCount ? .tornTail : .corruptRecord
        }
        return LogProblem(kind: kind, file: segment.name, offset: damage.offset, version: damage.expectedVersion,
            byteCount: damage.byteCount, reason: damage.reason.description)
    }

    private struct Failure: Error {
        let kind: LogProblem.Kind
        let reason: String
        var objects: [String] = []
    }

    private func inconsistent(_ problem: String, _ change: ChangeRecord) -> Result<(Snapshot, ChangeRecord?), Failure> {
        let objects = RecoveryRendering.objectLabels(of: change, before: state, after: state)
        return .failure(Failure(kind: .inconsistentRecord, reason: "does not apply: \(problem)", objects: objects))
    }

    /// Decodes and applies one record to ``state`` without touching it.
    private func apply(_ record: LogRecord) -> Result<(Snapshot, ChangeRecord?), Failure> {
        var next = state
        switch record.type {
        case .transaction:
            let change: ChangeRecord
            do {
                change = try ChangeRecordCodec.decode(record.payload, baseVersion: state.version, schema: state.schema)
            } catch {
                return .failure(Failure(kind: .undecodableRecord, reason: "payload does not decode: \(error)"))
            }
            var batch = BatchApplier(state)
            for op in change.ops {
                if let problem = batch.apply(op) { return inconsistent(problem, change) }
            }
            if let problem = batch.finish() { return inconsistent(problem, change) }
            next = batch.snapshot
            next.version = record.version
            return .success((next, change))
        case .schemaChange:
            let schema: Schema
            let schemaVersion: UInt64
            do { (schema, schemaVersion) = try SchemaRecord.decode(record.payload) } catch {
                return .failure(Failure(kind: .undecodableRecord, reason: "schema record does not decode: \(error)"))
            }
            let applied: Snapshot?
            do { applied = try state.applyingSchemaRecord(schema) } catch {
                return .failure(Failure(kind: .inconsistentRecord, reason: "the stored data does not fit the schema: \(error.message)"))
            }
            guard let applied else {
                return .failure(Failure(kind: .inconsistentRecord, reason: "changes the schema of stored data"))
            }
            next = applied
            next.schemaVersion = schemaVersion
            next.version = record.version
            return .success((next, nil))
        case .noOp:
            next.version = record.version
            return .success((next, nil))
        default:
            guard record.type.isSafeToIgnore else {
                return .failure(Failure(kind: .requiresNewerShoal,
                    reason: "record type 0x\(String(record.type.rawValue, radix: 16)) needs a newer Shoal"))
            }
            next.version = record.version
            return .success((next, nil))
        }
    }
}
