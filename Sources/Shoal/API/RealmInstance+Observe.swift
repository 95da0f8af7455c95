import Dispatch

extension RealmInstance {
    /// Stops with Realm's message when this Realm cannot register an observation.
    func checkObservable() {
        verifyThread()
        if isFrozen {
            shoalPrecondition(ShoalError(.unsupported, "Frozen Realms do not change and do not have change notifications."))
        }
        if configuration.readOnly {
            shoalPrecondition(ShoalError(.unsupported, "Read-only Realms do not change and do not have change notifications."))
        }
        if let transaction, transaction.changeCount > 0 {
            shoalPrecondition(ShoalError(.unsupported, "Cannot create asynchronous query after making changes in a write transaction."))
        }
    }

    /// The instance whose mailbox delivers to `queue` (this one without a queue).
    func deliveryInstance(for queue: DispatchQueue?) -> RealmInstance {
        guard let queue else { return self }
        return RealmInstance.confined(to: queue, configuration: configuration, coordinator: coordinator)
    }

    /// Registers an observation delivered through `target`'s mailbox.
    ///
    /// - Parameters:
    ///   - filter: the resolved key-path filter, or the error that makes the
    ///     observation's only callback `.error`.
    ///   - make: builds the notifier on the engine's worker.
    ///   - handler: runs on the target's thread or queue, the target
    ///     already at the delivered version.
    ///   - sectioning: for sectioned results, the key's dependencies (see
    ///     ``Subscription/sectioning``).
    func observe(delivering target: RealmInstance, filter: Result<ModificationFilter, ShoalError>,
        sectioning keyFilter: ModificationFilter? = nil,
        make: @escaping (Snapshot, ModificationFilter) -> Notifier, handler: @escaping (Delivery) -> Void) -> NotificationToken
    {
        let mailbox = target.ensureMailbox()
        let tracker = coordinator.ensureTracker()
        let subscription = Subscription(id: tracker.makeID(), target: .mailbox(mailbox), handler: handler)
        let filter = Self.sectioned(filter, keyFilter, subscription)
        register(subscription, tracker: tracker, filter: filter, make: make)
        return token(for: subscription, tracker: tracker)
    }

    /// Registers an observation that a consumer takes (streams, actors):
    /// `signal` is called when changes are waiting.
    func observePulled(filter: Result<ModificationFilter, ShoalError>, sectioning keyFilter: ModificationFilter? = nil,
        make: @escaping (Snapshot, ModificationFilter) -> Notifier,
        signal: @escaping @Sendable () -> Void) -> (Subscription, DependencyTracker, NotificationToken)
    {
        let tracker = coordinator.ensureTracker()
        let subscription = Subscription(id: tracker.makeID(), target: .pull(signal), handler: nil)
        let filter = Self.sectioned(filter, keyFilter, subscription)
        register(subscription, tracker: tracker, filter: filter, make: make)
        return (subscription, tracker, token(for: subscription, tracker: tracker))
    }

    /// For a sectioned observation, marks the subscription and widens the
    /// notifier's filter to what the section key reads as well.
    private static func sectioned(_ filter: Result<ModificationFilter, ShoalError>, _ keyFilter: ModificationFilter?,
        _ subscription: Subscription) -> Result<ModificationFilter, ShoalError>
    {
        guard let keyFilter, case .success(let observed) = filter else { return filter }
        subscription.sectioning = (observed, keyFilter)
        return .success(.union(observed, keyFilter))
    }

    private func register(_ subscription: Subscription, tracker: DependencyTracker, filter: Result<ModificationFilter, ShoalError>,
        make: @escaping (Snapshot, ModificationFilter) -> Notifier)
    {
        switch filter {
        case .failure(let error): tracker.registerFailed(subscription, error: error)
        case .success(let filter):
            _ = coordinator.register(subscription) { (snapshot: Snapshot) throws(ShoalError) -> Notifier in make(snapshot, filter) }
        }
    }

    private func token(for subscription: Subscription, tracker: DependencyTracker) -> NotificationToken {
        NotificationToken(storeIdentifier: coordinator.identifier, subscriptionID: subscription.id) { [weak tracker] in
            subscription.invalidate()
            tracker?.unregister(subscription)
        }
    }

    /// Resolves a key-path filter for elements of `table` (`nil` for values).
    func modificationFilter(_ keyPaths: [String]?, table: TableKey?, unfiltered: ModificationFilter) -> Result<ModificationFilter, ShoalError> {
        Result { () throws(ShoalError) -> ModificationFilter in
            try NotifierFactory.filter(keyPaths, table: table, schema: schema, unfiltered: unfiltered)
        }
    }
}
