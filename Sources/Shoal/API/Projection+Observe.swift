public import Dispatch
import Foundation

extension ProjectionObservable {
    /// Registers a block called after every commit that changes a projected
    /// property of the projection's object, or deletes the object.
    ///
    /// ```swift
    /// let token = personProjection.observe(keyPaths: ["firstName"]) { change in
    ///     if case .change(_, let properties) = change {
    ///         for p in properties { print(p.name, p.newValue ?? "nil") }   // the projection's names
    ///     }
    /// }
    /// ```
    ///
    /// Changes are reported under the projection's property names, one
    /// ``PropertyChange`` for each projected property whose root key path
    /// starts at a changed root property (several when several project
    /// one root property). Changes of root properties that no `@Projected`
    /// property reads are not reported. A `projectTo` collection counts
    /// changes of its elements' projected property too.
    ///
    /// - Parameters:
    ///   - keyPaths: the projected properties whose changes count, each by
    ///     the root key path it projects (`"address.city"`, as Realm names
    ///     them) or by its name in the projection (`"homeCity"`); `nil` or
    ///     empty for all. Names that match no projected property count for
    ///     nothing (with only such names, only deletion is reported), as in Realm.
    ///   - queue: a serial queue to deliver on; `nil` for this thread.
    ///   - block: called with each change; `.change` carries this projection
    ///     (or, on a queue, a projection of the queue's object).
    /// - Returns: a token to hold for as long as the block should be called.
    /// - Note: Differs from Realm: `oldValue` is the value as last delivered
    ///   (Realm gives `nil` for changes made on the observing thread), read
    ///   through the projected key path; `nil` for collection properties.
    ///   For a change inside a linked object the old value is read from the
    ///   same object, so it shows its new values, as Realm documents.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken
    {
        let projectionType = type(of: self)
        let schema = projectionType.schema
        var selected = schema
        if let keyPaths, !keyPaths.isEmpty {
            selected = schema.filter { keyPaths.contains($0.origin) || keyPaths.contains($0.label) }
        }
        // With no projected property selected the root is observed for all
        // of them, and every change is filtered out: deletion alone is reported.
        let filtering = selected.isEmpty ? [] : selected
        var observed: [String] = []
        for property in (filtering.isEmpty ? schema : filtering) where !observed.contains(property.observed) {
            observed.append(property.observed)
        }
        let rootSchema = rootObject.objectSchema
        var projection: Self? = queue == nil ? self : nil
        return rootObject.observe(keyPaths: observed, on: queue) { (change: ObjectChange<Root>) in
            switch change {
            case .deleted: block(.deleted)
            case .error(let error): block(.error(error))
            case .change(let root, let changes):
                let changed = Set(changes.map(\.name))
                let reported = filtering.filter { changed.contains(String($0.origin.prefix { $0 != "." })) }
                guard !reported.isEmpty else { return }
                let made = projection ?? projectionType.init(projecting: root)
                projection = made
                let previous = Self.previousRoot(changes, schema: rootSchema)
                var properties: [PropertyChange] = []
                for change in changes {
                    let isCollection = rootSchema[change.name].map { $0.collection != .none || $0.type == .linkingObjects } ?? false
                    for property in reported where property.origin.prefix(while: { $0 != "." }) == change.name {
                        properties.append(PropertyChange(name: property.label,
                            oldValue: isCollection ? nil : Self.flattened(previous[keyPath: property.keyPath]),
                            newValue: Self.flattened(root[keyPath: property.keyPath])))
                    }
                }
                block(.change(made, properties))
            }
        }
    }

    /// Registers a block for changes of the projected properties typed key
    /// paths of the projection read (`[\PersonProjection.homeCity]`);
    /// otherwise as `observe(keyPaths:on:_:)`.
    public func observe(keyPaths: [PartialKeyPath<Self>], on queue: DispatchQueue? = nil,
        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken
    {
        observe(keyPaths: keyPaths.map { type(of: self).originNames(of: $0).joined(separator: ".") }, on: queue, block)
    }

    /// Registers a block called on `actor` after every commit that changes
    /// a projected property of the projection's object, or deletes it; see
    /// `observe(keyPaths:on:_:)`.
    ///
    /// ```swift
    /// let token = await projection.observe(keyPaths: ["int"], on: myActor) { actor, change in ... }
    /// ```
    ///
    /// - Note: Differs from Realm: the projection in each change is frozen
    ///   at the version the change describes (as Shoal's collection
    ///   observation on an actor gives); thaw it on the actor if you need it live.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
        _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, ObjectChange<Self>) -> Void) async -> NotificationToken
    {
        observeFrozen(keyPaths: keyPaths, on: actor, block)
    }

    /// Observes on a private queue and hands each change, frozen, to a task
    /// that delivers it on `actor`. Not isolated, so that the closures it
    /// makes are not isolated to the caller's actor.
    private func observeFrozen<A: Actor>(keyPaths: [String]?, on actor: A,
        _ block: @Sendable @escaping (isolated A, ObjectChange<Self>) -> Void) -> NotificationToken
    {
        let (deliveries, continuation) = AsyncStream<ActorDelivery<A>>.makeStream()
        let queue = DispatchQueue(label: "Shoal.Projection.observe(on: actor)")
        let token = observe(keyPaths: keyPaths, on: queue) { change in
            let frozen = FrozenObjectChange(change)
            continuation.yield(ActorDelivery { actor in block(actor, frozen.change) })
        }
        let consumer = Task {
            for await delivery in deliveries { await actor.run(delivery) }
        }
        return NotificationToken(storeIdentifier: token.storeIdentifier, subscriptionID: token.subscriptionID) {
            token.invalidate()
            continuation.finish()
            consumer.cancel()
        }
    }

    /// Registers a block called on `actor` for changes of the projected
    /// properties typed key paths of the projection read; see
    /// `observe(keyPaths:on:_isolation:_:)`.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Self>], on actor: A,
        _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, ObjectChange<Self>) -> Void) async -> NotificationToken
    {
        await observe(keyPaths: keyPaths.map { type(of: self).originNames(of: $0).joined(separator: ".") }, on: actor, block)
    }

    /// An unmanaged root object holding the old values of the changed root
    /// properties, to read the projected key paths from. A linked object
    /// deleted since is left out (reading through it would stop).
    private static func previousRoot(_ changes: [PropertyChange], schema: ObjectSchema) -> Root {
        let root = Root.init(_shoalMetatype: ())
        for change in changes {
            guard let old = change.oldValue, let property = schema[change.name], property.collection == .none,
                property.type != .linkingObjects, (old as? Object)?.isInvalidated != true
            else { continue }
            root[change.name] = old
        }
        return root
    }

    /// A value read through a key path, with a `nil` optional as `nil`
    /// rather than as a boxed `Optional.none`.
    private static func flattened(_ value: Any?) -> Any? {
        guard let value else { return nil }
        return ValueCoercion.unwrap(value)
    }
}

/// A change crossing to an actor: the projection and objects in it are frozen.
struct FrozenObjectChange<P: ProjectionObservable>: @unchecked Sendable {
    // Safe because: the projection and every object or collection value in
    // the change are frozen, so readable from any thread.
    let change: ObjectChange<P>

    init(_ change: ObjectChange<P>) {
        switch change {
        case .change(let projection, let properties):
            self.change = .change(projection.frozenProjection(), properties.map {
                PropertyChange(name: $0.name, oldValue: Self.frozen($0.oldValue), newValue: Self.frozen($0.newValue))
            })
        case .deleted, .error: self.change = change
        }
    }

    private static func frozen(_ value: Any?) -> Any? {
        switch value {
        case let object as Object where object.realm != nil && !object.isInvalidated: object.freeze()
        default: value
        }
    }
}

extension ProjectionObservable {
    /// A projection of the frozen root object.
    func frozenProjection() -> Self {
        type(of: self).init(projecting: (rootObject as Object).freeze() as! Root)
    }
}

/// One change to deliver on an actor, with the block that receives it.
struct ActorDelivery<A: Actor>: @unchecked Sendable {
    // Safe because: the change it carries is a ``FrozenObjectChange`` and
    // the block is `@Sendable`.
    let deliver: (isolated A) -> Void
}

extension Actor {
    fileprivate func run(_ delivery: ActorDelivery<Self>) {
        delivery.deliver(self)
    }
}
