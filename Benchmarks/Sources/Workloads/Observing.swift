public import Dispatch

/// W4, W5 and W8: an in-memory store seeded with a dataset, whose commits
/// are observed by change observers delivering on one serial queue.
///
/// Both engines deliver every callback on ``ObservedStore/queue``; the
/// callbacks given here run there, after the engine handed over the change
/// (Shoal: the changeset; GRDB: the fetched value, and for the sorted
/// observation the diff of the old and new id arrays). Initial callbacks
/// are awaited by the `observe` methods and never reach `onUpdate`.
public protocol ObservedStore: AnyObject {
    /// The serial queue every observer delivers on.
    var queue: DispatchQueue { get }

    /// W4 / W8: registers one observer per owner `k` in `owners`, on the
    /// dogs whose owner's id is `k`, and returns once each has had its
    /// initial callback. With `nameOnly`, observers react to `name` only
    /// (Shoal: key paths `["name"]`; GRDB: `SELECT id, name`).
    /// - Parameter onUpdate: called on ``queue`` with the owner and the
    ///   number of changed indices, for every callback after the initial one.
    func observeOwners(_ owners: Range<Int>, nameOnly: Bool, onUpdate: @escaping @Sendable (_ owner: Int, _ changed: Int) -> Void) throws

    /// W5: registers one observer on every dog sorted by age, then name, and
    /// returns once it has had its initial callback.
    /// - Parameter onUpdate: called on ``queue`` with the number of changed
    ///   indices (deletions + insertions + modifications) of each update,
    ///   once the changeset is known.
    func observeSorted(onUpdate: @escaping @Sendable (_ changed: Int) -> Void) throws

    /// W7: registers one observer on every dog sorted by name and grouped
    /// into sections by the first letter of the name, and returns once it
    /// has had its initial callback.
    /// - Parameters:
    ///   - recompute: Shoal only: observe the sorted dogs and compute the
    ///     sections afresh from all of them at each update (Realm's way),
    ///     instead of Shoal's incremental sections. GRDB always refetches
    ///     and groups.
    ///   - onUpdate: called on ``queue`` with the number of changed index
    ///     paths and sections of each update, once they are known.
    func observeSections(recompute: Bool, onUpdate: @escaping @Sendable (_ changed: Int) -> Void) throws

    /// One write transaction renaming dog `id`.
    func rename(_ id: Int, to name: String) throws

    /// One write transaction setting the age of dog `id` to `(age + 1) % 16`.
    func bumpAge(_ id: Int) throws

    /// Waits until every commit made so far has been processed and its
    /// callbacks delivered.
    func drain() throws

    /// Cancels every observer and closes the store.
    func close() throws
}

/// Counts the initial callbacks of a batch of observers and lets the caller
/// wait for all of them.
final class InitialCallbacks: @unchecked Sendable {
    // Safe because: `remaining` is only touched under `lock`.
    private let lock = DispatchSemaphore(value: 1)
    private let done = DispatchSemaphore(value: 0)
    private var remaining: Int

    init(expecting count: Int) {
        remaining = count
        if count == 0 { done.signal() }
    }

    /// Called once per observer's initial callback.
    func arrived() {
        lock.wait()
        remaining -= 1
        let last = remaining == 0
        lock.signal()
        if last { done.signal() }
    }

    /// Waits until every initial callback arrived, or fails after `seconds`.
    func wait(_ what: String, seconds: Int = 7_200) {
        if done.wait(timeout: .now() + .seconds(seconds)) == .timedOut {
            lock.wait()
            let left = remaining
            lock.signal()
            fatalError("\(what): \(left) initial callbacks missing after \(seconds) s")
        }
    }
}
