import Foundation
import Synchronization

/// The objects of a class that match a query, live: every read reflects the
/// Realm's current version, including the open write transaction.
///
/// ```swift
/// let dogs = realm.objects(Dog.self)
/// dogs.count
/// dogs.first?.name
/// for dog in dogs { print(dog.name) }   // the dogs that matched when the loop began
/// ```
///
/// Results are evaluated lazily, at most once per version however many
/// times `count` or the subscript are used. A `count` that one typed
/// column can answer is counted without making the list of objects, also
/// at most once per version.
///
/// ## Topics
/// ### Reading
/// - ``count``
/// ### Versions
/// - ``freeze()``
/// - ``thaw()``
public struct Results<Element: RealmCollectionValue>: RealmCollectionImpl, @unchecked Sendable {
    /// A position in the results: an offset from 0.
    public typealias Index = Int
    /// Iterates the elements the results held when iteration began (see ``RealmCollectionIterator``).
    public typealias Iterator = RealmCollectionIterator<Element>
    /// A contiguous range of the results' elements, read through the results.
    public typealias SubSequence = Slice<Self>
    /// The valid positions, `0..<count`.
    public typealias Indices = Range<Int>

    // Safe because: live results check their Realm's thread on every read;
    // frozen results read an immutable snapshot, and the cache is locked.
    let instance: RealmInstance
    let table: TableKey
    let source: Source
    let generation: Int
    /// Made once per `Results` and shared by its copies: also its identity for `==`.
    let cache = ResultsCache()

    /// Where the results' elements come from.
    typealias Source = ResultsSource

    init(instance: RealmInstance, table: TableKey, source: Source) {
        self.instance = instance
        self.table = table
        self.source = source
        self.generation = instance.generation
    }

    var managedInstance: RealmInstance? { instance }
    var unmanagedElements: [Element] { [] }
    var kindName: String { "Results" }
    var resultsBase: (instance: RealmInstance, table: TableKey, source: ResultsSource)? { (instance, table, source) }

    func storedElements() -> [Value] {
        checkUsable()
        return cache.values(for: instance.stateVersion) { source.evaluateElements(table: table, snapshot: instance.current) }
    }

    func storedObjectsOrValues() -> StoredElements {
        checkUsable()
        return cache.elements(for: instance.stateVersion) { source.evaluateElements(table: table, snapshot: instance.current) }
    }

    /// Takes the elements a notifier delivered as the results' elements,
    /// when the Realm shows exactly their version (outside a write): read
    /// in the callback, the results then evaluate nothing.
    func adoptDelivered(_ elements: DeliveredElements) {
        guard generation == instance.generation, instance.transaction == nil, instance.snapshotVersion == elements.version else { return }
        cache.adopt(elements, for: instance.stateVersion)
    }

    /// Stops when used from the wrong thread or after the Realm was invalidated.
    private func checkUsable() {
        instance.verifyThread()
        if generation != instance.generation {
            shoalPrecondition(ShoalError(.objectInvalidated, "Access to invalidated Results objects"))
        }
    }

    /// The number of objects. O(1) for all objects of a class; a filter
    /// that one typed column answers is counted over the column, with no
    /// list of its objects made (as realm-core counts a query), unless the
    /// results were evaluated already.
    public var count: Int {
        checkUsable()
        guard case .table = source else {
            return cache.count(for: instance.stateVersion) { source.countOrElements(table: table, snapshot: instance.current) }
        }
        return instance.current.tables[table.index].count
    }

    /// Whether the Realm was invalidated since the results were made.
    public var isInvalidated: Bool { generation != instance.generation }

    /// Frozen results pinned at the Realm's current version.
    public func freeze() -> Results {
        if instance.isFrozen { return self }
        let frozen = Realm(instance: instance).freeze()
        return Results(instance: frozen.instance, table: table, source: source)
    }

    /// Live results for the calling thread's Realm; they re-evaluate at its version.
    public func thaw() -> Results? {
        if !instance.isFrozen { return self }
        let live = RealmInstance.live(configuration: instance.configuration, coordinator: instance.coordinator)
        return Results(instance: live, table: table, source: source)
    }
}

/// The evaluated elements of a `Results`, kept for one visible state, or
/// the elements a notifier delivered for it (made the entry when first read).
///
/// Guarded by a spin lock on one atomic flag rather than a ``Locked``: every
/// `Results` (each `filter` and `sorted` makes one) has a cache, and an
/// `NSLock` cost three allocations and a mutex set up and torn down per
/// query. The lock is held only to copy the entry in or out.
final class ResultsCache: @unchecked Sendable {
    // Safe because: `entry` is only reached inside `withEntry`, under `busy`.
    private struct Entry {
        var state: (UInt64, Int)
        var elements: StoredElements
        /// ``elements`` as values, once asked for.
        var values: [Value]?
    }
    private let busy = Atomic<Bool>(false)
    private var entry: Entry?
    /// A count made without the elements (``count(for:compute:)``), and its state.
    private var counted: (state: (UInt64, Int), count: Int)?
    /// Elements a notifier delivered, and the state they are the elements at.
    private var delivered: (state: (UInt64, Int), elements: DeliveredElements)?
    /// How many times the elements or the count were computed (tests).
    private(set) var evaluations = 0

    /// Keeps `elements`, delivered by a notifier, as the elements at `state`.
    func adopt(_ elements: DeliveredElements, for state: (UInt64, Int)) {
        withEntry { _ in delivered = (state, elements) }
    }

    func elements(for state: (UInt64, Int), compute: () -> StoredElements) -> StoredElements {
        entry(for: state, compute: compute).elements
    }

    /// The number of elements at `state`: from the elements, delivered
    /// elements or a count made at `state`, else from `compute`, whose
    /// count or elements are kept.
    func count(for state: (UInt64, Int), compute: () -> ResultsSource.CountOrElements) -> Int {
        let known = withEntry { entry -> Int? in
            if let entry, entry.state == state { return entry.elements.count }
            if let delivered, delivered.state == state { return delivered.elements.count }
            if let counted, counted.state == state { return counted.count }
            evaluations += 1
            return nil
        }
        if let known { return known }
        switch compute() {
        case .count(let count):
            withEntry { _ in counted = (state, count) }
            return count
        case .elements(let elements):
            withEntry { $0 = Entry(state: state, elements: elements) }
            return elements.count
        }
    }

    /// Whether the elements were evaluated at `state` (tests).
    func holdsElements(for state: (UInt64, Int)) -> Bool {
        withEntry { entry in entry.map { $0.state == state } ?? false }
    }

    /// The elements as values: made from the keys once per state, and kept.
    func values(for state: (UInt64, Int), compute: () -> StoredElements) -> [Value] {
        let found = entry(for: state, compute: compute)
        if let values = found.values { return values }
        let values = found.elements.values
        withEntry { if let current = $0, current.state == state { $0?.values = values } }
        return values
    }

    private func entry(for state: (UInt64, Int), compute: () -> StoredElements) -> Entry {
        let (hit, adopted) = withEntry { entry -> (Entry?, DeliveredElements?) in
            if let entry, entry.state == state { return (entry, nil) }
            if let delivered, delivered.state == state { return (nil, delivered.elements) }
            evaluations += 1
            return (nil, nil)
        }
        if let hit { return hit }
        let made = Entry(state: state, elements: adopted?.stored ?? compute())
        withEntry {
            $0 = made
            // Made into the entry: the notifier's storage is no longer shared.
            if adopted != nil { delivered = nil }
        }
        return made
    }

    private func withEntry<R>(_ body: (inout Entry?) -> R) -> R {
        while !busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged { sched_yield() }
        defer { busy.store(false, ordering: .releasing) }
        return body(&entry)
    }
}

extension DeliveredElements {
    /// The elements in the form a `Results` keeps them (O(n), no query run).
    var stored: StoredElements {
        switch contents {
        case .keys(let table, let ids):
            var keys: [ObjectKey] = []
            keys.reserveCapacity(ids.count)
            for chunk in ids.chunks { for id in chunk { keys.append(ObjectKey(id)) } }
            return .objects(table, keys)
        case .values(let values):
            return .values(values)
        }
    }
}
