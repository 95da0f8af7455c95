import Foundation
import Testing

@testable import Shoal

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct BackgroundWorkerTests {
    @Test("a worker runs what it is given in order, one at a time, and waiting for it returns once all of it ran")
    func order() {
        let worker = BackgroundWorker.take()
        defer { worker.recycle() }
        let log = Locked<[Int]>([])
        let running = Locked(0)
        for i in 0..<200 {
            worker.async {
                let overlapping = running.withLock { n in
                    n += 1
                    return n
                }
                if i % 50 == 0 { usleep(2_000) }
                log.withLock { $0.append(overlapping == 1 ? i : -i - 1) }
                running.withLock { $0 -= 1 }
            }
        }
        worker.waitUntilIdle()
        #expect(log.withLock { $0 } == Array(0..<200))
        // Idle already: returns at once.
        worker.waitUntilIdle()
    }

    @Test("waiting for a worker also waits until the closure it ran is released, so that the waiter holds the last reference to what it captured")
    func releasedBeforeIdle() {
        final class Token: Sendable {
            let released: Locked<Bool>
            init(_ released: Locked<Bool>) { self.released = released }
            deinit { released.withLock { $0 = true } }
        }
        let worker = BackgroundWorker.take()
        defer { worker.recycle() }
        for _ in 0..<50 {
            let released = Locked(false)
            do {
                let token = Token(released)
                worker.async { _ = token }
            }
            worker.waitUntilIdle()
            #expect(released.withLock { $0 })
        }
    }

    @Test("work queued before a worker is recycled still runs, in order with work a later job queues on it")
    func recycled() {
        let worker = BackgroundWorker.take()
        let log = Locked<[String]>([])
        worker.async {
            usleep(5_000)
            log.withLock { $0.append("old") }
        }
        worker.recycle()
        // (Other tests take workers from the pool meanwhile: this one is
        // used here as a later job would use it.)
        worker.async { log.withLock { $0.append("new") } }
        worker.waitUntilIdle()
        #expect(log.withLock { $0 } == ["old", "new"])
    }

    #if os(Linux)
        @Test("a worker's thread runs as SCHED_BATCH, whose wake-ups do not preempt the thread that hands it work")
        func batchPolicy() {
            let worker = BackgroundWorker.take()
            defer { worker.recycle() }
            let policy = Locked<Int32>(-1)
            worker.async {
                var parameters = sched_param()
                var current: Int32 = -1
                _ = pthread_getschedparam(pthread_self(), &current, &parameters)
                policy.withLock { $0 = current }
            }
            worker.waitUntilIdle()
            // SCHED_BATCH is 3 in <sched.h>.
            #expect(policy.withLock { $0 } == 3)
        }
    #endif

    @Test("workers beyond the pool's size end their threads when recycled, and the pool keeps handing out working ones")
    func beyondThePool() {
        let workers = (0..<12).map { _ in BackgroundWorker.take() }
        let done = Locked(0)
        for worker in workers { worker.async { done.withLock { $0 += 1 } } }
        for worker in workers { worker.waitUntilIdle() }
        #expect(done.withLock { $0 } == 12)
        for worker in workers { worker.recycle() }
        let reused = (0..<12).map { _ in BackgroundWorker.take() }
        for worker in reused { worker.async { done.withLock { $0 += 1 } } }
        for worker in reused { worker.waitUntilIdle() }
        #expect(done.withLock { $0 } == 24)
        for worker in reused { worker.recycle() }
    }
}
