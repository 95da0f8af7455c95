import Foundation
import OrderedCollections

/// One link pointing at an object: who links, through which property.
///
/// 16 bytes: the property index is stored in 32 bits beside the origin's
/// table key (an object linked from many others holds one per link).
struct Backlink: Hashable, Sendable {
    var origin: TableKey
    private var propertyIndex: UInt32
    var key: ObjectKey

    init(origin: TableKey, property: Int, key: ObjectKey) {
        precondition(property >= 0 && property <= Int(UInt32.max), "property index \(property) out of range")
        self.origin = origin
        self.propertyIndex = UInt32(property)
        self.key = key
    }

    /// The index of the linking property in the origin's class.
    var property: Int { Int(propertyIndex) }
}

/// The objects of one class, held column-wise, indexed by object key (a key
/// is a slot; slots of deleted objects stay empty and are never reused):
/// single values in typed ``Column``s, collections in persistent vectors,
/// liveness in chunks, backlinks in a ``BacklinkStore``.
///
/// Every structure here is copy-on-write in pieces, so copying a `Table` is
/// O(1) and a change copies only the leaves and nodes it touches.
struct Table: Sendable {
    let key: TableKey
    /// One column per stored single-valued property, by property index
    /// (collection properties have a placeholder column).
    var scalars: [Column]
    var lists: [Int: PersistentVector<[Value]>] = [:]
    var sets: [Int: PersistentVector<OrderedSet<Value>>] = [:]
    var maps: [Int: PersistentVector<OrderedDictionary<String, Value>>] = [:]
    /// Whether each slot holds a live object.
    var alive = Chunks<Bool>()
    /// Links pointing at each object, in the order they were made.
    var backlinks = BacklinkStore()
    /// The number of live objects.
    var count = 0
    /// Primary key value to object, in value order, when the class has a
    /// primary key.
    var primaryIndex: PrimaryIndex?
    /// Property index to (value to objects), in value order, for
    /// `indexed: true` properties.
    ///
    /// After a replay or a snapshot load they may still be being built on
    /// other threads (``PendingIndexes``): reading them waits for that,
    /// changing them first takes them over. ``secondaryIndex(_:)`` waits
    /// only when the one index asked for is pending.
    var secondaryIndexes: [Int: SecondaryIndex] {
        get { pendingSecondary?.indexes ?? builtSecondary }
        _modify {
            resolveSecondaryIndexes()
            yield &builtSecondary
        }
    }
    /// The properties with a secondary index, in order: fixed by the
    /// schema when the table is made. ``hasSecondaryIndex(_:)`` looks here
    /// rather than hashing into ``secondaryIndexes`` for every property of
    /// every object inserted (4% of an insert's instructions).
    let indexedProperties: [Int]
    /// The secondary indexes, when not pending.
    private var builtSecondary: [Int: SecondaryIndex] = [:]
    /// The secondary indexes, when being built on other threads.
    private var pendingSecondary: PendingIndexes?

    init(key: TableKey, schema: ObjectSchema) {
        self.key = key
        indexedProperties = schema.properties.indices.filter {
            let p = schema.properties[$0]
            return p.isStored && p.collection == .none && !p.isPrimary && p.isIndexed
        }
        for i in indexedProperties { builtSecondary[i] = SecondaryIndex() }
        var scalars: [Column] = []
        for (i, p) in schema.properties.enumerated() where p.isStored {
            scalars.append(Column(for: p))
            switch p.collection {
            case .none: if p.isPrimary { primaryIndex = PrimaryIndex(for: p) }
            case .list: lists[i] = PersistentVector()
            case .set: sets[i] = PersistentVector()
            case .map: maps[i] = PersistentVector()
            }
        }
        self.scalars = scalars
    }

    /// The secondary index of property `property`, if it has one; waits
    /// only if that index is still being built.
    func secondaryIndex(_ property: Int) -> SecondaryIndex? {
        if let pending = pendingSecondary, pending.properties.contains(property) { return pending.indexes[property] }
        return builtSecondary[property]
    }

    /// Whether property `property` has a secondary index (without waiting
    /// for it): none while ``takeIndexes(schema:)`` has them out, which
    /// takes them all.
    func hasSecondaryIndex(_ property: Int) -> Bool {
        hasSecondaryIndexes && indexedProperties.contains(property)
    }

    /// Whether any property has a secondary index (without waiting for one).
    var hasSecondaryIndexes: Bool { pendingSecondary != nil || !builtSecondary.isEmpty }

    /// The secondary indexes being built on other threads, if they are
    /// (they may have finished: this does not wait).
    var pendingSecondaryIndexes: PendingIndexes? { pendingSecondary }

    /// Hands the table indexes that are still being built; the table must
    /// hold no secondary index of its own (they were taken out to be built).
    mutating func adoptPendingSecondaryIndexes(_ pending: PendingIndexes) {
        precondition(builtSecondary.isEmpty && pendingSecondary == nil, "pending indexes adopted over built ones")
        pendingSecondary = pending
    }

    /// Waits for pending secondary indexes, if any, and keeps them. When no
    /// other copy of the table shares them, they are moved out, so that
    /// the next change does not copy the paths it touches.
    mutating func resolveSecondaryIndexes() {
        guard var pending = pendingSecondary else { return }
        pendingSecondary = nil
        builtSecondary = isKnownUniquelyReferenced(&pending) ? pending.take() : pending.indexes
    }

    /// The liveness a scan tests: `nil` when no object was deleted, so
    /// that every slot is live and none need be looked up.
    var scanLiveness: Chunks<Bool>? { count == alive.count ? nil : alive }

    /// The next key an insert must use.
    var nextKey: ObjectKey { ObjectKey(Int64(alive.count)) }

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

/// A secondary index: each value to the objects holding it.
typealias SecondaryIndex = SortedTree<Value, KeySet>
/// Object keys in ascending (table) order.
typealias KeySet = SortedTree<ObjectKey, Void>

typealias OrderedSetStorage = OrderedSet<Value>
typealias MapStorage = OrderedDictionary<String, Value>

extension Table {
    /// Appends `n` slots after their single values were appended to
    /// `scalars`: empty collections, no backlinks, alive or not (the live
    /// ones counted). Links and index entries are the caller's.
    mutating func appendSlots(_ n: Int, alive isAlive: Bool) {
        // Walks indices rather than `keys` or `values.indices`, which would
        // share the dictionaries' storage and make each append copy it.
        var i = lists.values.startIndex
        while i != lists.values.endIndex {
            lists.values[i].append(repeating: [], count: n)
            lists.values.formIndex(after: &i)
        }
        var j = sets.values.startIndex
        while j != sets.values.endIndex {
            sets.values[j].append(repeating: [], count: n)
            sets.values.formIndex(after: &j)
        }
        var k = maps.values.startIndex
        while k != maps.values.endIndex {
            maps.values[k].append(repeating: [:], count: n)
            maps.values.formIndex(after: &k)
        }
        alive.append(repeating: isAlive, count: n, fullLeaf: isAlive ? liveLeaf : nil)
        backlinks.appendEmpty(n)
        if isAlive { count += n }
    }
}

/// A full liveness leaf of live slots, which every table's runs of live
/// objects share until a deletion copies the one it changes: loading a
/// million objects allocates no liveness.
private let liveLeaf = ContiguousArray(repeating: true, count: Chunks<Bool>.width)

extension Table {
    /// Adds the live objects in slots `start...` to the primary and secondary
    /// indexes, which must not hold them yet: the deferred half of an insert
    /// applied with `indexing: false`.
    ///
    /// Each index gathers its new entries first and merges them into its
    /// tree at once (``IndexBuild``), so a large batch builds the tree in
    /// one pass rather than entry by entry, and the primary-key merge doubles
    /// as the duplicate check. A large batch builds its indexes in parallel,
    /// one index per thread (``BackgroundIndexing``): they share nothing but
    /// the columns they read.
    ///
    /// - Returns: a description of the first duplicate primary key, or `nil`
    ///   (the indexes are then incomplete, and the table must be discarded).
    mutating func indexSlots(from start: Int, schema: ObjectSchema) -> String? {
        guard start < alive.count, primaryIndex != nil || hasSecondaryIndexes else { return nil }
        var builds = takeIndexes(schema: schema)
        var problem: String?
        let input = IndexInput(self, slots: start..<alive.count, properties: builds.map(\.property))
        if builds.count > 1 && alive.count - start >= Self.parallelIndexingThreshold {
            let job = BackgroundIndexing(builds, className: schema.className)
            job.add(input)
            (builds, problem) = job.finish()
        } else {
            for i in builds.indices {
                builds[i].add(input)
                let found = builds[i].complete(className: schema.className)
                if problem == nil { problem = found }
            }
        }
        restoreIndexes(builds)
        return problem
    }

    /// Moves the indexes out of the table, so that each is uniquely
    /// referenced where it grows; ``restoreIndexes(_:)`` puts them back.
    mutating func takeIndexes(schema: ObjectSchema) -> [IndexBuild] {
        var builds: [IndexBuild] = []
        if let pk = schema.primaryKeyIndex, let index = primaryIndex {
            builds.append(IndexBuild(.primary(index), property: pk))
            primaryIndex = nil
        }
        for p in secondaryIndexes.keys.sorted() {
            builds.append(IndexBuild(.secondary(secondaryIndexes.removeValue(forKey: p)!), property: p))
        }
        return builds
    }

    /// Puts back the indexes ``takeIndexes(schema:)`` took, once each
    /// build is complete.
    mutating func restoreIndexes(_ builds: [IndexBuild]) {
        for build in builds {
            precondition(build.isComplete, "an index restored with entries not merged")
            switch build.index {
            case .primary(let index): primaryIndex = index
            case .secondary(let index): secondaryIndexes[build.property] = index
            }
        }
    }

    /// The batch size from which ``indexSlots(from:schema:)`` builds several
    /// indexes in parallel.
    static let parallelIndexingThreshold = 10_000
}

extension Table {
    /// Adds objects `keys` (ascending) to the bucket of `value` in a
    /// secondary index. The bucket grows in place.
    ///
    /// - Returns: whether the bucket is new, that is, `value` is new to the index.
    @discardableResult
    static func insert(_ keys: some Collection<ObjectKey>, at value: Value, into index: inout SecondaryIndex) -> Bool {
        index.modify(value, default: KeySet()) { bucket in
            if keys.count == 1 { bucket.insert(keys.first!) } else { bucket.merge(keys.lazy.map { (key: $0, payload: ()) }) }
        }.new
    }

    /// Removes object `key` from the bucket of `value` in a secondary index,
    /// and the bucket with it once empty.
    static func remove(_ key: ObjectKey, at value: Value, from index: inout SecondaryIndex) {
        // (A value never indexed, as in a batch whose inserts wait for their
        // entries, must not make and drop an empty bucket.)
        guard index.contains(value) else { return }
        let emptied = index.modify(value, default: KeySet()) { bucket in
            bucket.remove(key)
            return bucket.isEmpty
        }.result
        if emptied { index.remove(value) }
    }
}

/// Objects to be indexed: their keys (ascending) and, per indexed property,
/// their values, copied out of the table's columns a leaf at a time: as
/// integers, with no `Value`, from an int column holding no null.
///
/// Index builds beside a batch read only this, never the table's
/// vectors: the batch goes on appending to those, and a vector mutates a
/// node in place once no other copy holds it, which the thread sanitizer
/// cannot tell from a race (the reference count that orders the two is
/// invisible to it). Secondary builds given their objects when the batch
/// finishes make their inputs on their own threads, from a copy of the
/// table that ``BackgroundIndexing`` holds until it is waited for, so
/// that the table's next change copies the leaves they read.
struct IndexInput: Sendable {
    private(set) var keys: InputKeys
    /// The properties whose values this holds.
    let properties: [Int]
    /// The values of each property read as `Value`s.
    private(set) var values: [Int: ContiguousArray<Value>] = [:]
    /// The values of each property of an int column without nulls.
    private(set) var integers: [Int: InputIntegers] = [:]
    /// Int columns' values not read into ``integers`` yet
    /// (``readSharedLeaves()``): the leaves holding them, shared with the
    /// table, and where the slots lie among those leaves.
    private var sharedLeaves: [Int: (chunks: IntChunks, range: Range<Int>)] = [:]

    /// Whether values are still in leaves shared with the table.
    var sharesLeaves: Bool { !sharedLeaves.isEmpty }

    /// The live objects among `slots` of `table`, with their values of `properties`.
    ///
    /// Each array is made at its size and written in a loop: appending
    /// value by value checked the array's uniqueness each time. When every
    /// slot is live (the usual case) the keys are the slots' range.
    ///
    /// - Parameter sharingLeaves: whether an int column's values are left
    ///   in the leaves holding them, shared, for the thread that uses this
    ///   to copy (``readSharedLeaves()``), when every slot is live. The
    ///   holder must keep the leaves from being changed in place meanwhile,
    ///   as ``BackgroundIndexing`` does.
    init(_ table: Table, slots: Range<Int>, properties: [Int], sharingLeaves: Bool = false) {
        self.properties = properties
        // With no object deleted, every slot is live: nothing to look up.
        var allLive = true
        let deletions = table.scanLiveness != nil
        var slot = slots.lowerBound
        while allLive, deletions, slot < slots.upperBound {
            let (base, live) = table.alive.chunk(containing: slot)
            let end = min(slots.upperBound, base + live.count)
            allLive = !live[(slot &- base)..<(end &- base)].contains(false)
            slot = end
        }
        keys = allLive ? InputKeys(run: slots) : InputKeys([ObjectKey](unsafeUninitializedCapacity: slots.count) { out, made in
            made = 0
            var slot = slots.lowerBound
            while slot < slots.upperBound {
                let (base, live) = table.alive.chunk(containing: slot)
                let end = min(slots.upperBound, base + live.count)
                live.withUnsafeBufferPointer { live in
                    for s in slot..<end where live[s &- base] {
                        (out.baseAddress! + made).initialize(to: ObjectKey(Int64(s)))
                        made &+= 1
                    }
                }
                slot = end
            }
        })
        let keys = keys
        // Through a buffer pointer: `scalars[p]` would copy the column
        // (a retain per kind of leaves) for every value.
        table.scalars.withUnsafeBufferPointer { scalars in
            for p in properties {
                let column = scalars.baseAddress! + p
                if column.pointee.kind == .int && column.pointee.nulls == nil {
                    guard !keys.isEmpty else {
                        integers[p] = .array([])
                        continue
                    }
                    if sharingLeaves, allLive {
                        sharedLeaves[p] = column.pointee.ints.sharing(slots)
                        continue
                    }
                    integers[p] = .array(ContiguousArray(unsafeUninitializedCapacity: keys.count) { out, made in
                        if allLive {
                            column.pointee.ints.copyValues(slots, to: out.baseAddress!)
                        } else {
                            for (j, key) in keys.enumerated() { (out.baseAddress! + j).initialize(to: column.pointee.ints[key.slot]) }
                        }
                        made = keys.count
                    })
                } else {
                    var read = ContiguousArray<Value>()
                    read.reserveCapacity(keys.count)
                    for key in keys { read.append(Column.value(column, key.slot)) }
                    values[p] = read
                }
            }
        }
    }

    /// Reads the values left in shared leaves into ``integers``, and lets
    /// go of the leaves.
    ///
    /// Consecutive values (ids counting up with the objects, the usual
    /// primary key) are found on the leaves as stored, and not copied.
    mutating func readSharedLeaves() {
        for (p, shared) in sharedLeaves {
            if let first = shared.chunks.consecutiveFirst(shared.range) {
                integers[p] = .consecutive(from: first, count: shared.range.count)
                continue
            }
            integers[p] = .array(ContiguousArray(unsafeUninitializedCapacity: shared.range.count) { out, made in
                shared.chunks.copyValues(shared.range, to: out.baseAddress!)
                made = shared.range.count
            })
        }
        sharedLeaves = [:]
    }

    /// The values of property `p`, as `Value`s.
    func values(of p: Int) -> ContiguousArray<Value> {
        values[p] ?? ContiguousArray(integers[p]!.array.lazy.map(Value.int))
    }
}

/// The values of one int property of an ``IndexInput``: an array, or,
/// when they count up by one, the first of them (nothing stored).
enum InputIntegers: Sendable {
    case array(ContiguousArray<Int64>)
    case consecutive(from: Int64, count: Int)

    var first: Int64? {
        switch self {
        case .array(let values): values.first
        case .consecutive(let first, let count): count > 0 ? first : nil
        }
    }

    /// The values, written out.
    var array: ContiguousArray<Int64> {
        switch self {
        case .array(let values): values
        // (Counted from the first, not as a range: the last may be Int64.max.)
        case .consecutive(let first, let count): ContiguousArray((0..<count).lazy.map { first &+ Int64($0) })
        }
    }
}

/// The keys of an ``IndexInput``'s objects, ascending: a run of slots
/// with no object deleted among them (the usual case, held as its range,
/// with no array written), or a list.
struct InputKeys: RandomAccessCollection, Sendable {
    private enum Storage: Sendable {
        case run(Range<Int>)
        case list([ObjectKey])
    }

    private let storage: Storage

    /// The keys of slots `run`.
    init(run: Range<Int>) { storage = .run(run) }

    /// The slots, when the keys are a run of them.
    var run: Range<Int>? {
        if case .run(let run) = storage { return run }
        return nil
    }

    /// The keys `list`.
    init(_ list: [ObjectKey]) { storage = .list(list) }

    var startIndex: Int { 0 }

    var endIndex: Int {
        switch storage {
        case .run(let run): run.count
        case .list(let list): list.count
        }
    }

    subscript(i: Int) -> ObjectKey {
        switch storage {
        case .run(let run):
            precondition(i >= 0 && i < run.count, "key index \(i) out of range 0..<\(run.count)")
            return ObjectKey(Int64(run.lowerBound &+ i))
        case .list(let list): return list[i]
        }
    }
}

/// One index being extended, out of its table, by
/// ``Table/indexSlots(from:schema:)`` or ``BackgroundIndexing``: the tree,
/// and the entries gathered for it and not merged yet.
struct IndexBuild: Sendable {
    enum Index: Sendable {
        case primary(PrimaryIndex)
        case secondary(SecondaryIndex)
    }

    private(set) var index: Index
    let property: Int
    /// Primary key: new (value, object) entries.
    private var entries = PrimaryBatch<Value>()
    /// Primary key: new (integer, object) entries, for a typed index fed
    /// from an int column (no `Value` made).
    private var integerEntries = PrimaryBatch<Int64>()
    /// Primary key: the inputs of a typed index fed from an int column, as
    /// they came (arrays shared with the inputs, nothing copied), while no
    /// entry was gathered otherwise.
    private var integerInputs: [(keys: InputKeys, integers: InputIntegers)] = []
    /// Primary key: the direct map of ``integerInputs``, made as they come
    /// (``DenseKeys/extend(keys:integers:)``) while the index is empty and
    /// they ascend, so that completing the index only adopts it. `nil`
    /// before the first key, or once the inputs stopped qualifying.
    private var denseBuild: DenseKeys?
    /// Whether ``integerInputs`` stopped qualifying for ``denseBuild``.
    private var denseBuildFailed = false
    /// Secondary: new objects grouped by value (by `==`, which equates what
    /// `Value.compare` does for one typed property), values in first arrival
    /// order, each group's objects ascending.
    private var groups: [Value: [ObjectKey]] = [:]

    init(_ index: Index, property: Int) {
        self.index = index
        self.property = property
    }

    /// Whether this is a primary key's index.
    var isPrimary: Bool {
        if case .primary = index { return true }
        return false
    }

    /// Whether every gathered entry is merged into the tree.
    var isComplete: Bool { entries.isEmpty && integerEntries.isEmpty && integerInputs.isEmpty && groups.isEmpty }

    /// Gathers the objects of `input` (each not yet indexed).
    mutating func add(_ input: IndexInput) {
        switch index {
        case .primary(let tree):
            if tree.isTyped, entries.isEmpty, let integers = input.integers[property] {
                integerInputs.append((input.keys, integers))
                if tree.isEmpty, !denseBuildFailed, let first = integers.first {
                    var map = denseBuild ?? DenseKeys(base: first)
                    denseBuild = nil
                    if map.extend(keys: input.keys, integers: integers) { denseBuild = map } else { denseBuildFailed = true }
                }
                return
            }
            // Values that are not all integers after some that were:
            // gathered as values from here on.
            (denseBuild, denseBuildFailed) = (nil, false)
            gatherIntegerInputs()
            for (n, key) in integerEntries.take().entries { entries.append(.int(n), key) }
            for (key, value) in zip(input.keys, input.values(of: property)) { entries.append(value, key) }
        case .secondary:
            let runs = if let integers = input.integers[property] {
                Self.groupSmallIntegers(input.keys, integers: integers.array)
            } else {
                Self.groupSmallIntegers(input.keys, input.values(of: property))
            }
            if let runs {
                for (value, keys) in runs { groups[.int(value), default: []].append(contentsOf: keys) }
            } else {
                for (key, value) in zip(input.keys, input.values(of: property)) { groups[value, default: []].append(key) }
            }
        }
    }

    /// Moves ``integerInputs`` into ``integerEntries``, for the general merge.
    private mutating func gatherIntegerInputs() {
        for (keys, integers) in integerInputs {
            for (key, n) in zip(keys, integers.array) { integerEntries.append(n, key) }
        }
        integerInputs = []
    }

    /// `keys` grouped by their integer `values`, by a counting sort, when
    /// every value is an integer and they span a small range (an age, a
    /// status, a year): each group in ascending value order, its keys in
    /// their order in `keys`. `nil` otherwise, for grouping by hashing.
    ///
    /// Hashing each `Value` into a dictionary was about half of an index
    /// thread's time when loading a million objects with one such index;
    /// this touches each value twice and hashes once per distinct value.
    static func groupSmallIntegers<Keys: RandomAccessCollection<ObjectKey>>(_ keys: Keys, _ values: ContiguousArray<Value>) -> [(value: Int64, keys: ArraySlice<ObjectKey>)]?
    where Keys.Index == Int {
        var integers = ContiguousArray<Int64>()
        integers.reserveCapacity(values.count)
        for value in values {
            guard case .int(let n) = value else { return nil }
            integers.append(n)
        }
        return groupSmallIntegers(keys, integers: integers)
    }

    /// ``groupSmallIntegers(_:_:)`` of integers read straight from an int column.
    static func groupSmallIntegers<Keys: RandomAccessCollection<ObjectKey>>(_ keys: Keys, integers: ContiguousArray<Int64>) -> [(value: Int64, keys: ArraySlice<ObjectKey>)]?
    where Keys.Index == Int {
        guard !integers.isEmpty, keys.count == integers.count else { return nil }
        var low = Int64.max, high = Int64.min
        for n in integers {
            low = min(low, n)
            high = max(high, n)
        }
        // The range's width, checked without overflow.
        let (span, overflow) = high.subtractingReportingOverflow(low)
        guard !overflow, span < Int64(max(4096, integers.count)) else { return nil }
        // Through buffer pointers, with wrapping arithmetic (every value
        // is within `low...high`): checked array writes in these loops
        // cost a uniqueness and a bounds check per value.
        var starts = [Int](repeating: 0, count: Int(span) + 2)
        starts.withUnsafeMutableBufferPointer { starts in
            integers.withUnsafeBufferPointer { integers in
                for n in integers { starts[Int(n &- low) &+ 1] &+= 1 }
            }
            for i in 1..<starts.count { starts[i] &+= starts[i &- 1] }
        }
        var next = starts
        let sorted = [ObjectKey](unsafeUninitializedCapacity: keys.count) { sorted, made in
            next.withUnsafeMutableBufferPointer { next in
                integers.withUnsafeBufferPointer { integers in
                    for i in 0..<integers.count {
                        let bucket = Int(integers[i] &- low)
                        (sorted.baseAddress! + next[bucket]).initialize(to: keys[keys.startIndex &+ i])
                        next[bucket] &+= 1
                    }
                }
            }
            made = keys.count
        }
        var runs: [(value: Int64, keys: ArraySlice<ObjectKey>)] = []
        for bucket in 0...Int(span) where starts[bucket] < starts[bucket + 1] {
            runs.append((low + Int64(bucket), sorted[starts[bucket]..<starts[bucket + 1]]))
        }
        return runs
    }

    /// Merges the gathered entries into the tree.
    ///
    /// - Returns: a description of the first duplicate primary key, or
    ///   `nil`. After a duplicate the index is incomplete, and the table
    ///   must be discarded.
    mutating func complete(className: String) -> String? {
        switch index {
        case .primary(var tree):
            index = .primary(PrimaryIndex(typed: tree.isTyped))
            defer { index = .primary(tree) }
            if !integerInputs.isEmpty {
                defer { (denseBuild, denseBuildFailed) = (nil, false) }
                if tree.isEmpty, !denseBuildFailed, let dense = denseBuild {
                    integerInputs = []
                    tree.adopt(dense)
                    return nil
                }
                gatherIntegerInputs()
            }
            if !integerEntries.isEmpty {
                return Self.merge(integerEntries.take(), into: className) { tree.merge(integers: $0).map { ($0, tree.object(forInteger: $0.key)) } }
            }
            return Self.merge(entries.take(), into: className) { tree.merge($0).map { ($0, tree[$0.key]) } }
        case .secondary(var tree):
            index = .secondary(SecondaryIndex())
            defer { index = .secondary(tree) }
            let groups = self.groups
            self.groups = [:]
            var newBuckets: [SecondaryIndex.Element] = []
            for (value, keys) in groups {
                // An object's entry may have been made already (a set of
                // the property while its insert waited), so the bucket merge
                // tolerates keys it holds.
                if tree.contains(value) {
                    Table.insert(keys, at: value, into: &tree)
                } else {
                    newBuckets.append((value, KeySet(sortedKeys: keys)))
                }
            }
            newBuckets.sort { Value.compare($0.key, $1.key) == .orderedAscending }
            tree.merge(newBuckets)
            return nil
        }
    }
}

extension IndexBuild {
    /// Merges a batch of new primary keys with `merge`, which returns the
    /// first entry whose key the index held and the object holding it.
    ///
    /// - Returns: a description of a key two objects share (two of the
    ///   batch, or one of the batch and one the index held), or `nil`.
    private static func merge<Key>(
        _ batch: (entries: ContiguousArray<(key: Key, payload: ObjectKey)>, repeated: (Key, ObjectKey, ObjectKey)?), into className: String,
        _ merge: (ContiguousArray<(key: Key, payload: ObjectKey)>) -> ((key: Key, payload: ObjectKey), ObjectKey?)?
    ) -> String? {
        if let (key, first, second) = batch.repeated { return "\(className) \(first) and \(second) share the primary key \(key)" }
        guard let (clash, holder) = merge(batch.entries) else { return nil }
        return "\(className) \(holder.map(String.init(describing:)) ?? "?") and \(clash.payload) share the primary key \(clash.key)"
    }
}

/// New primary key entries of an index build, in arrival order, and
/// whether they ascend so far (appended ascending keys, the usual case,
/// need no sort).
struct PrimaryBatch<Key: SortedTreeKey & Sendable>: Sendable {
    private var entries = ContiguousArray<(key: Key, payload: ObjectKey)>()
    private var ascending = true

    var isEmpty: Bool { entries.isEmpty }

    mutating func append(_ key: Key, _ payload: ObjectKey) {
        if ascending, let last = entries.last, Key.compare(last.key, key) != .orderedAscending { ascending = false }
        entries.append((key, payload))
    }

    /// Takes the entries, sorted by key, leaving the batch empty; and the
    /// first key two of them share, with their objects, if any.
    mutating func take() -> (entries: ContiguousArray<(key: Key, payload: ObjectKey)>, repeated: (Key, ObjectKey, ObjectKey)?) {
        var taken = entries
        entries = []
        defer { ascending = true }
        guard !ascending else { return (taken, nil) }
        taken.sort { Key.compare($0.key, $1.key) == .orderedAscending }
        for (a, b) in zip(taken, taken.dropFirst()) where Key.compare(a.key, b.key) == .orderedSame {
            return (taken, (a.key, a.payload, b.payload))
        }
        return (taken, nil)
    }
}

/// The indexes of one table, extended on other threads, one serial queue
/// per index: in parallel with each other (``Table/indexSlots(from:schema:)``
/// for a large batch), and the primary key's with a ``BatchApplier`` that
/// goes on decoding and applying, so that the objects of a large replayed
/// record are gathered as they arrive and merged at the end. The secondary
/// builds are given their objects when the batch finishes or needs them
/// (``addSecondary(from:slots:)``), so as not to take a core from the
/// batch on a two-core machine. The table has no indexes until
/// ``finish()`` hands them back, so the batch must call it before any op
/// that reads or changes them; at the batch's end,
/// ``finishPrimary()`` hands back the primary key's index, and
/// ``deferSecondary()`` lets the secondary ones finish on their queues.
final class BackgroundIndexing: Sendable {
    private let className: String
    private let builds: [Locked<(build: IndexBuild?, problem: String?)>]
    /// One thread per build (a serial queue of its own): see
    /// ``BackgroundWorker`` for why not a `DispatchQueue`.
    private let queues: [BackgroundWorker]
    /// Set when nobody will read the indexes (``PendingIndexes`` released
    /// unread): queued work is then skipped and the builds dropped.
    private let cancelled = Locked(false)

    /// Set once ``finishPrimary()`` gave the primary key's workers back to
    /// the pool: nothing is queued on them after.
    private let primaryRecycled = Locked(false)

    deinit {
        let skipPrimary = primaryRecycled.withLock { $0 }
        for (i, queue) in queues.enumerated() where !(skipPrimary && isPrimary[i]) { queue.recycle() }
    }

    init(_ builds: [IndexBuild], className: String) {
        self.className = className
        self.properties = builds.map(\.property)
        self.isPrimary = builds.map(\.isPrimary)
        self.builds = builds.map { Locked(($0, nil)) }
        self.queues = builds.indices.map { _ in BackgroundWorker.take() }
    }

    /// Queues the objects of `input` on the builds of its properties. An
    /// input whose values are in leaves shared with the table has them
    /// copied on the builds' threads, and is held here until the builds
    /// are waited for (``sharedInputs``).
    func add(_ input: IndexInput) {
        if input.sharesLeaves { sharedInputs.withLock { $0.append(input) } }
        for (i, (queue, box)) in zip(queues, builds).enumerated() where input.properties.contains(properties[i]) {
            queue.async {
                guard !self.isCancelled else { return }
                var input = input
                input.readSharedLeaves()
                box.withLock { $0.build!.add(input) }
            }
        }
    }

    /// The inputs ``add(_:)`` queued with values in shared leaves, held,
    /// as ``sources`` are, until the builds reading them are waited for:
    /// while held, a change to the table copies those leaves rather than
    /// writing where a build may be reading, and the last reference is
    /// dropped on the thread that waited.
    private let sharedInputs = Locked<[IndexInput]>([])

    /// Copies of the tables that ``addSecondary(from:slots:)`` queued
    /// reads of, held until the builds are taken (after waiting for them)
    /// or dropped. While a copy is held, the leaves it shares are not
    /// uniquely referenced, so a change to the table copies them rather
    /// than writing where a build may be reading.
    private let sources = Locked<[Table]>([])

    /// The most objects ``addSecondary(from:slots:)`` reads at once: a
    /// build checks between pieces whether its index is still wanted.
    static let secondaryPiece = 16_384

    /// Queues slots `slots` of `table` on the secondary builds, each
    /// reading its property's values on its own thread.
    func addSecondary(from table: Table, slots: [Range<Int>]) {
        sources.withLock { $0.append(table) }
        for (i, (queue, box)) in zip(queues, builds).enumerated() where !isPrimary[i] {
            let property = properties[i]
            queue.async {
                for range in slots {
                    for start in stride(from: range.lowerBound, to: range.upperBound, by: Self.secondaryPiece) {
                        guard !self.isCancelled else { return }
                        let input = IndexInput(table, slots: start..<min(start + Self.secondaryPiece, range.upperBound), properties: [property])
                        box.withLock { $0.build!.add(input) }
                    }
                }
            }
        }
    }

    /// The properties of the indexes being built.
    let properties: [Int]
    /// Whether each build is a primary key's.
    private let isPrimary: [Bool]
    /// The property of the primary key's index, if it is being built.
    var primaryProperties: [Int] { properties.indices.filter { isPrimary[$0] }.map { properties[$0] } }
    /// The properties of the secondary indexes being built.
    var secondaryProperties: [Int] { properties.indices.filter { !isPrimary[$0] }.map { properties[$0] } }

    /// Merges what was gathered (each index on its own queue), waits, and
    /// returns the indexes, and the first duplicate primary key found, if any.
    func finish() -> (builds: [IndexBuild], problem: String?) {
        queueCompletion()
        for queue in queues { queue.waitUntilIdle() }
        releaseSources()
        return (take(builds.indices).map(\.build), firstProblem())
    }

    /// Merges what the primary key's build gathered, as ``finish()``
    /// does, and waits for it alone: it finds duplicates. The secondary
    /// builds go on (``deferSecondary()``).
    func finishPrimary() -> (primary: [IndexBuild], problem: String?) {
        let primary = builds.indices.filter { isPrimary[$0] }
        queueCompletion(primary)
        // A serial queue runs this after the build's completion.
        for i in primary { queues[i].waitUntilIdle() }
        // Only primary builds are given inputs in shared leaves.
        releaseSharedInputs()
        let problem = primary.lazy.compactMap { i in self.builds[i].withLock { $0.problem } }.first
        let taken = take(primary).map(\.build)
        // Their work is done: the workers go back to the pool now rather
        // than idle until the secondary indexes are read or dropped.
        primaryRecycled.withLock { $0 = true }
        for i in primary { queues[i].recycle() }
        return (taken, problem)
    }

    /// Queues the merge of what the secondary builds gathered (after
    /// ``finishPrimary()``, and after they were given their objects), and
    /// returns them as ``PendingIndexes`` for the table to adopt, or `nil`
    /// when there are none: they go on being built.
    func deferSecondary() -> PendingIndexes? {
        let secondary = builds.indices.filter { !isPrimary[$0] }
        guard !secondary.isEmpty else { return nil }
        queueCompletion(secondary)
        return PendingIndexes(self, builds: secondary)
    }

    /// Queues the merge of what builds `indices` (all by default) gathered.
    private func queueCompletion(_ indices: [Int]? = nil) {
        for i in indices ?? Array(builds.indices) {
            let (queue, box) = (queues[i], builds[i])
            queue.async { [className] in
                guard !self.isCancelled else { return }
                box.withLock { state in state.problem = state.build!.complete(className: className) }
            }
        }
    }

    /// Waits for the secondary builds (what ``PendingIndexes`` holds; the
    /// primary key's workers went back to the pool), then lets go of the
    /// tables they read.
    fileprivate func wait() {
        for i in queues.indices where !isPrimary[i] { queues[i].waitUntilIdle() }
        releaseSources()
    }

    /// Drops ``sources`` and ``sharedInputs``.
    private func releaseSources() {
        Self.empty(sources)
        releaseSharedInputs()
    }

    /// Drops ``sharedInputs``.
    private func releaseSharedInputs() { Self.empty(sharedInputs) }

    /// Empties `held`, dropping what it held outside the lock: releasing
    /// the last copy of a table (or of shared leaves) frees its leaves.
    private static func empty<T>(_ held: Locked<[T]>) {
        let released = held.withLock { held in
            defer { held = [] }
            return held
        }
        _ = released
    }

    /// Whether the work left was dropped, the indexes released unread.
    var isCancelled: Bool { cancelled.withLock { $0 } }

    /// Skips what is queued for builds `indices` and drops them: nobody will
    /// read them. Waits for the piece under way (a build stops between
    /// pieces), so that the table copies and the half-built indexes are
    /// freed here, when the indexes are released, rather than on a worker
    /// beside whatever this thread does next (the next open, say).
    fileprivate func cancel(_ indices: [Int]) {
        cancelled.withLock { $0 = true }
        for i in indices { queues[i].waitUntilIdle() }
        releaseSources()
        _ = take(indices)
    }

    /// Takes builds `indices` out (complete), so that the table holds the
    /// only reference and its next change does not copy the path.
    fileprivate func take(_ indices: some Sequence<Int>) -> [(build: IndexBuild, problem: String?)] {
        indices.map { i in
            builds[i].withLock { state in
                defer { state.build = nil }
                return (build: state.build!, problem: state.problem)
            }
        }
    }

    private func firstProblem() -> String? {
        builds.lazy.compactMap { $0.withLock { $0.problem } }.first
    }
}

/// Secondary indexes still being built on other threads after a replay or
/// a snapshot load (``BackgroundIndexing/deferSecondary()``), so
/// that opening returns once the objects and the primary keys are in
/// place. A table holds this until the indexes are first read (which waits
/// for them) or changed (which takes them over); copies of the table share
/// it, and every copy sees the same indexes.
final class PendingIndexes: Sendable {
    /// The builds' job (read by tests, to see it cancelled).
    let job: BackgroundIndexing
    private let builds: [Int]
    /// The properties whose indexes these are.
    let properties: Set<Int>
    /// The indexes, once waited for.
    private let result = Locked<[Int: SecondaryIndex]?>(nil)

    fileprivate init(_ job: BackgroundIndexing, builds: [Int]) {
        self.job = job
        self.builds = builds
        self.properties = Set(builds.map { job.properties[$0] })
    }

    deinit {
        // Released unread (the database closed, or every table holding it
        // was replaced): the work left is for nothing.
        if result.withLock({ $0 == nil }) { job.cancel(builds) }
    }

    /// The indexes, by property; waits for them the first time.
    var indexes: [Int: SecondaryIndex] {
        result.withLock { result in
            if let result { return result }
            job.wait()
            var indexes: [Int: SecondaryIndex] = [:]
            for (build, _) in job.take(builds) {
                guard case .secondary(let index) = build.index else { preconditionFailure("a primary index left pending") }
                precondition(build.isComplete, "an index handed over with entries not merged")
                indexes[build.property] = index
            }
            result = indexes
            return indexes
        }
    }

    /// The indexes, moved out: for the only holder of this, which will not
    /// read it again.
    func take() -> [Int: SecondaryIndex] {
        let indexes = self.indexes
        result.withLock { $0 = [:] }
        return indexes
    }
}
