import OrderedCollections
/// An unordered collection of distinct values or objects, stored in a property.
///
/// ```swift
/// final class Dog: Object { @Persisted var tags: MutableSet<String> }
/// try realm.write { dog.tags.insert("good") }
/// dog.tags.contains("good")   // true
/// ```
///
/// Elements keep the order in which they were first inserted.
public final class MutableSet<Element: RealmCollectionValue>: RealmCollectionImpl, @unchecked Sendable {
    /// A position in the set: an offset from 0.
    public typealias Index = Int
    /// Iterates the elements the set held when iteration began (see ``RealmCollectionIterator``).
    public typealias Iterator = RealmCollectionIterator<Element>
    /// A contiguous range of the set's elements, read through the set.
    public typealias SubSequence = Slice<MutableSet<Element>>
    /// The valid positions, `0..<count`.
    public typealias Indices = Range<Int>

    // Safe because: a managed set checks its Realm's thread on every use;
    // frozen ones read an immutable snapshot.
    var unmanaged: [Element] = []
    let slot: ManagedSlot?

    /// Creates an empty unmanaged set.
    public init() { slot = nil }

    init(slot: ManagedSlot) { self.slot = slot }

    var managedInstance: RealmInstance? { slot?.ref.realm }
    var unmanagedElements: [Element] { unmanaged }
    var kindName: String { "MutableSet" }
    var resultsBase: (instance: RealmInstance, table: TableKey, source: ResultsSource)? { slot?.resultsBase }

    func storedElements() -> [Value] {
        guard let slot else { return [] }
        slot.ref.checkValid()
        return Array(slot.ref.realm.current.set(slot.ref.table, slot.ref.key, slot.property))
    }

    /// Whether the owning object was deleted or its Realm invalidated.
    public var isInvalidated: Bool { slot.map { !$0.ref.isValid } ?? false }

    /// A frozen copy of the set at the current version.
    public func freeze() -> MutableSet {
        guard let slot else { unmanagedCollection("sets") }
        return slot.ref.realm.isFrozen ? self : MutableSet(slot: slot.frozen())
    }

    /// The live set for the calling thread, or `nil` if its owner was deleted.
    public func thaw() -> MutableSet? {
        guard let slot else { unmanagedCollection("sets") }
        guard slot.ref.realm.isFrozen else { return self }
        guard let live = slot.thawed() else { return nil }
        return MutableSet(slot: live)
    }

    private func write(_ body: (WriteTransaction, TableKey, ObjectKey, Int) throws(ShoalError) -> Void) {
        guard let slot else { return }
        slot.ref.checkValid()
        let tx = slot.ref.realm.requireModification()
        do { try body(tx, slot.ref.table, slot.ref.key, slot.property) } catch { shoalPrecondition(error) }
    }

    private func key(_ element: Element) -> Value { element.toValue(slot?.ref.realm) }

    /// Whether the set holds `element`.
    public func contains(_ element: Element) -> Bool {
        guard let slot else { return unmanaged.contains { sameElement($0, element) } }
        if let object = element as? Object, object.ref == nil { return false }
        slot.ref.checkValid()
        return slot.ref.realm.current.set(slot.ref.table, slot.ref.key, slot.property).contains(element.toValue(nil))
    }

    /// Inserts an element unless present.
    public func insert(_ element: Element) {
        guard slot != nil else {
            if !contains(element) { unmanaged.append(element) }
            return
        }
        let value = key(element)
        write { tx, t, k, p throws(ShoalError) in try tx.setInsert(t, k, p, value) }
    }

    /// Inserts the elements of a sequence.
    public func insert<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        for element in elements { insert(element) }
    }

    /// Removes an element if present.
    public func remove(_ element: Element) {
        guard slot != nil else {
            unmanaged.removeAll { sameElement($0, element) }
            return
        }
        guard contains(element) else { return }
        let value = element.toValue(nil)
        write { tx, t, k, p throws(ShoalError) in try tx.setRemove(t, k, p, value) }
    }

    /// Removes every element.
    public func removeAll() {
        guard slot != nil else { return unmanaged.removeAll() }
        write { tx, t, k, p throws(ShoalError) in try tx.collectionClear(t, k, p) }
    }

    /// Whether the sets share at least one element.
    public func intersects(_ other: MutableSet<Element>) -> Bool { other.contains(where: { contains($0) }) }

    /// Whether every element is also in `other`.
    public func isSubset(of other: MutableSet<Element>) -> Bool { allSatisfy { other.contains($0) } }

    /// Keeps only the elements also in `other`.
    public func formIntersection(_ other: MutableSet<Element>) {
        for element in Array(self) where !other.contains(element) { remove(element) }
    }

    /// Inserts every element of `other`.
    public func formUnion(_ other: MutableSet<Element>) { insert(objectsIn: Array(other)) }

    /// Removes every element of `other`.
    public func subtract(_ other: MutableSet<Element>) {
        for element in Array(other) { remove(element) }
    }
}

extension MutableSet: PersistableValue {
    /// A set of `Element`'s schema type.
    public static var persistedType: PersistedTypeInfo {
        let e = Element.persistedType
        return .init(e.type, optional: e.isOptional, objectType: e.objectType, collection: .set)
    }
    /// An empty set, the value of an unset property.
    public static func persistedDefault() -> MutableSet { MutableSet() }
    /// Sets cannot be nested in collections: stops with `unsupported`.
    public static func fromStored(_ stored: StoredValue, _ context: StoredContext) -> MutableSet {
        nestedCollection("Sets")
    }
    /// Sets cannot be nested in collections: stops with `unsupported`.
    public func toStored(_ context: StoredContext) -> StoredValue {
        nestedCollection("Sets")
    }
    /// The set of a managed object, reading and writing its property.
    public static func readManaged(_ slot: ManagedSlot) -> MutableSet {
        slot.ref.checkValid()
        return MutableSet(slot: slot)
    }
    /// Assigning a set to a managed property replaces its contents.
    public static func writeManaged(_ value: MutableSet, _ slot: ManagedSlot) {
        slot.replaceContents(with: Array(value).map { $0 as Any? })
    }
}

extension MutableSet: UnmanagedCollectionFactory, AnyElements {
    static func makeUnmanaged(from any: Any?, property: Property, className: String) -> Any {
        let set = MutableSet()
        do {
            for item in try ValueCoercion.elements(any, name: "\(className).\(property.name)") {
                set.insert(UnmanagedValue.convert(item, to: Element.self, property: property.elementProperty, className: className))
            }
        } catch { shoalPrecondition(error) }
        return set
    }
    var anyElements: [Any?] { Array(self).map { $0 } }
    var anyEntries: [(String, Any?)]? { nil }
}

extension MutableSet: Encodable where Element: Encodable {
    /// Encodes the elements as an array.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

extension MutableSet: Decodable where Element: Decodable {
    /// Decodes an unmanaged set from an array.
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd { insert(try container.decode(Element.self)) }
    }
}
