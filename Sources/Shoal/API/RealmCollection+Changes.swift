/// An asynchronous sequence of a collection's changes, each carrying the
/// collection frozen at the version it describes: usable from any task.
/// Shoal's addition to Realm's API.
///
/// ```swift
/// let changes = realm.objects(Dog.self).changes(keyPaths: ["name"])
/// Task {
///     for await change in changes {
///         if case .update(let dogs, let deletions, let insertions, let modifications) = change { ... }
///     }
/// }
/// ```
///
/// The first element is `.initial`. A consumer that falls behind misses no
/// change: what piles up is merged into one `.update` relative to the last
/// element it took (never dropped, which would break the indices). The
/// sequence ends when the iterating task is cancelled; the observation ends
/// with the iterator. Iterate a sequence once (as an `AsyncStream`); call
/// `changes` again for another iteration.
public struct RealmCollectionChanges<Collection: RealmCollection>: AsyncSequence, @unchecked Sendable {
    // Safe because: `registration` only reads the collection's immutable
    // description (store, table, source) to rebind it to frozen instances.
    /// Each element is `.initial` first, then an `.update` per change (merged when they
    /// pile up) or an `.error`, carrying the collection frozen.
    public typealias Element = RealmCollectionChange<Collection>
    /// Iteration never throws: it ends when the task is cancelled.
    public typealias Failure = Never
    let registration: Registration

    final class Registration: @unchecked Sendable {
        // Safe because: `collection` is used only through `rebound(to:)` with
        // frozen instances, which reads its immutable description.
        let collection: Collection
        let pulled: PulledObservation

        init(collection: Collection, keyPaths: [String]?) {
            guard let base = collection.resultsBase else {
                if collection.managedInstance != nil { shoalPrecondition(nestedCollectionUnsupported("Change notifications")) }
                shoalPrecondition(ShoalError(.unsupported, "Change notifications are only supported on managed collections."))
            }
            base.instance.checkObservable()
            let (table, source) = (base.table, base.source)
            let elementTable: TableKey? =
                if case .table(let t) = source.root(table: table, schema: base.instance.schema) { t } else { nil }
            let depth = base.instance.configuration.collectionNotificationDepth
            let filter = base.instance.modificationFilter(keyPaths, table: elementTable, unfiltered: .deep(elementTable == nil ? 0 : depth))
            pulled = PulledObservation(instance: base.instance, filter: filter) { snapshot, filter in
                NotifierFactory.collection(table: table, source: source, snapshot: snapshot, filter: filter)
            }
            self.collection = collection
        }

        /// The next change taken from the engine, with the collection frozen at its version.
        func take() -> RealmCollectionChange<Collection>? {
            guard let (frozen, delivery) = pulled.take() else { return nil }
            let collection = collection.rebound(to: frozen)
            collection.adoptElements(of: delivery)
            switch delivery {
            case .initial: return .initial(collection)
            case .collection(let c, _): return .update(collection, deletions: c.deletions, insertions: c.insertions, modifications: c.modifications)
            case .error(let error): return .error(error)
            case .object, .map: return nil
            }
        }
    }

    /// Iterates the changes; ends when its task is cancelled.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let registration: Registration
        var signals: AsyncStream<Void>.Iterator

        public mutating func next() async -> RealmCollectionChange<Collection>? {
            await registration.pulled.next(&signals, take: registration.take)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(registration: registration, signals: registration.pulled.signals.makeAsyncIterator())
    }
}

extension RealmCollection {
    /// The collection's changes as an asynchronous sequence of frozen
    /// collections (see ``RealmCollectionChanges``), filtered by `keyPaths`
    /// as `observe(keyPaths:on:_:)` does.
    ///
    /// Call it on the collection's thread; iterate it anywhere.
    public func changes(keyPaths: [String]? = nil) -> RealmCollectionChanges<Self> {
        RealmCollectionChanges(registration: .init(collection: self, keyPaths: keyPaths))
    }

    /// The collection's unfiltered changes as an asynchronous sequence.
    public var changes: RealmCollectionChanges<Self> { changes(keyPaths: nil) }

    /// Registers a block called on `actor` with the collection's changes,
    /// the collection in each being the one in the actor's Realm.
    ///
    /// ```swift
    /// let token = await dogs.observe(on: myActor) { actor, change in actor.apply(change) }
    /// ```
    ///
    /// The collection is handed to `actor` and resolved in the actor's Realm
    /// (see ``Realm/init(configuration:actor:)``), where it is observed as
    /// `observe(keyPaths:on:_:)` with a queue observes, `.initial` first: the
    /// collection in each change is live and may be used on the actor. If
    /// the collection's owner is deleted before the actor resolves it, the
    /// block is never called.
    ///
    /// Call it from the collection's thread or actor before it suspends.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
        _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, RealmCollectionChange<Self>) -> Void) async -> NotificationToken
    where Self: SendableMetatype {
        guard let base = resultsBase else {
            shoalPrecondition(ShoalError(.unsupported, "Change notifications are only supported on managed collections."))
        }
        base.instance.checkObservable()
        guard let handle = (self as? any ThreadSafeResolvable)?.threadSafeHandle() else {
            return await observeFrozen(keyPaths: keyPaths, on: actor, block)
        }
        return await observeResolved(handle, on: actor, configuration: base.instance.configuration) { value in
            (value as? Self)?.observe(keyPaths: keyPaths, actor.delivering(block))
        }
    }

    /// Delivers frozen collections on `actor`, for a collection that cannot
    /// be handed to another Realm (a map's values read as a collection).
    private func observeFrozen<A: Actor>(keyPaths: [String]?, on actor: A,
        _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, RealmCollectionChange<Self>) -> Void) async -> NotificationToken
    where Self: SendableMetatype {
        let sequence = changes(keyPaths: keyPaths)
        let registration = sequence.registration
        Task {
            for await change in sequence {
                let box = ChangeBox(change)
                await actor.deliver(box, block)
            }
        }
        // The task holds the registration; the token ends it, and the task with it.
        return registration.pulled.outerToken()
    }
}

/// A change crossing into an actor: its collection is frozen, so it is safe anywhere.
struct ChangeBox<C>: @unchecked Sendable {
    // Safe because: the collection inside is frozen.
    let change: RealmCollectionChange<C>
    init(_ change: RealmCollectionChange<C>) { self.change = change }
}

extension Actor {
    fileprivate func deliver<C>(_ box: ChangeBox<C>, _ block: @Sendable (isolated Self, RealmCollectionChange<C>) -> Void) {
        block(self, box.change)
    }
}

/// An observation whose changes a consumer takes (an async sequence, an
/// actor's task): the engine signals, the consumer takes what is pending,
/// merged, with a frozen instance at its version.
final class PulledObservation: @unchecked Sendable {
    // Safe because: `instance` is only read for its immutable configuration
    // and coordinator; the rest is immutable or thread-safe.
    let instance: RealmInstance
    let subscription: Subscription
    let tracker: DependencyTracker
    let token: NotificationToken
    let signals: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init(instance: RealmInstance, filter: Result<ModificationFilter, ShoalError>, sectioning: ModificationFilter? = nil,
        make: @escaping (Snapshot, ModificationFilter) -> Notifier)
    {
        let (signals, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        (subscription, tracker, token) = instance.observePulled(filter: filter, sectioning: sectioning, make: make,
            signal: { continuation.yield() })
        self.instance = instance
        self.signals = signals
        self.continuation = continuation
    }

    /// What is pending, with a frozen instance at the version it describes.
    func take() -> (RealmInstance, Delivery)? {
        guard let (snapshot, delivery) = tracker.takeDelivery(subscription) else { return nil }
        let frozen = RealmInstance(configuration: instance.configuration, coordinator: instance.coordinator, snapshot: snapshot, frozen: true)
        return (frozen, delivery)
    }

    /// The next change `take` makes of what is pending, waiting for the
    /// engine's signals; `nil` (and the observation ended) once the task is
    /// cancelled or the signals end.
    func next<T>(_ signals: inout AsyncStream<Void>.Iterator, take: () -> T?) async -> T? {
        while !Task.isCancelled {
            if let value = take() { return value }
            guard await signals.next() != nil else { return nil }
        }
        token.invalidate()
        return nil
    }

    /// Ends the observation and the signals.
    func stop() {
        token.invalidate()
        continuation.finish()
    }

    /// A token for a task that consumes this observation: ending it ends the task's loop.
    func outerToken() -> NotificationToken {
        NotificationToken(storeIdentifier: instance.coordinator.identifier, subscriptionID: subscription.id) { self.stop() }
    }
}
