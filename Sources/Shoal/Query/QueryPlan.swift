/// How a query over one table runs: where its candidates come from (the
/// primary key index, a secondary index, or a column scan) and what is
/// tested on them afterwards. The Query layer's entry point.
///
/// - Equality and `IN` on the primary key or an `indexed: true` property
///   are looked up in its index.
/// - Ranges (`<`, `<=`, `>`, `>=`, `BETWEEN`) on the primary key or an
///   `indexed: true` property take the entries between the bounds from its
///   index, which is ordered (``SortedTree``); their objects are the
///   candidates, and the range is tested on them again, unless integers
///   are compared with integers, where the entries are exactly the
///   matches. Only where
///   `Value.compare` orders the values as the comparison's own matcher does:
///   no `[c]` or `[d]`, a property of one type (not `AnyRealmValue`), and
///   constants that are neither null nor NaN (an `Int` property may be
///   compared with a `Double`). Other ranges scan.
/// - Of a conjunction, the indexed term with the fewest candidates drives;
///   the other terms filter its candidates. A range drives only with at most
///   a ``rangeShare``-th of the table's objects as candidates, and its
///   candidates are counted only up to that or up to the best term so far,
///   so planning never walks the whole index.
/// - Everything else scans: a comparison of a plain column with constants
///   is tested over the typed column (``Column/slots(matching:alive:)``),
///   the rest object by object.
///
/// Results come in table (object key) order, as an unsorted Realm query's do.
struct QueryPlan {
    enum Access: Equatable {
        case scan
        /// The objects with these primary keys.
        case primaryKey([Value])
        /// The objects with these values of an indexed property.
        case index(property: Int, values: [Value])
        /// These objects (in table order), found by a range of primary keys.
        case objects([ObjectKey])
    }

    let table: TableKey
    let access: Access
    /// The terms tested on each candidate (everything but an equality index
    /// term or an exact range).
    let residual: [BoundPredicate]
    /// What ``explanation`` says of the access: how the candidates are
    /// found, and the term that finds them.
    private let accessDescription: (kind: String, term: BoundPredicate, candidates: Int)?
    private let className: String
    private let objectCount: Int

    /// A readable form of the plan, for ``explain``-style checks. Made when
    /// asked for: a query that runs makes none.
    var explanation: String {
        var text =
            if let (kind, term, candidates) = accessDescription {
                "\(kind) on \(className) where \(term) (\(candidates) candidates)"
            } else {
                "scan \(className) (\(objectCount) objects)"
            }
        if !residual.isEmpty { text += "; then test " + residual.map(\.description).joined(separator: " AND ") }
        return text
    }

    /// A range drives a query only when its candidates are at most this
    /// fraction (one in `rangeShare`) of the table's objects: beyond that,
    /// testing the column leaf by leaf costs less than gathering, sorting
    /// and re-testing that many objects.
    static let rangeShare = 4

    /// Plans `predicate` over `table` as the snapshot stands; with
    /// `useIndexes: false` it always scans (tests compare the two).
    init(table: TableKey, predicate: BoundPredicate, snapshot: Snapshot, useIndexes: Bool = true) {
        self.table = table
        className = snapshot.schema[table].className
        objectCount = snapshot.withTable(table) { $0.pointee.count }
        var conjuncts: [BoundPredicate]
        if case .and(let operands) = predicate { conjuncts = operands } else { conjuncts = [predicate] }
        var best: (offset: Int, access: Access, candidates: Int, isRange: Bool, isExact: Bool)?
        if useIndexes {
            for (offset, term) in conjuncts.enumerated() {
                guard let (access, candidates) = Self.lookupAccess(term, table, snapshot) else { continue }
                if best == nil || candidates < best!.candidates { best = (offset, access, candidates, false, true) }
            }
            for (offset, term) in conjuncts.enumerated() {
                guard let (access, candidates) = Self.linkLookupAccess(term, table, snapshot) else { continue }
                if best == nil || candidates < best!.candidates { best = (offset, access, candidates, true, false) }
            }
            // Ranges last, so that counting their candidates stops at the best lookup's count.
            let rangeLimit = objectCount / Self.rangeShare
            for (offset, term) in conjuncts.enumerated() {
                let limit = min(best.map { $0.candidates - 1 } ?? .max, rangeLimit)
                guard let (access, candidates, isExact) = Self.rangeAccess(term, table, snapshot, limit: limit) else { continue }
                best = (offset, access, candidates, true, isExact)
            }
        }
        if let best {
            access = best.access
            let term = conjuncts.remove(at: best.offset)
            let kind =
                if case .objects = best.access, case .comparison(let c) = term, c.op == .equal || c.op == .in {
                    "link lookup"
                } else if best.isRange {
                    "ordered index range"
                } else if case .primaryKey = best.access { "primary key lookup" } else { "index lookup" }
            accessDescription = (kind, term, best.candidates)
            // A link lookup, and a range whose index order may not be the
            // comparison's, is re-tested on its candidates, so the index
            // only narrows them.
            if !best.isExact { conjuncts.insert(term, at: 0) }
        } else {
            access = .scan
            accessDescription = nil
        }
        residual = conjuncts
    }

    /// The index lookup that answers `term` exactly (equality or `IN`
    /// on an indexed property), and its candidate count.
    private static func lookupAccess(_ term: BoundPredicate, _ table: TableKey, _ snapshot: Snapshot) -> (Access, Int)? {
        guard case .comparison(let c) = term, c.options.isEmpty, c.op == .equal || c.op == .in,
            case .path(let path) = c.lhs, let column = path.rootColumn, column.table == table
        else { return nil }
        let values: [Value]
        switch c.rhs {
        case .constant(let value): values = [value]
        case .list(let list): values = list
        default: return nil
        }
        let storage = snapshot.tables[table.index]
        if snapshot.schema[table].properties[column.index].isPrimary, let index = storage.primaryIndex {
            return (.primaryKey(values), values.count { index[$0] != nil })
        }
        guard let index = storage.secondaryIndex(column.index) else { return nil }
        return (.index(property: column.index, values: values), values.reduce(0) { $0 + (index[$1]?.count ?? 0) })
    }

    /// The lookup for an equality through a to-one link (`owner.id == 3`,
    /// `owner.name IN {...}`) whose target property is a primary key or
    /// indexed: the targets are looked up in their index, and the objects
    /// linking to them through the link (their backlinks) are the candidates.
    private static func linkLookupAccess(_ term: BoundPredicate, _ table: TableKey, _ snapshot: Snapshot) -> (Access, Int)? {
        guard case .comparison(let c) = term, c.options.isEmpty, c.op == .equal || c.op == .in,
            case .path(let path) = c.lhs, path.root == 0, !path.isMultiValued, path.steps.count == 2,
            case .property(let link) = path.steps[0], link.table == table,
            case .property(let target) = path.steps[1],
            snapshot.schema[table].properties[link.index].type == .object
        else { return nil }
        var values: [Value]
        switch c.rhs {
        case .constant(let value): values = [value]
        case .list(let list): values = list
        default: return nil
        }
        // A null matches objects whose link is null too: not found through backlinks.
        guard !values.contains(where: \.isNull) else { return nil }
        let targets: [ObjectKey]
        if snapshot.schema[target.table].properties[target.index].isPrimary, let index = snapshot.tables[target.table.index].primaryIndex {
            targets = values.compactMap { index[$0] }
        } else if let index = snapshot.tables[target.table.index].secondaryIndex(target.index) {
            var keys: [ObjectKey] = []
            for value in values { index[value]?.appendKeys(to: &keys) }
            targets = keys
        } else {
            return nil
        }
        let keys = inTableOrder(targets.flatMap { snapshot.backlinks(target.table, $0, origin: table, property: link.index) })
        return (.objects(keys), keys.count)
    }

    /// The ordered index access for a range `term`: the distinct values
    /// between its bounds, found in the ordered index, and their candidate
    /// count, if that is at most `limit` (counting stops past it).
    private static func rangeAccess(_ term: BoundPredicate, _ table: TableKey, _ snapshot: Snapshot, limit: Int) -> (Access, Int, isExact: Bool)? {
        guard case .comparison(let c) = term,
            [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .between].contains(c.op),
            let (property, matcher) = columnTest(CompiledPredicate(term), table),
            let (lower, upper) = orderedBounds(matcher, snapshot.schema[table].properties[property])
        else { return nil }
        // Integers compared with integers: `Value.compare`'s order is the
        // comparison's, so the index's entries between the bounds are
        // exactly the matches.
        let isExact = snapshot.schema[table].properties[property].type == .int
            && matcher.operands.allSatisfy { if case .int = $0 { true } else { false } }
        // A primary key value has one object; a secondary one, its bucket.
        let isPrimary = snapshot.schema[table].properties[property].isPrimary
        let (primary, secondary) = snapshot.withTable(table) {
            isPrimary ? ($0.pointee.primaryIndex, nil) : (nil, $0.pointee.secondaryIndex(property))
        }
        var candidates = 0
        if let primary {
            // Ids counted up with the objects: the objects' keys are a
            // range, written out with no entry visited.
            if let objects = primary.consecutiveObjects(from: lower, to: upper) {
                guard objects.count <= limit else { return nil }
                let keys = [ObjectKey](unsafeUninitializedCapacity: objects.count) { buffer, made in
                    // Counted, not enumerated: a loop the compiler vectorizes.
                    let first = objects.lowerBound
                    for i in 0..<objects.count { buffer.initializeElement(at: i, to: ObjectKey(first &+ Int64(i))) }
                    made = objects.count
                }
                return (.objects(keys), keys.count, isExact)
            }
            var keys: [ObjectKey] = []
            // Integer bounds hold at most their span of keys: reserved, so
            // that the array grows once.
            if case .int(let low)? = lower?.key, case .int(let high)? = upper?.key, high >= low {
                let (span, overflow) = high.subtractingReportingOverflow(low)
                keys.reserveCapacity(1 + Swift.min(overflow ? .max : Int(span), limit, primary.count))
            }
            primary.forEach(from: lower, to: upper) { _, key in
                keys.append(key)
                candidates += 1
                return candidates <= limit
            }
            guard candidates <= limit else { return nil }
            // Ids counted up with the objects come in table order already.
            if !keys.isAscending { keys.sort() }
            return (.objects(keys), candidates, isExact)
        }
        guard let secondary else { return nil }
        var values: [Value] = []
        secondary.forEach(from: lower, to: upper) { value, bucket in
            values.append(value)
            candidates += bucket.count
            return candidates <= limit
        }
        guard candidates <= limit else { return nil }
        return (.index(property: property, values: values), candidates, isExact)
    }

    /// The bounds, in `Value.compare` order, of the values a range
    /// `matcher` accepts in a column of `property`, or `nil` when that order
    /// is not the matcher's (see the type's discussion).
    private static func orderedBounds(_ matcher: ValueMatcher, _ property: Property)
        -> (TreeBound<Value>?, TreeBound<Value>?)?
    {
        // A typed column's values are of one kind (and null), so a constant
        // of another kind gives an empty range or the whole column: still a
        // superset of the matches. A mixed column's numbers of different
        // kinds, and NaN, are not strictly ordered by `Value.compare`.
        guard matcher.options.isEmpty, property.type != .any, !matcher.operands.isEmpty else { return nil }
        for constant in matcher.operands {
            if constant.isNull || constant.doubleValue?.isNaN == true { return nil }
            if case .decimal(let d) = constant, d.isNaN { return nil }
        }
        let operands = matcher.operands.map { TreeBound(key: $0, isInclusive: true) }
        var exclusive: TreeBound<Value> {
            var bound = operands[0]
            bound.isInclusive = false
            return bound
        }
        // Nulls sort first and are never in a range.
        let afterNulls = TreeBound<Value>(key: .null, isInclusive: false)
        switch matcher.op {
        case .lessThan: return (afterNulls, exclusive)
        case .lessThanOrEqual: return (afterNulls, operands[0])
        case .greaterThan: return (exclusive, nil)
        case .greaterThanOrEqual: return (operands[0], nil)
        case .between: return (operands[0], operands[1])
        default: return nil
        }
    }

    /// The matching objects, in table order.
    func run(on snapshot: Snapshot) -> [ObjectKey] {
        let storage = snapshot.tables[table.index]
        let evaluator = QueryEvaluator(snapshot: snapshot)
        var tests = residual.map(CompiledPredicate.init)
        var keys: [ObjectKey]
        switch access {
        case .primaryKey(let values):
            keys = Self.inTableOrder(values.compactMap { storage.primaryIndex?[$0] })
        case .index(let property, let values):
            let index = storage.secondaryIndex(property)
            // Each bucket is in table order already: merged, not sorted.
            keys = Self.merged(values.compactMap { index?[$0] }.map { bucket in
                var keys: [ObjectKey] = []
                bucket.appendKeys(to: &keys)
                return keys
            })
        case .objects(let objects):
            keys = objects
        case .scan:
            if let first = tests.firstIndex(where: { Self.columnTest($0, table) != nil }) {
                let (property, matcher) = Self.columnTest(tests.remove(at: first), table)!
                keys = Self.scanColumn(storage, property, matcher)
            } else {
                keys = storage.liveKeys
            }
        }
        // Column tests the typed leaves can answer go first, read in place.
        tests.removeAll { test in
            guard let (property, matcher) = Self.columnTest(test, table),
                  let kept = storage.scalars[property].filter(keys, matching: matcher)
            else { return false }
            keys = kept
            return true
        }
        guard !tests.isEmpty else { return keys }
        let predicate: CompiledPredicate = tests.count == 1 ? tests[0] : .and(tests)
        return keys.filter { evaluator.matches(predicate, .link(Link(table: table, key: $0))) }
    }

    /// The number of objects matching, when a scan of one typed column
    /// answers the whole predicate (counted in place, no key listed);
    /// `nil` otherwise.
    func count(on snapshot: Snapshot) -> Int? {
        guard case .scan = access, residual.count == 1, let (property, matcher) = Self.columnTest(CompiledPredicate(residual[0]), table)
        else { return nil }
        let storage = snapshot.tables[table.index]
        return storage.scalars[property].countSlots(matching: matcher, alive: storage.scanLiveness)
    }

    /// The keys of `runs`, each ascending, in one ascending run, each key
    /// once (an `IN` list may name a bucket twice): merged in pairs, so
    /// that every key is moved a number of times logarithmic in the runs.
    static func merged(_ runs: [[ObjectKey]]) -> [ObjectKey] {
        var runs = runs
        while runs.count > 1 {
            var next: [[ObjectKey]] = []
            next.reserveCapacity((runs.count + 1) / 2)
            for pair in stride(from: 0, to: runs.count, by: 2) {
                next.append(pair + 1 < runs.count ? merge(runs[pair], runs[pair + 1]) : runs[pair])
            }
            runs = next
        }
        return runs.first ?? []
    }

    /// Two ascending runs of keys in one, a key in both kept once.
    private static func merge(_ a: [ObjectKey], _ b: [ObjectKey]) -> [ObjectKey] {
        var out: [ObjectKey] = []
        out.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count && j < b.count {
            if a[i] < b[j] {
                out.append(a[i]); i += 1
            } else if b[j] < a[i] {
                out.append(b[j]); j += 1
            } else {
                out.append(a[i]); i += 1; j += 1
            }
        }
        out.append(contentsOf: a[i...])
        out.append(contentsOf: b[j...])
        return out
    }

    /// `keys` sorted, each once (an `IN` list may name a value twice).
    private static func inTableOrder(_ keys: [ObjectKey]) -> [ObjectKey] {
        var keys = keys
        keys.sort()
        var kept = 0
        for key in keys where kept == 0 || keys[kept - 1] != key {
            keys[kept] = key
            kept += 1
        }
        keys.removeSubrange(kept...)
        return keys
    }

    /// A comparison of one plain column of `table` with constants.
    private static func columnTest(_ test: CompiledPredicate, _ table: TableKey) -> (Int, ValueMatcher)? {
        guard case .test(.path(let path), false, _, let matcher) = test, let column = path.rootColumn, column.table == table
        else { return nil }
        return (column.index, matcher)
    }

    /// The live objects whose `property` matches, tested over the typed
    /// column (with no liveness test when no object was deleted).
    private static func scanColumn(_ storage: Table, _ property: Int, _ matcher: ValueMatcher) -> [ObjectKey] {
        storage.scalars[property].slots(matching: matcher, alive: storage.scanLiveness)
    }
}

extension BoundPredicate: CustomStringConvertible {
    var description: String {
        switch self {
        case .constant(let value): value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .and(let operands): "(" + operands.map(\.description).joined(separator: " AND ") + ")"
        case .or(let operands): "(" + operands.map(\.description).joined(separator: " OR ") + ")"
        case .not(let operand): "NOT " + operand.description
        case .comparison(let c):
            "\(c.lhs) \(c.op.rawValue)\(c.options.isEmpty ? "" : "[\(c.options.contains(.caseInsensitive) ? "c" : "")\(c.options.contains(.diacriticInsensitive) ? "d" : "")]") \(c.rhs)"
        }
    }
}

extension BoundOperand: CustomStringConvertible {
    var description: String {
        switch self {
        case .constant(let value): value.predicateLiteral
        case .list(let values): "{" + values.map(\.predicateLiteral).joined(separator: ", ") + "}"
        case .path(let path): path.text
        case .aggregate(let function, let path, _): "\(path.text).\(function.rawValue)"
        case .subqueryCount(let path, let predicate): "SUBQUERY(\(path.text), \(predicate)).@count"
        }
    }
}

extension Array where Element == ObjectKey {
    /// Whether the keys ascend strictly.
    var isAscending: Bool {
        withUnsafeBufferPointer { keys in
            for i in keys.indices.dropFirst() where keys[i - 1] >= keys[i] { return false }
            return true
        }
    }
}
