public import Dispatch
public import OpenCombine
public import OpenCombineDispatch
public import Shoal

/// Handing thread-confined values to another scheduler: frozen on the way
/// out (pinned at the version the change information describes), and read
/// back through the receiving scheduler's live Realm, confined to it when
/// it is a serial queue. Frozen and unmanaged values pass as they are.
enum Handover<T: RealmSubscribable> {
    case passthrough(T)
    case frozen(T)

    init(_ value: T) {
        self = value.realm == nil || value.isFrozen ? .passthrough(value) : .frozen(value.freeze())
    }

    /// The value on `scheduler`, live there; `nil` if it was deleted since.
    func resolve<S: Scheduler>(on scheduler: S) -> T? {
        switch self {
        case .passthrough(let value): return value
        case .frozen(let value):
            guard let frozenRealm = value.realm else { return value }
            let live = (scheduler as? DispatchQueue.OCombine).map { frozenRealm.confined(to: $0.queue) } ?? frozenRealm.thaw()
            return value._handedOver(to: live)
        }
    }

    /// Runs `upstream` into `subscriber` on `scheduler`, handing over the
    /// value each output carries (`value`, `nil` for none) and putting the
    /// handed-over copy back (`replacing`); an output whose value was
    /// deleted on the way is skipped.
    static func deliver<Upstream: Publisher, S: Scheduler, Sub: Subscriber>(_ upstream: Upstream, on scheduler: S,
        to subscriber: Sub, value: @escaping (Upstream.Output) -> T?,
        replacing: @escaping (Upstream.Output, T) -> Upstream.Output)
    where Sub.Input == Upstream.Output, Sub.Failure == Upstream.Failure {
        upstream.map { output in (value(output).map { Handover($0) }, output) }
            .receive(on: scheduler)
            .compactMap { handover, output in
                guard let handover else { return output }
                return handover.resolve(on: scheduler).map { replacing(output, $0) }
            }
            .receive(subscriber: subscriber)
    }
}

extension RealmPublishers {
    /// A publisher that makes `receive(on:)` work for a stream of objects or
    /// collections: create it with `threadSafeReference()`.
    public struct MakeThreadSafe<Upstream: Publisher>: Publisher where Upstream.Output: RealmSubscribable {
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure
        /// The upstream's values, handed over.
        public typealias Output = Upstream.Output

        private let upstream: Upstream
        init(_ upstream: Upstream) { self.upstream = upstream }

        /// Attaches a subscriber (`sink`, `assign` or `subscribe(_:)` call this).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: subscriber)
        }

        /// Delivers each value on `scheduler` (a serial queue), handed over
        /// to that queue's live Realm.
        public func receive<S: Scheduler>(on scheduler: S) -> DeferredHandover<Upstream, S> {
            DeferredHandover(upstream, scheduler)
        }

        /// Delivers on a serial queue; as ``receive(on:)-(S)``, for code
        /// written for Apple's Combine, where queues are schedulers.
        public func receive(on queue: DispatchQueue) -> DeferredHandover<Upstream, DispatchQueue.OCombine> {
            DeferredHandover(upstream, queue.ocombine)
        }
    }

    /// A publisher that delivers objects or collections to a scheduler,
    /// each handed over to its live Realm; a value deleted in between is
    /// skipped. Create it with `threadSafeReference().receive(on:)`.
    public struct DeferredHandover<Upstream: Publisher, S: Scheduler>: Publisher where Upstream.Output: RealmSubscribable {
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure
        /// The upstream's values, handed over.
        public typealias Output = Upstream.Output

        private let upstream: Upstream
        private let scheduler: S
        init(_ upstream: Upstream, _ scheduler: S) {
            self.upstream = upstream
            self.scheduler = scheduler
        }

        /// Attaches a subscriber (`sink`, `assign` or `subscribe(_:)` call this).
        public func receive<Sub: Subscriber>(subscriber: Sub) where Sub.Input == Output, Sub.Failure == Failure {
            Handover.deliver(upstream, on: scheduler, to: subscriber, value: { $0 }, replacing: { $1 })
        }
    }

    /// A publisher that makes `receive(on:)` work for object and projection
    /// changesets: create it with `threadSafeReference()`.
    public struct MakeThreadSafeObjectChangeset<Upstream: Publisher, T: RealmSubscribable>: Publisher
    where Upstream.Output == ObjectChange<T> {
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure
        /// The upstream's values, handed over.
        public typealias Output = Upstream.Output

        private let upstream: Upstream
        init(_ upstream: Upstream) { self.upstream = upstream }

        /// Attaches a subscriber (`sink`, `assign` or `subscribe(_:)` call this).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: subscriber)
        }

        /// Delivers each change on `scheduler`, the object handed over.
        public func receive<S: Scheduler>(on scheduler: S) -> DeferredHandoverObjectChangeset<Upstream, T, S> {
            DeferredHandoverObjectChangeset(upstream, scheduler)
        }

        /// Delivers on a serial queue; as ``receive(on:)-(S)``, for code
        /// written for Apple's Combine, where queues are schedulers.
        public func receive(on queue: DispatchQueue) -> DeferredHandoverObjectChangeset<Upstream, T, DispatchQueue.OCombine> {
            DeferredHandoverObjectChangeset(upstream, queue.ocombine)
        }
    }

    /// A publisher that delivers object and projection changesets to a
    /// scheduler, the object or projection handed over to its live Realm
    /// (the property changes are those of the version handed over).
    public struct DeferredHandoverObjectChangeset<Upstream: Publisher, T: RealmSubscribable, S: Scheduler>: Publisher
    where Upstream.Output == ObjectChange<T> {
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure
        /// The upstream's values, handed over.
        public typealias Output = Upstream.Output

        private let upstream: Upstream
        private let scheduler: S
        init(_ upstream: Upstream, _ scheduler: S) {
            self.upstream = upstream
            self.scheduler = scheduler
        }

        /// Attaches a subscriber (`sink`, `assign` or `subscribe(_:)` call this).
        public func receive<Sub: Subscriber>(subscriber: Sub) where Sub.Input == Output, Sub.Failure == Failure {
            Handover.deliver(upstream, on: scheduler, to: subscriber,
                value: { change in if case .change(let object, _) = change { object } else { nil } },
                replacing: { change, object in
                    if case .change(_, let properties) = change { .change(object, properties) } else { change }
                })
        }
    }

    /// A publisher that makes `receive(on:)` work for collection
    /// changesets: create it with `threadSafeReference()`.
    public struct MakeThreadSafeCollectionChangeset<Upstream: Publisher, T: RealmCollection & RealmSubscribable>: Publisher
    where Upstream.Output == RealmCollectionChange<T> {
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure
        /// The upstream's values, handed over.
        public typealias Output = Upstream.Output

        private let upstream: Upstream
        init(_ upstream: Upstream) { self.upstream = upstream }

        /// Attaches a subscriber (`sink`, `assign` or `subscribe(_:)` call this).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: subscriber)
        }

        /// Delivers each change on `scheduler`, the collection handed over.
        public func receive<S: Scheduler>(on scheduler: S) -> DeferredHandoverCollectionChangeset<Upstream, T, S> {
            DeferredHandoverCollectionChangeset(upstream, scheduler)
        }

        /// Delivers on a serial queue; as ``receive(on:)-(S)``, for code
        /// written for Apple's Combine, where queues are schedulers.
        public func receive(on queue: DispatchQueue) -> DeferredHandoverCollectionChangeset<Upstream, T, DispatchQueue.OCombine> {
            DeferredHandoverCollectionChangeset(upstream, queue.ocombine)
        }
    }

    /// A publisher that delivers collection changesets to a scheduler, the
    /// collection handed over to its live Realm.
    ///
    /// The collection is frozen at the version the indices describe on the
    /// way; the receiving Realm shows at least that version, so a later
    /// commit may already be visible there (as with Realm's thread-safe
    /// references). For indices that always match, `freeze()` first.
    public struct DeferredHandoverCollectionChangeset<Upstream: Publisher, T: RealmCollection & RealmSubscribable, S: Scheduler>:
        Publisher
    where Upstream.Output == RealmCollectionChange<T> {
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure
        /// The upstream's values, handed over.
        public typealias Output = Upstream.Output

        private let upstream: Upstream
        private let scheduler: S
        init(_ upstream: Upstream, _ scheduler: S) {
            self.upstream = upstream
            self.scheduler = scheduler
        }

        /// Attaches a subscriber (`sink`, `assign` or `subscribe(_:)` call this).
        public func receive<Sub: Subscriber>(subscriber: Sub) where Sub.Input == Output, Sub.Failure == Failure {
            Handover.deliver(upstream, on: scheduler, to: subscriber, value: \.collection,
                replacing: { $0.replacingCollection(with: $1) })
        }
    }

    /// A publisher that makes `receive(on:)` work for map changesets:
    /// create it with `threadSafeReference()`.
    public struct MakeThreadSafeKeyedCollectionChangeset<Upstream: Publisher, Key: MapKey, Value: RealmCollectionValue>: Publisher
    where Upstream.Output == RealmMapChange<Map<Key, Value>> {
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure
        /// The upstream's values, handed over.
        public typealias Output = Upstream.Output

        private let upstream: Upstream
        init(_ upstream: Upstream) { self.upstream = upstream }

        /// Attaches a subscriber (`sink`, `assign` or `subscribe(_:)` call this).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: subscriber)
        }

        /// Delivers each change on `scheduler`, the map handed over.
        public func receive<S: Scheduler>(on scheduler: S) -> DeferredHandoverKeyedCollectionChangeset<Upstream, Key, Value, S> {
            DeferredHandoverKeyedCollectionChangeset(upstream, scheduler)
        }

        /// Delivers on a serial queue; as ``receive(on:)-(S)``, for code
        /// written for Apple's Combine, where queues are schedulers.
        public func receive(on queue: DispatchQueue) -> DeferredHandoverKeyedCollectionChangeset<Upstream, Key, Value, DispatchQueue.OCombine> {
            DeferredHandoverKeyedCollectionChangeset(upstream, queue.ocombine)
        }
    }

    /// A publisher that delivers map changesets to a scheduler, the map
    /// handed over to its live Realm.
    public struct DeferredHandoverKeyedCollectionChangeset<Upstream: Publisher, Key: MapKey, Value: RealmCollectionValue,
        S: Scheduler>: Publisher
    where Upstream.Output == RealmMapChange<Map<Key, Value>> {
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure
        /// The upstream's values, handed over.
        public typealias Output = Upstream.Output

        private let upstream: Upstream
        private let scheduler: S
        init(_ upstream: Upstream, _ scheduler: S) {
            self.upstream = upstream
            self.scheduler = scheduler
        }

        /// Attaches a subscriber (`sink`, `assign` or `subscribe(_:)` call this).
        public func receive<Sub: Subscriber>(subscriber: Sub) where Sub.Input == Output, Sub.Failure == Failure {
            Handover.deliver(upstream, on: scheduler, to: subscriber, value: \.map,
                replacing: { $0.replacingMap(with: $1) })
        }
    }
}

extension RealmCollectionChange {
    /// The collection the change is about; `nil` for `.error`.
    var collection: CollectionType? {
        switch self {
        case .initial(let collection), .update(let collection, _, _, _): collection
        case .error: nil
        }
    }

    /// The same change about another copy of the collection.
    func replacingCollection(with collection: CollectionType) -> RealmCollectionChange {
        switch self {
        case .initial: .initial(collection)
        case .update(_, let deletions, let insertions, let modifications):
            .update(collection, deletions: deletions, insertions: insertions, modifications: modifications)
        case .error: self
        }
    }
}

extension RealmMapChange {
    /// The map the change is about; `nil` for `.error`.
    var map: Collection? {
        switch self {
        case .initial(let map), .update(let map, _, _, _): map
        case .error: nil
        }
    }

    /// The same change about another copy of the map.
    func replacingMap(with map: Collection) -> RealmMapChange {
        switch self {
        case .initial: .initial(map)
        case .update(_, let deletions, let insertions, let modifications):
            .update(map, deletions: deletions, insertions: insertions, modifications: modifications)
        case .error: self
        }
    }
}
