import Dispatch
import Foundation
import Logging

/// Compaction of one file-backed database's log: explicit, on the caller's
/// thread (``compact()``), and automatic, on a background worker once the
/// log outgrows the configured multiple of the live data
/// (``commitDidFinish()``).
///
/// Automatic compaction keeps off the committing thread: the commit that
/// finds the log grown too large only hands the work to a
/// ``BackgroundWorker``, which takes the write lock as an explicit
/// compaction does (later writers wait for it; the one that triggered it
/// does not). At most one is queued or running.
///
/// A failed compaction (a full disk, say) leaves the log as it was and is
/// not tried again automatically until the log has grown by the growth
/// factor again (at least doubled) since the failed attempt: a disk too
/// full for a snapshot is not asked to write one on every commit. The
/// failure is logged as a warning (swift-log, label `shoal`) and kept as
/// ``lastError`` (`Realm.lastCompactionError`) until a compaction succeeds.
///
/// ``close()``, which the coordinator calls as it goes away, stops a queued
/// compaction (or one still waiting for the write lock) from starting and
/// waits for a running one, so the log is never closed under it. The work
/// holds this object, never the coordinator, so the coordinator's deinit
/// never runs on the worker.
final class Compactor: @unchecked Sendable {
    // Safe because: `state` is a lock, `idle` guards `State.scheduled` as
    // well as signalling it; the rest is immutable (and `Sendable`).
    let log: DatabaseLog
    private let writeLock: DispatchSemaphore
    /// The snapshot the next writer builds on, read under the write lock.
    private let pendingSnapshot: @Sendable () -> Snapshot
    /// ``Realm/Configuration/compactionLogGrowthFactor``.
    let growthFactor: Double
    /// ``Realm/Configuration/compactionMinimumLogBytes``.
    let minimumLogBytes: Int64
    private let logger: Logger
    private let state = Locked(State())
    /// Signalled when an automatic compaction ends, for ``close()`` and
    /// ``waitUntilIdle()``.
    private let idle = NSCondition()

    private struct State {
        /// An automatic compaction is queued or running.
        var scheduled = false
        /// Set by ``close()``: nothing more starts.
        var closed = false
        /// After a failure: no automatic attempt until the log reaches this size.
        var retryAtLogBytes: Int64 = 0
        var lastError: ShoalError?
    }

    /// The logger of every Shoal warning.
    static let defaultLogger = Logger(label: "shoal")

    init(log: DatabaseLog, writeLock: DispatchSemaphore, growthFactor: Double, minimumLogBytes: Int64,
         logger: Logger = Compactor.defaultLogger, pendingSnapshot: @escaping @Sendable () -> Snapshot) {
        self.log = log
        self.writeLock = writeLock
        self.growthFactor = growthFactor
        self.minimumLogBytes = minimumLogBytes
        self.logger = logger
        self.pendingSnapshot = pendingSnapshot
    }

    /// Why the most recent compaction failed; `nil` once one succeeds.
    var lastError: ShoalError? { state.withLock { $0.lastError } }

    /// Writes a snapshot of the latest version and drops the log before it,
    /// on the calling thread, under the write lock.
    ///
    /// - Throws: the log's errors (``DatabaseLog/compact(_:)``); the log is
    ///   then as it was, every commit in it.
    func compact() throws(ShoalError) {
        writeLock.wait()
        defer { writeLock.signal() }
        let logBytes = log.sizes.logBytes
        do {
            try compactLocked()
        } catch {
            recordFailure(error, retryAt: Self.retryThreshold(logBytes: logBytes, factor: growthFactor))
            throw error
        }
    }

    /// Starts an automatic compaction on a background worker if the log is
    /// due for one, none is queued or running, and no failure holds it back.
    /// Called after each commit; returns at once.
    func commitDidFinish() {
        guard isDue() else { return }
        let start = state.withLock { s in
            guard !s.scheduled, !s.closed else { return false }
            s.scheduled = true
            return true
        }
        guard start else { return }
        let worker = BackgroundWorker.take()
        worker.async { [self] in
            runAutomatic()
            worker.recycle()
        }
    }

    /// Whether the log has outgrown the live data and any back-off since a failure.
    private func isDue() -> Bool {
        guard log.needsCompaction(factor: growthFactor, minimumBytes: minimumLogBytes) else { return false }
        let retryAt = state.withLock { $0.retryAtLogBytes }
        return retryAt == 0 || log.sizes.logBytes >= retryAt
    }

    private func runAutomatic() {
        defer {
            idle.lock()
            state.withLock { $0.scheduled = false }
            idle.broadcast()
            idle.unlock()
        }
        // Waits for the write lock, but gives up once closed: a write
        // transaction left open by a released Realm must not stop the close.
        while writeLock.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
            if state.withLock({ $0.closed }) { return }
        }
        defer { writeLock.signal() }
        // An explicit compaction may have run while this one waited for the lock.
        guard !state.withLock({ $0.closed }), isDue() else { return }
        let logBytes = log.sizes.logBytes
        do throws(ShoalError) {
            try compactLocked()
        } catch {
            let retryAt = Self.retryThreshold(logBytes: logBytes, factor: growthFactor)
            var context = error.context
            context["path"] = log.directory
            context["retryAtLogBytes"] = String(retryAt)
            let reported = ShoalError(error.code,
                "Automatic compaction of '\(log.directory)' failed: \(error.message). Every commit is kept in the log; "
                    + "compaction is tried again once the log has grown to \(retryAt) bytes (it is \(logBytes) now), or by Realm.compact().",
                context: context, underlying: error)
            recordFailure(reported, retryAt: retryAt)
            logger.warning("\(reported.message)", metadata: ["path": "\(log.directory)", "code": "\(error.code)"])
        }
    }

    /// Compacts to the pending snapshot; the caller holds the write lock.
    private func compactLocked() throws(ShoalError) {
        let snapshot = pendingSnapshot()
        try log.sync()
        try log.compact(snapshot)
        state.withLock { s in
            s.lastError = nil
            s.retryAtLogBytes = 0
        }
    }

    private func recordFailure(_ error: ShoalError, retryAt: Int64) {
        state.withLock { s in
            s.lastError = error
            s.retryAtLogBytes = retryAt
        }
    }

    /// The log size a failed attempt at `logBytes` waits for: grown by the
    /// growth factor, and at least doubled (the factor may be below 2, even 0).
    static func retryThreshold(logBytes: Int64, factor: Double) -> Int64 {
        let grown = Double(max(logBytes, 1)) * max(factor, 2)
        return grown >= Double(Int64.max) ? .max : Int64(grown)
    }

    /// Waits until no automatic compaction is queued or running.
    func waitUntilIdle() {
        idle.lock()
        while state.withLock({ $0.scheduled }) { idle.wait() }
        idle.unlock()
    }

    /// Lets no automatic compaction start, and waits for one already running
    /// (a queued one then does nothing). Call before closing the log.
    func close() {
        state.withLock { $0.closed = true }
        waitUntilIdle()
    }
}
