/// An ordered list of values or objects, stored in a property.
///
/// ```swift
/// final class Person: Object {
///     @Persisted var dogs: List<Dog>
/// }
/// try realm.write { person.dogs.append(rex) }
/// ```
///
/// Unmanaged lists hold their elements; managed ones read and write their
/// object's property, and mutations need a write transaction.
public final class List<Element: RealmCollectionValue>: RealmCollectionImpl, @unchecked Sendable {
    /// A position in the list: an offset from 0.
    public typealias Index = Int
    /// Iterates the elements the list held when iteration began (see ``RealmCollectionIterator``).
    public typealias Iterator = RealmCollectionIterator<Element>
    /// A contiguous range of the list's elements, read through the list.
    public typealias SubSequence = Slice<List<Element>>
    /// The valid positions, `0..<count`.
    public typealias Indices = Range<Int>

    // Safe because: a managed list checks its Realm's thread on every use;
    // frozen ones read an immutable snapshot.
    var unmanaged: [Element] = []
    let slot: ManagedSlot?

    /// Creates an empty unmanaged list.
    public init() { slot = nil }

    init(slot: ManagedSlot) { self.slot = slot }

    var managedInstance: RealmInstance? { slot?.ref.realm }
    var unmanagedElements: [Element] { unmanaged }
    var kindName: String { "List" }
    var resultsBase: (instance: RealmInstance, table: TableKey, source: ResultsSource)? { isNested ? nil : slot?.resultsBase }

    func storedElements() -> [Value] {
        guard let slot else { return [] }
        if isNested { return nestedElements() }
        slot.ref.checkValid()
        return slot.ref.realm.current.list(slot.ref.table, slot.ref.key, slot.property)
    }

    /// Iterates the elements the list held when iteration began (see
    /// ``RealmCollectionIterator``); a list nested in a mixed property hands
    /// out its nested collections live.
    public func makeIterator() -> RealmCollectionIterator<Element> {
        guard let slot else { return RealmCollectionIterator(unmanaged: unmanaged) }
        if isNested {
            let values = nestedElements()
            return RealmCollectionIterator(unmanaged: values.indices.map { nestedElement(values[$0], at: $0) })
        }
        return RealmCollectionIterator(stored: storedObjectsOrValues(), instance: slot.ref.realm)
    }

    /// Whether the owning object was deleted or its Realm invalidated.
    public var isInvalidated: Bool { slot.map { !$0.ref.isValid } ?? false }

    /// A frozen copy of the list at the current version.
    public func freeze() -> List {
        guard let slot else { unmanagedCollection("lists") }
        return slot.ref.realm.isFrozen ? self : List(slot: slot.frozen())
    }

    /// The live list for the calling thread, or `nil` if its owner was deleted.
    public func thaw() -> List? {
        guard let slot else { unmanagedCollection("lists") }
        guard slot.ref.realm.isFrozen else { return self }
        guard let live = slot.thawed() else { return nil }
        return List(slot: live)
    }

    // MARK: Mutation

    private func write(_ body: (WriteTransaction, TableKey, ObjectKey, Int) throws(ShoalError) -> Void) {
        guard let slot else { return }
        slot.ref.checkValid()
        let tx = slot.ref.realm.requireModification()
        do { try body(tx, slot.ref.table, slot.ref.key, slot.property) } catch { shoalPrecondition(error) }
    }

    private func stored(_ element: Element) -> Value {
        let value = element.toValue(slot?.ref.realm)
        if value.isNull, let slot, !slot.schemaProperty.isOptional {
            shoalPrecondition(ShoalError(.typeMismatch, "Invalid null value for non-nullable list '\(slot.qualifiedName)'."))
        }
        return value
    }

    /// Reads or replaces the element at `position`.
    public subscript(position: Int) -> Element {
        get {
            guard let slot else {
                checkIndex(position, unmanaged.count)
                return unmanaged[position]
            }
            let values = storedElements()
            checkIndex(position, values.count)
            if isNested { return nestedElement(values[position], at: position) }
            return Element.fromValue(values[position], slot.ref.realm)
        }
        set { replace(index: position, object: newValue) }
    }

    /// Appends an element.
    public func append(_ element: Element) {
        guard slot != nil else { return unmanaged.append(element) }
        if isNested {
            let value = nestedStored(element)
            return updateNestedList { $0.append(value) }
        }
        let value = stored(element)
        write { tx, t, k, p throws(ShoalError) in try tx.listInsert(t, k, p, value, at: tx.working.list(t, k, p).count) }
    }

    /// Appends the elements of a sequence.
    public func append<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        for element in elements { append(element) }
    }

    /// Inserts an element at `index`.
    public func insert(_ element: Element, at index: Int) {
        guard slot != nil else {
            checkIndex(index, unmanaged.count + 1)
            return unmanaged.insert(element, at: index)
        }
        if isNested {
            let value = nestedStored(element)
            return updateNestedList { (list: inout [Value]) throws(ShoalError) in
                try checkNestedIndex(index, list.count + 1)
                list.insert(value, at: index)
            }
        }
        let value = stored(element)
        write { tx, t, k, p throws(ShoalError) in try tx.listInsert(t, k, p, value, at: index) }
    }

    /// Removes the element at `index`.
    public func remove(at index: Int) {
        guard slot != nil else {
            checkIndex(index, unmanaged.count)
            unmanaged.remove(at: index)
            return
        }
        if isNested {
            return updateNestedList { (list: inout [Value]) throws(ShoalError) in
                try checkNestedIndex(index, list.count)
                list.remove(at: index)
            }
        }
        write { tx, t, k, p throws(ShoalError) in try tx.listRemove(t, k, p, at: index) }
    }

    /// Removes the last element; stops when the list is empty.
    public func removeLast() {
        guard !isEmpty else { shoalPrecondition(ShoalError(.indexOutOfBounds, "Cannot remove the last element of an empty list.")) }
        remove(at: count - 1)
    }

    /// Removes the first element; stops when the list is empty.
    public func removeFirst() {
        guard !isEmpty else { shoalPrecondition(ShoalError(.indexOutOfBounds, "Cannot remove the first element of an empty list.")) }
        remove(at: 0)
    }

    /// Removes every element (linked objects stay in the Realm).
    public func removeAll() {
        guard slot != nil else { return unmanaged.removeAll() }
        if isNested { return updateNestedList { $0.removeAll() } }
        write { tx, t, k, p throws(ShoalError) in try tx.collectionClear(t, k, p) }
    }

    /// Replaces the element at `index`.
    public func replace(index: Int, object element: Element) {
        guard slot != nil else {
            checkIndex(index, unmanaged.count)
            unmanaged[index] = element
            return
        }
        if isNested {
            let value = nestedStored(element)
            return updateNestedList { (list: inout [Value]) throws(ShoalError) in
                try checkNestedIndex(index, list.count)
                list[index] = value
            }
        }
        let value = stored(element)
        write { tx, t, k, p throws(ShoalError) in try tx.listSet(t, k, p, value, at: index) }
    }

    /// Moves the element at `from` to `to`.
    public func move(from: Int, to: Int) {
        guard slot != nil else {
            checkIndex(from, unmanaged.count)
            checkIndex(to, unmanaged.count)
            unmanaged.insert(unmanaged.remove(at: from), at: to)
            return
        }
        if isNested {
            return updateNestedList { (list: inout [Value]) throws(ShoalError) in
                try checkNestedIndex(from, list.count)
                try checkNestedIndex(to, list.count)
                list.insert(list.remove(at: from), at: to)
            }
        }
        write { tx, t, k, p throws(ShoalError) in try tx.listMove(t, k, p, from: from, to: to) }
    }

    /// Exchanges the elements at two positions.
    public func swapAt(_ i: Int, _ j: Int) {
        guard slot != nil else {
            checkIndex(i, unmanaged.count)
            checkIndex(j, unmanaged.count)
            unmanaged.swapAt(i, j)
            return
        }
        if isNested {
            return updateNestedList { (list: inout [Value]) throws(ShoalError) in
                try checkNestedIndex(Swift.max(i, j), list.count)
                list.swapAt(i, j)
            }
        }
        write { tx, t, k, p throws(ShoalError) in
            let list = tx.working.list(t, k, p)
            guard i >= 0, j >= 0, i < list.count, j < list.count else {
                throw ShoalError(.indexOutOfBounds, "Index \(Swift.max(i, j)) is out of bounds (must be less than \(list.count)).")
            }
            let (a, b) = (list[i], list[j])
            if tx.embeddedLink(a) != nil, i != j {
                // An embedded object has one place: setting it at a second
                // index would refuse it, so the two trade places by moves.
                let (low, high) = (Swift.min(i, j), Swift.max(i, j))
                try tx.listMove(t, k, p, from: low, to: high)
                try tx.listMove(t, k, p, from: high - 1, to: low)
                return
            }
            try tx.listSet(t, k, p, b, at: i)
            try tx.listSet(t, k, p, a, at: j)
        }
    }
}

extension List: PersistableValue {
    /// A list of `Element`'s schema type.
    public static var persistedType: PersistedTypeInfo {
        let e = Element.persistedType
        return .init(e.type, optional: e.isOptional, objectType: e.objectType, collection: .list)
    }
    /// An empty list, the value of an unset property.
    public static func persistedDefault() -> List { List() }
    /// Lists cannot be nested in collections: stops with `unsupported`.
    public static func fromStored(_ stored: StoredValue, _ context: StoredContext) -> List {
        nestedCollection("Lists")
    }
    /// Lists cannot be nested in collections: stops with `unsupported`.
    public func toStored(_ context: StoredContext) -> StoredValue {
        nestedCollection("Lists")
    }
    /// The list of a managed object, reading and writing its property.
    public static func readManaged(_ slot: ManagedSlot) -> List {
        slot.ref.checkValid()
        return List(slot: slot)
    }
    /// Assigning a list to a managed property replaces its contents.
    public static func writeManaged(_ value: List, _ slot: ManagedSlot) {
        slot.replaceContents(with: Array(value).map { $0 as Any? })
    }
}

extension List: UnmanagedCollectionFactory, AnyElements {
    static func makeUnmanaged(from any: Any?, property: Property, className: String) -> Any {
        let list = List()
        do {
            for item in try ValueCoercion.elements(any, name: "\(className).\(property.name)") {
                list.append(UnmanagedValue.convert(item, to: Element.self, property: property.elementProperty, className: className))
            }
        } catch { shoalPrecondition(error) }
        return list
    }
    var anyElements: [Any?] { Array(self).map { $0 } }
    var anyEntries: [(String, Any?)]? { nil }
}

extension List: Encodable where Element: Encodable {
    /// Encodes the elements as an array.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

extension List: Decodable where Element: Decodable {
    /// Decodes an unmanaged list from an array.
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd { unmanaged.append(try container.decode(Element.self)) }
    }
}
