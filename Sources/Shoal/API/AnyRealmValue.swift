public import Foundation

/// A property value of any storable kind, or a link to any object (Realm's `Mixed`).
///
/// ```swift
/// final class Note: Object { @Persisted var payload: AnyRealmValue }
/// note.payload = .string("hi")
/// note.payload.stringValue   // "hi"
/// ```
public enum AnyRealmValue: Hashable, @unchecked Sendable {
    // Safe because: the only non-Sendable payload is `Object`, which checks its thread.
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
            if let realm = context.realm { .object(realm.accessor(link)) } else { .none }
        }
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
        }
    }
}
