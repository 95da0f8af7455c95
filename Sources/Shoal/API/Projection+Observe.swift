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
        // On this thread the delivered projection is this one; on a queue
        // it projects the queue's object, made at the first delivery.
        let mapper = ProjectionChangeMapper(projecting: self, keyPaths: keyPaths, reusing: queue == nil)
        return rootObject.observe(keyPaths: mapper.observed, on: queue) { (change: ObjectChange<Root>) in
            if let mapped = mapper.map(change) { block(mapped) }
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
    /// a projected property of the projection's object, or deletes it, with
    /// a projection of the object as the actor's Realm sees it.
    ///
    /// ```swift
    /// let token = await projection.observe(keyPaths: ["int"], on: myActor) { actor, change in ... }
    /// ```
    ///
    /// The root object is observed on `actor` as an object's
    /// `observe(keyPaths:on:_:)` with an actor observes it: it is
    /// resolved in the actor's Realm (see ``Realm/init(configuration:actor:)``),
    /// and the projection in each change projects that Realm's object, live
    /// and usable on the actor, as in Realm. Changes are reported as
    /// `observe(keyPaths:on:_:)` reports them. If the object is deleted
    /// before the actor resolves it, the block is never called.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
        _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, ObjectChange<Self>) -> Void) async -> NotificationToken
    where Self: SendableMetatype {
        let mapper = ProjectionChangeMapper(projecting: self, keyPaths: keyPaths, reusing: false)
        return await rootObject.observe(keyPaths: mapper.observed, on: actor) { (actor, change: ObjectChange<Root>) in
            if let mapped = mapper.map(change) { block(actor, mapped) }
        }
    }

    /// Registers a block called on `actor` for changes of the projected
    /// properties typed key paths of the projection read; see
    /// `observe(keyPaths:on:_isolation:_:)`.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Self>], on actor: A,
        _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, ObjectChange<Self>) -> Void) async -> NotificationToken
    where Self: SendableMetatype {
        await observe(keyPaths: keyPaths.map { type(of: self).originNames(of: $0).joined(separator: ".") }, on: actor, block)
    }
}

/// Turns the changes of a projection's root object into the projection's
/// changes, for one observation: which root properties to observe, which
/// changes to report, under which projected names, with which values.
final class ProjectionChangeMapper<P: ProjectionObservable>: @unchecked Sendable {
    // Safe because: one observation's deliveries use it, one at a time, on
    // the thread, queue or actor that observation delivers on; what it is
    // made with on the caller's side is immutable once made.

    /// The root key paths to observe.
    let observed: [String]
    /// The projected properties whose changes are reported; empty when the
    /// key paths given select none, so that only deletion is reported.
    private let reported: [ProjectionProperty]
    private let rootSchema: ObjectSchema
    /// The projection delivered: the observed one when deliveries read the
    /// same object, otherwise made from the first delivered root.
    private var projection: P?

    /// A mapper for an observation of `projection`'s root object, filtered
    /// by `keyPaths` (root key paths or projected names; `nil` or empty for
    /// all); `reusing` delivers `projection` itself rather than a
    /// projection of the delivered root.
    init(projecting projection: P, keyPaths: [String]?, reusing: Bool) {
        let schema = type(of: projection).schema
        var selected = schema
        if let keyPaths, !keyPaths.isEmpty {
            selected = schema.filter { keyPaths.contains($0.origin) || keyPaths.contains($0.label) }
        }
        // With no projected property selected the root is observed for all
        // of them, and every change is filtered out: deletion alone is reported.
        var observed: [String] = []
        for property in (selected.isEmpty ? schema : selected) where !observed.contains(property.observed) {
            observed.append(property.observed)
        }
        self.observed = observed
        self.reported = selected
        self.rootSchema = projection.rootObject.objectSchema
        self.projection = reusing ? projection : nil
    }

    /// The projection's change for a change of its root object, or `nil`
    /// when no reported projected property changed.
    func map(_ change: ObjectChange<P.Root>) -> ObjectChange<P>? {
        switch change {
        case .deleted: return .deleted
        case .error(let error): return .error(error)
        case .change(let root, let changes):
            let changed = Set(changes.map(\.name))
            let reported = reported.filter { changed.contains(String($0.origin.prefix { $0 != "." })) }
            guard !reported.isEmpty else { return nil }
            let made = projection ?? P(projecting: root)
            projection = made
            let previous = previousRoot(changes)
            var properties: [PropertyChange] = []
            for change in changes {
                let isCollection = rootSchema[change.name].map { $0.collection != .none || $0.type == .linkingObjects } ?? false
                for property in reported where property.origin.prefix(while: { $0 != "." }) == change.name {
                    properties.append(PropertyChange(name: property.label,
                        oldValue: isCollection ? nil : Self.flattened(previous[keyPath: property.keyPath]),
                        newValue: Self.flattened(root[keyPath: property.keyPath])))
                }
            }
            return .change(made, properties)
        }
    }

    /// An unmanaged root object holding the old values of the changed root
    /// properties, to read the projected key paths from. A linked object
    /// deleted since is left out (reading through it would stop).
    private func previousRoot(_ changes: [PropertyChange]) -> P.Root {
        let root = P.Root.init(_shoalMetatype: ())
        for change in changes {
            guard let old = change.oldValue, let property = rootSchema[change.name], property.collection == .none,
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
