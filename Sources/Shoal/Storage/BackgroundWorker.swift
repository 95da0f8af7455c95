import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A thread that runs closures one at a time, in the order given (a serial
/// queue of its own), for the index builds that run beside a load and for
/// automatic compaction, which runs beside the commits that trigger it.
///
/// Why not a `DispatchQueue`: on Linux, waking a sleeping thread of the
/// normal policy may place it on the waker's core and preempt the waker,
/// which then waits a whole scheduler slice (3 to 5 ms was measured on
/// these two-core machines, the other core idle meanwhile). Opening a
/// database hands its index builds work from the thread that loads and
/// applies, so that stall landed on the time to first result, in about
/// every other open. These threads run as `SCHED_BATCH`, whose wake-ups
/// never preempt: work handed to them waits for a free core, or for the
/// scheduler tick, and the thread that handed it goes on.
///
/// Workers are kept in a pool once their job ends (``take()``,
/// ``recycle()``), so that a load does not pay for creating threads.
final class BackgroundWorker: @unchecked Sendable {
    // Safe because: `pending`, `busy` and `ending` are only reached under `condition`.
    private let condition = NSCondition()
    private var pending: [@Sendable () -> Void] = []
    private var busy = false
    /// Set when the worker is not kept: its thread ends once idle.
    private var ending = false

    /// Idle workers, at most ``poolSize``.
    private static let pool = Locked<[BackgroundWorker]>([])
    private static let poolSize = 8

    private init() {
        let thread = Thread { [self] in run() }
        thread.name = "shoal.index"
        thread.start()
    }

    /// An idle worker from the pool, or a new one.
    static func take() -> BackgroundWorker {
        pool.withLock { $0.popLast() } ?? BackgroundWorker()
    }

    /// Gives the worker back to the pool once its job ends: work still
    /// queued runs first. A worker past the pool's size ends its thread.
    func recycle() {
        let kept = Self.pool.withLock { pool in
            guard pool.count < Self.poolSize else { return false }
            pool.append(self)
            return true
        }
        guard !kept else { return }
        condition.lock()
        ending = true
        condition.broadcast()
        condition.unlock()
    }

    private func run() {
        #if os(Linux)
            var parameters = sched_param()
            // SCHED_BATCH from <sched.h>, which Glibc's module leaves out
            // (it is behind _GNU_SOURCE).
            let schedBatch: Int32 = 3
            _ = pthread_setschedparam(pthread_self(), schedBatch, &parameters)
        #endif
        while true {
            condition.lock()
            while pending.isEmpty && !ending { condition.wait() }
            if pending.isEmpty {
                condition.unlock()
                return
            }
            var next: (@Sendable () -> Void)? = pending.removeFirst()
            busy = true
            condition.unlock()
            next!()
            // Released before the worker says it is idle: a waiter may then
            // drop what the closure shared, and must hold the last reference.
            next = nil
            condition.lock()
            busy = false
            if pending.isEmpty { condition.broadcast() }
            condition.unlock()
        }
    }

    /// Queues `body`.
    func async(_ body: @escaping @Sendable () -> Void) {
        condition.lock()
        pending.append(body)
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until every worker now in the pool has run what was queued on
    /// it (what a job left to free when it gave its worker back, say).
    static func waitUntilPoolIdle() {
        for worker in pool.withLock({ $0 }) { worker.waitUntilIdle() }
    }

    /// Waits until every closure queued so far has run (and been released).
    func waitUntilIdle() {
        condition.lock()
        while busy || !pending.isEmpty { condition.wait() }
        condition.unlock()
    }
}
