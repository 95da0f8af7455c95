public import Dispatch

/// Change notifications on every collection kind: ``Results``, ``List``,
/// ``MutableSet``, ``LinkingObjects`` and ``AnyRealmCollection``.
extension RealmCollection {
    /// Registers a block called with the collection at first, and then after
    /// every commit that changes it.
    ///
    /// ```swift
    /// let token = realm.objects(Dog.self).where { $0.age > 3 }.observe(keyPaths: ["name"]) { change in
    ///     if case .update(_, let deletions, let insertions, let modifications) = change {
    ///         print(deletions, insertions, modifications)
    ///     }
    /// }
    /// ```
    ///
    /// The block is never called from `observe` itself. The first call is
    /// always `.initial`. Later calls come only when something the
    /// collection depends on changed: insertions and deletions always count;
    /// modifications count only on the key paths given (exactly those paths,
    /// backlinks included), or, unfiltered, any property of the element or
    /// of objects reachable from it by forward links within
    /// ``Realm/Configuration/collectionNotificationDepth`` hops. Several
    /// commits before a delivery arrive as one `.update`.
    ///
    /// Without a queue the block runs on this thread, at its next
    /// ``Realm/refresh()`` or ``Realm/beginWrite()`` (before the write
    /// begins), and on the main thread also from the main run loop. With a
    /// serial queue it runs there, with the collection confined to that
    /// queue and already at the delivered version.
    ///
    /// An invalid key path makes `.error` the only call, naming the property
    /// and class. Observing a frozen or unmanaged collection, or after
    /// changes in the open write transaction, stops with Realm's message.
    ///
    /// - Parameters:
    ///   - keyPaths: the element properties whose changes count as
    ///     modifications (`"owner.name"` follows the link); `nil` or empty
    ///     for unfiltered.
    ///   - queue: a serial queue to deliver on; `nil` for this thread.
    ///   - block: called with each change.
    /// - Returns: a token to hold for as long as the block should be called.
    ///
    /// - Note: Differs from Realm: key-path filters are exclusive per token
    ///   (Realm merges the filters of tokens on one collection); the first
    ///   callback is `.initial` for every kind of collection.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
        _ block: @escaping (RealmCollectionChange<Self>) -> Void) -> NotificationToken
    {
        observeDeliveries(keyPaths: keyPaths, on: queue) { collection, delivery in
            switch delivery {
            case .initial: block(.initial(collection))
            case .collection(let c, _): block(.update(collection, deletions: c.deletions, insertions: c.insertions, modifications: c.modifications))
            case .error(let error): block(.error(error))
            case .object, .map: break
            }
        }
    }

    /// Registers a block called with detailed changesets: moves, and
    /// modifications in both index spaces (see ``CollectionChangeSet``).
    /// Otherwise as `observe(keyPaths:on:_:)`.
    ///
    /// ```swift
    /// let token = dogs.sorted(byKeyPath: "age").observeDetailed { change in
    ///     if case .update(_, let changes) = change { print(changes.moves) }
    /// })
    /// ```
    public func observeDetailed(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
        _ block: @escaping (DetailedCollectionChange<Self>) -> Void) -> NotificationToken
    {
        observeDeliveries(keyPaths: keyPaths, on: queue) { collection, delivery in
            switch delivery {
            case .initial: block(.initial(collection))
            case .collection(let c, _): block(.update(collection, CollectionChangeSet(c)))
            case .error(let error): block(.error(error))
            case .object, .map: break
            }
        }
    }

    /// Registers an observation and turns its deliveries into calls of `handle`.
    func observeDeliveries(keyPaths: [String]?, on queue: DispatchQueue?, _ handle: @escaping (Self, Delivery) -> Void)
        -> NotificationToken
    {
        guard let base = resultsBase else {
            if managedInstance != nil { shoalPrecondition(nestedCollectionUnsupported("Change notifications")) }
            shoalPrecondition(ShoalError(.unsupported, "Change notifications are only supported on managed collections."))
        }
        let instance = base.instance
        instance.checkObservable()
        if isInvalidated { shoalPrecondition(ShoalError(.objectInvalidated, "Access to invalidated Results objects")) }
        let target = instance.deliveryInstance(for: queue)
        let collection = queue == nil ? self : rebound(to: target)
        let (table, source) = (base.table, base.source)
        let elementTable: TableKey? =
            if case .table(let t) = source.root(table: table, schema: instance.schema) { t } else { nil }
        let depth = instance.configuration.collectionNotificationDepth
        let filter = instance.modificationFilter(keyPaths, table: elementTable, unfiltered: .deep(elementTable == nil ? 0 : depth))
        return instance.observe(delivering: target, filter: filter,
            make: { snapshot, filter in NotifierFactory.collection(table: table, source: source, snapshot: snapshot, filter: filter) },
            handler: { delivery in
                collection.adoptElements(of: delivery)
                handle(collection, delivery)
            })
    }

    /// Hands a delivery's elements to the collection (see
    /// ``DeliveredElements``): read in the callback, it runs no query.
    func adoptElements(of delivery: Delivery) {
        switch delivery {
        case .initial(let elements?), .collection(_, let elements?): impl.adoptDelivered(elements)
        default: break
        }
    }

    /// The same collection read through another instance of its store (a
    /// queue-confined one, or a frozen one).
    func rebound(to instance: RealmInstance) -> Self {
        if let erased = self as? AnyRealmCollection<Element> {
            return AnyRealmCollection(erased.base.rebound(to: instance)) as! Self
        }
        return impl.rebinding(to: instance) as! Self
    }
}

extension RealmCollection where Element: Object {
    /// Registers a block for changes, filtered by typed key paths
    /// (`[\Dog.name, \Dog.owner?.name]`); otherwise as
    /// `observe(keyPaths:on:_:)`.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
        _ block: @escaping (RealmCollectionChange<Self>) -> Void) -> NotificationToken
    {
        observe(keyPaths: keyPaths.map { KeyPathTracer.name(of: $0) }, on: queue, block)
    }
}

extension ManagedSlot {
    /// The same property read through another instance of its store.
    func rebound(to instance: RealmInstance) -> ManagedSlot {
        ManagedSlot(ref: ObjectRef(realm: instance, table: ref.table, key: ref.key, generation: instance.generation), property: property,
            mixedPath: mixedPath)
    }
}

extension Results {
    func rebinding(to instance: RealmInstance) -> Results { Results(instance: instance, table: table, source: source) }
}

extension List {
    func rebinding(to instance: RealmInstance) -> List { slot.map { List(slot: $0.rebound(to: instance)) } ?? self }
}

extension MutableSet {
    func rebinding(to instance: RealmInstance) -> MutableSet { slot.map { MutableSet(slot: $0.rebound(to: instance)) } ?? self }
}

extension LinkingObjects {
    func rebinding(to instance: RealmInstance) -> LinkingObjects {
        slot.map { LinkingObjects(slot: $0.rebound(to: instance), originProperty: originProperty) } ?? self
    }
}
