public import Foundation

/// A property value of any storable kind, or a link to any object (Realm's `Mixed`).
///
/// ```swift
/// final class Note: Object { @Persisted var payload: AnyRealmValue }
/// note.payload = .string("hi")
/// note.payload.stringValue   // "hi"
/// ```
public enum AnyRealmValue: Hashable, @unchecked Sendable {
    // Safe because: the non-Sendable payloads are `Object`, `List` and
    // `Map`, whose managed forms check their thread.
    /// No value: Realm's null. The value of an unset `AnyRealmValue` property.
    case none
    /// An integer (stored as a 64-bit integer, as every integer width is).
    case int(Int)
    /// A Boolean.
    case bool(Bool)
    /// A single-precision floating-point number.
    case float(Float)
    /// A double-precision floating-point number.
    case double(Double)
    /// A string.
    case string(String)
    /// Binary data.
    case data(Data)
    /// A date.
    case date(Date)
    /// A link to an object of any class in the schema.
    ///
    /// An unmanaged object assigned to a managed property is added to the
    /// Realm with it; reading the property gives the linked object, managed.
    case object(Object)
    /// An ``ObjectId``.
    case objectId(ObjectId)
    /// A ``Decimal128``.
    case decimal128(Decimal128)
    /// A UUID.
    case uuid(UUID)
    /// A dictionary of mixed values, which may hold lists and dictionaries
    /// in turn (Realm's mixed collections).
    ///
    /// Read from a managed property, the map is live: changing it inside a
    /// write changes the property.
    case dictionary(Map<String, AnyRealmValue>)
    /// A list of mixed values, which may hold lists and dictionaries in
    /// turn (Realm's mixed collections).
    ///
    /// Read from a managed property, the list is live: changing it inside a
    /// write changes the property.
    case list(List<AnyRealmValue>)

    /// The integer, if this is `.int`.
    public var intValue: Int? { if case .int(let v) = self { v } else { nil } }
    /// The Boolean, if this is `.bool`.
    public var boolValue: Bool? { if case .bool(let v) = self { v } else { nil } }
    /// The float, if this is `.float`.
    public var floatValue: Float? { if case .float(let v) = self { v } else { nil } }
    /// The double, if this is `.double`.
    public var doubleValue: Double? { if case .double(let v) = self { v } else { nil } }
    /// The string, if this is `.string`.
    public var stringValue: String? { if case .string(let v) = self { v } else { nil } }
    /// The data, if this is `.data`.
    public var dataValue: Data? { if case .data(let v) = self { v } else { nil } }
    /// The date, if this is `.date`.
    public var dateValue: Date? { if case .date(let v) = self { v } else { nil } }
    /// The object id, if this is `.objectId`.
    public var objectIdValue: ObjectId? { if case .objectId(let v) = self { v } else { nil } }
    /// The decimal, if this is `.decimal128`.
    public var decimal128Value: Decimal128? { if case .decimal128(let v) = self { v } else { nil } }
    /// The UUID, if this is `.uuid`.
    public var uuidValue: UUID? { if case .uuid(let v) = self { v } else { nil } }
    /// The object, if this is `.object`.
    public func object<T: Object>(_ type: T.Type) -> T? { if case .object(let v) = self { v as? T } else { nil } }
    /// The map, if this is `.dictionary`.
    public var dictionaryValue: Map<String, AnyRealmValue>? { if case .dictionary(let v) = self { v } else { nil } }
    /// The list, if this is `.list`.
    public var listValue: List<AnyRealmValue>? { if case .list(let v) = self { v } else { nil } }

    /// Whether this is a nested list or dictionary.
    var isCollection: Bool {
        switch self {
        case .list, .dictionary: true
        default: false
        }
    }

    /// `.none`, as Realm's `AnyRealmValue()` is.
    public init() { self = .none }

    /// A mixed value holding a new unmanaged map with the entries of `dictionary`.
    ///
    /// ```swift
    /// note.payload = .fromDictionary(["tags": .fromArray([.string("a")]), "n": .int(1)])
    /// ```
    public static func fromDictionary(_ dictionary: [String: AnyRealmValue]) -> AnyRealmValue {
        let map = Map<String, AnyRealmValue>()
        for key in dictionary.keys.sorted() { map.updateValue(dictionary[key]!, forKey: key) }
        return .dictionary(map)
    }

    /// A mixed value holding a new unmanaged list with the elements of `array`.
    ///
    /// ```swift
    /// note.payload = .fromArray([.int(1), .string("two")])
    /// ```
    public static func fromArray(_ array: [AnyRealmValue]) -> AnyRealmValue {
        let list = List<AnyRealmValue>()
        list.append(objectsIn: array)
        return .list(list)
    }

    /// Whether two values are equal: values of the same case with equal
    /// payloads. Nested collections compare as Realm's do: unmanaged ones by
    /// their elements, managed ones by being the same collection (the same
    /// place in the same object's property).
    public static func == (lhs: AnyRealmValue, rhs: AnyRealmValue) -> Bool {
        switch (lhs, rhs) {
        case (.none, .none): true
        case (.int(let a), .int(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.float(let a), .float(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.data(let a), .data(let b)): a == b
        case (.date(let a), .date(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        case (.objectId(let a), .objectId(let b)): a == b
        case (.decimal128(let a), .decimal128(let b)): a == b
        case (.uuid(let a), .uuid(let b)): a == b
        case (.dictionary(let a), .dictionary(let b)): a == b
        case (.list(let a), .list(let b)): a == b
        default: false
        }
    }

    /// Hashes the payload; a nested collection hashes only its kind, as in
    /// Realm, since its elements may change.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .none: hasher.combine(14)
        case .int(let v): hasher.combine(v)
        case .bool(let v): hasher.combine(v)
        case .float(let v): hasher.combine(v)
        case .double(let v): hasher.combine(v)
        case .string(let v): hasher.combine(v)
        case .data(let v): hasher.combine(v)
        case .date(let v): hasher.combine(v)
        case .object(let v): hasher.combine(v)
        case .objectId(let v): hasher.combine(v)
        case .decimal128(let v): hasher.combine(v)
        case .uuid(let v): hasher.combine(v)
        case .dictionary: hasher.combine(12)
        case .list: hasher.combine(13)
        }
    }
}

extension AnyRealmValue: PersistableValue {
    /// Stored as Realm's `mixed` type, which is always optional: `.none` is its null.
    public static var persistedType: PersistedTypeInfo { .init(.any, optional: true) }
    /// `.none`, the value of an unset property.
    public static func persistedDefault() -> AnyRealmValue { .none }

    /// The case matching the stored value's type; a link reads as `.object` (`.none` without a Realm to read it from).
    public static func fromStored(_ stored: StoredValue, _ context: StoredContext) -> AnyRealmValue {
        switch stored.value {
        case .null: .none
        case .int(let v): .int(Int(v))
        case .bool(let v): .bool(v)
        case .float(let v): .float(v)
        case .double(let v): .double(v)
        case .string(let v): .string(v)
        case .data(let v): .data(v)
        case .date(let v): .date(v)
        case .objectId(let v): .objectId(v)
        case .decimal(let v): .decimal128(v)
        case .uuid(let v): .uuid(v)
        case .link(let link):
            // A link inside a nested collection has no backlink: its target
            // may have been deleted since.
            if let realm = context.realm, realm.isAlive(link.table, link.key) { .object(realm.accessor(link)) } else { .none }
        case .list, .dictionary: detached(stored.value, context)
        }
    }

    /// A nested collection as an unmanaged copy: what a collection read
    /// with no property to write back to gives (a frozen or delivered copy).
    static func detached(_ value: Value, _ context: StoredContext) -> AnyRealmValue {
        switch value {
        case .list(let elements):
            let list = List<AnyRealmValue>()
            list.unmanaged = elements.map { fromStored(StoredValue($0), context) }
            return .list(list)
        case .dictionary(let entries):
            let map = Map<String, AnyRealmValue>()
            map.unmanaged = entries.keys.sorted().map { ($0, fromStored(StoredValue(entries[$0]!), context)) }
            return .dictionary(map)
        default:
            return fromStored(StoredValue(value), context)
        }
    }

    /// The value at `slot` (a mixed property, or a place nested in one):
    /// a nested collection as a live list or map of that place.
    static func live(_ value: Value, at slot: ManagedSlot) -> AnyRealmValue {
        switch value {
        case .list: .list(List(slot: slot))
        case .dictionary: .dictionary(Map(slot: slot))
        default: fromStored(StoredValue(value), StoredContext(slot.ref.realm))
        }
    }

    /// Reads the property; a nested collection reads as a live list or map.
    public static func readManaged(_ slot: ManagedSlot) -> AnyRealmValue {
        let value = slot.read()
        return value.isCollection ? live(value, at: slot.nested([])) : fromStored(StoredValue(value), StoredContext(slot.ref.realm))
    }

    /// The value in stored form; `.object` adds an unmanaged object to the Realm the value is written to.
    public func toStored(_ context: StoredContext) -> StoredValue {
        switch self {
        case .none: StoredValue(.null)
        case .int(let v): StoredValue(.int(Int64(v)))
        case .bool(let v): StoredValue(.bool(v))
        case .float(let v): StoredValue(.float(v))
        case .double(let v): StoredValue(.double(v))
        case .string(let v): StoredValue(.string(v))
        case .data(let v): StoredValue(.data(v))
        case .date(let v): StoredValue(.date(v))
        case .objectId(let v): StoredValue(.objectId(v))
        case .decimal128(let v): StoredValue(.decimal(v))
        case .uuid(let v): StoredValue(.uuid(v))
        case .object(let object): object.toStored(context)
        case .list(let list): StoredValue(.list(list.mixedElements(context)))
        case .dictionary(let map): StoredValue(.dictionary(map.mixedEntries(context)))
        }
    }
}
