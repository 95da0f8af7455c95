/// Gives an `Object` subclass an `Identifiable` conformance whose `id` is
/// stable for a managed object: every accessor of the same object has the
/// same `id` (what SwiftUI's `ForEach` needs).
///
/// ```swift
/// final class Item: Object, ObjectKeyIdentifiable {
///     @Persisted var name = ""
/// }
/// ForEach(realm.objects(Item.self)) { item in Text(item.name) }
/// ```
///
/// An unmanaged object's `id` is its identity, and changes when it is added
/// to a Realm, as in Realm.
public protocol ObjectKeyIdentifiable: Identifiable {
    /// The stable identity of the object.
    var id: UInt64 { get }
}

extension ObjectKeyIdentifiable where Self: Object {
    /// For a managed object, its class and object key; for an unmanaged one, its address.
    public var id: UInt64 { objectKeyID }
}

extension ObjectKeyIdentifiable where Self: ProjectionObservable {
    /// The identifier of the projected object: the same for every
    /// projection of one managed object, as Realm's.
    ///
    /// ```swift
    /// final class DogRow: Projection<Dog>, ObjectKeyIdentifiable {
    ///     @Projected(\Dog.name) var name
    /// }
    /// ```
    public var id: UInt64 { rootObject.objectKeyID }
}

extension Object {
    /// The object's stable identifier: its table and key when managed, the
    /// instance otherwise.
    var objectKeyID: UInt64 {
        guard let ref else { return UInt64(UInt(bitPattern: ObjectIdentifier(self).hashValue)) }
        // The table index in the top 16 bits, the object key below.
        return UInt64(ref.table.rawValue) << 48 | (UInt64(bitPattern: ref.key.rawValue) & 0xFFFF_FFFF_FFFF)
    }
}
