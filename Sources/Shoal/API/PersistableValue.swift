public import Foundation

/// A type that can be stored in a `@Persisted` property, a collection or a map.
///
/// Shoal provides the conformances: `Bool`, `Int` and its sized variants,
/// `Float`, `Double`, `String`, `Data`, `Date`, `UUID`, ``ObjectId``,
/// ``Decimal128``, ``AnyRealmValue``, ``PersistableEnum`` types, `Object`
/// subclasses (as links), and `Optional` of each. Conform your enums through
/// ``PersistableEnum``, and other types through ``CustomPersistable`` or
/// ``FailableCustomPersistable``.
public protocol PersistableValue {
    /// How the type is described in the schema.
    static var persistedType: PersistedTypeInfo { get }
    /// The value an unset property holds.
    static func persistedDefault() -> Self
    /// Converts a stored value back to this type.
    static func fromStored(_ stored: StoredValue, _ context: StoredContext) -> Self
    /// Converts the value to its stored form.
    func toStored(_ context: StoredContext) -> StoredValue
    /// Reads the property of a managed object.
    static func readManaged(_ slot: ManagedSlot) -> Self
    /// Writes the property of a managed object (inside a write transaction).
    static func writeManaged(_ value: Self, _ slot: ManagedSlot)
}

extension PersistableValue {
    /// Reads the stored value of the property and converts it with ``fromStored(_:_:)``.
    public static func readManaged(_ slot: ManagedSlot) -> Self {
        fromStored(StoredValue(slot.read()), StoredContext(slot.ref.realm))
    }
    /// Converts the value with ``toStored(_:)`` and writes it to the property.
    public static func writeManaged(_ value: Self, _ slot: ManagedSlot) {
        slot.write(value.toStored(StoredContext(slot.ref.realm)).value)
    }
}

/// How a ``PersistableValue`` type appears in the schema. Opaque.
public struct PersistedTypeInfo: Sendable {
    let type: PropertyType
    let isOptional: Bool
    let objectType: Object.Type?
    let collection: CollectionKind
    var objectClassName: String? { objectType.map { Object.className(of: $0) } }

    init(_ type: PropertyType, optional: Bool = false, objectType: Object.Type? = nil, collection: CollectionKind = .none) {
        self.type = type
        self.isOptional = optional
        self.objectType = objectType
        self.collection = collection
    }
}

/// A value in stored form. Opaque.
public struct StoredValue: Sendable {
    let value: Value
    /// Realm's stored form of `value` (a NaN date is the epoch, ``Value/storable``).
    init(_ value: Value) { self.value = value.storable }
}

/// The Realm a conversion reads links from or adds objects to. Opaque.
public struct StoredContext {
    let realm: RealmInstance?
    init(_ realm: RealmInstance?) { self.realm = realm }
}

extension PersistableValue {
    static func fromValue(_ value: Value, _ realm: RealmInstance?) -> Self { fromStored(StoredValue(value), StoredContext(realm)) }
    func toValue(_ realm: RealmInstance?) -> Value { toStored(StoredContext(realm)).value }
}

// MARK: - Scalars

extension Bool: PersistableValue {
    /// Stored as a `bool` property.
    public static var persistedType: PersistedTypeInfo { .init(.bool) }
    /// `false`, the value of an unset property.
    public static func persistedDefault() -> Bool { false }
    /// The stored Boolean.
    public static func fromStored(_ s: StoredValue, _ c: StoredContext) -> Bool { if case .bool(let v) = s.value { v } else { false } }
    /// The Boolean in stored form.
    public func toStored(_ c: StoredContext) -> StoredValue { StoredValue(.bool(self)) }
}

extension String: PersistableValue {
    /// Stored as a `string` property.
    public static var persistedType: PersistedTypeInfo { .init(.string) }
    /// The empty string, the value of an unset property.
    public static func persistedDefault() -> String { "" }
    /// The stored string.
    public static func fromStored(_ s: StoredValue, _ c: StoredContext) -> String { if case .string(let v) = s.value { v } else { "" } }
    /// The string in stored form.
    public func toStored(_ c: StoredContext) -> StoredValue { StoredValue(.string(self)) }
    /// Reads a managed property's string from its column's bytes, with no
    /// stored value made on the way.
    public static func readManaged(_ slot: ManagedSlot) -> String { slot.readString() }
}

extension Data: PersistableValue {
    /// Stored as a `data` property.
    public static var persistedType: PersistedTypeInfo { .init(.data) }
    /// Empty data, the value of an unset property.
    public static func persistedDefault() -> Data { Data() }
    /// The stored bytes.
    public static func fromStored(_ s: StoredValue, _ c: StoredContext) -> Data { if case .data(let v) = s.value { v } else { Data() } }
    /// The bytes in stored form.
    public func toStored(_ c: StoredContext) -> StoredValue { StoredValue(.data(self)) }
}

extension Date: PersistableValue {
    /// Stored as a `date` property.
    public static var persistedType: PersistedTypeInfo { .init(.date) }
    /// Realm's default for an unset date: the reference date of the Unix epoch.
    public static func persistedDefault() -> Date { Date(timeIntervalSince1970: 0) }
    /// The stored date.
    public static func fromStored(_ s: StoredValue, _ c: StoredContext) -> Date { if case .date(let v) = s.value { v } else { persistedDefault() } }
    /// The date in stored form (a NaN date is stored as the epoch, as in Realm).
    public func toStored(_ c: StoredContext) -> StoredValue { StoredValue(.date(self)) }
}

extension UUID: PersistableValue {
    /// Stored as a `uuid` property.
    public static var persistedType: PersistedTypeInfo { .init(.uuid) }
    /// As Realm's: an unset non-optional `UUID` property gets a new random value.
    public static func persistedDefault() -> UUID { UUID() }
    /// The stored UUID.
    public static func fromStored(_ s: StoredValue, _ c: StoredContext) -> UUID {
        if case .uuid(let v) = s.value { v } else { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
    }
    /// The UUID in stored form.
    public func toStored(_ c: StoredContext) -> StoredValue { StoredValue(.uuid(self)) }
}

extension ObjectId: PersistableValue {
    /// Stored as an `objectId` property.
    public static var persistedType: PersistedTypeInfo { .init(.objectId) }
    /// As Realm's: an unset non-optional `ObjectId` property gets a newly
    /// generated value, so `@Persisted(primaryKey: true) var _id: ObjectId`
    /// gives every object its own key.
    public static func persistedDefault() -> ObjectId { ObjectId.generate() }
    /// The stored object id.
    public static func fromStored(_ s: StoredValue, _ c: StoredContext) -> ObjectId { if case .objectId(let v) = s.value { v } else { ObjectId() } }
    /// The object id in stored form.
    public func toStored(_ c: StoredContext) -> StoredValue { StoredValue(.objectId(self)) }
}

extension Decimal128: PersistableValue {
    /// Stored as a `decimal128` property.
    public static var persistedType: PersistedTypeInfo { .init(.decimal128) }
    /// Zero, the value of an unset property.
    public static func persistedDefault() -> Decimal128 { 0 }
    /// The stored decimal.
    public static func fromStored(_ s: StoredValue, _ c: StoredContext) -> Decimal128 { s.value.decimalValue ?? 0 }
    /// The decimal in stored form.
    public func toStored(_ c: StoredContext) -> StoredValue { StoredValue(.decimal(self)) }
}

extension Float: PersistableValue {
    /// Stored as a `float` property.
    public static var persistedType: PersistedTypeInfo { .init(.float) }
    /// Zero, the value of an unset property.
    public static func persistedDefault() -> Float { 0 }
    /// The stored number, as a `Float`.
    public static func fromStored(_ s: StoredValue, _ c: StoredContext) -> Float { s.value.doubleValue.map(Float.init) ?? 0 }
    /// The number in stored form.
    public func toStored(_ c: StoredContext) -> StoredValue { StoredValue(.float(self)) }
}

extension Double: PersistableValue {
    /// Stored as a `double` property.
    public static var persistedType: PersistedTypeInfo { .init(.double) }
    /// Zero, the value of an unset property.
    public static func persistedDefault() -> Double { 0 }
    /// The stored number.
    public static func fromStored(_ s: StoredValue, _ c: StoredContext) -> Double { s.value.doubleValue ?? 0 }
    /// The number in stored form.
    public func toStored(_ c: StoredContext) -> StoredValue { StoredValue(.double(self)) }
}

/// Integers of every width are stored as 64-bit integers.
public protocol PersistableInteger: PersistableValue, FixedWidthInteger {}

extension PersistableInteger {
    /// Stored as an `int` property (64 bits, whatever the width of `Self`).
    public static var persistedType: PersistedTypeInfo { .init(.int) }
    /// Zero, the value of an unset property.
    public static func persistedDefault() -> Self { 0 }
    /// The stored integer, truncated to the width of `Self`.
    public static func fromStored(_ s: StoredValue, _ c: StoredContext) -> Self {
        if case .int(let v) = s.value { return Self(truncatingIfNeeded: v) }
        return 0
    }
    /// The integer in stored form, as a 64-bit integer.
    public func toStored(_ c: StoredContext) -> StoredValue { StoredValue(.int(Int64(self))) }
}

extension Int: PersistableInteger {}
extension Int8: PersistableInteger {}
extension Int16: PersistableInteger {}
extension Int32: PersistableInteger {}
extension Int64: PersistableInteger {}

// MARK: - Optionals

extension Optional: PersistableValue where Wrapped: PersistableValue {
    /// The wrapped type's property, optional.
    public static var persistedType: PersistedTypeInfo {
        let inner = Wrapped.persistedType
        return .init(inner.type, optional: true, objectType: inner.objectType, collection: inner.collection)
    }
    /// `nil`, the value of an unset property.
    public static func persistedDefault() -> Wrapped? { nil }
    /// `nil` for a stored null (or for a ``FailableCustomPersistable`` value that
    /// does not convert), else the wrapped value.
    public static func fromStored(_ s: StoredValue, _ c: StoredContext) -> Wrapped? {
        if s.value.isNull { return nil }
        // A failable custom type reads as nil when its stored form does not convert.
        if let failable = Wrapped.self as? any FailableCustomPersistable.Type { return failable.convertedIfValid(s, c) as? Wrapped }
        return Wrapped.fromStored(s, c)
    }
    /// `nil` in stored form (null), or the wrapped value's stored form.
    public func toStored(_ c: StoredContext) -> StoredValue {
        switch self {
        case .none: StoredValue(.null)
        case .some(let w): w.toStored(c)
        }
    }
}

// MARK: - Enums

/// An enum that can be persisted through its raw value.
///
/// ```swift
/// enum Size: Int, PersistableEnum { case small, large }
/// final class Dog: Object { @Persisted var size: Size }
/// ```
/// An unset property holds the first case.
public protocol PersistableEnum: PersistableValue, RawRepresentable, CaseIterable, Hashable
where RawValue: PersistableValue {}

/// Realm's name for an enum stored as its raw value, from its
/// Objective-C-era models (`@objc enum Kind: Int, RealmEnum`); in Shoal it
/// is a ``PersistableEnum``, usable in `@Persisted` properties.
///
/// ```swift
/// enum Kind: Int, RealmEnum { case cat, dog }
/// final class Pet: Object { @Persisted var kind: Kind }
/// ```
public protocol RealmEnum: PersistableEnum {}

extension PersistableEnum {
    /// Stored as its `RawValue`'s type.
    public static var persistedType: PersistedTypeInfo { RawValue.persistedType }
    /// The first case, the value of an unset property.
    public static func persistedDefault() -> Self { allCases.first! }
    /// The case whose raw value is stored; stops with `invalidValue` when no case has it.
    public static func fromStored(_ s: StoredValue, _ c: StoredContext) -> Self {
        let raw = RawValue.fromStored(s, c)
        guard let value = Self(rawValue: raw) else {
            shoalPrecondition(ShoalError(.invalidValue, "Stored value '\(raw)' is not a valid raw value of \(Self.self)."))
        }
        return value
    }
    /// The raw value in stored form.
    public func toStored(_ c: StoredContext) -> StoredValue { rawValue.toStored(c) }
}
