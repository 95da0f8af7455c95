/// The common base of ``Object``, ``EmbeddedObject`` and ``DynamicObject``,
/// by Realm's name for it.
///
/// ```swift
/// let types: [ObjectBase.Type] = [Person.self, Address.self]
/// let config = Realm.Configuration(inMemoryIdentifier: "demo", objectTypes: types)
/// let token = person.observe { (change: ObjectChange<ObjectBase>) in print(change) }
/// ```
///
/// Shoal's ``EmbeddedObject`` and ``DynamicObject`` are subclasses of
/// ``Object``, so `Object` is already their common base: `ObjectBase` names
/// it, and `[ObjectBase.Type]`, `ObjectChange<ObjectBase>` and generic
/// constraints `T: ObjectBase` mean what they mean in Realm.
///
/// - Note: Differs from Realm: `ObjectBase` and `Object` are one class, so
///   an overload taking `ObjectBase` and another taking `Object` clash, and
///   an extension of `ObjectBase` extends `Object`.
public typealias ObjectBase = Object

/// The property names a key path reads, joined with dots, as Realm's
/// `_name(for:)` gives them.
///
/// ```swift
/// _name(for: \Person.address?.city)   // "address.city"
/// _name(for: \Person.dogs)            // "dogs"
/// ```
///
/// A key path that reads no `@Persisted` property (a computed property of
/// plain Swift values, an ignored property) gives `""`, as in Realm.
public func _name<T: ObjectBase>(for keyPath: PartialKeyPath<T>) -> String {
    (try? KeyPathTracer.names(of: keyPath, on: T.self))?.joined(separator: ".") ?? ""
}

/// The names of the root object's properties a projection's key path reads,
/// joined with dots, as Realm's `_name(for:)` gives them for a projection.
///
/// ```swift
/// _name(for: \PersonProjection.homeCity)   // "address.city"
/// ```
///
/// `""` when the key path reads no projected property.
public func _name<O: ObjectBase, T>(for keyPath: PartialKeyPath<T>) -> String where T: Projection<O> {
    T.originNames(of: keyPath).joined(separator: ".")
}
