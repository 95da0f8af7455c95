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
    /// - Note: Differs from Realm: each call opens a new instance (Realm
    ///   returns the actor's cached one), and its notifications are
    ///   delivered at ``refresh()`` and ``beginWrite()``, as on a thread
    ///   without a queue; `observe(on: actor)` delivers on any Realm.
    public init<A: Actor>(configuration: Configuration = .defaultConfiguration, actor: isolated A) async throws {
        let coordinator = try RealmCoordinator.coordinator(for: configuration)
        self.init(instance: RealmInstance(configuration: configuration, coordinator: coordinator, snapshot: coordinator.latest,
            frozen: false, actor: actor))
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
