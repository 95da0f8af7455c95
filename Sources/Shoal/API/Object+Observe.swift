public import Dispatch
import Foundation

extension Object {
    /// Registers a block called after every commit that changes the object
    /// or deletes it.
    ///
    /// ```swift
    /// let token = dog.observe(keyPaths: ["name", "owner.name"]) { (change: ObjectChange<Dog>) in
    ///     switch change {
    ///     case .change(_, let properties): print(properties.map(\.name))
    ///     case .deleted: print("deleted")
    ///     case .error(let error): print(error)
    ///     }
    /// }
    /// ```
    ///
    /// Observation is shallow unless key paths say otherwise: a change of a
    /// linked object counts only through a key path that reaches it, and is
    /// reported under the first property of that path. There is no initial
    /// callback. Delivery is as for `observe(keyPaths:on:_:)`.
    ///
    /// An invalid key path makes `.error` the only call. Observing an
    /// unmanaged, frozen, deleted or invalidated object stops with Realm's message.
    ///
    /// - Parameters:
    ///   - keyPaths: the properties whose changes count; `nil` or empty for all.
    ///   - queue: a serial queue to deliver on; `nil` for this thread.
    ///   - block: called with each change; `T` is the object's class.
    /// - Returns: a token to hold for as long as the block should be called.
    /// - Note: Differs from Realm: `PropertyChange.oldValue` is always the
    ///   value as last delivered.
    public func observe<T: Object>(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
        _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken
    {
        guard let ref else {
            shoalPrecondition(ShoalError(.unsupported, "Only objects which are managed by a Realm support change notifications"))
        }
        let instance = ref.realm
        instance.checkObservable()
        guard ref.isValid else {
            shoalPrecondition(ShoalError(.objectInvalidated,
                "Accessing object of type \(instance.schema[ref.table].className) which has been invalidated or deleted"))
        }
        let target = instance.deliveryInstance(for: queue)
        let link = ref.link
        let object = queue == nil ? self : target.accessor(link)
        guard let typed = object as? T else {
            shoalPrecondition(ShoalError(.typeMismatch, "Cannot observe an object of type '\(type(of: self))' as '\(T.self)'."))
        }
        let schema = instance.schema[link.table]
        let filter = instance.modificationFilter(keyPaths, table: link.table, unfiltered: .shallow)
        return instance.observe(delivering: target, filter: filter,
            make: { snapshot, filter in ObjectNotifier(object: link, snapshot: snapshot, filter: filter) },
            handler: { delivery in
                switch delivery {
                case .object(true, _): block(.deleted)
                case .object(false, let properties):
                    block(.change(typed, properties.map { p in
                        PropertyChange(name: schema.properties[p.property].name, oldValue: p.old.flatMap { target.boxed($0) },
                            newValue: p.new.flatMap { target.boxed($0) })
                    }))
                case .error(let error): block(.error(error))
                case .initial, .collection, .map: break
                }
            })
    }

    /// Registers a block for changes of the properties typed key paths read
    /// (`[\Dog.name, \Dog.owner?.name]`); otherwise as
    /// `observe(keyPaths:on:_:)`.
    public func observe<T: Object>(keyPaths: [PartialKeyPath<T>], on queue: DispatchQueue? = nil,
        _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken
    {
        observe(keyPaths: keyPaths.map { KeyPathTracer.name(of: $0) }, on: queue, block)
    }
}

extension RealmInstance {
    /// A stored value as a Swift value: objects as accessors of this instance.
    func boxed(_ value: Value) -> Any? {
        value.boxed { isAlive($0.table, $0.key) ? accessor($0) : nil }
    }
}

extension Value {
    /// The value as a Swift value (`Int` for integers), links as `link` makes them.
    func boxed(link: (Link) -> Any?) -> Any? {
        switch self {
        case .null: nil
        case .bool(let v): v
        case .int(let v): Int(v)
        case .float(let v): v
        case .double(let v): v
        case .string(let v): v
        case .data(let v): v
        case .date(let v): v
        case .objectId(let v): v
        case .decimal(let v): v
        case .uuid(let v): v
        case .link(let l): link(l)
        case .list(let v): v.map { $0.boxed(link: link) }
        case .dictionary(let v): v.mapValues { $0.boxed(link: link) }
        }
    }
}
