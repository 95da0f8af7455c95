import Foundation

extension Int64: SortedTreeKey {
    static func compare(_ lhs: Int64, _ rhs: Int64) -> ComparisonResult {
        lhs < rhs ? .orderedAscending : (lhs == rhs ? .orderedSame : .orderedDescending)
    }
}

/// A primary key index: each primary key value to its object, in
/// `Value.compare` order.
///
/// An `int` primary key (the usual kind) is held typed: a ``SortedTree`` of
/// `Int64` keys, 16 bytes an entry compared as integers, where a `Value` key
/// takes 32 bytes and a switch on its kind per comparison; the null key of an
/// optional one is held beside the tree (nulls sort first). Any other kind
/// is held as `Value` keys.
///
/// Integer keys that are dense (the usual `id`s counted up from some
/// number) are also held in a direct map (``DenseKeys``): a look-up is then
/// one load from a packed leaf, where a descent of the tree reads three
/// arrays a level, each a cache miss in a large table. The map is kept
/// while it spans at most twice as many keys as the index holds, plus a
/// leaf; it is made when the first key goes into an empty index or by a
/// bulk merge into an empty one, extended by later keys and merges, and
/// dropped (the tree answering alone, until the index is empty again) when
/// a key falls below its base or beyond that span, or a merge clashes.
///
/// The interface speaks `Value`, the currency of change records and
/// predicates. A value of another kind looked up in a typed index finds the
/// integer it equals (`3.0` finds `3`, as `Value.compare` equates them); a
/// value of another kind stored in one (never done by Shoal's write paths,
/// which coerce values to the property's type first) turns the index into
/// `Value` keys rather than lose the kind it was stored with.
struct PrimaryIndex: Sendable, Sequence {
    typealias Element = (key: Value, payload: ObjectKey)
    typealias Bound = TreeBound<Value>

    /// Whether the keys are held as integers (``integers`` and ``nullKey``).
    private(set) var isTyped: Bool
    /// The integer keys of a typed index.
    private var integers = SortedTree<Int64, ObjectKey>()
    /// The object whose key is null, in a typed index.
    private var nullKey: ObjectKey?
    /// The keys of an untyped index.
    private var values = SortedTree<Value, ObjectKey>()
    /// The integer keys again, by position, while they are dense.
    private var dense: DenseKeys?

    /// An empty index for the primary key `property`: typed for an `int` one.
    init(for property: Property) {
        isTyped = property.type == .int && property.collection == .none
    }

    /// An empty index, typed (integer keys) or not.
    init(typed: Bool) {
        isTyped = typed
    }

    var count: Int { isTyped ? integers.count + (nullKey == nil ? 0 : 1) : values.count }

    /// Whether look-ups of integer keys go through the direct map.
    var hasDenseMap: Bool { dense != nil }

    var isEmpty: Bool { count == 0 }

    var underestimatedCount: Int { count }

    /// The object whose primary key equals `key`, if any.
    subscript(key: Value) -> ObjectKey? {
        guard isTyped else { return values[key] }
        switch integerKey(key) {
        case .integer(let n): return object(forInteger: n)
        case .null: return nullKey
        case .absent: return nil
        }
    }

    /// The object whose integer primary key is `key`, if any: the typed
    /// form of ``subscript(_:)``, with no `Value`.
    func object(forInteger key: Int64) -> ObjectKey? {
        guard isTyped else { return values[.int(key)] }
        return dense.map { $0.object(key) } ?? integers[key]
    }

    /// Sets the object of `key`, or adds the entry.
    ///
    /// - Returns: the object replaced, or `nil` when the entry is new.
    @discardableResult
    mutating func updateValue(_ payload: ObjectKey, forKey key: Value) -> ObjectKey? {
        if isTyped {
            switch key {
            case .int(let n):
                if integers.isEmpty { dense = DenseKeys(base: n) }
                let old = integers.updateValue(payload, forKey: n)
                if dense != nil, !dense!.set(n, payload, keys: integers.count) { dense = nil }
                return old
            case .null:
                defer { nullKey = payload }
                return nullKey
            default: becomeUntyped()
            }
        }
        return values.updateValue(payload, forKey: key)
    }

    /// Removes the entry whose key equals `key`, if any.
    ///
    /// - Returns: the removed entry, with its key as stored.
    @discardableResult
    mutating func remove(_ key: Value) -> Element? {
        guard isTyped else { return values.remove(key) }
        switch integerKey(key) {
        case .integer(let n):
            guard let removed = integers.remove(n) else { return nil }
            if dense != nil, !dense!.clear(n, keys: integers.count) { dense = nil }
            return (.int(removed.key), removed.payload)
        case .null:
            defer { nullKey = nil }
            return nullKey.map { (.null, $0) }
        case .absent: return nil
        }
    }

    /// Adds `sorted` (ascending keys): the bulk path of a batch (see
    /// ``SortedTree/merge(_:)``).
    ///
    /// - Returns: the first entry of `sorted` whose key the index already
    ///   held (that entry is skipped; the index keeps its own), or `nil`.
    @discardableResult
    mutating func merge(_ sorted: some Collection<Element>) -> Element? {
        guard isTyped else { return values.merge(sorted) }
        var typed = ContiguousArray<(key: Int64, payload: ObjectKey)>()
        typed.reserveCapacity(sorted.count)
        var clash: Element?
        for entry in sorted {
            switch entry.key {
            case .int(let n): typed.append((n, entry.payload))
            case .null:
                if nullKey == nil { nullKey = entry.payload } else if clash == nil { clash = entry }
            default:
                // Undo nothing: the null entry, if any, is already in, and
                // the untyped index takes the rest as it is.
                becomeUntyped()
                let found = values.merge(sorted.filter { !$0.key.isNull })
                return clash ?? found
            }
        }
        if let found = merge(integers: typed), clash == nil { clash = (.int(found.key), found.payload) }
        return clash
    }

    /// Adds integer keys `sorted` (ascending) to a typed index, with no
    /// `Value`: the bulk path of an `int` primary key's batch.
    ///
    /// - Returns: the first entry of `sorted` whose key the index already held, or `nil`.
    @discardableResult
    mutating func merge(integers sorted: ContiguousArray<(key: Int64, payload: ObjectKey)>) -> (key: Int64, payload: ObjectKey)? {
        guard isTyped else {
            guard let found = values.merge(sorted.lazy.map { (Value.int($0.key), $0.payload) }), case .int(let n) = found.key else { return nil }
            return (n, found.payload)
        }
        let wasEmpty = integers.isEmpty
        let clash = integers.merge(sorted)
        if clash != nil {
            // (A batch refused for the clash; the tree answers alone.)
            dense = nil
        } else if wasEmpty {
            dense = DenseKeys(sorted)
        } else if dense != nil, !dense!.set(contentsOf: sorted, keys: integers.count) {
            dense = nil
        }
        return clash
    }

    /// Calls `body` with each entry from `lower` to `upper` (an end that is
    /// `nil` is open), in order, until it returns `false`.
    func forEach(from lower: Bound?, to upper: Bound?, _ body: (Value, ObjectKey) throws -> Bool) rethrows {
        guard isTyped else { return try values.forEach(from: lower, to: upper, body) }
        // Integer bounds (and the "after nulls" bound of a range) walk the
        // tree from the first key; any other bound filters every entry.
        let low: TreeBound<Int64>??
        switch lower?.key {
        case nil: low = .some(nil)
        case .int(let n)?: low = TreeBound(key: n, isInclusive: lower!.isInclusive)
        case .null? where !lower!.isInclusive: low = .some(nil)
        default: low = nil
        }
        let high: TreeBound<Int64>??
        switch upper?.key {
        case nil: high = .some(nil)
        case .int(let n)?: high = TreeBound(key: n, isInclusive: upper!.isInclusive)
        default: high = nil
        }
        if let low, let high {
            if lower == nil, let nullKey { guard try body(.null, nullKey) else { return } }
            try integers.forEach(from: low, to: high) { try body(.int($0), $1) }
            return
        }
        for entry in self {
            if let lower {
                let order = Value.compare(entry.key, lower.key)
                if order == .orderedAscending || (order == .orderedSame && !lower.isInclusive) { continue }
            }
            if let upper {
                let order = Value.compare(entry.key, upper.key)
                if order == .orderedDescending || (order == .orderedSame && !upper.isInclusive) { return }
            }
            guard try body(entry.key, entry.payload) else { return }
        }
    }

    /// The objects whose integer keys lie between `lower` and `upper`, in
    /// key order, read from the direct map; at most `limit + 1` of them
    /// (more than `limit` means too many). `nil` when the index has no
    /// direct map, or a bound is not an integer (or the "after nulls"
    /// bound of a range), so ``forEach(from:to:_:)`` must walk the tree.
    func denseObjects(from lower: Bound?, to upper: Bound?, limit: Int) -> [ObjectKey]? {
        guard let dense else { return nil }
        var low = dense.base
        var high = dense.base &+ Int64(dense.slots.count) &- 1
        switch lower?.key {
        case nil: break
        case .int(let n)?:
            if lower!.isInclusive { low = Swift.max(low, n) } else if n == .max { return [] } else { low = Swift.max(low, n + 1) }
        case .null? where !lower!.isInclusive: break
        default: return nil
        }
        switch upper?.key {
        case nil: break
        case .int(let n)?:
            if upper!.isInclusive { high = Swift.min(high, n) } else if n == .min { return [] } else { high = Swift.min(high, n - 1) }
        default: return nil
        }
        // The null key sorts first: only an unbounded range holds it.
        if lower == nil, nullKey != nil { return nil }
        var keys: [ObjectKey] = []
        guard low <= high else { return keys }
        keys.reserveCapacity(Int(Swift.min(high &- low, Int64(Swift.min(limit, Int(Int32.max)))) &+ 1))
        dense.forEachObject(from: Int(low - dense.base), through: Int(high - dense.base)) { key in
            keys.append(key)
            return keys.count <= limit
        }
        return keys
    }

    /// The first broken invariant of the tree holding the keys (or of the
    /// direct map beside it, which must hold exactly the tree's entries), or `nil`.
    func invariantViolation() -> String? {
        guard isTyped else { return values.invariantViolation() }
        if let problem = integers.invariantViolation() { return problem }
        guard let dense else { return nil }
        let held = dense.slots.reduce(0) { $1 != 0 ? $0 + 1 : $0 }
        guard held == integers.count, integers.allSatisfy({ dense.object($0.key) == $0.payload }) else {
            return "the direct map of the primary keys holds \(held) entries, not the tree's \(integers.count)"
        }
        return nil
    }

    func makeIterator() -> Iterator {
        Iterator(null: isTyped ? nullKey : nil, integers: isTyped ? integers.makeIterator() : nil, values: isTyped ? nil : values.makeIterator())
    }

    /// The entries in key order: a typed index's null key first.
    struct Iterator: IteratorProtocol {
        fileprivate var null: ObjectKey?
        fileprivate var integers: SortedTree<Int64, ObjectKey>.Iterator?
        fileprivate var values: SortedTree<Value, ObjectKey>.Iterator?

        mutating func next() -> Element? {
            if let key = null {
                null = nil
                return (.null, key)
            }
            if integers != nil { return integers!.next().map { (.int($0.key), $0.payload) } }
            return values!.next()
        }
    }

    /// Moves a typed index's entries into `Value` keys.
    private mutating func becomeUntyped() {
        guard isTyped else { return }
        dense = nil
        var entries: [Element] = []
        entries.reserveCapacity(count)
        for entry in self { entries.append(entry) }
        isTyped = false
        integers = SortedTree()
        nullKey = nil
        values = SortedTree(sorted: entries)
    }

    /// A key as a typed index looks it up.
    private enum IntegerKey {
        case integer(Int64)
        case null
        /// No integer key of the index equals the value.
        case absent
    }

    /// What a typed index looks `key` up as: the integer it equals
    /// (`Value.compare` equates `3.0` and `3`), found by comparing each key
    /// for a decimal, whose conversion to a double may round.
    private func integerKey(_ key: Value) -> IntegerKey {
        switch key {
        case .int(let n): return .integer(n)
        case .null: return .null
        case .float, .double:
            guard let d = key.doubleValue, d.rounded(.towardZero) == d, let n = Int64(exactly: d),
                Value.compare(.int(n), key) == .orderedSame
            else { return .absent }
            return .integer(n)
        case .decimal:
            return integers.first { Value.compare(.int($0.key), key) == .orderedSame }.map { .integer($0.key) } ?? .absent
        default: return .absent
        }
    }
}

/// Integer primary keys by position: the object of key `base + i` (its
/// key + 1, 0 for none) in slot `i` of packed, copy-on-write leaves. Kept
/// by ``PrimaryIndex`` beside its tree while the keys are dense.
struct DenseKeys: Sendable {
    /// The key of slot 0.
    private(set) var base: Int64
    private(set) var slots = IntChunks()

    /// The most slots a map of `keys` keys may span.
    static func limit(keys: Int) -> Int { 2 * keys + Chunks<Int64>.width }

    /// An empty map starting at `base`.
    init(base: Int64) { self.base = base }

    /// A map of `sorted` (ascending keys, at least one), or `nil` when the
    /// keys are too sparse.
    init?(_ sorted: ContiguousArray<(key: Int64, payload: ObjectKey)>) {
        guard let low = sorted.first?.key, let high = sorted.last?.key else { return nil }
        let (span, overflow) = high.subtractingReportingOverflow(low)
        guard !overflow, span < Int64(Self.limit(keys: sorted.count)) else { return nil }
        base = low
        guard set(contentsOf: sorted, keys: sorted.count) else { return nil }
    }

    /// The object of `key`, if the map holds it.
    @inline(__always)
    func object(_ key: Int64) -> ObjectKey? {
        // The difference as unsigned: a key below the base wraps past the count.
        let i = UInt64(bitPattern: key &- base)
        guard i < UInt64(slots.count) else { return nil }
        let v = slots[Int(i)]
        return v == 0 ? nil : ObjectKey(v - 1)
    }

    /// Calls `body` with the object of each held slot from `first` through
    /// `last` (both within the map), in order, until it returns `false`.
    func forEachObject(from first: Int, through last: Int, _ body: (ObjectKey) -> Bool) {
        slots.forEach(from: first, through: last) { v in v == 0 || body(ObjectKey(v - 1)) }
    }

    /// Sets the object of `key`, for an index of `keys` keys; `false` when
    /// the map cannot hold it (below the base, or past the span allowed).
    mutating func set(_ key: Int64, _ payload: ObjectKey, keys: Int) -> Bool {
        guard key >= base else { return false }
        let (offset, overflow) = key.subtractingReportingOverflow(base)
        guard !overflow, offset < Int64(Self.limit(keys: keys)) else { return false }
        let i = Int(offset)
        if i >= slots.count {
            slots.append(repeating: 0, count: i - slots.count)
            slots.append(payload.rawValue + 1)
        } else {
            slots[i] = payload.rawValue + 1
        }
        return true
    }

    /// Sets the objects of `sorted` (ascending keys), for an index of `keys`
    /// keys; `false` when the map cannot hold one of them.
    mutating func set(contentsOf sorted: ContiguousArray<(key: Int64, payload: ObjectKey)>, keys: Int) -> Bool {
        // Keys that continue the map with no gap (a loaded table's ids)
        // go in a leaf at a time.
        if let first = sorted.first, let last = sorted.last, first.key >= base,
            first.key &- base == Int64(slots.count), last.key &- first.key == Int64(sorted.count - 1),
            slots.count + sorted.count <= Self.limit(keys: keys)
        {
            slots.append(contentsOf: sorted.lazy.map { $0.payload.rawValue + 1 })
            return true
        }
        return sorted.allSatisfy { set($0.key, $0.payload, keys: keys) }
    }

    /// Clears the slot of `key`, for an index left with `keys` keys;
    /// `false` when the map has become too sparse to keep.
    mutating func clear(_ key: Int64, keys: Int) -> Bool {
        let i = UInt64(bitPattern: key &- base)
        if i < UInt64(slots.count) { slots[Int(i)] = 0 }
        return slots.count <= Self.limit(keys: keys)
    }
}
