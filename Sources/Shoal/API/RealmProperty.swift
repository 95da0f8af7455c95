/// An optional number or Boolean, or an ``AnyRealmValue``, declared the way
/// Realm's legacy models declare one: `let` (or `var`) and a `RealmProperty`,
/// read and written through ``value``.
///
/// ```swift
/// final class Person: Object {
///     @Persisted var name = ""
///     let age = RealmProperty<Int?>()
/// }
/// let ann = Person()
/// ann.age.value = 33
/// try realm.write { realm.add(ann) }
/// let adults = realm.objects(Person.self).filter("age >= 18")
/// ```
///
/// The property is stored, and queried by format strings, under the name it
/// is declared with (`age`), like a `@Persisted` one; before its object is
/// added to a Realm it holds its value itself, afterwards it reads and
/// writes the Realm (writes need a write transaction).
///
/// Typed queries compare it through its value (`where { $0.age >= 18 }`),
/// which Realm's typed queries do not offer (Shoal's addition).
public final class RealmProperty<Value: RealmPropertyType> {
    private var unmanagedValue: Value
    /// The property of the managed object this reads, once bound.
    private var slot: ManagedSlot?

    /// Creates the property with no value (`nil`, or ``AnyRealmValue/none``).
    public init() { unmanagedValue = Value.persistedDefault() }

    /// The value: read and written on the object itself until it is added
    /// to a Realm, on the Realm afterwards.
    ///
    /// ```swift
    /// try realm.write { person.age.value = 34 }
    /// ```
    public var value: Value {
        get {
            guard let slot else { return unmanagedValue }
            return Value.readManaged(slot)
        }
        set {
            guard let slot else { return unmanagedValue = newValue }
            Value.writeManaged(newValue, slot)
        }
    }
}

extension RealmProperty: CustomStringConvertible {
    /// The value's description.
    public var description: String { String(describing: value) }
}

extension RealmProperty: Equatable where Value: Equatable {
    /// Whether both hold the same value.
    public static func == (lhs: RealmProperty, rhs: RealmProperty) -> Bool { lhs.value == rhs.value }
}

extension RealmProperty: Codable where Value: Codable {
    /// Creates the property with the decoded value; `null` decodes as no
    /// value (`nil`, or ``AnyRealmValue/none``), as in Realm.
    ///
    /// ```swift
    /// final class Person: Object, Codable {
    ///     @Persisted var name = ""
    ///     var age = RealmProperty<Int?>()
    /// }
    /// let ann = try JSONDecoder().decode(Person.self, from: Data(#"{"name": "Ann", "age": null}"#.utf8))
    /// ```
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.singleValueContainer()
        if !container.decodeNil() { value = try container.decode(Value.self) }
    }

    /// Encodes the value (read from the Realm for a managed object), `nil`
    /// as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// A type a ``RealmProperty`` holds: an optional ``RealmOptionalType``, or ``AnyRealmValue``.
public protocol RealmPropertyType: PersistableValue {}

/// A type whose optional a ``RealmProperty`` holds: the integers, `Float`,
/// `Double` and `Bool`, as in Realm.
public protocol RealmOptionalType: PersistableValue {}

extension Int: RealmOptionalType {}
extension Int8: RealmOptionalType {}
extension Int16: RealmOptionalType {}
extension Int32: RealmOptionalType {}
extension Int64: RealmOptionalType {}
extension Float: RealmOptionalType {}
extension Double: RealmOptionalType {}
extension Bool: RealmOptionalType {}
extension Optional: RealmPropertyType where Wrapped: RealmOptionalType {}
extension AnyRealmValue: RealmPropertyType {}

extension RealmProperty: RealmPropertyDeclaration {
    func property(named name: String) -> Property {
        let info = Value.persistedType
        return Property(name: name, type: info.type, isOptional: info.isOptional)
    }

    var objectType: Object.Type? { nil }

    func unmanagedStored(_ realm: RealmInstance?) -> Shoal.Value { unmanagedValue.toValue(realm) }

    var unmanagedAny: Any { unmanagedValue }

    func setUnmanaged(_ any: Any?, property: Property, className: String) {
        do {
            let stored = try ValueCoercion.value(any, for: property, className: className, realm: nil, update: .error)
            unmanagedValue = Value.fromValue(stored, nil)
        } catch { shoalPrecondition(error) }
    }

    func bind(_ ref: ObjectRef, property: Int) { slot = ManagedSlot(ref: ref, property: property) }
}
