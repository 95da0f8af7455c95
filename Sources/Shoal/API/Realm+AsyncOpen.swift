public import Dispatch

/// A Realm being opened by ``Realm/asyncOpen(configuration:callbackQueue:callback:)``.
public final class AsyncOpenTask: @unchecked Sendable {
    // Safe because: `cancelled` is only read and written under its lock.
    private let cancelled = Locked(false)

    init() {}

    /// Cancels the open: the callback is not called. The database may still
    /// be opened (and replayed) in the background; it is closed again when
    /// nothing holds it.
    public func cancel() { cancelled.withLock { $0 = true } }

    var isCancelled: Bool { cancelled.withLock { $0 } }
}

/// Carries a non-Sendable callback to the queue it runs on.
private struct CallbackBox<Callback>: @unchecked Sendable {
    // Safe because: the callback is only called once, on the callback queue.
    let callback: Callback
}

extension Realm {
    /// Opens a Realm on a background queue (replaying its log there) and
    /// calls `callback` on `callbackQueue` with a Realm confined to that
    /// queue, or with the error opening failed with.
    ///
    /// ```swift
    /// let queue = DispatchQueue(label: "db")
    /// Realm.asyncOpen(configuration: config, callbackQueue: queue) { result in
    ///     switch result {
    ///     case .success(let realm): print(realm.objects(Dog.self).count)
    ///     case .failure(let error): print("could not open: \(error)")
    ///     }
    /// }
    /// ```
    ///
    /// - Note: Differs from Realm: there is no sync, so nothing is
    ///   downloaded and `AsyncOpenTask` has no progress notifications (use
    ///   ``Configuration/replayProgress`` for a long replay); the default
    ///   `callbackQueue` is the main queue, which on Linux runs only under
    ///   `dispatchMain()` or a main run loop.
    @discardableResult
    public static func asyncOpen(configuration: Configuration = .defaultConfiguration, callbackQueue: DispatchQueue = .main,
        callback: @escaping (Result<Realm, any Swift.Error>) -> Void) -> AsyncOpenTask
    {
        let task = AsyncOpenTask()
        let box = CallbackBox(callback: callback)
        DispatchQueue.global().async {
            // Held until the callback has its Realm: the store stays open.
            let opened = Result { () throws(ShoalError) -> RealmCoordinator in try RealmCoordinator.coordinator(for: configuration) }
            callbackQueue.async {
                guard !task.isCancelled else { return }
                switch opened {
                case .failure(let error): box.callback(.failure(error))
                case .success(let coordinator):
                    withExtendedLifetime(coordinator) {
                        box.callback(Result { try Realm(configuration: configuration, queue: callbackQueue) })
                    }
                }
            }
        }
        return task
    }
}
