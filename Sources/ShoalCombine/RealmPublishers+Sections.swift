public import Dispatch
public import OpenCombine
public import OpenCombineDispatch
public import Shoal

extension SectionedResults: RealmSubscribable {
    /// For ShoalCombine's publishers (``RealmSubscribable/_observe(_:on:_:)``); use their API instead.
    public func _observe<S: Subscriber>(_ keyPaths: [String]?, on queue: DispatchQueue?, _ subscriber: S) -> NotificationToken
    where S.Input == SectionedResults, S.Failure == any Error {
        observe(keyPaths: keyPaths, on: queue) { change in change.forward(to: subscriber) }
    }

    /// For ShoalCombine's `receive(on:)` (``RealmSubscribable/_handedOver(to:)``); use the publishers instead.
    public func _handedOver(to realm: Realm) -> SectionedResults? { handedOver(to: realm) }
}

extension ResultsSection: RealmSubscribable {
    /// For ShoalCombine's publishers (``RealmSubscribable/_observe(_:on:_:)``); use their API instead.
    public func _observe<S: Subscriber>(_ keyPaths: [String]?, on queue: DispatchQueue?, _ subscriber: S) -> NotificationToken
    where S.Input == ResultsSection, S.Failure == any Error {
        observe(keyPaths: keyPaths, on: queue) { change in change.forward(to: subscriber) }
    }

    /// For ShoalCombine's `receive(on:)` (``RealmSubscribable/_handedOver(to:)``); use the publishers instead.
    public func _handedOver(to realm: Realm) -> ResultsSection? { handedOver(to: realm) }
}

/// Publishers on `SectionedResults` and `ResultsSection`.
///
/// ```swift
/// let cancellable = realm.objects(Dog.self).sectioned(by: \.breed, ascending: true)
///     .changesetPublisher
///     .sink { change in
///         if case .update(_, let deletions, let insertions, _, let sectionsToInsert, let sectionsToDelete) = change {
///             print(deletions, insertions, sectionsToInsert, sectionsToDelete)
///         }
///     }
/// ```
extension RealmSectionedResult where Self: RealmSubscribable {
    /// A publisher that emits `Void` before each change of the sections
    /// becomes visible on this thread (see ``RealmPublishers/WillChange``).
    public var objectWillChange: RealmPublishers.WillChange<Self> {
        RealmPublishers.WillChange(self)
    }

    /// A publisher that emits the sections (or section) at first and after
    /// each change.
    public var collectionPublisher: RealmPublishers.Value<Self> {
        RealmPublishers.Value(self)
    }

    /// A publisher that emits the sections (or section) at first and after
    /// each change on the given key paths.
    public func collectionPublisher(keyPaths: [String]?) -> RealmPublishers.Value<Self> {
        RealmPublishers.Value(self, keyPaths: keyPaths)
    }

    /// A publisher that emits a `SectionedResultsChange` at first
    /// and after each change.
    public var changesetPublisher: RealmPublishers.SectionChangeset<Self> {
        RealmPublishers.SectionChangeset(self)
    }

    /// A publisher that emits a `SectionedResultsChange` at first
    /// and after each change on the given key paths.
    public func changesetPublisher(keyPaths: [String]?) -> RealmPublishers.SectionChangeset<Self> {
        RealmPublishers.SectionChangeset(self, keyPaths: keyPaths)
    }
}

extension RealmPublishers {
    /// Realm's name for the changeset publisher of `SectionedResults`.
    public typealias SectionedResultsChangeset<Collection: RealmSectionedResult & RealmSubscribable> = SectionChangeset<Collection>

    /// A publisher that emits a `SectionedResultsChange` at first
    /// and after each change of sectioned results or of one section, as
    /// their `observe(keyPaths:on:_:)` reports them.
    ///
    /// - Note: Differs from Realm: demand is respected. Changes of
    ///   `SectionedResults` that arrive while the subscriber has no
    ///   demand are merged into one; for a single `ResultsSection`,
    ///   whose changes cannot be lined up without the sections around it,
    ///   they arrive as one `.initial` with the current section (reload).
    public struct SectionChangeset<Collection: RealmSectionedResult & RealmSubscribable>: Publisher {
        /// The publisher never fails: a key path that names no property
        /// stops the program when it is subscribed to, as in Realm.
        public typealias Failure = Never
        /// The change, with the sections live on the delivering thread or queue.
        public typealias Output = SectionedResultsChange<Collection>

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
            typealias Buffer = ChangeCoalescing.SectionBuffer<Collection>
            let subscription = ObservationSubscription<S, Buffer>(subscriber, context: DeliveryContext(queue),
                merge: { ChangeCoalescing.merge($0, $1) }, output: \.change)
            var shape: SectionShape?   // after the last change, on the delivering thread or queue
            let token = collection.observe(keyPaths: keyPaths, on: queue) { change in
                let before = shape
                shape = (change.collection as? any SectionShaped)?.sectionShape
                subscription.send(Buffer(change: change, before: before, after: shape))
            }
            subscription.start(token: token)
        }

        /// Observes on a serial queue (`queue.ocombine`); other schedulers
        /// stop the program, as in Realm.
        public func subscribe<S: Scheduler>(on scheduler: S) -> SectionChangeset<Collection> {
            SectionChangeset(collection, keyPaths: keyPaths, queue: RealmPublishers.queue(of: scheduler))
        }

        /// Observes on a serial queue; as ``subscribe(on:)-(S)``.
        public func subscribe(on queue: DispatchQueue) -> SectionChangeset<Collection> {
            SectionChangeset(collection, keyPaths: keyPaths, queue: queue)
        }

        /// Delivers changes on another scheduler, the sections handed over
        /// to that scheduler's Realm.
        public func receive<S: Scheduler>(on scheduler: S) -> DeferredHandoverSectionedResultsChangeset<Self, Collection, S> {
            DeferredHandoverSectionedResultsChangeset(self, scheduler)
        }

        /// Delivers on a serial queue; as ``receive(on:)-(S)``.
        public func receive(on queue: DispatchQueue)
            -> DeferredHandoverSectionedResultsChangeset<Self, Collection, DispatchQueue.OCombine>
        {
            DeferredHandoverSectionedResultsChangeset(self, queue.ocombine)
        }
    }

    /// A publisher that makes `receive(on:)` work for sectioned changesets:
    /// create it with `threadSafeReference()`.
    public struct MakeThreadSafeSectionedResultsChangeset<Upstream: Publisher, T: RealmSectionedResult & RealmSubscribable>:
        Publisher
    where Upstream.Output == SectionedResultsChange<T> {
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

        /// Delivers each change on `scheduler`, the sections handed over.
        public func receive<S: Scheduler>(on scheduler: S) -> DeferredHandoverSectionedResultsChangeset<Upstream, T, S> {
            DeferredHandoverSectionedResultsChangeset(upstream, scheduler)
        }

        /// Delivers on a serial queue; as ``receive(on:)-(S)``.
        public func receive(on queue: DispatchQueue)
            -> DeferredHandoverSectionedResultsChangeset<Upstream, T, DispatchQueue.OCombine>
        {
            DeferredHandoverSectionedResultsChangeset(upstream, queue.ocombine)
        }
    }

    /// A publisher that delivers sectioned changesets to a scheduler, the
    /// sections handed over to its live Realm (keyed again there).
    public struct DeferredHandoverSectionedResultsChangeset<Upstream: Publisher, T: RealmSectionedResult & RealmSubscribable,
        S: Scheduler>: Publisher
    where Upstream.Output == SectionedResultsChange<T> {
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
            Handover.deliver(upstream, on: scheduler, to: subscriber, value: { $0.collection },
                replacing: { $0.replacingCollection(with: $1) })
        }
    }
}

extension Publisher {
    /// Freezes the sections of every sectioned changeset the upstream
    /// emits; the frozen sections always match the index paths.
    public func freeze<T: RealmSectionedResult>() -> Publishers.Map<Self, SectionedResultsChange<T>>
    where Output == SectionedResultsChange<T> {
        map { change in change.replacingCollection(with: change.collection.freeze()) }
    }

    /// Enables `receive(on:)` for sectioned changesets after other
    /// operators: the sections are handed over to the receiving queue's Realm.
    public func threadSafeReference<T: RealmSectionedResult & RealmSubscribable>()
        -> RealmPublishers.MakeThreadSafeSectionedResultsChangeset<Self, T> where Output == SectionedResultsChange<T>
    {
        RealmPublishers.MakeThreadSafeSectionedResultsChangeset(self)
    }
}

extension SectionedResultsChange {
    /// The sections the change is about.
    var collection: Collection {
        switch self {
        case .initial(let collection), .update(let collection, _, _, _, _, _): collection
        }
    }

    /// The same change about another copy of the sections.
    func replacingCollection(with collection: Collection) -> SectionedResultsChange {
        switch self {
        case .initial: .initial(collection)
        case .update(_, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
            .update(collection, deletions: deletions, insertions: insertions, modifications: modifications,
                sectionsToInsert: sectionsToInsert, sectionsToDelete: sectionsToDelete)
        }
    }

    /// Hands the change to a `RealmSubscribable` observation's subscriber.
    func forward<S: Subscriber>(to subscriber: S) where S.Input == Collection, S.Failure == any Error {
        switch self {
        case .initial(let collection), .update(let collection, _, _, _, _, _): _ = subscriber.receive(collection)
        }
    }
}
