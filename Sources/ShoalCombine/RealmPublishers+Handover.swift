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
}

extension RealmPublishers {
    /// A publisher that makes `receive(on:)` work for a stream of objects or
    /// collections: create it with `threadSafeReference()`.
    public struct MakeThreadSafe<Upstream: Publisher>: Publisher where Upstream.Output: RealmSubscribable {
        public typealias Failure = Upstream.Failure
        public typealias Output = Upstream.Output

        private let upstream: Upstream
        init(_ upstream: Upstream) { self.upstream = upstream }

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
        public typealias Failure = Upstream.Failure
        public typealias Output = Upstream.Output

        private let upstream: Upstream
        private let scheduler: S
        init(_ upstream: Upstream, _ scheduler: S) {
            self.upstream = upstream
            self.scheduler = scheduler
        }

        public func receive<Sub: Subscriber>(subscriber: Sub) where Sub.Input == Output, Sub.Failure == Failure {
            let scheduler = self.scheduler
            upstream.map { Handover($0) }
                .receive(on: scheduler)
                .compactMap { $0.resolve(on: scheduler) }
                .receive(subscriber: subscriber)
        }
    }

    /// A publisher that makes `receive(on:)` work for object changesets:
    /// create it with `threadSafeReference()`.
    public struct MakeThreadSafeObjectChangeset<Upstream: Publisher, T: Object>: Publisher
    where Upstream.Output == ObjectChange<T> {
        public typealias Failure = Upstream.Failure
        public typealias Output = Upstream.Output

        private let upstream: Upstream
        init(_ upstream: Upstream) { self.upstream = upstream }

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

    /// A publisher that delivers object changesets to a scheduler, the
    /// object handed over to its live Realm (the property changes are those
    /// of the version handed over).
    public struct DeferredHandoverObjectChangeset<Upstream: Publisher, T: Object, S: Scheduler>: Publisher
    where Upstream.Output == ObjectChange<T> {
        public typealias Failure = Upstream.Failure
        public typealias Output = Upstream.Output

        private let upstream: Upstream
        private let scheduler: S
        init(_ upstream: Upstream, _ scheduler: S) {
            self.upstream = upstream
            self.scheduler = scheduler
        }

        public func receive<Sub: Subscriber>(subscriber: Sub) where Sub.Input == Output, Sub.Failure == Failure {
            let scheduler = self.scheduler
            upstream.map { change -> (Handover<T>?, ObjectChange<T>) in
                if case .change(let object, _) = change { return (Handover(object), change) }
                return (nil, change)
            }
            .receive(on: scheduler)
            .compactMap { handover, change -> ObjectChange<T>? in
                guard let handover, case .change(_, let properties) = change else { return change }
                return handover.resolve(on: scheduler).map { .change($0, properties) }
            }
            .receive(subscriber: subscriber)
        }
    }

    /// A publisher that makes `receive(on:)` work for collection
    /// changesets: create it with `threadSafeReference()`.
    public struct MakeThreadSafeCollectionChangeset<Upstream: Publisher, T: RealmCollection & RealmSubscribable>: Publisher
    where Upstream.Output == RealmCollectionChange<T> {
        public typealias Failure = Upstream.Failure
        public typealias Output = Upstream.Output

        private let upstream: Upstream
        init(_ upstream: Upstream) { self.upstream = upstream }

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
        public typealias Failure = Upstream.Failure
        public typealias Output = Upstream.Output

        private let upstream: Upstream
        private let scheduler: S
        init(_ upstream: Upstream, _ scheduler: S) {
            self.upstream = upstream
            self.scheduler = scheduler
        }

        public func receive<Sub: Subscriber>(subscriber: Sub) where Sub.Input == Output, Sub.Failure == Failure {
            let scheduler = self.scheduler
            upstream.map { change -> (Handover<T>?, RealmCollectionChange<T>) in
                switch change {
                case .initial(let c), .update(let c, _, _, _): (Handover(c), change)
                case .error: (nil, change)
                }
            }
            .receive(on: scheduler)
            .compactMap { handover, change -> RealmCollectionChange<T>? in
                guard let resolved = handover?.resolve(on: scheduler) else { return handover == nil ? change : nil }
                return change.replacingCollection(with: resolved)
            }
            .receive(subscriber: subscriber)
        }
    }

    /// A publisher that makes `receive(on:)` work for map changesets:
    /// create it with `threadSafeReference()`.
    public struct MakeThreadSafeKeyedCollectionChangeset<Upstream: Publisher, Key: MapKey, Value: RealmCollectionValue>: Publisher
    where Upstream.Output == RealmMapChange<Map<Key, Value>> {
        public typealias Failure = Upstream.Failure
        public typealias Output = Upstream.Output

        private let upstream: Upstream
        init(_ upstream: Upstream) { self.upstream = upstream }

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
        public typealias Failure = Upstream.Failure
        public typealias Output = Upstream.Output

        private let upstream: Upstream
        private let scheduler: S
        init(_ upstream: Upstream, _ scheduler: S) {
            self.upstream = upstream
            self.scheduler = scheduler
        }

        public func receive<Sub: Subscriber>(subscriber: Sub) where Sub.Input == Output, Sub.Failure == Failure {
            let scheduler = self.scheduler
            upstream.map { change -> (Handover<Map<Key, Value>>?, RealmMapChange<Map<Key, Value>>) in
                switch change {
                case .initial(let map), .update(let map, _, _, _): (Handover(map), change)
                case .error: (nil, change)
                }
            }
            .receive(on: scheduler)
            .compactMap { handover, change -> RealmMapChange<Map<Key, Value>>? in
                guard let resolved = handover?.resolve(on: scheduler) else { return handover == nil ? change : nil }
                return change.replacingMap(with: resolved)
            }
            .receive(subscriber: subscriber)
        }
    }
}

extension RealmCollectionChange {
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
