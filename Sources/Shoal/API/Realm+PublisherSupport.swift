package import Dispatch

// The few internals the ShoalCombine product builds its publishers on, at
// `package` visibility: a will-change hook for `objectWillChange`, and a way to
// hand a value over to the live Realm of a serial queue for `receive(on:)`.
// Users of `Shoal` alone never see them.

extension Realm {
    /// Registers `block` to run on this Realm's thread whenever the
    /// observation behind `token` is about to be told of a change, just
    /// before this Realm advances to the version that shows the change (at
    /// `refresh()`, `beginWrite()` or the main queue's drain).
    ///
    /// The token must come from an observation made through this Realm
    /// without a queue. Its first delivery (`.initial`) and errors do not
    /// run the block. Call ``removeWillDeliver(_:)`` when the token is
    /// invalidated.
    package func onWillDeliver(_ token: NotificationToken, _ block: @escaping () -> Void) {
        guard let id = token.subscriptionID else { return }
        instance.willDeliverHooks.withLock { $0[id] = block }
    }

    /// Forgets the block registered for `token`; safe from any thread.
    package func removeWillDeliver(_ token: NotificationToken) {
        guard let id = token.subscriptionID else { return }
        instance.willDeliverHooks.withLock { _ = $0.removeValue(forKey: id) }
    }

    /// The live Realm confined to a serial queue, the one `observe(on:)`
    /// delivers through; made on first use. Call it from any thread; use the
    /// result only on `queue`.
    package func confined(to queue: DispatchQueue) -> Realm {
        Realm(instance: RealmInstance.confined(to: queue, configuration: instance.configuration, coordinator: instance.coordinator))
    }

    /// Moves this live Realm to at least `version` (the version a value
    /// handed to it was read at).
    fileprivate func catchUp(to version: UInt64) {
        instance.verifyThread()
        if instance.current.version < version { instance.refresh() }
    }

    /// The version this Realm reads.
    fileprivate var readVersion: UInt64 { instance.current.version }
}

extension RealmInstance {
    /// Runs the will-deliver hooks of the subscriptions about to be told of
    /// a change, before the instance advances to show it.
    func runWillDeliverHooks(_ deliveries: [(Subscription, Delivery)]) {
        let hooks = willDeliverHooks.withLock { $0 }
        guard !hooks.isEmpty else { return }
        let due = deliveries.compactMap { subscription, delivery -> (() -> Void)? in
            switch delivery {
            case .collection, .object, .map: hooks[subscription.id]
            case .initial, .error: nil
            }
        }
        guard !due.isEmpty else { return }
        isDelivering = true
        defer { isDelivering = false }
        for hook in due { hook() }
    }
}

extension Object {
    /// The same object read through `realm` (a live Realm of the same store
    /// on the calling thread or queue), or `nil` if it no longer exists
    /// there. `realm` first advances to the version this object was read at.
    /// An unmanaged object is returned as it is.
    package func handedOver(to realm: Realm) -> Self? {
        guard let ref else { return self }
        realm.catchUp(to: ref.realm.current.version)
        guard realm.instance.current.isAlive(ref.table, ref.key) else { return nil }
        return realm.instance.accessor(ref.link) as? Self
    }
}

extension RealmCollection {
    /// The same collection read through `realm` (a live Realm of the same
    /// store on the calling thread or queue), or `nil` if its owner no longer
    /// exists there. `realm` first advances to the version this collection
    /// was read at. An unmanaged collection is returned as it is.
    package func handedOver(to realm: Realm) -> Self? {
        guard let source = self.realm else { return self }
        realm.catchUp(to: source.readVersion)
        return reboundIfValid(to: realm.instance)
    }
}

extension Map {
    /// The same map read through `realm`; as
    /// `RealmCollection.handedOver(to:)`.
    package func handedOver(to realm: Realm) -> Map? {
        guard let source = self.realm else { return self }
        realm.catchUp(to: source.readVersion)
        return reboundIfValid(to: realm.instance)
    }
}

extension PropertyChange {
    /// One change from two in a row of the same property: the first's old
    /// value, the second's new one (for publishers merging changes kept
    /// while their subscriber has no demand).
    package init(merging earlier: PropertyChange, with later: PropertyChange) {
        self.init(name: later.name, oldValue: earlier.oldValue, newValue: later.newValue)
    }
}

extension SectionedResults {
    /// The same sections read through `realm` (a live Realm of the same
    /// store on the calling thread or queue), keyed again there; as
    /// `RealmCollection.handedOver(to:)`.
    package func handedOver(to realm: Realm) -> SectionedResults? {
        guard let source = self.realm else { return nil }
        realm.catchUp(to: source.readVersion)
        return SectionedResults(source: self.source.rebound(to: realm.instance))
    }
}

extension ResultsSection {
    /// The same section read through `realm`, or `nil` if no element has
    /// its key there; as `RealmCollection.handedOver(to:)`.
    package func handedOver(to realm: Realm) -> ResultsSection? {
        guard let moved = SectionedResults(source: source).handedOver(to: realm) else { return nil }
        let section = ResultsSection(source: moved.source, key: key)
        return section.isInvalidated ? nil : section
    }
}
