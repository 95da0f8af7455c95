import Foundation

/// State guarded by a lock, for values that are not `Sendable` (key paths,
/// accessors), where `Synchronization.Mutex` would demand sending them.
final class Locked<State>: @unchecked Sendable {
    // Safe because: `state` is only reached inside `withLock`, under `lock`.
    private let lock = NSLock()
    private var state: State

    init(_ state: State) { self.state = state }

    func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
