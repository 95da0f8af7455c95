extension Object {
    /// Registers a block called on `actor` after every commit that changes
    /// the object or deletes it, with the object as the actor's Realm sees it.
    ///
    /// ```swift
    /// actor Tracker {
    ///     var names: [String] = []
    ///     func note(_ change: ObjectChange<Dog>) {
    ///         if case .change(let dog, _) = change { names.append(dog.name) }
    ///     }
    /// }
    /// let tracker = Tracker()
    /// let token = await dog.observe(keyPaths: ["name"], on: tracker) { tracker, change in
    ///     tracker.note(change)
    /// }
    /// ```
    ///
    /// The object is handed to `actor` and resolved in the actor's Realm
    /// (see ``Realm/init(configuration:actor:)``), where the observation is
    /// made; each change's object belongs to that Realm and may be used on
    /// the actor. Key paths filter as in `observe(keyPaths:on:_:)` with a queue,
    /// and there is no initial callback. If the object is deleted before
    /// the actor resolves it, the block is never called.
    ///
    /// Call it from the object's thread or actor; observing an unmanaged,
    /// frozen or deleted object stops with Realm's message.
    ///
    /// - Parameters:
    ///   - keyPaths: the properties whose changes count; `nil` or empty for all.
    ///   - actor: the actor to call `block` on.
    ///   - block: called on `actor` with each change; `T` is the object's class.
    /// - Returns: a token to hold for as long as the block should be called.
    public func observe<A: Actor, T: Object>(keyPaths: [String]? = nil, on actor: A,
        _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, ObjectChange<T>) -> Void) async -> NotificationToken
    {
        guard let ref else {
            shoalPrecondition(ShoalError(.unsupported, "Only objects which are managed by a Realm support change notifications"))
        }
        ref.realm.checkObservable()
        guard ref.isValid else {
            shoalPrecondition(ShoalError(.objectInvalidated,
                "Accessing object of type \(ref.realm.schema[ref.table].className) which has been invalidated or deleted"))
        }
        let handle = ThreadSafeHandle(coordinator: ref.realm.coordinator, version: ref.realm.current.version, target: .object(ref.link))
        return await observeResolved(handle, on: actor, configuration: ref.realm.configuration) { object in
            (object as? Object)?.observe(keyPaths: keyPaths, actor.delivering(block))
        }
    }

    /// Registers a block called on `actor` for changes of the properties
    /// typed key paths read (`[\Dog.name, \Dog.owner?.name]`); otherwise as
    /// the version with key-path names.
    public func observe<A: Actor, T: Object>(keyPaths: [PartialKeyPath<T>], on actor: A,
        _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, ObjectChange<T>) -> Void) async -> NotificationToken
    {
        await observe(keyPaths: keyPaths.map { KeyPathTracer.name(of: $0) }, on: actor, block)
    }
}

/// Resolves the value `handle` names in `actor`'s Realm (see
/// ``Realm/init(configuration:actor:)``) and registers an observation there
/// with `register`, which gets the value as the type the handle was made
/// from. A value that no longer resolves (deleted meanwhile) gives a token
/// that observes nothing.
func observeResolved<A: Actor>(_ handle: ThreadSafeHandle, on actor: isolated A, configuration: Realm.Configuration,
    _ register: @Sendable (Any) -> NotificationToken?) -> NotificationToken
{
    let instance = RealmInstance.confined(to: actor, configuration: configuration, coordinator: handle.coordinator)
    if instance.current.version < handle.version { instance.refresh() }
    guard let value = handle.resolve(in: instance), let token = register(value) else {
        return NotificationToken(storeIdentifier: handle.coordinator.identifier, subscriptionID: nil) {}
    }
    return token
}

/// A value handed to the actor it already belongs to, inside a delivery
/// that runs on that actor.
struct OnActor<Value>: @unchecked Sendable {
    // Safe because: made and used in one synchronous delivery on the actor.
    let value: Value
    init(_ value: Value) { self.value = value }
}

extension Actor {
    /// A callback for an observation made in this actor's Realm, which
    /// delivers on the actor: it calls `block` isolated to the actor.
    nonisolated func delivering<Change>(_ block: @Sendable @escaping (isolated Self, Change) -> Void) -> (Change) -> Void {
        { change in
            let box = OnActor(change)
            self.assumeIsolated { actor in block(actor, box.value) }
        }
    }
}

extension Map {
    /// Registers a block called on `actor` with the map's changes, the map
    /// in each being the one in the actor's Realm.
    ///
    /// ```swift
    /// let token = await dog.scores.observe(on: tracker) { tracker, change in tracker.apply(change) }
    /// ```
    ///
    /// The map is handed to `actor` and resolved in the actor's Realm (see
    /// ``Realm/init(configuration:actor:)``), where it is observed as
    /// `observe(keyPaths:on:_:)` with a queue observes, `.initial` first.
    /// Call it from the map's thread or actor; if the map's object is
    /// deleted before the actor resolves it, the block is never called.
    ///
    /// - Parameters:
    ///   - keyPaths: for a map of objects, the properties whose changes count.
    ///   - actor: the actor to call `block` on.
    ///   - block: called on `actor` with each change.
    /// - Returns: a token to hold for as long as the block should be called.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
        _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, RealmMapChange<Map>) -> Void) async -> NotificationToken
    where Key: SendableMetatype, Value: SendableMetatype {
        guard let slot else {
            shoalPrecondition(ShoalError(.unsupported, "Change notifications are only supported on managed collections."))
        }
        slot.ref.realm.checkObservable()
        slot.ref.checkValid()
        guard let handle = threadSafeHandle() else {
            shoalPrecondition(ShoalError(.unsupported, "Change notifications are only supported on managed collections."))
        }
        return await observeResolved(handle, on: actor, configuration: slot.ref.realm.configuration) { map in
            (map as? Map)?.observe(keyPaths: keyPaths, actor.delivering(block))
        }
    }
}

extension RealmCollection where Element: Object {
    /// Registers a block called on `actor` with the collection's changes,
    /// filtered by typed key paths (`[\Dog.name, \Dog.owner?.name]`);
    /// otherwise as the version with key-path names.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element>], on actor: A,
        _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, RealmCollectionChange<Self>) -> Void) async -> NotificationToken
    where Self: SendableMetatype {
        await observe(keyPaths: keyPaths.map { KeyPathTracer.name(of: $0) }, on: actor, block)
    }
}
