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
    public subscript(position: Int) -> Element { base[position] }
    public var count: Int { base.count }
    public var realm: Realm? { base.realm }
    public var isInvalidated: Bool { base.isInvalidated }
    public var isFrozen: Bool { base.isFrozen }
    public var description: String { base.description }
    public func freeze() -> AnyRealmCollection { AnyRealmCollection(base.freeze()) }
    public func thaw() -> AnyRealmCollection? { base.thaw().map { AnyRealmCollection($0) } }
    public func index(of object: Element) -> Int? { base.index(of: object) }
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
