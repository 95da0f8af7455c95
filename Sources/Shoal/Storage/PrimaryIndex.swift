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
/// number) are held in a direct map (``DenseKeys``) instead of the tree: a
/// look-up is then one load from a packed leaf, where a descent of the
/// tree reads three arrays a level, each a cache miss in a large table,
/// and the index takes a packed slot a key rather than a tree's entry.
/// The map is kept while it spans at most twice as many keys as the index
/// holds, plus a leaf; it is made when the first key goes into an empty
/// index or by a bulk merge into an empty one, extended by later keys and
/// merges, and turned into the tree (which answers alone from then on,
/// until the index is empty again) when a key falls below its base or
/// beyond that span, or a merge would clash.
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

    /// Whether the keys are held as integers (``integers`` or ``dense``,
    /// and ``nullKey``).
    private(set) var isTyped: Bool
    /// The integer keys of a typed index, unless ``dense`` holds them
    /// (then it is empty).
    private var integers = SortedTree<Int64, ObjectKey>()
    /// The object whose key is null, in a typed index.
    private var nullKey: ObjectKey?
    /// The keys of an untyped index.
    private var values = SortedTree<Value, ObjectKey>()
    /// The integer keys, by position, while they are dense.
    private var dense: DenseKeys?

    /// The number of integer keys of a typed index.
    private var integerCount: Int { dense?.held ?? integers.count }

    /// An empty index for the primary key `property`: typed for an `int` one.
    init(for property: Property) {
        isTyped = property.type == .int && property.collection == .none
    }

    /// An empty index, typed (integer keys) or not.
    init(typed: Bool) {
        isTyped = typed
    }

    var count: Int { isTyped ? integerCount + (nullKey == nil ? 0 : 1) : values.count }

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
                if integerCount == 0 { dense = DenseKeys(base: n) }
                if dense != nil {
                    let old = dense!.object(n)
                    if dense!.set(n, payload, keys: dense!.held + (old == nil ? 1 : 0)) { return old }
                    becomeTree()
                }
                return integers.updateValue(payload, forKey: n)
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
            if dense != nil {
                guard let old = dense!.object(n) else { return nil }
                if !dense!.clear(n) { becomeTree() }
                return (.int(n), old)
            }
            guard let removed = integers.remove(n) else { return nil }
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
        guard !sorted.isEmpty else { return nil }
        // Into the map when it can take the whole batch with no clash: keys
        // ascending strictly, none held yet, all within the span allowed.
        if integerCount == 0 {
            if let made = DenseKeys(sorted) {
                dense = made
                return nil
            }
            dense = nil
        } else if dense != nil {
            if dense!.canTake(sorted) {
                dense!.set(contentsOf: sorted)
                return nil
            }
            // (A clash refuses the batch; the tree answers alone.)
            becomeTree()
        }
        return integers.merge(sorted)
    }

    /// Makes `map` the index's keys: the index must be typed and empty.
    mutating func adopt(_ map: DenseKeys) {
        precondition(isTyped && isEmpty, "a direct map adopted by an index holding keys")
        dense = map
    }

    /// Calls `body` with each entry from `lower` to `upper` (an end that is
    /// `nil` is open), in order, until it returns `false`. Integer keys
    /// held in the direct map are read from it leaf by leaf.
    func forEach(from lower: Bound?, to upper: Bound?, _ body: (Value, ObjectKey) -> Bool) {
        guard isTyped else { return values.forEach(from: lower, to: upper, body) }
        // Integer bounds (and the "after nulls" bound of a range) walk the
        // tree from the first key; any other bound filters every entry.
        let (low, high) = Self.integerBounds(lower, upper)
        if let low, let high {
            if lower == nil, let nullKey { guard body(.null, nullKey) else { return } }
            if let dense { return dense.forEachEntry(from: low, to: high) { body(.int($0), $1) } }
            integers.forEach(from: low, to: high) { body(.int($0), $1) }
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
            guard body(entry.key, entry.payload) else { return }
        }
    }

    /// `lower` and `upper` as bounds on integer keys (`.some(nil)`: open),
    /// or `nil` for a bound that is not one: an integer, or the "after
    /// nulls" bound of a range.
    private static func integerBounds(_ lower: Bound?, _ upper: Bound?) -> (TreeBound<Int64>??, TreeBound<Int64>??) {
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
        return (low, high)
    }

    /// The objects of the entries from `lower` to `upper`, in key order,
    /// when the keys are in the direct map's run (ids counted up with the
    /// objects): consecutive object keys, found with no entry visited.
    /// `nil` when they are not, or a null key is among them; then
    /// ``forEach(from:to:_:)`` gives them.
    func consecutiveObjects(from lower: Bound?, to upper: Bound?) -> Range<Int64>? {
        guard isTyped, let dense, lower != nil || nullKey == nil else { return nil }
        let (low, high) = Self.integerBounds(lower, upper)
        guard let low, let high else { return nil }
        return dense.runObjects(from: low, to: high)
    }

    /// The first broken invariant of the tree or the direct map holding
    /// the keys (only one of them holds any), or `nil`.
    func invariantViolation() -> String? {
        guard isTyped else { return values.invariantViolation() }
        if let problem = integers.invariantViolation() { return problem }
        guard let dense else { return nil }
        let held = (0..<dense.span).count { dense.slot($0) != 0 }
        guard held == dense.held, integers.isEmpty else {
            return "the direct map of the primary keys holds \(held) entries, counted \(dense.held), beside a tree of \(integers.count)"
        }
        return nil
    }

    func makeIterator() -> Iterator {
        Iterator(null: isTyped ? nullKey : nil, dense: isTyped ? dense : nil, integers: isTyped && dense == nil ? integers.makeIterator() : nil,
            values: isTyped ? nil : values.makeIterator())
    }

    /// The entries in key order: a typed index's null key first.
    struct Iterator: IteratorProtocol {
        fileprivate var null: ObjectKey?
        fileprivate var dense: DenseKeys?
        fileprivate var slot = 0
        fileprivate var integers: SortedTree<Int64, ObjectKey>.Iterator?
        fileprivate var values: SortedTree<Value, ObjectKey>.Iterator?

        fileprivate init(null: ObjectKey?, dense: DenseKeys?, integers: SortedTree<Int64, ObjectKey>.Iterator?,
            values: SortedTree<Value, ObjectKey>.Iterator?)
        {
            (self.null, self.dense, self.integers, self.values) = (null, dense, integers, values)
        }

        mutating func next() -> Element? {
            if let key = null {
                null = nil
                return (.null, key)
            }
            if let dense {
                while slot < dense.span {
                    defer { slot += 1 }
                    let v = dense.slot(slot)
                    if v != 0 { return (.int(dense.base &+ Int64(slot)), ObjectKey(v - 1)) }
                }
                return nil
            }
            if integers != nil { return integers!.next().map { (.int($0.key), $0.payload) } }
            return values!.next()
        }
    }

    /// Moves the direct map's keys into the tree, which holds them from
    /// then on.
    private mutating func becomeTree() {
        guard let dense else { return }
        var entries = ContiguousArray<(key: Int64, payload: ObjectKey)>()
        entries.reserveCapacity(dense.held)
        dense.forEachEntry(from: nil, to: nil) { key, object in
            entries.append((key, object))
            return true
        }
        self.dense = nil
        integers = SortedTree(sorted: entries)
    }

    /// Moves a typed index's entries into `Value` keys.
    private mutating func becomeUntyped() {
        guard isTyped else { return }
        var entries: [Element] = []
        entries.reserveCapacity(count)
        for entry in self { entries.append(entry) }
        isTyped = false
        dense = nil
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
            return lazy.compactMap { entry -> Int64? in
                guard case .int(let n) = entry.key, Value.compare(entry.key, key) == .orderedSame else { return nil }
                return n
            }.first.map { .integer($0) } ?? .absent
        default: return .absent
        }
    }
}

/// Integer primary keys by position: the object of key `base + i` (its
/// key + 1, 0 for none) in slot `i` of packed, copy-on-write leaves. Held
/// by ``PrimaryIndex`` instead of its tree while the keys are dense.
///
/// The first slots may be a run held as two numbers, stored nowhere: key
/// `base + i` is object `runFirst + i` for every `i` below `runLength`.
/// That is what ids counted up beside the objects' keys give (a loaded
/// table, a bulk insert), and extending the run costs nothing per key. A
/// change inside the run first writes it out as slots.
struct DenseKeys: Sendable {
    /// The key of slot 0.
    private(set) var base: Int64
    /// The number of slots the run holds.
    private var runLength = 0
    /// The object key of the run's first slot.
    private var runFirst: Int64 = 0
    /// The slots after the run (slot `runLength + j` in `tail[j]`).
    private var tail = IntChunks()
    /// The number of keys held (slots not 0).
    private(set) var held = 0

    /// The number of slots, held or empty.
    var span: Int { runLength + tail.count }

    /// Slot `i`'s object key + 1, or 0 when empty.
    @inline(__always)
    func slot(_ i: Int) -> Int64 { i < runLength ? runFirst &+ Int64(i) &+ 1 : tail[i &- runLength] }

    /// The most slots a map of `keys` keys may span.
    static func limit(keys: Int) -> Int { 2 * keys + Chunks<Int64>.width }

    /// An empty map starting at `base`.
    init(base: Int64) { self.base = base }

    /// A map of `sorted` (ascending keys, at least one), or `nil` when the
    /// keys are too sparse or one repeats.
    init?(_ sorted: ContiguousArray<(key: Int64, payload: ObjectKey)>) {
        guard let low = sorted.first?.key else { return nil }
        base = low
        guard canTake(sorted) else { return nil }
        set(contentsOf: sorted)
    }

    /// The object of `key`, if the map holds it.
    @inline(__always)
    func object(_ key: Int64) -> ObjectKey? {
        // The difference as unsigned: a key below the base wraps past the count.
        let i = UInt64(bitPattern: key &- base)
        if i < UInt64(runLength) { return ObjectKey(runFirst &+ Int64(i)) }
        let j = i &- UInt64(runLength)
        guard j < UInt64(tail.count) else { return nil }
        let v = tail[Int(j)]
        return v == 0 ? nil : ObjectKey(v - 1)
    }

    /// Calls `body` with each held key and its object from `lower` to
    /// `upper` (`nil` ends are open), in key order, until it returns `false`.
    func forEachEntry(from lower: TreeBound<Int64>?, to upper: TreeBound<Int64>?, _ body: (Int64, ObjectKey) -> Bool) {
        guard let range = slots(from: lower, to: upper) else { return }
        var i = range.lowerBound
        while i <= range.upperBound, i < runLength {
            guard body(base &+ Int64(i), ObjectKey(runFirst &+ Int64(i))) else { return }
            i &+= 1
        }
        guard i <= range.upperBound else { return }
        var key = base &+ Int64(i)
        tail.forEach(from: i &- runLength, through: range.upperBound &- runLength) { v in
            defer { key &+= 1 }
            return v == 0 || body(key, ObjectKey(v - 1))
        }
    }

    /// The objects of the keys from `lower` to `upper` (`nil` ends are
    /// open), in key order, when every slot between them lies in the run:
    /// consecutive object keys (empty when no slot lies between them);
    /// `nil` when some lie past the run.
    func runObjects(from lower: TreeBound<Int64>?, to upper: TreeBound<Int64>?) -> Range<Int64>? {
        guard let range = slots(from: lower, to: upper) else { return runFirst..<runFirst }
        guard range.upperBound < runLength else { return nil }
        return (runFirst &+ Int64(range.lowerBound))..<(runFirst &+ Int64(range.upperBound) &+ 1)
    }

    /// The slots of the keys from `lower` to `upper` (`nil` ends are
    /// open), or `nil` when none lies in the map.
    private func slots(from lower: TreeBound<Int64>?, to upper: TreeBound<Int64>?) -> ClosedRange<Int>? {
        guard span > 0 else { return nil }
        var low = base
        var high = base &+ Int64(span) &- 1
        if let lower {
            if lower.isInclusive { low = Swift.max(low, lower.key) } else if lower.key == .max { return nil } else { low = Swift.max(low, lower.key + 1) }
        }
        if let upper {
            if upper.isInclusive { high = Swift.min(high, upper.key) } else if upper.key == .min { return nil } else { high = Swift.min(high, upper.key - 1) }
        }
        guard low <= high else { return nil }
        return Int(low &- base)...Int(high &- base)
    }

    /// Adds objects `keys` with primary keys `integers` (`integers[i]` the
    /// key of `keys[i]`), which must ascend strictly from past every slot
    /// held and stay within the span allowed; `false` when they do not (or
    /// the counts differ), and then nothing changed.
    ///
    /// Keys that continue the map with no gap, given to objects that
    /// continue the run, extend the run.
    mutating func extend(keys: InputKeys, integers: InputIntegers) -> Bool {
        switch integers {
        case .array(let values):
            return extend(keys: keys, integers: values)
        case .consecutive(let first, let count):
            // Keys continuing the map with no gap, within the span allowed:
            // the run grows, with no value read, if the objects continue it.
            if count > 0, keys.count == count, first >= base, first &- base == Int64(span),
                count <= Self.limit(keys: held + count) - span, continueRun(keys)
            {
                return true
            }
            return extend(keys: keys, integers: integers.array)
        }
    }

    /// Adds objects `keys`, whose keys continue the map with no gap, to the
    /// run when nothing follows it and the objects continue its objects;
    /// `false` otherwise, and then nothing changed.
    private mutating func continueRun(_ keys: InputKeys) -> Bool {
        guard let run = keys.run else { return false }
        return continueRun(objects: Int64(run.lowerBound)..<Int64(run.upperBound))
    }

    /// Adds `objects`, whose keys take the slots right after the run, to
    /// the run when nothing follows it and they continue its objects;
    /// `false` otherwise, and then nothing changed.
    private mutating func continueRun(objects: Range<Int64>) -> Bool {
        guard tail.isEmpty, runLength == 0 || objects.lowerBound == runFirst &+ Int64(runLength) else { return false }
        if runLength == 0 { runFirst = objects.lowerBound }
        runLength += objects.count
        held += objects.count
        return true
    }

    /// ``extend(keys:integers:)`` for values written out.
    mutating func extend(keys: InputKeys, integers: ContiguousArray<Int64>) -> Bool {
        guard keys.count == integers.count else { return false }
        guard let first = integers.first, let last = integers.last else { return true }
        guard first >= base, first &- base >= Int64(span) else { return false }
        // Counted with no early exit, so that the loop vectorizes.
        let descents = integers.withUnsafeBufferPointer { values in
            var descents = 0
            for j in 1..<values.count { descents &+= values[j] <= values[j &- 1] ? 1 : 0 }
            return descents
        }
        guard descents == 0 else { return false }
        let (distance, overflow) = last.subtractingReportingOverflow(base)
        guard !overflow, distance < Int64(Self.limit(keys: held + keys.count)) else { return false }
        if first &- base == Int64(span), last &- first == Int64(integers.count - 1) {
            if continueRun(keys) { return true }
            // Keys that continue the map with no gap go in a leaf at a
            // time, written into an array first: appending a lazy mapping
            // copied it into a temporary array per leaf.
            let stored = ContiguousArray<Int64>(unsafeUninitializedCapacity: keys.count) { out, made in
                for j in 0..<keys.count { (out.baseAddress! + j).initialize(to: keys[j].rawValue + 1) }
                made = keys.count
            }
            tail.append(contentsOf: stored)
            held += keys.count
        } else {
            for (key, n) in zip(keys, integers) { store(key, at: Int(n &- base)) }
        }
        return true
    }

    /// Sets the object of `key`, for an index of `keys` keys; `false` when
    /// the map cannot hold it (below the base, or past the span allowed),
    /// and then nothing changed.
    mutating func set(_ key: Int64, _ payload: ObjectKey, keys: Int) -> Bool {
        guard key >= base else { return false }
        let (offset, overflow) = key.subtractingReportingOverflow(base)
        guard !overflow, offset < Int64(Self.limit(keys: keys)) else { return false }
        store(payload, at: Int(offset))
        return true
    }

    /// Sets the object of slot `i`, growing the map to it.
    ///
    /// The next slot after the run, with nothing after it, taking the next
    /// object (an id counted up with the objects, inserted one by one)
    /// extends the run: such a map holds no slot, as a loaded one does.
    private mutating func store(_ payload: ObjectKey, at i: Int) {
        if i == runLength, payload.rawValue < .max, continueRun(objects: payload.rawValue..<payload.rawValue + 1) { return }
        if i < runLength { writeOutRun() }
        let j = i &- runLength
        if j >= tail.count {
            tail.append(repeating: 0, count: j - tail.count)
            tail.append(payload.rawValue + 1)
            held += 1
        } else {
            if tail[j] == 0 { held += 1 }
            tail[j] = payload.rawValue + 1
        }
    }

    /// Writes the run out as slots, before a change inside it.
    private mutating func writeOutRun() {
        guard runLength > 0 else { return }
        var slots = IntChunks()
        slots.append(contentsOf: ContiguousArray((0..<Int64(runLength)).lazy.map { [runFirst] in runFirst &+ $0 &+ 1 }))
        slots.append(contentsOf: ContiguousArray(tail))
        (tail, runLength, runFirst) = (slots, 0, 0)
    }

    /// Whether ``set(contentsOf:)`` can take `sorted` (ascending keys):
    /// each key once, none held already, all within the span allowed.
    func canTake(_ sorted: ContiguousArray<(key: Int64, payload: ObjectKey)>) -> Bool {
        guard let first = sorted.first?.key, let last = sorted.last?.key, first >= base else { return sorted.isEmpty }
        let (offset, overflow) = last.subtractingReportingOverflow(base)
        guard !overflow, offset < Int64(Self.limit(keys: held + sorted.count)) else { return false }
        var previous: Int64?
        for entry in sorted {
            if let previous, entry.key <= previous { return false }
            previous = entry.key
            if object(entry.key) != nil { return false }
        }
        return true
    }

    /// Sets the objects of `sorted`, which ``canTake(_:)`` accepted.
    mutating func set(contentsOf sorted: ContiguousArray<(key: Int64, payload: ObjectKey)>) {
        // Keys that continue the map with no gap (a loaded table's ids)
        // go in a leaf at a time.
        if let first = sorted.first, let last = sorted.last,
            first.key &- base == Int64(span), last.key &- first.key == Int64(sorted.count - 1)
        {
            tail.append(contentsOf: sorted.lazy.map { $0.payload.rawValue + 1 })
            held += sorted.count
            return
        }
        for entry in sorted { store(entry.payload, at: Int(entry.key &- base)) }
    }

    /// Clears the slot of `key`, if held; `false` when the map has become
    /// too sparse to keep.
    mutating func clear(_ key: Int64) -> Bool {
        let i = UInt64(bitPattern: key &- base)
        if i < UInt64(runLength) { writeOutRun() }
        // The slot's place in the tail (the run written out, if it held it).
        let j = i &- UInt64(runLength)
        if j < UInt64(tail.count), tail[Int(j)] != 0 {
            tail[Int(j)] = 0
            held -= 1
        }
        return span <= Self.limit(keys: held)
    }
}
