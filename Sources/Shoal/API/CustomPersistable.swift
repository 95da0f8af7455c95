/// A type stored as another, persistable type, as Realm's `CustomPersistable`.
///
/// ```swift
/// struct Celsius: CustomPersistable {
///     var degrees: Double
///     init(persistedValue: Double) { degrees = persistedValue }
///     var persistableValue: Double { degrees }
/// }
/// final class Reading: Object { @Persisted var temperature: Celsius }
/// ```
///
/// The property is stored, queried and sorted as `PersistedType`; an unset
/// property holds `init(persistedValue:)` of that type's default.
public protocol CustomPersistable: PersistableValue {
    /// The type the value is stored as.
    associatedtype PersistedType: PersistableValue
    /// Creates the value from its stored form.
    init(persistedValue: PersistedType)
    /// The value's stored form.
    var persistableValue: PersistedType { get }
}

extension CustomPersistable {
    /// The schema type of `PersistedType`: the property is stored, queried and sorted as that type.
    public static var persistedType: PersistedTypeInfo { PersistedType.persistedType }
    /// `init(persistedValue:)` of `PersistedType`'s default, the value of an unset property.
    public static func persistedDefault() -> Self { Self(persistedValue: PersistedType.persistedDefault()) }
    /// Reads the stored `PersistedType` and converts it with `init(persistedValue:)`.
    public static func fromStored(_ stored: StoredValue, _ context: StoredContext) -> Self {
        Self(persistedValue: PersistedType.fromStored(stored, context))
    }
    /// Stores ``persistableValue``.
    public func toStored(_ context: StoredContext) -> StoredValue { persistableValue.toStored(context) }
}

/// A type stored as another, persistable type, whose conversion from the
/// stored form can fail, as Realm's `FailableCustomPersistable`.
///
/// ```swift
/// extension URL: FailableCustomPersistable {
///     public init?(persistedValue: String) { self.init(string: persistedValue) }
///     public var persistableValue: String { absoluteString }
/// }
/// ```
///
/// Reading a stored value that does not convert gives `nil` for an optional
/// property, and stops with Realm's message for a non-optional one.
public protocol FailableCustomPersistable: PersistableValue {
    /// The type the value is stored as.
    associatedtype PersistedType: PersistableValue
    /// Creates the value from its stored form, or fails.
    init?(persistedValue: PersistedType)
    /// The value's stored form.
    var persistableValue: PersistedType { get }
}

extension FailableCustomPersistable {
    /// The schema type of `PersistedType`: the property is stored, queried and sorted as that type.
    public static var persistedType: PersistedTypeInfo { PersistedType.persistedType }
    /// `init(persistedValue:)` of `PersistedType`'s default, the value of an unset
    /// non-optional property; stops with `invalidValue` if that default does not convert.
    public static func persistedDefault() -> Self { converted(PersistedType.persistedDefault()) }
    /// Reads the stored `PersistedType` and converts it with `init(persistedValue:)`;
    /// stops with `invalidValue` (Realm's message) if it does not convert.
    public static func fromStored(_ stored: StoredValue, _ context: StoredContext) -> Self {
        converted(PersistedType.fromStored(stored, context))
    }
    /// Stores ``persistableValue``.
    public func toStored(_ context: StoredContext) -> StoredValue { persistableValue.toStored(context) }

    /// The value for a stored form, or `nil` when it does not convert (what an optional property reads).
    static func convertedIfValid(_ stored: StoredValue, _ context: StoredContext) -> Self? {
        Self(persistedValue: PersistedType.fromStored(stored, context))
    }

    private static func converted(_ persisted: PersistedType) -> Self {
        guard let value = Self(persistedValue: persisted) else {
            shoalPrecondition(ShoalError(.invalidValue,
                "Failed to convert persisted value '\(persisted)' to type '\(Self.self)' in a non-optional context."))
        }
        return value
    }
}
