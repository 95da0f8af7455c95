import Dispatch
import HashTreeCollections
import OrderedCollections

/// One link pointing at an object: who links, through which property.
struct Backlink: Hashable, Sendable {
    var origin: TableKey
    var property: Int
    var key: ObjectKey
}

/// The objects of one class, held column-wise in persistent vectors indexed
/// by object key (a key is a slot; slots of deleted objects stay empty and
/// are never reused).
///
/// Every structure here is persistent, so copying a `Table` is O(1) and a
/// change copies only the nodes it touches.
struct Table: Sendable {
    let key: TableKey
    /// One column per stored single-valued property, by property index
    /// (collection properties have an empty placeholder column).
    var scalars: [PersistentVector<Value>]
    var lists: [Int: PersistentVector<[Value]>] = [:]
    var sets: [Int: PersistentVector<OrderedSet<Value>>] = [:]
    var maps: [Int: PersistentVector<OrderedDictionary<String, Value>>] = [:]
    /// Whether each slot holds a live object.
    var alive = PersistentVector<Bool>()
    /// Links pointing at each object, in the order they were made.
    var backlinks = PersistentVector<[Backlink]>()
    /// The number of live objects.
    var count = 0
    /// Primary key value to object, when the class has a primary key.
    var primaryIndex: TreeDictionary<Value, ObjectKey>?
    /// Property index to (value to objects), for `indexed: true` properties.
    var secondaryIndexes: [Int: TreeDictionary<Value, TreeSet<ObjectKey>>] = [:]
    /// Property index to its distinct values in `Value.compare` order, for
    /// the primary key and each `indexed: true` property: the ordered half
    /// of those indexes, which answers ranges. It holds exactly the keys of
    /// the hash index beside it.
    var orderedIndexes: [Int: PersistentSortedSet] = [:]

    init(key: TableKey, schema: ObjectSchema) {
        self.key = key
        var scalars: [PersistentVector<Value>] = []
        for (i, p) in schema.properties.enumerated() where p.isStored {
            scalars.append(PersistentVector())
            switch p.collection {
            case .none:
                if p.isPrimary { primaryIndex = [:] } else if p.isIndexed { secondaryIndexes[i] = [:] }
                if p.isIndexed { orderedIndexes[i] = PersistentSortedSet() }
            case .list: lists[i] = PersistentVector()
            case .set: sets[i] = PersistentVector()
            case .map: maps[i] = PersistentVector()
            }
        }
        self.scalars = scalars
    }

    /// The next key an insert must use.
    var nextKey: ObjectKey { ObjectKey(Int64(alive.count)) }

    func isAlive(_ key: ObjectKey) -> Bool {
        key.rawValue >= 0 && key.slot < alive.count && alive[key.slot]
    }

    /// Keys of live objects in key (table) order.
    var liveKeys: [ObjectKey] {
        var out: [ObjectKey] = []
        out.reserveCapacity(count)
        alive.forEachChunk { base, chunk in
            for (i, live) in chunk.enumerated() where live { out.append(ObjectKey(Int64(base + i))) }
        }
        return out
    }
}

typealias OrderedSetStorage = OrderedSet<Value>
typealias MapStorage = OrderedDictionary<String, Value>

extension Table {
    /// Appends the slot of an object deleted before a snapshot was written:
    /// empty values, not alive. Used only when restoring a snapshot, so that
    /// keys keep their slots.
    mutating func appendDeadSlot() {
        for p in 0..<scalars.count { scalars[p].append(.null) }
        appendSlots(1, alive: false)
    }

    /// Appends `n` slots after their single values were appended to
    /// `scalars`: empty collections, no backlinks, alive or not (the live
    /// ones counted). Links and index entries are the caller's.
    mutating func appendSlots(_ n: Int, alive isAlive: Bool) {
        // Walks indices rather than `keys` or `values.indices`, which would
        // share the dictionaries' storage and make each append copy it.
        var i = lists.values.startIndex
        while i != lists.values.endIndex {
            lists.values[i].append(contentsOf: repeatElement([], count: n))
            lists.values.formIndex(after: &i)
        }
        var j = sets.values.startIndex
        while j != sets.values.endIndex {
            sets.values[j].append(contentsOf: repeatElement([], count: n))
            sets.values.formIndex(after: &j)
        }
        var k = maps.values.startIndex
        while k != maps.values.endIndex {
            maps.values[k].append(contentsOf: repeatElement([:], count: n))
            maps.values.formIndex(after: &k)
        }
        alive.append(contentsOf: repeatElement(isAlive, count: n))
        backlinks.append(contentsOf: repeatElement([], count: n))
        if isAlive { count += n }
    }
}

extension Table {
    /// Adds the live objects in slots `start...` to the primary and secondary
    /// indexes, which must not hold them yet: the deferred half of an insert
    /// applied with `indexing: false`.
    ///
    /// Values are grouped first, so a secondary index takes one bucket union
    /// per distinct value rather than one nested insert per object, and the
    /// primary-key insert doubles as the duplicate check. A large batch
    /// builds its indexes in parallel, one index per thread
    /// (``BackgroundIndexing``): they share nothing but the columns they
    /// read. The values new to an index join its ordered half at the end,
    /// together (see ``restoreIndexes(_:)``).
    ///
    /// - Returns: a description of the first duplicate primary key, or `nil`
    ///   (the indexes are then incomplete, and the table must be discarded).
    mutating func indexSlots(from start: Int, schema: ObjectSchema) -> String? {
        guard start < alive.count, primaryIndex != nil || !secondaryIndexes.isEmpty else { return nil }
        var builds = takeIndexes(schema: schema)
        var problem: String?
        if builds.count > 1 && alive.count - start >= Self.parallelIndexingThreshold {
            let job = BackgroundIndexing(builds, className: schema.className)
            job.add(start..<alive.count, alive: alive, columns: scalars)
            (builds, problem) = job.finish()
        } else {
            let keys = (start..<alive.count).filter { alive[$0] }.map { ObjectKey(Int64($0)) }
            for i in builds.indices where problem == nil {
                problem = builds[i].add(keys, columns: scalars, className: schema.className)
            }
        }
        restoreIndexes(builds)
        return problem
    }

    /// Moves the hash indexes out of the table, so that each is uniquely
    /// referenced where it grows; ``restoreIndexes(_:)`` puts them back. The
    /// ordered halves stay behind, unchanged until then.
    mutating func takeIndexes(schema: ObjectSchema) -> [IndexBuild] {
        var builds: [IndexBuild] = []
        if let pk = schema.primaryKeyIndex, let index = primaryIndex {
            builds.append(.primary(index, added: [], property: pk))
            primaryIndex = nil
        }
        for p in secondaryIndexes.keys.sorted() {
            builds.append(.secondary(secondaryIndexes.removeValue(forKey: p)!, added: [], property: p))
        }
        return builds
    }

    /// Puts back the indexes ``takeIndexes(schema:)`` took, and adds the
    /// values new to each to its ordered half: all at once, so that a large
    /// batch (a replayed bulk insert, a loaded snapshot) builds the tree in
    /// one pass rather than value by value (see
    /// ``PersistentSortedSet/insert(contentsOf:)``).
    mutating func restoreIndexes(_ builds: [IndexBuild]) {
        for build in builds {
            switch build {
            case .primary(let index, let added, let p):
                primaryIndex = index
                orderedIndexes[p]!.insert(contentsOf: added)
            case .secondary(let index, let added, let p):
                secondaryIndexes[p] = index
                orderedIndexes[p]!.insert(contentsOf: added)
            }
        }
    }

    /// The batch size from which ``indexSlots(from:schema:)`` builds several
    /// indexes in parallel.
    static let parallelIndexingThreshold = 10_000
}

extension Table {
    /// Adds objects `keys` to the bucket of `value` in a secondary index.
    /// The bucket grows in place (`formUnion` would build a new set, copying
    /// a path of nodes per key), and keeps the key it was made with.
    ///
    /// - Returns: whether the bucket is new, that is, `value` is new to the index.
    static func insert(_ keys: some Sequence<ObjectKey>, at value: Value, into index: inout TreeDictionary<Value, TreeSet<ObjectKey>>) -> Bool {
        index.updateValue(forKey: value, default: []) { bucket in
            defer { for key in keys { bucket.insert(key) } }
            return bucket.isEmpty
        }
    }

    /// Removes object `key` from the bucket of `value` in a secondary index,
    /// and the bucket with it once empty.
    ///
    /// - Returns: the removed bucket's key, or `nil` when the bucket stays.
    ///   The key is the value as first indexed, which may differ in kind
    ///   from an equal `value` (`3` and `3.0` in a mixed property).
    static func remove(_ key: ObjectKey, at value: Value, from index: inout TreeDictionary<Value, TreeSet<ObjectKey>>) -> Value? {
        let emptied = index.updateValue(forKey: value) { bucket in
            bucket?.remove(key)
            return bucket?.isEmpty == true
        }
        guard emptied, let position = index.index(forKey: value) else { return nil }
        return index.remove(at: position).key
    }
}

/// One hash index being extended, out of its table, by
/// ``Table/indexSlots(from:schema:)`` or ``BackgroundIndexing``, with the
/// values new to it (its keys made since), which
/// ``Table/restoreIndexes(_:)`` adds to the index's ordered half.
enum IndexBuild: Sendable {
    case primary(TreeDictionary<Value, ObjectKey>, added: [Value], property: Int)
    case secondary(TreeDictionary<Value, TreeSet<ObjectKey>>, added: [Value], property: Int)

    /// Adds `keys`, reading their values from `columns`.
    ///
    /// - Returns: a description of the first duplicate primary key, or `nil`.
    mutating func add(_ keys: [ObjectKey], columns: [PersistentVector<Value>], className: String) -> String? {
        switch self {
        case .primary(var index, var added, let p):
            self = .primary([:], added: [], property: p)
            defer { self = .primary(index, added: added, property: p) }
            added.reserveCapacity(added.count + keys.count)
            for key in keys {
                let value = columns[p][key.slot]
                if let other = index.updateValue(key, forKey: value) {
                    return "\(className) \(other) and \(key) share the primary key \(value)"
                }
                added.append(value)
            }
            return nil
        case .secondary(var index, var added, let p):
            self = .secondary([:], added: [], property: p)
            defer { self = .secondary(index, added: added, property: p) }
            if keys.count == 1 {
                // One object (an insert followed by a set, as a live write
                // makes them): no grouping.
                let value = columns[p][keys[0].slot]
                if Table.insert(keys, at: value, into: &index) { added.append(value) }
                return nil
            }
            var groups: [Value: [ObjectKey]] = [:]
            for key in keys { groups[columns[p][key.slot], default: []].append(key) }
            for (value, members) in groups where Table.insert(members, at: value, into: &index) { added.append(value) }
            return nil
        }
    }
}

/// The indexes of one table, extended on other threads, one serial queue
/// per index: in parallel with each other (``Table/indexSlots(from:schema:)``
/// for a large batch) and with a ``BatchApplier`` that goes on decoding and
/// applying, so that the objects of a large replayed record are indexed as
/// they arrive instead of all at the end. The table has no indexes until
/// ``finish()`` hands them back, so the batch must call it before any op
/// that reads or changes them.
final class BackgroundIndexing: Sendable {
    private let className: String
    private let builds: [Locked<(build: IndexBuild, problem: String?)>]
    private let queues: [DispatchQueue]
    private let group = DispatchGroup()

    init(_ builds: [IndexBuild], className: String) {
        self.className = className
        self.builds = builds.map { Locked(($0, nil)) }
        self.queues = builds.indices.map { DispatchQueue(label: "shoal.index.\(className).\($0)") }
    }

    /// Queues the live objects among `slots`, read from `alive` and `columns`.
    func add(_ slots: Range<Int>, alive: PersistentVector<Bool>, columns: [PersistentVector<Value>]) {
        let keys = Locked<[ObjectKey]?>(nil)
        for (queue, box) in zip(queues, builds) {
            queue.async(group: group) { [className] in
                let keys = keys.withLock { keys in
                    if keys == nil { keys = slots.filter { alive[$0] }.map { ObjectKey(Int64($0)) } }
                    return keys!
                }
                box.withLock { state in
                    guard state.problem == nil else { return }
                    state.problem = state.build.add(keys, columns: columns, className: className)
                }
            }
        }
    }

    /// Waits for the queued work and returns the indexes, and the first
    /// duplicate primary key found, if any.
    func finish() -> (builds: [IndexBuild], problem: String?) {
        group.wait()
        let states = builds.map { $0.withLock { $0 } }
        return (states.map(\.build), states.lazy.compactMap(\.problem).first)
    }
}
