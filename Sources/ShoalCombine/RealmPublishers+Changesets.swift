public import Dispatch
public import OpenCombine
public import OpenCombineDispatch
public import Shoal

extension RealmPublishers {
    /// A publisher that emits a `RealmCollectionChange` at first and
    /// after each change of a collection, as
    /// `RealmCollection/observe(keyPaths:on:_:)` reports them.
    ///
    /// `subscribe(on:)` and `receive(on:)` can be called on it directly;
    /// after another operator, call `threadSafeReference()` before
    /// `receive(on:)`. If `subscribe(on:)` is used, it should come first.
    public struct CollectionChangeset<Collection: RealmCollection & RealmSubscribable>: Publisher {
        /// Errors arrive as `.error` values.
        public typealias Failure = Never
        /// The change, with the collection live on the delivering thread or queue.
        public typealias Output = RealmCollectionChange<Collection>

        private let collection: Collection
        private let keyPaths: [String]?
        private let queue: DispatchQueue?

        init(_ collection: Collection, keyPaths: [String]? = nil, queue: DispatchQueue? = nil) {
            precondition(collection.realm != nil, "Only managed collections can be published")
            self.collection = collection
            self.keyPaths = keyPaths
            self.queue = queue
        }

        /// Attaches a subscriber (`sink`, `assign` or `subscribe(_:)` call this).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
            typealias Buffer = ChangeCoalescing.CollectionBuffer<Collection>
            let subscription = ObservationSubscription<S, Buffer>(subscriber, context: DeliveryContext(queue),
                merge: { ChangeCoalescing.merge($0, $1) }, output: \.change)
            let token = collection.observe(keyPaths: keyPaths, on: queue) { change in
                let count: Int
                switch change {
                case .initial(let c), .update(let c, _, _, _): count = c.isInvalidated ? 0 : c.count
                case .error: count = 0
                }
                subscription.send(Buffer(change: change, count: count))
            }
            subscription.start(token: token)
        }

        /// Observes on a serial queue (`queue.ocombine`): changes arrive
        /// there, the collection live on that queue. Other schedulers stop
        /// the program, as in Realm.
        public func subscribe<S: Scheduler>(on scheduler: S) -> CollectionChangeset<Collection> {
            CollectionChangeset(collection, keyPaths: keyPaths, queue: RealmPublishers.queue(of: scheduler))
        }

        /// Observes on a serial queue; as ``subscribe(on:)-(S)``.
        public func subscribe(on queue: DispatchQueue) -> CollectionChangeset<Collection> {
            CollectionChangeset(collection, keyPaths: keyPaths, queue: queue)
        }

        /// Delivers changes on another scheduler, the collection handed over
        /// to that scheduler's Realm. When in doubt, use `subscribe(on:)`.
        public func receive<S: Scheduler>(on scheduler: S) -> DeferredHandoverCollectionChangeset<Self, Collection, S> {
            DeferredHandoverCollectionChangeset(self, scheduler)
        }

        /// Delivers on a serial queue; as ``receive(on:)-(S)``, for code
        /// written for Apple's Combine, where queues are schedulers.
        public func receive(on queue: DispatchQueue) -> DeferredHandoverCollectionChangeset<Self, Collection, DispatchQueue.OCombine> {
            DeferredHandoverCollectionChangeset(self, queue.ocombine)
        }
    }

    /// A publisher that emits a `RealmMapChange` at first and after
    /// each change of a map, as `Map/observe(keyPaths:on:_:)`
    /// reports them.
    ///
    /// - Note: Differs from Realm: generic over the map's key and value
    ///   types (Realm's is generic over the keyed collection).
    public struct MapChangeset<Key: MapKey, Value: RealmCollectionValue>: Publisher {
        /// Errors arrive as `.error` values.
        public typealias Failure = Never
        /// The change, with the map live on the delivering thread or queue.
        public typealias Output = RealmMapChange<Map<Key, Value>>

        private let map: Map<Key, Value>
        private let keyPaths: [String]?
        private let queue: DispatchQueue?

        init(_ map: Map<Key, Value>, keyPaths: [String]? = nil, queue: DispatchQueue? = nil) {
            precondition(map.realm != nil, "Only managed collections can be published")
            self.map = map
            self.keyPaths = keyPaths
            self.queue = queue
        }

        /// Attaches a subscriber (`sink`, `assign` or `subscribe(_:)` call this).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
            let subscription = ObservationSubscription<S, Output>(subscriber, context: DeliveryContext(queue),
                merge: { ChangeCoalescing.merge($0, $1) }, output: { $0 })
            let token = map.observe(keyPaths: keyPaths, on: queue) { subscription.send($0) }
            subscription.start(token: token)
        }

        /// Observes on a serial queue (`queue.ocombine`); other schedulers
        /// stop the program, as in Realm.
        public func subscribe<S: Scheduler>(on scheduler: S) -> MapChangeset<Key, Value> {
            MapChangeset(map, keyPaths: keyPaths, queue: RealmPublishers.queue(of: scheduler))
        }

        /// Observes on a serial queue; as ``subscribe(on:)-(S)``.
        public func subscribe(on queue: DispatchQueue) -> MapChangeset<Key, Value> {
            MapChangeset(map, keyPaths: keyPaths, queue: queue)
        }

        /// Delivers changes on another scheduler, the map handed over to
        /// that scheduler's Realm.
        public func receive<S: Scheduler>(on scheduler: S) -> DeferredHandoverKeyedCollectionChangeset<Self, Key, Value, S> {
            DeferredHandoverKeyedCollectionChangeset(self, scheduler)
        }

        /// Delivers on a serial queue; as ``receive(on:)-(S)``, for code
        /// written for Apple's Combine, where queues are schedulers.
        public func receive(on queue: DispatchQueue) -> DeferredHandoverKeyedCollectionChangeset<Self, Key, Value, DispatchQueue.OCombine> {
            DeferredHandoverKeyedCollectionChangeset(self, queue.ocombine)
        }
    }

    /// A publisher that emits an `ObjectChange` each time an object or a
    /// projection changes, and finishes when the object is deleted.
    ///
    /// Create it with `changesetPublisher(_:keyPaths:)`. An invalid key path
    /// arrives as an `.error` value.
    public struct ObjectChangeset<O: RealmSubscribable>: Publisher {
        /// Errors arrive as `.error` values.
        public typealias Failure = Never
        /// The change, with the object live on the delivering thread or queue.
        public typealias Output = ObjectChange<O>

        /// Registers the observation of the object or projection on a queue
        /// (`nil` for the subscribing thread).
        typealias Observe = (DispatchQueue?, @escaping (ObjectChange<O>) -> Void) -> NotificationToken

        private let observe: Observe
        private let queue: DispatchQueue?

        /// A publisher of `value`'s changes, observed by `observe`; stops as
        /// Realm does for an unmanaged or deleted value.
        init(_ value: O, queue: DispatchQueue? = nil, observe: @escaping Observe) {
            precondition(value.realm != nil, "Only managed objects can be published")
            precondition(!value.isInvalidated, "Object is invalidated or deleted")
            self.init(observe, queue: queue)
        }

        private init(_ observe: @escaping Observe, queue: DispatchQueue?) {
            self.observe = observe
            self.queue = queue
        }

        /// Attaches a subscriber (`sink`, `assign` or `subscribe(_:)` call this).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
            let subscription = ObservationSubscription<S, Output>(subscriber, context: DeliveryContext(queue),
                merge: { ChangeCoalescing.merge($0, $1) }, output: { $0 })
            let token = observe(queue) { change in
                if case .deleted = change {
                    subscription.finish(.finished)
                } else {
                    subscription.send(change)
                }
            }
            subscription.start(token: token)
        }

        /// Observes on a serial queue (`queue.ocombine`); other schedulers
        /// stop the program, as in Realm.
        public func subscribe<S: Scheduler>(on scheduler: S) -> ObjectChangeset<O> {
            ObjectChangeset(observe, queue: RealmPublishers.queue(of: scheduler))
        }

        /// Observes on a serial queue; as ``subscribe(on:)-(S)``.
        public func subscribe(on queue: DispatchQueue) -> ObjectChangeset<O> {
            ObjectChangeset(observe, queue: queue)
        }

        /// Delivers changes on another scheduler, the object handed over to
        /// that scheduler's Realm.
        public func receive<S: Scheduler>(on scheduler: S) -> DeferredHandoverObjectChangeset<Self, O, S> {
            DeferredHandoverObjectChangeset(self, scheduler)
        }

        /// Delivers on a serial queue; as ``receive(on:)-(S)``, for code
        /// written for Apple's Combine, where queues are schedulers.
        public func receive(on queue: DispatchQueue) -> DeferredHandoverObjectChangeset<Self, O, DispatchQueue.OCombine> {
            DeferredHandoverObjectChangeset(self, queue.ocombine)
        }
    }
}
