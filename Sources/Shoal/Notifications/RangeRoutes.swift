import Foundation

/// A range of values on a to-one path that a query's results require
/// (`owner.id >= 10 AND owner.id < 20`, `age BETWEEN {3, 5}`): an object
/// whose value on `path` is outside it, before and after a commit, cannot
/// be in the results then, so routing skips it.
///
/// `matchers` are the predicate's own comparisons on the path, so that
/// ``contains(_:)`` holds exactly when they all do. `lower` and `upper`
/// are their bounds in `Value.compare` order, for ``RangeRoutes``' search;
/// they are taken only where that order is the comparisons' order: a
/// column of one kind (not `AnyRealmValue`) compared with constants of
/// that same kind, none of them NaN.
struct RangeAnchor: Sendable {
    var path: [BoundProperty]
    var matchers: [ValueMatcher]
    /// The least value passing, or `nil` when unbounded below.
    var lower: Value?
    /// The greatest value passing, or `nil` when unbounded above.
    var upper: Value?

    /// Whether `value` passes every comparison on the path.
    func contains(_ value: Value) -> Bool { matchers.allSatisfy { $0.matches(value) } }

    /// The range the conjuncts of `predicate` on one to-one path impose
    /// (the first path that has an ordered comparison), or `nil` when it
    /// has none that qualifies.
    static func of(_ predicate: BoundPredicate, schema: Schema) -> RangeAnchor? {
        let conjuncts: [BoundPredicate]
        if case .and(let ops) = predicate { conjuncts = ops } else { conjuncts = [predicate] }
        var anchor: RangeAnchor?
        for case .comparison(let c) in conjuncts {
            guard let path = orderedPath(c, schema: schema), anchor == nil || anchor?.path == path else { continue }
            var range = anchor ?? RangeAnchor(path: path, matchers: [])
            let operands: [Value]
            switch c.rhs {
            case .constant(let v): operands = [v]
            case .list(let vs): operands = vs
            default: continue
            }
            switch (c.op, operands.count) {
            case (.greaterThan, 1), (.greaterThanOrEqual, 1): range.lower = range.lower ?? operands[0]
            case (.lessThan, 1), (.lessThanOrEqual, 1): range.upper = range.upper ?? operands[0]
            case (.between, 2):
                range.lower = range.lower ?? operands[0]
                range.upper = range.upper ?? operands[1]
            default: continue
            }
            range.matchers.append(ValueMatcher(c.op, operands, options: c.options))
            anchor = range
        }
        return anchor
    }

    /// The path of a comparison whose constants order as its column does:
    /// a to-one path from the tested object to a typed column of int,
    /// double, float, string or date, compared with non-NaN constants of
    /// that kind, without options.
    private static func orderedPath(_ c: BoundComparison, schema: Schema) -> [BoundProperty]? {
        guard [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .between].contains(c.op), c.options.isEmpty,
            case .path(let path) = c.lhs, path.root == 0, !path.isMultiValued
        else { return nil }
        var steps: [BoundProperty] = []
        for step in path.steps {
            guard case .property(let p) = step else { return nil }
            steps.append(p)
        }
        guard let last = steps.last else { return nil }
        let property = schema[last.table].properties[last.index]
        guard property.collection == CollectionKind.none else { return nil }
        let kind: String
        switch property.type {
        case .int: kind = "int"
        case .double: kind = "double"
        case .float: kind = "float"
        case .string: kind = "string"
        case .date: kind = "date"
        default: return nil
        }
        let constants: [Value]
        switch c.rhs {
        case .constant(let v): constants = [v]
        case .list(let vs): constants = vs
        default: return nil
        }
        guard !constants.isEmpty,
            constants.allSatisfy({ $0.kindName == kind && $0.doubleValue?.isNaN != true && !$0.isFloatNaN })
        else { return nil }
        return steps
    }
}

private extension Value {
    var isFloatNaN: Bool {
        if case .float(let f) = self { return f.isNaN }
        return false
    }
}

/// The notifiers anchored on ranges of one path's values, by range.
///
/// Ranges are kept sorted by lower bound (unbounded first) in groups of
/// one kind of bound, over an implicit binary tree whose nodes hold the
/// greatest upper bound below them. A value reaches the ranges whose lower
/// bound does not exceed it (a binary search gives them as a prefix) and
/// whose upper bound it does not exceed (subtrees whose greatest upper
/// bound is below it are skipped): O(log n) per range found, whatever the
/// number of ranges registered on the path. Each range found is then
/// tested with its own comparisons, which decide.
struct RangeRoutes {
    private struct Entry {
        var id: Int
        var range: RangeAnchor
    }

    /// An upper bound in the tree: nothing below (an empty leaf), a value,
    /// or unbounded.
    private enum Reach {
        case nothing
        case value(Value)
        case unbounded

        func reaches(_ value: Value) -> Bool {
            switch self {
            case .nothing: false
            case .unbounded: true
            case .value(let upper): Value.compare(upper, value) != .orderedAscending
            }
        }

        static func max(_ a: Reach, _ b: Reach) -> Reach {
            switch (a, b) {
            case (.unbounded, _), (_, .unbounded): .unbounded
            case (.nothing, let other), (let other, .nothing): other
            case (.value(let x), .value(let y)): Value.compare(x, y) == .orderedAscending ? b : a
            }
        }
    }

    private struct Group {
        var entries: [Entry] = []
        /// The implicit tree: node 1 is the root, node `i`'s children are
        /// `2i` and `2i + 1`, leaf `j` is node `leaves + j`.
        var reach: [Reach] = []
        var leaves = 0

        mutating func rebuild() {
            leaves = 1
            while leaves < entries.count { leaves *= 2 }
            reach = Array(repeating: .nothing, count: 2 * leaves)
            for (j, entry) in entries.enumerated() { reach[leaves + j] = entry.range.upper.map(Reach.value) ?? .unbounded }
            for node in stride(from: leaves - 1, through: 1, by: -1) { reach[node] = Reach.max(reach[2 * node], reach[2 * node + 1]) }
        }

        /// The number of entries whose lower bound does not exceed `value`.
        func prefix(upTo value: Value) -> Int {
            var (low, high) = (0, entries.count)
            while low < high {
                let mid = (low + high) / 2
                if let lower = entries[mid].range.lower, Value.compare(lower, value) == .orderedDescending { high = mid } else { low = mid + 1 }
            }
            return low
        }
    }

    private var groups: [Int: Group] = [:]

    var isEmpty: Bool { groups.isEmpty }

    /// The slots held, for the routing index's capacity.
    var capacity: Int { groups.capacity + groups.values.reduce(0) { $0 + $1.entries.capacity + $1.reach.capacity } }

    private static func group(of range: RangeAnchor) -> Int { (range.lower ?? range.upper)?.kindRank ?? 0 }

    /// Sorts before: unbounded first, then by lower bound, then by id.
    private static func precedes(_ a: Entry, _ b: Entry) -> Bool {
        switch (a.range.lower, b.range.lower) {
        case (nil, nil): return a.id < b.id
        case (nil, _): return true
        case (_, nil): return false
        case (let x?, let y?):
            let order = Value.compare(x, y)
            return order == .orderedSame ? a.id < b.id : order == .orderedAscending
        }
    }

    mutating func insert(_ id: Int, _ range: RangeAnchor) {
        let entry = Entry(id: id, range: range)
        var group = groups[Self.group(of: range)] ?? Group()
        let at = group.entries.firstIndex { Self.precedes(entry, $0) } ?? group.entries.count
        group.entries.insert(entry, at: at)
        group.rebuild()
        groups[Self.group(of: range)] = group
    }

    mutating func remove(_ id: Int, _ range: RangeAnchor) {
        let key = Self.group(of: range)
        guard var group = groups.removeValue(forKey: key) else { return }
        group.entries.removeAll { $0.id == id }
        group.entries.releaseUnusedCapacity()
        if !group.entries.isEmpty {
            group.rebuild()
            groups[key] = group
        }
        groups.releaseUnusedCapacity()
    }

    /// Calls `body` with the id of every range containing `value`.
    func forEach(containing value: Value, _ body: (Int) -> Void) {
        guard !value.isNull, let group = groups[value.kindRank] else { return }
        let prefix = group.prefix(upTo: value)
        guard prefix > 0 else { return }
        var stack: [(node: Int, low: Int, high: Int)] = [(1, 0, group.leaves)]
        while let (node, low, high) = stack.popLast() {
            guard low < prefix, group.reach[node].reaches(value) else { continue }
            if high - low == 1 {
                let entry = group.entries[low]
                if entry.range.contains(value) { body(entry.id) }
                continue
            }
            let mid = (low + high) / 2
            stack.append((2 * node + 1, mid, high))
            stack.append((2 * node, low, mid))
        }
    }
}
