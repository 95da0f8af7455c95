extension Realm {
    /// Opens a Realm confined to `actor`: it may be used only from code
    /// isolated to that actor, on whatever thread the actor runs.
    ///
    /// ```swift
    /// actor Store {
    ///     var realm: Realm!
    ///     func open(_ config: Realm.Configuration) async throws {
    ///         realm = try await Realm(configuration: config, actor: self)
    ///     }
    ///     func add(_ id: Int) async throws {
    ///         try await realm.asyncWrite { realm.create(Dog.self, value: ["id": id]) }
    ///     }
    /// }
    /// ```
    ///
    /// The Realm runs its ``writeAsync(_:onComplete:)`` blocks, delivers
    /// its notifications and refreshes itself after other threads' commits
    /// (see ``autorefresh``) on the actor, as Realm does; calls for the
    /// same store and actor share one instance. The main actor's Realm is
    /// the main thread's.
    ///
    /// - Parameters:
    ///   - configuration: the store to open.
    ///   - actor: the actor to confine the Realm to; the caller need not be
    ///     isolated to it, but only code isolated to it may use the Realm.
    public init<A: Actor>(configuration: Configuration = .defaultConfiguration, actor: A) async throws {
        let coordinator = try RealmCoordinator.coordinator(for: configuration)
        self.init(instance: RealmInstance.confined(to: actor, configuration: configuration, coordinator: coordinator))
    }

    /// Runs `block` in a write transaction and commits it, returning what
    /// the block returns; on a thrown error the write is cancelled and the
    /// error rethrown.
    ///
    /// ```swift
    /// let dog = try await realm.asyncWrite { realm.create(Dog.self, value: ["id": 1]) }
    /// ```
    ///
    /// - Note: Differs from Realm, which allows it only on the main actor and
    ///   on actor-confined Realms: Shoal allows it on any live Realm, in the
    ///   caller's isolation. The write lock is waited for as
    ///   ``beginWrite()`` waits.
    @discardableResult
    nonisolated(nonsending) public func asyncWrite<Result>(_ block: () throws -> Result) async throws -> Result {
        instance.verifyThread()
        try instance.beginWrite()
        do {
            let result = try block()
            if isInWriteTransaction { try commitWrite() }
            return result
        } catch {
            if isInWriteTransaction { cancelWrite() }
            throw error
        }
    }
}
