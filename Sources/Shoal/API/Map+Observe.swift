public import Dispatch

extension Map {
    /// Registers a block called with the map at first, and then after every
    /// commit that changes it: keys removed, added, and whose values changed
    /// (for a map of objects, also objects modified under `keyPaths`, or
    /// unfiltered to ``Realm/Configuration/collectionNotificationDepth``).
    ///
    /// ```swift
    /// let token = dog.scores.observe { change in
    ///     if case .update(_, let deletions, let insertions, let modifications) = change {
    ///         print(deletions, insertions, modifications)
    ///     }
    /// }
    /// ```
    ///
    /// Delivery is as for `observe(keyPaths:on:_:)`.
    ///
    /// - Note: Differs from Realm: the keys in each array are sorted; their
    ///   order is unspecified in Realm.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
        _ block: @escaping (RealmMapChange<Map>) -> Void) -> NotificationToken
    {
        guard let slot else {
            shoalPrecondition(ShoalError(.unsupported, "Change notifications are only supported on managed collections."))
        }
        if isNested { shoalPrecondition(nestedCollectionUnsupported("Change notifications")) }
        let instance = slot.ref.realm
        instance.checkObservable()
        slot.ref.checkValid()
        let target = instance.deliveryInstance(for: queue)
        let map = queue == nil ? self : rebinding(to: target)
        let property = slot.schemaProperty
        let valueTable = property.type == .object ? instance.schema.tableByName[property.objectClassName ?? ""] : nil
        let depth = instance.configuration.collectionNotificationDepth
        let filter = instance.modificationFilter(keyPaths, table: valueTable, unfiltered: .deep(valueTable == nil ? 0 : depth))
        let (owner, index) = (slot.ref.link, slot.property)
        return instance.observe(delivering: target, filter: filter,
            make: { snapshot, filter in MapNotifier(owner: owner, property: index, snapshot: snapshot, filter: filter) },
            handler: { delivery in
                switch delivery {
                case .initial: block(.initial(map))
                case .map(let deletions, let insertions, let modifications):
                    block(.update(map, deletions: deletions.map(Key.init(mapKeyString:)), insertions: insertions.map(Key.init(mapKeyString:)),
                        modifications: modifications.map(Key.init(mapKeyString:))))
                case .error(let error): block(.error(error))
                case .collection, .object: break
                }
            })
    }

    /// The same managed map read through another instance of its store.
    func rebinding(to instance: RealmInstance) -> Map { slot.map { Map(slot: $0.rebound(to: instance)) } ?? self }
}
