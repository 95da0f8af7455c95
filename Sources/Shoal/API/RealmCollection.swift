public import Foundation

/// A value a Realm collection can hold: any persistable type.
public typealias RealmCollectionValue = PersistableValue

/// The interface shared by ``Results``, ``List``, ``MutableSet`` and
/// ``LinkingObjects`` (and erased by ``AnyRealmCollection``).
///
/// ```swift
/// func names(_ dogs: some RealmCollection<Dog>) -> [String] { dogs.map(\.name) }
/// ```
public protocol RealmCollection<Element>: RandomAccessCollection, CustomStringConvertible
where Index == Int, Element: RealmCollectionValue {
    /// The Realm managing the collection, or `nil` when unmanaged.
    var realm: Realm? { get }
    /// Whether the collection can no longer be used (its owner was deleted,
    /// or its Realm invalidated).
    var isInvalidated: Bool { get }
    /// Whether the collection is pinned to one version.
    var isFrozen: Bool { get }
    /// A frozen copy pinned at the current version, usable from any thread.
    func freeze() -> Self
    /// The live version of a frozen collection for the calling thread, or
    /// `nil` when its owner was deleted since.
    func thaw() -> Self?
    /// The position of an object or value, or `nil`.
    func index(of object: Element) -> Int?
    /// The elements at the given positions, in ascending order.
    func objects(at indexes: IndexSet) -> [Element]
}

/// The shared implementation of the collection kinds that hold elements in
/// order: each kind supplies its current elements in stored form.
protocol RealmCollectionImpl<Element>: RealmCollection {
    /// The Realm instance of a managed collection; `nil` when unmanaged.
    var managedInstance: RealmInstance? { get }
    /// The current elements in stored form (managed collections only).
    func storedElements() -> [Value]
    /// The current elements as ``StoredElements``: the keys alone where
    /// they are objects of one table (managed collections only).
    func storedObjectsOrValues() -> StoredElements
    /// The elements of an unmanaged collection.
    var unmanagedElements: [Element] { get }
    /// A description of what the collection is, for ``description``.
    var kindName: String { get }
    /// What a query on the collection starts from: its Realm, the table of
    /// its elements (of its owner, for values) and its source; `nil` when unmanaged.
    var resultsBase: (instance: RealmInstance, table: TableKey, source: ResultsSource)? { get }
    /// The same managed collection read through another instance of its
    /// store (queue-confined or frozen); unmanaged collections return themselves.
    func rebinding(to instance: RealmInstance) -> Self
    /// Takes the elements a notifier delivered with a change, where the
    /// collection would otherwise evaluate a query to read them.
    func adoptDelivered(_ elements: DeliveredElements)
}

/// The public query, aggregate and key-value API is declared on the public
/// ``RealmCollection`` (so that it is visible outside the module) and reaches
/// the shared implementation through these members. Every collection Shoal
/// vends is a `RealmCollectionImpl`; ``AnyRealmCollection`` forwards to the
/// one it wraps.
extension RealmCollection {
    var impl: any RealmCollectionImpl<Element> {
        // `Results` first, by comparing types: the cast to a parameterized
        // existential below checks conformances at run time, which cost as
        // much as running a small query.
        if Self.self == Results<Element>.self { return unsafeBitCast(self, to: Results<Element>.self) }
        if let impl = self as? any RealmCollectionImpl<Element> { return impl }
        if let erased = self as? AnyRealmCollection<Element> { return erased.base.impl }
        shoalPrecondition(ShoalError(.unsupported, "\(Self.self) is not a collection Shoal vends; queries need Results, List, MutableSet, LinkingObjects or AnyRealmCollection."))
    }
    var managedInstance: RealmInstance? { impl.managedInstance }
    func storedElements() -> [Value] { impl.storedElements() }
    func storedObjectsOrValues() -> StoredElements { impl.storedObjectsOrValues() }
    var unmanagedElements: [Element] { impl.unmanagedElements }
    var kindName: String { impl.kindName }
    var resultsBase: (instance: RealmInstance, table: TableKey, source: ResultsSource)? { impl.resultsBase }
}

extension RealmCollectionImpl {
    /// The elements as values: collections other than ``Results`` hold
    /// them so.
    func storedObjectsOrValues() -> StoredElements { .values(storedElements()) }

    /// Collections other than ``Results`` read their elements from the
    /// snapshot: nothing to adopt.
    func adoptDelivered(_ elements: DeliveredElements) {}

    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }
    /// The position after the last element: ``count``.
    public var endIndex: Int { count }

    /// The number of elements.
    ///
    /// ```swift
    /// let puppies = realm.objects(Dog.self).where { $0.age < 2 }.count
    /// ```
    public var count: Int {
        guard managedInstance != nil else { return unmanagedElements.count }
        return storedObjectsOrValues().count
    }

    /// The element at `position`.
    ///
    /// ```swift
    /// let firstDog = person.dogs[0]
    /// ```
    ///
    /// Stops with `indexOutOfBounds` when `position` is negative ("Cannot pass a
    /// negative value for 'index'.") or not less than ``count``.
    public subscript(position: Int) -> Element {
        guard let instance = managedInstance else {
            checkIndex(position, unmanagedElements.count)
            return unmanagedElements[position]
        }
        let elements = storedObjectsOrValues()
        checkIndex(position, elements.count)
        return Element.fromValue(elements[position], instance)
    }

    /// The Realm managing the collection, or `nil` when it is unmanaged.
    public var realm: Realm? { managedInstance.map(Realm.init(instance:)) }
    /// Whether the collection is pinned to one version (see ``RealmCollection/freeze()``).
    public var isFrozen: Bool { managedInstance?.isFrozen ?? false }

    /// The first element, or `nil` when the collection is empty.
    public var first: Element? { isEmpty ? nil : self[0] }
    /// The last element, or `nil` when the collection is empty.
    public var last: Element? { isEmpty ? nil : self[count - 1] }

    /// The position of an object or value, or `nil` when the collection does not hold it.
    ///
    /// ```swift
    /// person.dogs.index(of: rex)   // 0 if Rex is the first of Tim's dogs
    /// ```
    ///
    /// - Parameter object: The element to look for: an object matches the same
    ///   object of the Realm (an unmanaged object is never in a managed
    ///   collection), a value an equal value.
    /// - Returns: The position of its first occurrence, or `nil`.
    public func index(of object: Element) -> Int? {
        guard let instance = managedInstance else {
            return unmanagedElements.firstIndex { sameElement($0, object) }
        }
        if let object = object as? Object {
            guard let ref = object.ref else { return nil }
            ref.checkValid()
            guard ref.realm.coordinator === instance.coordinator else { return nil }
        }
        let value = object.toValue(nil)
        return storedElements().firstIndex { $0 == value && $0.kindRank == value.kindRank }
    }

    /// The elements at the given positions, in ascending order of position.
    ///
    /// ```swift
    /// let firstTwo = realm.objects(Dog.self).objects(at: IndexSet(0..<2))
    /// ```
    ///
    /// - Parameter indexes: Positions in the collection; each must be less than
    ///   ``count``, or the call stops with `indexOutOfBounds`.
    /// - Returns: The elements at those positions.
    public func objects(at indexes: IndexSet) -> [Element] {
        let count = self.count
        guard indexes.allSatisfy({ $0 >= 0 && $0 < count }) else {
            shoalPrecondition(ShoalError(.indexOutOfBounds, "Indexes for collection are out of bounds."))
        }
        return indexes.map { self[$0] }
    }

    /// Iterates the elements as they were when iteration began.
    public func makeIterator() -> RealmCollectionIterator<Element> {
        guard let instance = managedInstance else { return RealmCollectionIterator(unmanaged: unmanagedElements) }
        return RealmCollectionIterator(stored: storedObjectsOrValues(), instance: instance)
    }

    /// The elements in Realm's format (see `RealmDescription`).
    public var description: String { realmDescription(depth: RealmDescription.maxDepth) }

    func checkIndex(_ position: Int, _ count: Int) {
        if position < 0 {
            shoalPrecondition(ShoalError(.indexOutOfBounds, "Cannot pass a negative value for 'index'."))
        }
        if position >= count {
            shoalPrecondition(ShoalError(.indexOutOfBounds, "Index \(position) is out of bounds (must be less than \(count))."))
        }
    }
}

/// Iterates a Realm collection over the elements it held when iteration
/// began: deleting objects inside the loop is safe.
///
/// When the previous element's accessor is no longer strongly referenced
/// (the loop body let it go) and its class has only `@Persisted`
/// properties, the iterator re-points that accessor at the next object
/// instead of making a new one. A `weak` or `unowned` reference to an
/// element, or its `ObjectIdentifier`, can then follow it to the next
/// object: keep a strong reference, or compare objects with `==`.
public struct RealmCollectionIterator<Element: RealmCollectionValue>: IteratorProtocol {
    /// Where iteration stands over a managed collection's stored elements.
    /// Not generic, so that stepping it passes no type metadata.
    @usableFromInline var cursor: StoredCursor
    /// The elements of an unmanaged collection.
    let elements: [Element]

    init(stored: StoredElements, instance: RealmInstance) {
        let catalog = Element.self is Object.Type ? instance.catalog : nil
        cursor = StoredCursor(stored: stored, instance: instance, catalog: catalog)
        elements = []
    }

    init(unmanaged elements: [Element]) {
        cursor = StoredCursor()
        self.elements = elements
    }

    /// The next element.
    ///
    /// Inlinable so that, specialized for an object class, handing out a
    /// reused accessor is a plain retain rather than a generic copy.
    @inlinable
    public mutating func next() -> Element? {
        if Element.self is Object.Type {
            let step = cursor.nextAccessor()
            // An object of the class `Element` is or is a superclass of.
            if let object = step.object { return unsafeBitCast(object, to: Element.self) }
            if step.isEnd { return nil }
        }
        return nextElement()
    }

    /// The next element, made (or read) rather than reused.
    @usableFromInline
    mutating func nextElement() -> Element? {
        if let instance = cursor.instance {
            guard let value = cursor.nextValue() else { return nil }
            let element = Element.fromValue(value, instance)
            if cursor.reusesAccessor(of: value) {
                cursor.lastAccessor = unsafeDowncast(unsafeBitCast(element, to: AnyObject.self), to: Object.self)
            }
            return element
        }
        guard cursor.position < elements.count else { return nil }
        defer { cursor.position += 1 }
        return elements[cursor.position]
    }
}

/// The stored elements a ``RealmCollectionIterator`` steps over, and the
/// accessor it may reuse.
@usableFromInline
struct StoredCursor {
    /// The elements as stored values, when they are not ``keys``.
    let values: [Value]
    /// The elements, objects of ``keyTable``, by key: what a query or a
    /// whole table gives, iterated with no `Value` per element.
    let keys: [ObjectKey]
    let keyTable: TableKey
    let usesKeys: Bool
    let instance: RealmInstance?
    var position = 0
    /// The Realm's classes and their plans (which say whether a table's
    /// accessors may be reused), when elements are objects; `nil` otherwise.
    private let catalog: Catalog?
    /// Whether ``keyTable``'s accessors may be reused.
    private let keysReusable: Bool
    /// The Realm's ``RealmInstance/liveStamp`` when iteration began: every
    /// element was live then, and is while the stamp stays current.
    private let liveAt: UInt64
    /// The accessor last handed out, when its class allows reuse: if
    /// nothing else holds it when the next element is asked for (the loop
    /// body let it go), it is pointed at the next object instead of a new
    /// accessor being made. A `for` loop over a `Results` then makes one
    /// accessor, not one per object; an element kept (in an array, a
    /// variable, a closure) is never reused.
    fileprivate var lastAccessor: Object?

    init(stored: StoredElements, instance: RealmInstance, catalog: Catalog?) {
        switch stored {
        case .objects(let table, let keys):
            (values, self.keys, keyTable, usesKeys) = ([], keys, table, true)
        case .values(let values):
            (self.values, keys, keyTable, usesKeys) = (values, [], TableKey(0), false)
        }
        self.instance = instance
        self.catalog = catalog
        keysReusable = usesKeys && catalog?.accessorsReusable(keyTable) == true
        liveAt = instance.liveStamp
    }

    /// The cursor of an unmanaged collection (only ``position`` is used).
    init() {
        (values, keys, keyTable, usesKeys) = ([], [], TableKey(0), false)
        instance = nil
        catalog = nil
        keysReusable = false
        liveAt = 0
    }

    /// What ``nextAccessor()`` found.
    @usableFromInline
    struct AccessorStep {
        /// The next element, a reused accessor pointed at it.
        @usableFromInline let object: Object?
        /// Whether no element is left.
        @usableFromInline let isEnd: Bool
    }

    /// The next element when the last accessor can be re-pointed at it
    /// (stepping past it); otherwise nothing, and ``nextValue()`` gives it.
    @usableFromInline
    mutating func nextAccessor() -> AccessorStep {
        guard instance != nil else { return AccessorStep(object: nil, isEnd: false) }
        let link: Link
        if usesKeys {
            guard position < keys.count else { return AccessorStep(object: nil, isEnd: true) }
            guard keysReusable else { return AccessorStep(object: nil, isEnd: false) }
            link = Link(table: keyTable, key: keys[position])
        } else {
            guard position < values.count else { return AccessorStep(object: nil, isEnd: true) }
            guard let catalog, case .link(let found) = values[position], catalog.accessorsReusable(found.table) else {
                return AccessorStep(object: nil, isEnd: false)
            }
            link = found
        }
        // The uniqueness check first: it takes the cursor inout, and the
        // instance read after it needs no retain to outlive it.
        guard isKnownUniquelyReferenced(&lastAccessor),
            lastAccessor.unsafelyUnwrapped.repoint(to: link.table, link.key, in: instance.unsafelyUnwrapped, liveAt: liveAt)
        else { return AccessorStep(object: nil, isEnd: false) }
        position += 1
        return AccessorStep(object: lastAccessor.unsafelyUnwrapped, isEnd: false)
    }

    /// The next stored element as a value (stepping past it), or `nil` at the end.
    mutating func nextValue() -> Value? {
        guard position < (usesKeys ? keys.count : values.count) else { return nil }
        defer { position += 1 }
        return usesKeys ? .link(Link(table: keyTable, key: keys[position])) : values[position]
    }

    /// Whether the accessor made for `value` may be re-pointed later: it
    /// is an object whose class allows it.
    func reusesAccessor(of value: Value) -> Bool {
        guard let catalog, case .link(let link) = value else { return false }
        return catalog.accessorsReusable(link.table)
    }
}

/// A managed collection's elements in stored form: the keys of objects of
/// one table (a whole table, or a query on one, unsorted), or values.
enum StoredElements {
    case objects(TableKey, [ObjectKey])
    case values([Value])

    var count: Int {
        switch self {
        case .objects(_, let keys): keys.count
        case .values(let values): values.count
        }
    }

    subscript(position: Int) -> Value {
        switch self {
        case .objects(let table, let keys): .link(Link(table: table, key: keys[position]))
        case .values(let values): values[position]
        }
    }

    /// The elements as values.
    var values: [Value] {
        switch self {
        case .objects(let table, let keys): keys.map { .link(Link(table: table, key: $0)) }
        case .values(let values): values
        }
    }
}
