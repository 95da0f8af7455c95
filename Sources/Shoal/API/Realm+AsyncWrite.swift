public import Dispatch
import Foundation

/// The identifier of an asynchronous write or of a commit's callback, for
/// ``Realm/cancelAsyncWrite(_:)``.
public typealias AsyncTransactionId = UInt32

/// What a Realm instance has queued for `writeAsync`: blocks waiting for
/// their write to begin, and callbacks of asynchronous commits waiting to run.
struct AsyncWriteQueue {
    struct Pending {
        let id: AsyncTransactionId
        let run: () -> Void
    }
    var nextId: AsyncTransactionId = 1
    var begins: [Pending] = []
    var completions: [Pending] = []
    /// Whether a block queued by `beginAsyncWrite` is running (its write open).
    var isRunning = false

    mutating func makeId() -> AsyncTransactionId {
        defer { nextId = nextId == .max ? 1 : nextId + 1 }
        return nextId
    }
}

extension RealmInstance {
    /// Runs what `writeAsync` queued: first the callbacks of commits, then
    /// the begins, one write at a time, each in a write transaction. Called
    /// on the instance's queue (a queue-confined or main-thread Realm), and
    /// at `refresh()` on other threads, where notifications are delivered too.
    func runAsyncWrites() {
        guard !asyncWrites.isRunning else { return }
        while !asyncWrites.completions.isEmpty {
            asyncWrites.completions.removeFirst().run()
        }
        while transaction == nil, !asyncWrites.begins.isEmpty {
            let next = asyncWrites.begins.removeFirst()
            do { try beginWrite() } catch { shoalPrecondition(error) }
            asyncWrites.isRunning = true
            next.run()
            asyncWrites.isRunning = false
            while !asyncWrites.completions.isEmpty {
                asyncWrites.completions.removeFirst().run()
            }
        }
    }

    /// Has ``runAsyncWrites()`` run soon where this instance can be used:
    /// on its queue or actor, or on the main queue for the main instance.
    /// Other threads run them at their next `refresh()`.
    func scheduleAsyncWrites() {
        let box = InstanceBox(self)
        scheduler?.run { box.value?.runAsyncWrites() }
    }
}

extension Realm {
    /// Runs `block` in a write transaction later, on this Realm's queue, and
    /// commits it; `onComplete` runs after the commit, with its error if it
    /// failed.
    ///
    /// ```swift
    /// realm.writeAsync {
    ///     realm.create(Dog.self, value: ["id": 9])
    /// } onComplete: { error in
    ///     if let error { print("not saved: \(error)") }
    /// }
    /// ```
    ///
    /// The block runs on the Realm's queue for a Realm opened with
    /// ``init(configuration:queue:)``, on the actor for one opened with
    /// ``init(configuration:actor:)``, for the main thread's Realm on the
    /// main queue, and at the next ``refresh()`` on other threads, where
    /// Shoal also delivers notifications. If the block cancels the write, it
    /// is not committed and `onComplete` is not called.
    ///
    /// - Note: Differs from Realm: the write lock is taken when the block
    ///   runs (waiting for another writer, as ``beginWrite()`` does), and the
    ///   commit is made when the block returns; `onComplete` runs when the
    ///   queued work runs next, after the commit is durable.
    @discardableResult
    public func writeAsync(_ block: @escaping () -> Void, onComplete: (((any Swift.Error)?) -> Void)? = nil) -> AsyncTransactionId {
        beginAsyncWrite {
            block()
            if self.isInWriteTransaction { self.commitAsyncWrite(onComplete) }
        }
    }

    /// Queues `asyncWriteBlock` to run in a write transaction, on this Realm's
    /// queue (see ``writeAsync(_:onComplete:)``). The block ends the write
    /// with ``commitAsyncWrite(allowGrouping:_:)``, ``commitWrite()`` or
    /// ``cancelWrite()``; a write it leaves open stays open.
    ///
    /// ```swift
    /// realm.beginAsyncWrite {
    ///     realm.create(Dog.self, value: ["id": 9])
    ///     realm.commitAsyncWrite()
    /// }
    /// ```
    /// - Returns: an identifier for ``cancelAsyncWrite(_:)``.
    @discardableResult
    public func beginAsyncWrite(_ asyncWriteBlock: @escaping () -> Void) -> AsyncTransactionId {
        instance.verifyThread()
        if isFrozen || configuration.readOnly {
            shoalPrecondition(ShoalError(isFrozen ? .writeOnFrozenRealm : .writeOnReadOnlyRealm,
                isFrozen ? "Can't perform transactions on a frozen Realm" : "Can't perform transactions on read-only Realms."))
        }
        let id = instance.asyncWrites.makeId()
        instance.asyncWrites.begins.append(.init(id: id, run: asyncWriteBlock))
        instance.scheduleAsyncWrites()
        return id
    }

    /// Commits the open write transaction; `onComplete` runs later, on this
    /// Realm's queue, with the commit's error or `nil`.
    ///
    /// ```swift
    /// realm.beginWrite()
    /// realm.create(Dog.self, value: ["id": 9])
    /// realm.commitAsyncWrite { error in print(error == nil ? "saved" : "failed") }
    /// ```
    /// - Parameters:
    ///   - allowGrouping: accepted for Realm's signature; every commit is
    ///     made when called (Shoal's group commit already batches the disk
    ///     syncs of concurrent writers).
    ///   - onComplete: called with `nil` once committed, or with the error.
    /// - Returns: an identifier for ``cancelAsyncWrite(_:)``, which cancels
    ///   the callback but not the commit, as in Realm.
    @discardableResult
    public func commitAsyncWrite(allowGrouping: Bool = false, _ onComplete: (((any Swift.Error)?) -> Void)? = nil) -> AsyncTransactionId {
        instance.verifyThread()
        guard isInWriteTransaction else {
            shoalPrecondition(ShoalError(.notInWriteTransaction, "Can't commit a non-existing write transaction"))
        }
        var failure: (any Swift.Error)?
        do { try commitWrite() } catch { failure = error }
        let id = instance.asyncWrites.makeId()
        if let onComplete {
            instance.asyncWrites.completions.append(.init(id: id, run: { onComplete(failure) }))
            if !instance.asyncWrites.isRunning { instance.scheduleAsyncWrites() }
        }
        return id
    }

    /// Cancels a queued asynchronous write that has not begun (its block
    /// never runs), or the callback of an asynchronous commit (the commit
    /// stays made), as Realm does. An identifier that is done or unknown is
    /// ignored.
    ///
    /// ```swift
    /// let id = realm.writeAsync { realm.deleteAll() }
    /// try realm.cancelAsyncWrite(id)
    /// ```
    public func cancelAsyncWrite(_ asyncTransactionId: AsyncTransactionId) throws {
        instance.verifyThread()
        instance.asyncWrites.begins.removeAll { $0.id == asyncTransactionId }
        instance.asyncWrites.completions.removeAll { $0.id == asyncTransactionId }
    }

    /// Whether asynchronous writes or commit callbacks are queued or running.
    public var isPerformingAsynchronousWriteOperations: Bool {
        instance.asyncWrites.isRunning || !instance.asyncWrites.begins.isEmpty || !instance.asyncWrites.completions.isEmpty
    }

    /// Opens the Realm confined to a serial `queue`: it may be used only on
    /// that queue, and delivers its notifications and runs its asynchronous
    /// writes there.
    ///
    /// ```swift
    /// let queue = DispatchQueue(label: "db")
    /// queue.async {
    ///     let realm = try! Realm(configuration: config, queue: queue)
    ///     realm.writeAsync { realm.create(Dog.self, value: ["id": 1]) }
    /// }
    /// ```
    public init(configuration: Configuration, queue: DispatchQueue) throws {
        let coordinator = try RealmCoordinator.coordinator(for: configuration)
        self.init(instance: RealmInstance.confined(to: queue, configuration: configuration, coordinator: coordinator))
    }
}
