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
    case none
    case int(Int)
    case bool(Bool)
    case float(Float)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case object(Object)
    case objectId(ObjectId)
    case decimal128(Decimal128)
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
    public static var persistedType: PersistedTypeInfo { .init(.any, optional: true) }
    public static func persistedDefault() -> AnyRealmValue { .none }

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
