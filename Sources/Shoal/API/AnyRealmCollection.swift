public import Foundation

/// Any Realm collection of `Element`, with its kind erased.
///
/// ```swift
/// let all = AnyRealmCollection(realm.objects(Dog.self))
/// let owned = AnyRealmCollection(person.dogs)
/// ```
public struct AnyRealmCollection<Element: RealmCollectionValue>: RealmCollection, @unchecked Sendable {
    // Safe because: the wrapped collection is itself checked or frozen.
    let base: any RealmCollection<Element>

    /// Wraps a collection.
    public init<C: RealmCollection>(_ base: C) where C.Element == Element {
        self.base = base
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { base.count }
    /// The element at `position` in the wrapped collection.
    ///
    /// Stops with `indexOutOfBounds` when `position` is negative or not less
    /// than ``count``.
    public subscript(position: Int) -> Element { base[position] }
    /// The number of elements in the wrapped collection.
    public var count: Int { base.count }
    /// The Realm managing the wrapped collection, or `nil` when it is unmanaged.
    public var realm: Realm? { base.realm }
    /// Whether the wrapped collection can no longer be used (its owner was deleted, or its Realm invalidated).
    public var isInvalidated: Bool { base.isInvalidated }
    /// Whether the wrapped collection is pinned to one version.
    public var isFrozen: Bool { base.isFrozen }
    public var description: String { base.description }
    /// A frozen copy of the wrapped collection, pinned at the current version and usable from any thread.
    public func freeze() -> AnyRealmCollection { AnyRealmCollection(base.freeze()) }
    /// The live version of a frozen collection for the calling thread, or `nil` when its owner was deleted since.
    public func thaw() -> AnyRealmCollection? { base.thaw().map { AnyRealmCollection($0) } }
    /// The position of an object or value in the wrapped collection, or `nil`.
    ///
    /// - Parameter object: The element to look for: an object matches the same
    ///   object of the Realm, a value an equal value.
    /// - Returns: Its position, or `nil` when the collection does not hold it.
    public func index(of object: Element) -> Int? { base.index(of: object) }
    /// The elements at the given positions, in ascending order of position.
    ///
    /// - Parameter indexes: Positions in the collection; each must be less than
    ///   ``count``, or the call stops with `indexOutOfBounds`.
    /// - Returns: The elements, in ascending order of position.
    public func objects(at indexes: IndexSet) -> [Element] { base.objects(at: indexes) }
}

extension AnyRealmCollection: Encodable where Element: Encodable {
    /// Encodes the elements as an array.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

extension Results: Encodable where Element: Encodable {
    /// Encodes the elements as an array.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}
