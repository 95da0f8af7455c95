import Foundation

/// Receives callbacks on the observers' queue; the runner waits for the one
/// it awaits, and everything else is counted as stray.
public final class Probe: @unchecked Sendable {
    // Safe because: every field is read and written under `lock`.
    private let lock = NSLock()
    private let arrived = DispatchSemaphore(value: 0)
    private var awaited: Int?
    private var stamp: UInt64 = 0
    private var callbacks = 0
    private var stray = 0
    private var changed = 0

    /// Waits for callbacks from `key` (nil: none expected).
    public init(awaiting key: Int?) { awaited = key }

    /// Called on the observers' queue with the callback's key and the number
    /// of changed indices it reported.
    public func hit(_ key: Int, changed count: Int) {
        let now = Measure.now()
        lock.lock()
        callbacks += 1
        changed += count
        let awaitedHit = key == awaited
        if awaitedHit { stamp = now } else { stray += 1 }
        lock.unlock()
        if awaitedHit { arrived.signal() }
    }

    /// Waits for the awaited callback; returns when it arrived.
    public func wait(_ what: String) -> UInt64 {
        if arrived.wait(timeout: .now() + .seconds(30)) == .timedOut {
            fatalError("\(what): no callback within 30 s")
        }
        lock.lock()
        defer { lock.unlock() }
        return stamp
    }

    public var counts: (callbacks: Int, stray: Int, changed: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (callbacks, stray, changed)
    }
}
