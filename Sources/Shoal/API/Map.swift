import OrderedCollections
/// A key type a ``Map`` accepts: `String`, as in Realm.
public protocol MapKey: Hashable, Comparable {
    /// The key as a string.
    var mapKeyString: String { get }
    /// The key from a string.
    init(mapKeyString: String)
}

extension String: MapKey {
    /// The string itself.
    public var mapKeyString: String { self }
    /// The string itself.
    public init(mapKeyString: String) { self = mapKeyString }
}

/// A dictionary from strings to values or objects, stored in a property.
///
/// ```swift
/// final class Dog: Object { @Persisted var scores: Map<String, Double> }
/// try realm.write { dog.scores["math"] = 3.5 }
/// dog.scores["math"]   // 3.5
/// ```
///
/// Entries keep the order in which their keys were first set.
///
/// A managed map's values can be filtered and sorted into live ``Results``,
/// and aggregated, as Realm's `Map` allows:
///
/// ```swift
/// let old = kennel.byName.where { $0.age > 10 }             // Results<Dog?>
/// let best = dog.scores.sorted(ascending: false).first      // Double?
/// let mean: Double? = kennel.byName.average(ofProperty: "age")
/// ```
///
/// ## Topics
/// ### Filtering
/// - ``filter(_:)-(PredicateFormat)``
/// - ``where(_:)``
/// - ``filter(_:)-(Predicate<Value>)``
/// ### Sorting
/// - ``sorted(byKeyPath:ascending:)``
/// - ``sorted(by:ascending:)``
/// - ``sorted(ascending:)``
/// ### Aggregates
/// - ``min(ofProperty:)->T?``
/// - ``max(ofProperty:)->T?``
/// - ``sum(ofProperty:)->T``
/// - ``average(ofProperty:)->T?``
/// ### Key-value coding
/// - ``value(forKey:)``
/// - ``value(forKeyPath:)``
/// - ``setValue(_:forKey:)``
public final class Map<Key: MapKey, Value: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible,
    @unchecked Sendable
{
    // Safe because: a managed map checks its Realm's thread on every use;
    // frozen ones read an immutable snapshot.
    var unmanaged: [(key: Key, value: Value)] = []
    let slot: ManagedSlot?

    /// Creates an empty unmanaged map.
    public init() { slot = nil }

    init(slot: ManagedSlot) { self.slot = slot }

    /// The entries of a managed map at the Realm's current version; none when unmanaged.
    func storedEntries() -> MapStorage {
        guard let slot else { return [:] }
        if isNested { return nestedEntries() }
        slot.ref.checkValid()
        return slot.ref.realm.current.map(slot.ref.table, slot.ref.key, slot.property)
    }

    /// The position of the first entry: always 0.
    public var startIndex: Int { 0 }
    /// The position after the last entry: ``count``.
    public var endIndex: Int { count }

    /// The number of entries.
    public var count: Int { slot == nil ? unmanaged.count : storedEntries().count }

    /// The entry at a position.
    public subscript(position: Int) -> (key: Key, value: Value) {
        guard let slot else { return unmanaged[position] }
        let entries = storedEntries()
        guard position >= 0 && position < entries.count else {
            shoalPrecondition(ShoalError(.indexOutOfBounds, "Index \(position) is out of bounds (must be less than \(entries.count))."))
        }
        let entry = entries.elements[position]
        if isNested { return (Key(mapKeyString: entry.key), nestedValue(entry.value, forKey: entry.key)) }
        return (Key(mapKeyString: entry.key), Value.fromValue(entry.value, slot.ref.realm))
    }

    /// Reads, sets, or (with `nil`) removes the value for a key.
    public subscript(key: Key) -> Value? {
        get {
            guard let slot else { return unmanaged.first { $0.key == key }?.value }
            if isNested { return storedEntries()[key.mapKeyString].map { nestedValue($0, forKey: key.mapKeyString) } }
            return storedEntries()[key.mapKeyString].map { Value.fromValue($0, slot.ref.realm) }
        }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeObject(for: key) }
        }
    }

    /// The value for a key, or `nil`.
    public func object(forKey key: Key) -> Value? { self[key] }

    /// The keys, in entry order.
    public var keys: [Key] { map(\.key) }
    /// The values, in entry order.
    public var values: [Value] { map(\.value) }

    /// Sets the value for a key.
    public func updateValue(_ value: Value, forKey key: Key) {
        guard let slot else {
            if let i = unmanaged.firstIndex(where: { $0.key == key }) { unmanaged[i].value = value } else { unmanaged.append((key, value)) }
            return
        }
        if isNested {
            let stored = value.toValue(slot.ref.realm)
            return updateNestedMap { $0[key.mapKeyString] = stored }
        }
        slot.ref.checkValid()
        let stored = value.toValue(slot.ref.realm)
        let tx = slot.ref.realm.requireModification()
        do { try tx.mapSet(slot.ref.table, slot.ref.key, slot.property, key: key.mapKeyString, stored) } catch { shoalPrecondition(error) }
    }

    /// Removes the entry for a key, if any.
    public func removeObject(for key: Key) {
        guard let slot else {
            unmanaged.removeAll { $0.key == key }
            return
        }
        if isNested { return updateNestedMap { $0[key.mapKeyString] = nil } }
        slot.ref.checkValid()
        let tx = slot.ref.realm.requireModification()
        do { try tx.mapRemove(slot.ref.table, slot.ref.key, slot.property, key: key.mapKeyString) } catch { shoalPrecondition(error) }
    }

    /// Removes every entry.
    public func removeAll() {
        guard let slot else { return unmanaged.removeAll() }
        if isNested { return updateNestedMap { $0.removeAll() } }
        slot.ref.checkValid()
        let tx = slot.ref.realm.requireModification()
        do { try tx.collectionClear(slot.ref.table, slot.ref.key, slot.property) } catch { shoalPrecondition(error) }
    }

    /// The Realm managing the map, or `nil` when unmanaged.
    public var realm: Realm? { slot.map { Realm(instance: $0.ref.realm) } }
    /// Whether the owning object was deleted or its Realm invalidated.
    public var isInvalidated: Bool { slot.map { !$0.ref.isValid } ?? false }
    /// Whether the map is pinned to one version.
    public var isFrozen: Bool { slot?.ref.realm.isFrozen ?? false }

    /// A frozen copy of the map at the current version.
    public func freeze() -> Map {
        guard let slot else { unmanagedCollection("maps") }
        return slot.ref.realm.isFrozen ? self : Map(slot: slot.frozen())
    }

    /// The live map for the calling thread, or `nil` if its owner was deleted.
    public func thaw() -> Map? {
        guard let slot else { unmanagedCollection("maps") }
        guard slot.ref.realm.isFrozen else { return self }
        guard let live = slot.thawed() else { return nil }
        return Map(slot: live)
    }

    /// The entries in Realm's format (see `RealmDescription`).
    public var description: String { realmDescription(depth: RealmDescription.maxDepth) }
}

extension Map: PersistableValue {
    /// A map from strings to `Value`'s schema type.
    public static var persistedType: PersistedTypeInfo {
        let e = Value.persistedType
        return .init(e.type, optional: e.isOptional, objectType: e.objectType, collection: .map)
    }
    /// An empty map, the value of an unset property.
    public static func persistedDefault() -> Map { Map() }
    /// Maps cannot be nested in collections: stops with `unsupported`.
    public static func fromStored(_ stored: StoredValue, _ context: StoredContext) -> Map {
        nestedCollection("Maps")
    }
    /// Maps cannot be nested in collections: stops with `unsupported`.
    public func toStored(_ context: StoredContext) -> StoredValue {
        nestedCollection("Maps")
    }
    /// The map of a managed object, reading and writing its property.
    public static func readManaged(_ slot: ManagedSlot) -> Map {
        slot.ref.checkValid()
        return Map(slot: slot)
    }
    /// Assigning a map to a managed property replaces its contents.
    public static func writeManaged(_ value: Map, _ slot: ManagedSlot) {
        slot.replaceContents(with: value)
    }
}

extension Map: UnmanagedCollectionFactory, AnyElements {
    static func makeUnmanaged(from any: Any?, property: Property, className: String) -> Any {
        let map = Map()
        do {
            for (key, item) in try ValueCoercion.entries(any, name: "\(className).\(property.name)") {
                map.updateValue(UnmanagedValue.convert(item, to: Value.self, property: property.elementProperty, className: className),
                    forKey: Key(mapKeyString: key))
            }
        } catch { shoalPrecondition(error) }
        return map
    }
    var anyElements: [Any?] { values.map { $0 } }
    var anyEntries: [(String, Any?)]? { map { ($0.key.mapKeyString, $0.value) } }
}

extension Map: Encodable where Value: Encodable {
    /// Encodes the entries as a keyed container.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MapCodingKey.self)
        for (key, value) in self { try container.encode(value, forKey: MapCodingKey(stringValue: key.mapKeyString)) }
    }
}

struct MapCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Map: Decodable where Value: Decodable {
    /// Decodes an unmanaged map from a keyed container.
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: MapCodingKey.self)
        for key in container.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
            updateValue(try container.decode(Value.self, forKey: key), forKey: Key(mapKeyString: key.stringValue))
        }
    }
}
