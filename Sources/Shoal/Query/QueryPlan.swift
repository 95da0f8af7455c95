import HashTreeCollections

/// How a query over one table runs: where its candidates come from (the
/// primary key index, a secondary index, or a column scan) and what is
/// tested on them afterwards. The Query layer's entry point.
///
/// - Equality and `IN` on the primary key or an `indexed: true` property
///   are looked up in the hash index.
/// - Of a conjunction, the indexed term with the fewest candidates drives;
///   the other terms filter its candidates.
/// - Everything else scans: a comparison of a plain column with constants
///   is tested over the column's leaves (``PersistentVector/forEachChunk(_:)``),
///   the rest object by object.
/// - Ranges (`<`, `<=`, `>`, `>=`, `BETWEEN`) on an `indexed: true`
///   property with few distinct values (at most an eighth of the objects)
///   are answered from the hash index: its distinct values are tested with
///   the term's own matcher and the matching buckets are the candidates,
///   re-tested with the term. Otherwise ranges scan: Shoal's indexes are hash
///   indexes, and there is no persistent ordered index yet.
///
/// Results come in table (object key) order, as an unsorted Realm query's do.
struct QueryPlan {
    enum Access: Equatable {
        case scan
        case primaryKey([Value])
        case index(property: Int, values: [Value])
    }

    let table: TableKey
    let access: Access
    /// The terms tested on each candidate (everything but the index term).
    let residual: [BoundPredicate]
    /// A readable form of the plan, for ``explain``-style checks.
    let explanation: String

    /// Plans `predicate` over `table` as the snapshot stands; with
    /// `useIndexes: false` it always scans (tests compare the two).
    init(table: TableKey, predicate: BoundPredicate, snapshot: Snapshot, useIndexes: Bool = true) {
        self.table = table
        let className = snapshot.schema[table].className
        var conjuncts: [BoundPredicate]
        if case .and(let operands) = predicate { conjuncts = operands } else { conjuncts = [predicate] }
        var best: (offset: Int, access: Access, candidates: Int)?
        if useIndexes {
            for (offset, term) in conjuncts.enumerated() {
                guard let (access, candidates) = Self.indexAccess(term, table, snapshot) else { continue }
                if best == nil || candidates < best!.candidates { best = (offset, access, candidates) }
            }
        }
        var text: String
        if let best {
            access = best.access
            let term = conjuncts.remove(at: best.offset)
            let isRange = Self.rangeTest(term, table) != nil
            let kind = if case .primaryKey = best.access { "primary key lookup" } else if isRange { "index range over distinct values" } else { "index lookup" }
            text = "\(kind) on \(className) where \(term) (\(best.candidates) candidates)"
            // A range is re-tested on its candidates, so the index only narrows them.
            if isRange { conjuncts.insert(term, at: 0) }
        } else {
            access = .scan
            text = "scan \(className) (\(snapshot.tables[table.index].count) objects)"
        }
        residual = conjuncts
        if !conjuncts.isEmpty { text += "; then test " + conjuncts.map(\.description).joined(separator: " AND ") }
        explanation = text
    }

    /// A range comparison of one plain column with constants, as a column test.
    private static func rangeTest(_ term: BoundPredicate, _ table: TableKey) -> (Int, ValueMatcher)? {
        guard case .comparison(let c) = term,
            [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .between].contains(c.op)
        else { return nil }
        return columnTest(CompiledPredicate(term), table)
    }

    /// The index lookup that answers `term` (exactly for equality and `IN`;
    /// a superset re-tested afterwards for a range), and its candidate count.
    private static func indexAccess(_ term: BoundPredicate, _ table: TableKey, _ snapshot: Snapshot) -> (Access, Int)? {
        if let (property, matcher) = rangeTest(term, table) {
            let storage = snapshot.tables[table.index]
            guard let index = storage.secondaryIndexes[property], index.count * 8 <= max(storage.count, 8) else { return nil }
            var values: [Value] = []
            var candidates = 0
            for (value, keys) in index where matcher.matches(value) {
                values.append(value)
                candidates += keys.count
            }
            return (.index(property: property, values: values), candidates)
        }
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
        guard let index = storage.secondaryIndexes[column.index] else { return nil }
        return (.index(property: column.index, values: values), values.reduce(0) { $0 + (index[$1]?.count ?? 0) })
    }

    /// The matching objects, in table order.
    func run(on snapshot: Snapshot) -> [ObjectKey] {
        let storage = snapshot.tables[table.index]
        let evaluator = QueryEvaluator(snapshot: snapshot)
        var tests = residual.map(CompiledPredicate.init)
        var keys: [ObjectKey]
        switch access {
        case .primaryKey(let values):
            keys = Array(Set(values.compactMap { storage.primaryIndex?[$0] })).sorted()
        case .index(let property, let values):
            var found = Set<ObjectKey>()
            for value in values { found.formUnion(storage.secondaryIndexes[property]?[value] ?? []) }
            keys = found.sorted()
        case .scan:
            if let first = tests.firstIndex(where: { Self.columnTest($0, table) != nil }) {
                let (property, matcher) = Self.columnTest(tests.remove(at: first), table)!
                keys = Self.scanColumn(storage, property, matcher)
            } else {
                keys = storage.liveKeys
            }
        }
        guard !tests.isEmpty else { return keys }
        let predicate: CompiledPredicate = tests.count == 1 ? tests[0] : .and(tests)
        return keys.filter { evaluator.matches(predicate, .link(Link(table: table, key: $0))) }
    }

    /// A comparison of one plain column of `table` with constants.
    private static func columnTest(_ test: CompiledPredicate, _ table: TableKey) -> (Int, ValueMatcher)? {
        guard case .test(.path(let path), false, _, let matcher) = test, let column = path.rootColumn, column.table == table
        else { return nil }
        return (column.index, matcher)
    }

    /// The live objects whose `property` matches, tested leaf by leaf.
    private static func scanColumn(_ storage: Table, _ property: Int, _ matcher: ValueMatcher) -> [ObjectKey] {
        var alive: [ContiguousArray<Bool>] = []
        storage.alive.forEachChunk { _, chunk in alive.append(chunk) }
        var keys: [ObjectKey] = []
        let shift = PersistentVector<Bool>.bits
        storage.scalars[property].forEachChunk { base, chunk in
            let live = alive[base >> shift]
            for (offset, value) in chunk.enumerated() where live[offset] && matcher.matches(value) {
                keys.append(ObjectKey(Int64(base + offset)))
            }
        }
        return keys
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
