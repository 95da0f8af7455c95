import Foundation

/// The base class of stored model classes.
///
/// ```swift
/// final class Dog: Object {
///     @Persisted(primaryKey: true) var id: Int
///     @Persisted var name = ""
/// }
/// let rex = Dog(value: ["id": 1, "name": "Rex"])   // unmanaged
/// try realm.write { realm.add(rex) }                 // now managed
/// ```
///
/// An object is *unmanaged* until added to a Realm: it holds its own values.
/// Once *managed*, every property read and write goes to its Realm; reading
/// a deleted object stops the program with "Object has been deleted or
/// invalidated.", as in Realm.
///
/// A live managed object checks on every use that it is on its Realm's
/// thread. Frozen objects can be read from any thread.
///
/// - Note: Differs from Realm: `Object` is not `Sendable` (a subclass would
///   have to restate an inherited `@unchecked Sendable`). Pass frozen
///   `Results` (which are `Sendable`), or a ``ThreadSafeReference``, across
///   isolation boundaries.
///
/// ## Topics
/// ### State
/// - ``realm``
/// - ``isInvalidated``
/// - ``isFrozen``
/// - ``freeze()``
/// - ``thaw()``
/// ### Dynamic access
/// - ``subscript(_:)``
/// - ``objectSchema``
open class Object: CustomStringConvertible, Hashable {
    final var ref: ObjectRef?

    /// Creates an unmanaged object with default values.
    ///
    /// Not `required`, as in Realm: a subclass may override it (`override
    /// init() { super.init(); ... }`) or add initializers of its own. A
    /// subclass that declares other designated initializers must also
    /// override `init()` (Realm's own tests write `required override
    /// init()`), which Shoal calls to make its objects.
    public init() {}

    /// Creates an object of the dynamic class through its `init()`: how
    /// Shoal makes objects from a metatype (accessors, schema prototypes),
    /// since `init()` is not required. Every subclass that has `init()`
    /// inherits it; not for use in application code.
    public required convenience init(_shoalMetatype: Void) { self.init() }

    /// Re-points this managed accessor at object `key` of `table` in
    /// `realm`, in place, when it is an accessor of that table in that
    /// realm (the iterator's reuse of an accessor the loop let go).
    ///
    /// `liveAt` is a ``RealmInstance/liveStamp`` under which the object is
    /// live (0 if not known): reads check the object's liveness with no
    /// look-up while the Realm's state stays at that stamp.
    ///
    /// - Returns: whether it was re-pointed.
    final func repoint(to table: TableKey, _ key: ObjectKey, in realm: RealmInstance, liveAt: UInt64) -> Bool {
        guard ref != nil, ref.unsafelyUnwrapped.table == table, ref.unsafelyUnwrapped.realm === realm else { return false }
        ref!.key = key
        ref!.generation = realm.generation
        ref!.liveAt = liveAt
        return true
    }

    /// Creates an unmanaged object from a dictionary of property values, an
    /// array of values in property order, or another object.
    ///
    /// Stops with a message naming the class and property when a name is
    /// unknown or a value has the wrong type.
    ///
    /// Required, so that it can be called on an `Object.Type` value
    /// (`type.init(value: [:])`), which `init()` cannot be.
    public required convenience init(value: Any) {
        self.init()
        let schema = objectSchema
        let boxes = ClassRegistry.unmanagedBoxes(of: self)
        for (index, item) in Self.namedValues(value, schema: schema) where schema.properties[index].isStored {
            let property = schema.properties[index]
            if let box = boxes[index] {
                box.set(item, property: property, className: schema.className)
            } else {
                Self.realmProperty(property.name, of: self)?.setUnmanaged(item, property: property, className: schema.className)
            }
        }
    }

    /// The class name used in schemas, queries and logs: the Swift type's
    /// name unless a subclass overrides it (to rename a class, or to give a
    /// new version of a model the stored class's name in a migration).
    ///
    /// ```swift
    /// final class DogV2: Object {
    ///     override class func className() -> String { "Dog" }
    /// }
    /// ```
    open class func className() -> String {
        String(describing: self)
    }

    static func className(of type: Object.Type) -> String {
        type.className()
    }

    /// The Realm managing the object, or `nil` while unmanaged.
    public var realm: Realm? { ref.map { Realm(instance: $0.realm) } }

    /// Whether the object was deleted, its Realm invalidated, or it was added
    /// in a write transaction that was then cancelled.
    public var isInvalidated: Bool {
        guard let ref else { return false }
        return !ref.isValid
    }

    /// Whether the object belongs to a frozen Realm.
    public var isFrozen: Bool { ref?.realm.isFrozen ?? false }

    /// The schema of the object's class.
    public var objectSchema: ObjectSchema {
        if let ref { return ref.realm.schema[ref.table] }
        return ClassRegistry.info(for: type(of: self)).schema
    }

    /// A frozen copy of the object, pinned at its Realm's current version
    /// and usable from any thread.
    ///
    /// Stops for unmanaged objects, and for objects created in the current
    /// write transaction, as Realm does.
    public func freeze() -> Self {
        guard let ref else { shoalPrecondition(ShoalError(.unsupported, "Unmanaged objects cannot be frozen.")) }
        if ref.realm.isFrozen { return self }
        ref.checkValid()
        if let tx = ref.realm.transaction, !tx.base.isAlive(ref.table, ref.key) {
            shoalPrecondition(ShoalError(.unsupported, "Cannot freeze an object in the same write transaction as it was created in."))
        }
        let frozen = Realm(instance: ref.realm).freeze()
        return frozen.instance.accessor(ref.link, as: Self.self) as! Self
    }

    /// The live object for the calling thread's Realm, or `nil` if it has
    /// been deleted since.
    public func thaw() -> Self? {
        guard let ref else { shoalPrecondition(ShoalError(.unsupported, "Unmanaged objects cannot be thawed.")) }
        if !ref.realm.isFrozen { return self }
        let live = RealmInstance.live(configuration: ref.realm.configuration, coordinator: ref.realm.coordinator)
        guard live.current.isAlive(ref.table, ref.key) else { return nil }
        return live.accessor(ref.link, as: Self.self) as? Self
    }

    /// Whether both are the same managed object (same store, class and key).
    /// Unmanaged objects are only the same as themselves.
    public func isSameObject(as object: Object?) -> Bool {
        guard let object else { return false }
        if self === object { return true }
        guard let a = ref, let b = object.ref else { return false }
        return a.realm.coordinator === b.realm.coordinator && a.link == b.link
    }

    /// Reads or writes a property by name.
    ///
    /// Stops with a message naming the class and property when the name is
    /// unknown or the value has the wrong type; writes to managed objects need
    /// a write transaction.
    /// A `nil` property reads as `nil` (not as a boxed optional).
    public subscript(key: String) -> Any? {
        get {
            let schema = objectSchema
            guard let index = schema.indexByName[key] else { Self.unknownProperty(key, schema) }
            if let ref {
                guard let persisted = Self.persisted(key, of: self) else {
                    // A `RealmProperty` (no wrapper): its stored value.
                    guard schema.properties[index].isStored else { return nil }
                    ref.checkValid()
                    return DynamicObject.swiftValue(ref.realm.value(ref.table, ref.key, index), ref.realm)
                }
                return ValueCoercion.unwrap(persisted.readManaged(ManagedSlot(ref: ref, property: index)))
            }
            guard schema.properties[index].isStored else { return nil }
            if let box = ClassRegistry.unmanagedBoxes(of: self)[index] { return ValueCoercion.unwrap(box.anyValue) }
            return ValueCoercion.unwrap(Self.realmProperty(key, of: self)?.unmanagedAny)
        }
        set {
            let schema = objectSchema
            guard let index = schema.indexByName[key] else { Self.unknownProperty(key, schema) }
            let property = schema.properties[index]
            if let ref {
                ref.checkValid()
                let slot = ManagedSlot(ref: ref, property: index)
                if let persisted = Self.persisted(key, of: self), let newValue, persisted.writeManaged(newValue, slot) { return }
                ref.realm.setProperty(slot, from: newValue)
                return
            }
            guard property.isStored else { return }
            if let box = ClassRegistry.unmanagedBoxes(of: self)[index] {
                box.set(newValue, property: property, className: schema.className)
            } else {
                Self.realmProperty(key, of: self)?.setUnmanaged(newValue, property: property, className: schema.className)
            }
        }
    }

    /// The value of a property, by name: key-value coding as Realm's
    /// `Object` inherits it from `NSObject`; the same as ``subscript(_:)``.
    ///
    /// ```swift
    /// let name = dog.value(forKey: "name") as? String
    /// ```
    open func value(forKey key: String) -> Any? { self[key] }

    /// Sets a property by name (inside a write transaction for a managed
    /// object); the same as ``subscript(_:)``.
    open func setValue(_ value: Any?, forKey key: String) { self[key] = value }

    /// The value at a dotted path of properties, following links
    /// (`"owner.name"`); `nil` when a link on the way is `nil`.
    open func value(forKeyPath keyPath: String) -> Any? {
        Object.value(following: keyPath.split(separator: ".").map(String.init), from: self)
    }

    /// Sets the property at a dotted path of properties, following links
    /// (`"owner.name"`); stops when a link on the way is `nil`.
    open func setValue(_ value: Any?, forKeyPath keyPath: String) {
        var names = keyPath.split(separator: ".").map(String.init)
        guard let last = names.popLast() else { Self.unknownProperty(keyPath, objectSchema) }
        guard let target = Object.value(following: names, from: self) as? Object else {
            shoalPrecondition(ShoalError(.invalidKeyPath, "Cannot set '\(keyPath)': a link on the way is nil.",
                context: ["keyPath": keyPath, "class": objectSchema.className]))
        }
        target[last] = value
    }

    /// Sets each property named in `keyedValues`.
    public func setValuesForKeys(_ keyedValues: [String: Any]) {
        for (key, value) in keyedValues { setValue(value, forKey: key) }
    }

    /// The values of the named properties (`NSNull` for a `nil` one, as
    /// Foundation's key-value coding gives).
    public func dictionaryWithValues(forKeys keys: [String]) -> [String: Any] {
        Dictionary(uniqueKeysWithValues: keys.map { ($0, value(forKey: $0) ?? NSNull()) })
    }

    private static func persisted(_ name: String, of object: Object) -> (any PersistedProperty)? {
        ClassRegistry.children(of: object).first { $0.label == "_" + name }?.value as? any PersistedProperty
    }

    /// The `RealmProperty` declared as `name` on `object`, if it is one.
    static func realmProperty(_ name: String, of object: Object) -> (any RealmPropertyDeclaration)? {
        ClassRegistry.children(of: object).first { $0.label == name }?.value as? any RealmPropertyDeclaration
    }

    static func unknownProperty(_ name: String, _ schema: ObjectSchema) -> Never {
        shoalPrecondition(ShoalError(.unknownProperty, "Invalid property name '\(name)' for class '\(schema.className)'.",
            context: ["class": schema.className, "property": name]))
    }

    /// Pairs of (property index, value) from a dictionary, array or object.
    static func namedValues(_ value: Any, schema: ObjectSchema) -> [(Int, Any?)] {
        // `[String: Any]` first: casting it to `[String: Any?]` converts every entry.
        if let dictionary = value as? [String: Any] {
            return dictionary.map { name, item in
                guard let index = schema.indexByName[name] else { unknownProperty(name, schema) }
                return (index, item)
            }
        }
        if let dictionary = value as? [String: Any?] {
            return dictionary.map { name, item in
                guard let index = schema.indexByName[name] else { unknownProperty(name, schema) }
                return (index, item)
            }
        }
        if let array = value as? [Any?] {
            let stored = schema.properties.indices.filter { schema.properties[$0].isStored }
            guard array.count <= stored.count else {
                shoalPrecondition(ShoalError(.invalidValue,
                    "Invalid array input: \(array.count) values for \(stored.count) properties of '\(schema.className)'.",
                    context: ["class": schema.className]))
            }
            return array.enumerated().map { (stored[$0.offset], $0.element) }
        }
        if let object = value as? Object {
            return schema.properties.indices.compactMap { i in
                let p = schema.properties[i]
                guard p.isStored, object.objectSchema[p.name] != nil else { return nil }
                return (i, object[p.name])
            }
        }
        shoalPrecondition(ShoalError(.invalidValue,
            "Invalid value '\(value)' to initialize an object of type '\(schema.className)': expected a dictionary, an array or an object.",
            context: ["class": schema.className]))
    }

    /// The object in Realm's format: its class, then `name = value;` per
    /// property, linked objects and collections nested (see `RealmDescription`).
    open var description: String { RealmDescription.object(self, depth: RealmDescription.maxDepth) }

    /// Whether both are the same object (``isSameObject(as:)``): two accessors
    /// of one managed object of the same Realm file are equal; an unmanaged
    /// object equals only itself.
    public static func == (lhs: Object, rhs: Object) -> Bool { lhs.isSameObject(as: rhs) }

    /// Hashes the object's identity, consistently with `==`: its Realm file and
    /// key when managed, the instance when unmanaged.
    public func hash(into hasher: inout Hasher) {
        if let ref {
            hasher.combine(ObjectIdentifier(ref.realm.coordinator))
            hasher.combine(ref.link)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }
}

extension Object: PersistableValue {
    /// A link to an object of this class.
    public static var persistedType: PersistedTypeInfo { .init(.object, objectType: self) }

    /// Links have no default: a non-optional link property stops with
    /// `schemaInvalid` ("must be optional"), as in Realm.
    public static func persistedDefault() -> Self {
        shoalPrecondition(ShoalError(.schemaInvalid, "A link to '\(className(of: self))' must be optional."))
    }

    /// The managed object a stored link points to, in the Realm it is read from.
    public static func fromStored(_ stored: StoredValue, _ context: StoredContext) -> Self {
        guard case .link(let link) = stored.value, let realm = context.realm else {
            shoalPrecondition(ShoalError(.typeMismatch, "Expected a link to '\(className(of: self))', found \(stored.value)."))
        }
        return realm.accessor(link, as: Self.self) as! Self
    }

    /// The link to this object, adding it first to the Realm it is written to when it is unmanaged.
    public func toStored(_ context: StoredContext) -> StoredValue {
        guard let realm = context.realm else {
            if let ref { return StoredValue(.link(ref.link)) }
            shoalPrecondition(ShoalError(.unsupported, "An unmanaged object cannot be stored outside a Realm."))
        }
        return StoredValue(.link(realm.linkAdding(self, update: .error)))
    }
}
