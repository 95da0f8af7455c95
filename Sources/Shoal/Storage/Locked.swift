import Foundation

/// State guarded by a lock.
///
/// Shoal uses this rather than `Synchronization.Mutex` for two reasons: on
/// Linux `Mutex` is built on raw futexes, which the thread sanitizer cannot
/// see (it reports false races on every value a `Mutex` guards), while
/// `NSLock` is a pthread mutex it understands; and `Mutex` demands that
/// non-`Sendable` state (key paths, accessors) be sent into it.
///
/// Guard real state, never `()` (use ``RegionLock`` for a region of code):
/// the thread sanitizer takes the access to a zero-sized `state` (which
/// sits at the object's end) for one of the next heap block's first bytes,
/// and reports races that are not there.
final class Locked<State>: @unchecked Sendable {
    // Safe because: `state` is only reached inside `withLock`, under `lock`.
    private let lock = NSLock()
    private var state: State

    init(_ state: State) { self.state = state }

    func withLock<R, E: Error>(_ body: (inout State) throws(E) -> R) throws(E) -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}

/// A lock around a region of code with no state of its own (a check and
/// an update of state kept elsewhere); a pthread mutex, as ``Locked``'s.
final class RegionLock: Sendable {
    private let lock = NSLock()

    func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
