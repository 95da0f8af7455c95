
/// What Shoal knows about one `Object` subclass: its schema and default values,
/// discovered once by reflecting a fresh instance.
struct ClassInfo: @unchecked Sendable {
    // Safe because: immutable after discovery; `type` is a metatype.
    let type: Object.Type
    let schema: ObjectSchema
    /// The value each stored property has in a freshly created instance.
    let defaults: [Value]
    /// Stored properties declared with `LinkingObjects(fromType:property:)`
    /// (not `@Persisted`): accessors must bind them after creation.
    let legacyLinkingObjects: [(label: String, property: Int)]
}

/// Discovers schemas from `Object` subclasses and maps `@Persisted` storage
/// key paths to property indexes.
enum ClassRegistry {
    private static let classes = Locked<[ObjectIdentifier: ClassInfo]>([:])
    private static let keyPaths = Locked<[AnyKeyPath: Int]>([:])

    static func info(for type: Object.Type) -> ClassInfo {
        let id = ObjectIdentifier(type)
        if let info = classes.withLock({ $0[id] }) { return info }
        let info = discover(type)
        classes.withLock { $0[id] = info }
        return info
    }

    private static func discover(_ type: Object.Type) -> ClassInfo {
        let prototype = type.init()
        var properties: [Property] = []
        var defaults: [Value] = []
        var legacy: [(String, String)] = []
        for child in children(of: prototype) {
            guard let label = child.label else { continue }
            if let persisted = child.value as? any PersistedProperty {
                let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
                let property = persisted.property(named: name)
                properties.append(property)
                if property.isStored { defaults.append(property.collection == .none ? persisted.defaultValue : .null) }
            } else if let linking = child.value as? any LinkingObjectsDeclaration {
                properties.append(linking.property(named: label))
                legacy.append((label, label))
            }
        }
        let schema = ObjectSchema(className: Object.className(of: type), properties: properties)
        // Stored properties come first in the schema, in declaration order, so
        // `defaults` lines up with the stored property indexes.
        return ClassInfo(type: type, schema: schema, defaults: defaults,
            legacyLinkingObjects: legacy.map { ($0.0, schema.indexByName[$0.1]!) })
    }

    /// Mirror children of an object, superclass properties first, stopping at `Object`.
    static func children(of object: Object) -> [Mirror.Child] {
        var mirrors: [Mirror] = []
        var mirror: Mirror? = Mirror(reflecting: object)
        while let m = mirror, m.subjectType != Object.self {
            mirrors.append(m)
            mirror = m.superclassMirror
        }
        return mirrors.reversed().flatMap { Array($0.children) }
    }

    /// The property index of the `@Persisted` property stored at `keyPath`.
    ///
    /// Learned once per key path: a fresh instance gets a marker written
    /// through the key path, and reflection finds which property carries it.
    static func propertyIndex<O: Object, T>(_ type: O.Type, _ keyPath: ReferenceWritableKeyPath<O, Persisted<T>>) -> Int {
        if let index = keyPaths.withLock({ $0[keyPath] }) { return index }
        let probe = type.init()
        probe[keyPath: keyPath].isProbe = true
        let info = self.info(for: type)
        for child in children(of: probe) {
            if let p = child.value as? any PersistedProperty, p.isProbe, let label = child.label,
                let index = info.schema.indexByName[String(label.dropFirst())]
            {
                keyPaths.withLock { $0[keyPath] = index }
                return index
            }
        }
        preconditionFailure("Could not find the @Persisted property of \(type) at \(keyPath)")
    }
}

/// Implemented by `Persisted` so that discovery and `add` can use a property
/// without knowing its value type.
protocol PersistedProperty {
    func property(named name: String) -> Property
    var isProbe: Bool { get }
    /// The default value in stored form (unmanaged context; never a link).
    var defaultValue: Value { get }
    /// The unmanaged value in stored form, adding linked objects to `realm`.
    func storedValue(_ realm: RealmInstance) -> Value
    /// Copies an unmanaged collection's contents into the managed property.
    func copyCollection(to slot: ManagedSlot)
    /// The unmanaged value, boxed.
    var anyValue: Any { get }
    /// Reads a managed property as its Swift type, boxed.
    func readManaged(_ slot: ManagedSlot) -> Any
    /// Writes a managed property from a value of its Swift type; false when the type differs.
    func writeManaged(_ value: Any, _ slot: ManagedSlot) -> Bool
    /// Sets an unmanaged property from a dynamic value, converting it to the property's type.
    func setUnmanaged(_ any: Any?, property: Property, className: String)
}

/// Implemented by `LinkingObjects` declared with `LinkingObjects(fromType:property:)`.
protocol LinkingObjectsDeclaration {
    func property(named name: String) -> Property
    func bind(_ ref: ObjectRef, property: Int)
}

extension PersistedProperty {
    /// The child of `object` holding the `@Persisted` property `name`.
    static func find(_ name: String, in object: Object) -> (any PersistedProperty)? {
        for child in ClassRegistry.children(of: object) where child.label == "_" + name {
            return child.value as? any PersistedProperty
        }
        return nil
    }
}
