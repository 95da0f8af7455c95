/// Declares a property of an ``Object`` subclass as stored.
///
/// ```swift
/// final class Dog: Object {
///     @Persisted(primaryKey: true) var id: Int
///     @Persisted var name = ""
///     @Persisted(indexed: true) var age: Int
///     @Persisted var owner: Person?
///     @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
/// }
/// ```
///
/// Before an object is added to a Realm, the wrapper holds the value itself;
/// afterwards every read and write goes to the Realm.
@propertyWrapper
public struct Persisted<T: PersistableValue> {
    var storage: T?
    let isPrimaryKey: Bool
    let isIndexed: Bool
    let originProperty: String?
    var isProbe = false

    /// Declares a property with its type's default value.
    public init() {
        self.init(storage: nil)
    }

    /// Declares a property with a default value.
    public init(wrappedValue: T) {
        self.init(storage: wrappedValue)
    }

    /// Declares the primary key (`Int`, `String`, `ObjectId` or `UUID`, optional or not).
    public init(primaryKey: Bool) {
        self.init(storage: nil, primaryKey: primaryKey)
    }

    /// Declares the primary key with a default value.
    public init(wrappedValue: T, primaryKey: Bool) {
        self.init(storage: wrappedValue, primaryKey: primaryKey)
    }

    /// Declares a property with a secondary index, used by equality queries.
    public init(indexed: Bool) {
        self.init(storage: nil, indexed: indexed)
    }

    /// Declares an indexed property with a default value.
    public init(wrappedValue: T, indexed: Bool) {
        self.init(storage: wrappedValue, indexed: indexed)
    }

    /// Declares the objects linking to this one through `originProperty`.
    public init(originProperty: String) {
        self.init(storage: nil, originProperty: originProperty)
    }

    private init(storage: T?, primaryKey: Bool = false, indexed: Bool = false, originProperty: String? = nil) {
        self.storage = storage
        self.isPrimaryKey = primaryKey
        self.isIndexed = indexed
        self.originProperty = originProperty
    }

    @available(*, unavailable, message: "@Persisted can only be used on properties of Object subclasses")
    public var wrappedValue: T {
        get { fatalError("unreachable") }
        set { fatalError("unreachable") }
    }

    /// Reads and writes the property through its object.
    public static subscript<O: Object>(
        _enclosingInstance object: O,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<O, T>,
        storage storageKeyPath: ReferenceWritableKeyPath<O, Persisted<T>>
    ) -> T {
        get {
            if let ref = object.ref {
                return T.readManaged(ManagedSlot(ref: ref, property: ClassRegistry.propertyIndex(O.self, storageKeyPath)))
            }
            if !object.unmanagedOverrides.isEmpty,
                let value = object.unmanagedOverrides[ClassRegistry.propertyIndex(O.self, storageKeyPath)] as? T
            {
                return value
            }
            if let value = object[keyPath: storageKeyPath].storage { return value }
            let value = T.persistedDefault()
            object[keyPath: storageKeyPath].storage = value
            return value
        }
        set {
            if let ref = object.ref {
                T.writeManaged(newValue, ManagedSlot(ref: ref, property: ClassRegistry.propertyIndex(O.self, storageKeyPath)))
                return
            }
            if !object.unmanagedOverrides.isEmpty {
                object.unmanagedOverrides[ClassRegistry.propertyIndex(O.self, storageKeyPath)] = nil
            }
            object[keyPath: storageKeyPath].storage = newValue
        }
    }
}

extension Persisted: PersistedProperty {
    func property(named name: String) -> Property {
        let info = T.persistedType
        return Property(
            name: name, type: info.type, isOptional: info.isOptional, isPrimary: isPrimaryKey, isIndexed: isIndexed,
            collection: info.collection, objectClassName: info.objectClassName, linkOriginPropertyName: originProperty)
    }

    var defaultValue: Value {
        let info = T.persistedType
        guard info.type != .object, info.collection == .none else { return .null }
        return (storage ?? T.persistedDefault()).toValue(nil)
    }

    func storedValue(_ realm: RealmInstance) -> Value {
        (storage ?? T.persistedDefault()).toValue(realm)
    }

    func copyCollection(to slot: ManagedSlot) {
        if let storage { T.writeManaged(storage, slot) }
    }

    var anyValue: Any { storage ?? T.persistedDefault() }

    func readManaged(_ slot: ManagedSlot) -> Any { T.readManaged(slot) }

    func writeManaged(_ value: Any, _ slot: ManagedSlot) -> Bool {
        guard let typed = value as? T else { return false }
        T.writeManaged(typed, slot)
        return true
    }
}

extension Persisted: Encodable where T: Encodable {
    /// Encodes the unmanaged value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(storage ?? T.persistedDefault())
    }
}

extension Persisted: Decodable where T: Decodable {
    /// Decodes an unmanaged value.
    public init(from decoder: any Decoder) throws {
        self.init(storage: try decoder.singleValueContainer().decode(T.self))
    }
}
