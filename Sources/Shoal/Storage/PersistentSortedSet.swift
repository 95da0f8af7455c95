import Foundation

/// A set of distinct values in `Value.compare` order, held as a persistent
/// B+ tree: a copy shares every node, and a change copies only the path from
/// the root to the leaf it touches (at most four nodes of 64 entries below
/// 16 million values). It is the ordered half of an index: the distinct
/// values of an indexed property, so that a range query finds the values
/// between two bounds without testing the others.
///
/// Values live in the leaves; a branch holds its children and, between each
/// two, a separator: a value above everything in the left child and no
/// greater than anything in the right one. As in ``PersistentVector``, a node
/// is mutated in place only when `isKnownUniquelyReferenced` says no other
/// set shares it.
///
/// Written here rather than taken from swift-collections, whose `SortedSet`
/// is available only behind its `UnstableSortedCollections` trait, which its
/// authors describe as not ready for production use, with source-breaking
/// changes to come.
///
/// - Note: `Value.compare` must order the values strictly (as it does the
///   values of one typed property). Inserting or removing a value that is
///   already present or absent may still copy the path to its leaf.
struct PersistentSortedSet: Sequence {
    /// The most values in a leaf, and the most children of a branch.
    static var maxCount: Int { 64 }
    /// The fewest values in a leaf, or children of a branch, unless the node
    /// is the root or on the tree's right edge (where ascending inserts
    /// leave the last node of each level nearly empty on purpose).
    static var minCount: Int { maxCount / 2 }

    /// The root node; `nil` when the set is empty (read by the invariant check).
    private(set) var root: SortedSetNode?
    /// The number of values.
    private(set) var count = 0

    /// One end of a range of values.
    struct Bound: Equatable, Sendable {
        var value: Value
        var isInclusive: Bool
    }

    /// An empty set.
    init() {}

    /// A set of `sorted`, which must be strictly ascending, built in O(n)
    /// with leaves as full as an even spread allows: the bulk path used when
    /// a batch fills an empty index.
    init(sorted: some Collection<Value>) {
        count = sorted.count
        guard count > 0 else { return }
        var level: [(node: SortedSetNode, least: Value)] = Self.spread(Array(sorted)).map { keys in
            (SortedSetNode(keys: ContiguousArray(keys), children: []), keys.first!)
        }
        while level.count > 1 {
            level = Self.spread(level).map { group in
                let node = SortedSetNode(keys: ContiguousArray(group.dropFirst().map(\.least)), children: ContiguousArray(group.map(\.node)))
                return (node, group.first!.least)
            }
        }
        root = level[0].node
        _checkInvariants()
    }

    /// `elements` cut into the fewest runs of at most ``maxCount``, of even sizes.
    private static func spread<T>(_ elements: [T]) -> [ArraySlice<T>] {
        let runs = (elements.count + maxCount - 1) / maxCount
        return (0..<runs).map { r in elements[elements.count * r / runs..<elements.count * (r + 1) / runs] }
    }

    var isEmpty: Bool { count == 0 }

    var underestimatedCount: Int { count }

    /// Whether `value` is in the set.
    func contains(_ value: Value) -> Bool {
        guard var node = root else { return false }
        while !node.isLeaf { node = node.children[Self.childIndex(node.keys, value)] }
        let i = Self.partition(node.keys) { Value.compare($0, value) != .orderedAscending }
        return i < node.keys.count && Value.compare(node.keys[i], value) == .orderedSame
    }

    /// Adds `value` unless an equal value is present.
    ///
    /// - Returns: whether `value` was added.
    @discardableResult
    mutating func insert(_ value: Value) -> Bool {
        guard root != nil else {
            root = SortedSetNode(keys: [value], children: [])
            count = 1
            return true
        }
        let (inserted, split) = Self.insert(value, into: &root!, atRightEdge: true)
        if let split { root = SortedSetNode(keys: [split.separator], children: [root!, split.right]) }
        if inserted { count += 1 }
        return inserted
    }

    /// Removes the value equal to `value`, if any.
    ///
    /// - Returns: whether a value was removed.
    @discardableResult
    mutating func remove(_ value: Value) -> Bool {
        guard root != nil, Self.remove(value, from: &root!) else { return false }
        count -= 1
        if root!.isLeaf {
            if root!.keys.isEmpty { root = nil }
        } else if root!.children.count == 1 {
            root = root!.children[0]
        }
        return true
    }

    /// Adds each of `values` (in any order, repeats allowed) that is not yet
    /// present: the bulk path of a batch. When `values` are at least as many
    /// as the set holds (an empty set, a first large batch), merging the two
    /// and building the tree anew costs O(n) plus sorting `values`; a smaller
    /// batch is inserted value by value, in ascending order.
    mutating func insert(contentsOf values: [Value]) {
        let sorted = values.sorted { Value.compare($0, $1) == .orderedAscending }
        guard sorted.count >= count else {
            for value in sorted { insert(value) }
            return
        }
        var merged: [Value] = []
        merged.reserveCapacity(count + sorted.count)
        var existing = makeIterator()
        var next = existing.next()
        for value in sorted {
            while let e = next, Value.compare(e, value) == .orderedAscending {
                merged.append(e)
                next = existing.next()
            }
            if let e = next, Value.compare(e, value) == .orderedSame { continue }
            if let last = merged.last, Value.compare(last, value) == .orderedSame { continue }
            merged.append(value)
        }
        while let e = next {
            merged.append(e)
            next = existing.next()
        }
        self = PersistentSortedSet(sorted: merged)
    }

    /// Calls `body` with each value from `lower` to `upper` (an end that is
    /// `nil` is open), in order, until it returns `false`. Finding the first
    /// value costs O(log n); each further value O(1) amortized.
    func forEach(from lower: Bound?, to upper: Bound?, _ body: (Value) throws -> Bool) rethrows {
        guard let root else { return }
        _ = try Self.visit(root, from: lower, to: upper, body)
    }

    func makeIterator() -> Iterator { Iterator(root) }

    /// The values in order: the leaves, left to right.
    struct Iterator: IteratorProtocol {
        /// The branches above the current leaf, each with its next child to visit.
        private var path: [(node: SortedSetNode, next: Int)] = []
        private var leaf: ContiguousArray<Value> = []
        private var position = 0

        fileprivate init(_ root: SortedSetNode?) {
            if let root { descend(root) }
        }

        private mutating func descend(_ node: SortedSetNode) {
            var node = node
            while !node.isLeaf {
                path.append((node, 1))
                node = node.children[0]
            }
            leaf = node.keys
            position = 0
        }

        mutating func next() -> Value? {
            while position == leaf.count {
                guard let top = path.popLast() else { return nil }
                if top.next < top.node.children.count {
                    path.append((top.node, top.next + 1))
                    descend(top.node.children[top.next])
                }
            }
            defer { position += 1 }
            return leaf[position]
        }
    }
}

extension PersistentSortedSet {
    /// The new right sibling of a node that was split, and the separator between them.
    private typealias Split = (separator: Value, right: SortedSetNode)

    /// The first index of `keys` at which `isAtOrAbove` holds (it must hold
    /// for a suffix of `keys`), by binary search.
    private static func partition(_ keys: ContiguousArray<Value>, _ isAtOrAbove: (Value) -> Bool) -> Int {
        var low = 0, high = keys.count
        while low < high {
            let mid = (low + high) / 2
            if isAtOrAbove(keys[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// The child of a branch with separators `keys` whose subtree holds
    /// `value`'s place: the number of separators not above `value`.
    private static func childIndex(_ keys: ContiguousArray<Value>, _ value: Value) -> Int {
        partition(keys) { Value.compare($0, value) == .orderedDescending }
    }

    private static func insert(_ value: Value, into node: inout SortedSetNode, atRightEdge: Bool) -> (Bool, Split?) {
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
        if node.isLeaf {
            let i = partition(node.keys) { Value.compare($0, value) != .orderedAscending }
            if i < node.keys.count && Value.compare(node.keys[i], value) == .orderedSame { return (false, nil) }
            node.keys.insert(value, at: i)
        } else {
            let c = childIndex(node.keys, value)
            let (inserted, childSplit) = insert(value, into: &node.children[c], atRightEdge: atRightEdge && c == node.children.count - 1)
            guard let childSplit else { return (inserted, nil) }
            node.keys.insert(childSplit.separator, at: c)
            node.children.insert(childSplit.right, at: c + 1)
        }
        guard node.entryCount > maxCount else { return (true, nil) }
        // Values arriving in ascending order (the usual primary keys) all
        // land on the right edge: splitting there keeps the left node nearly
        // full, where an even split would leave every node half empty.
        return (true, split(node, at: atRightEdge ? node.entryCount - 2 : node.entryCount / 2))
    }

    /// Cuts `node` after its first `m` values (leaf) or children (branch),
    /// keeping the left part in `node`.
    private static func split(_ node: SortedSetNode, at m: Int) -> Split {
        if node.isLeaf {
            let right = SortedSetNode(keys: ContiguousArray(node.keys[m...]), children: [])
            node.keys.removeSubrange(m...)
            return (right.keys[0], right)
        }
        let right = SortedSetNode(keys: ContiguousArray(node.keys[m...]), children: ContiguousArray(node.children[m...]))
        let separator = node.keys[m - 1]
        node.keys.removeSubrange((m - 1)...)
        node.children.removeSubrange(m...)
        return (separator, right)
    }

    private static func remove(_ value: Value, from node: inout SortedSetNode) -> Bool {
        if node.isLeaf {
            let i = partition(node.keys) { Value.compare($0, value) != .orderedAscending }
            guard i < node.keys.count && Value.compare(node.keys[i], value) == .orderedSame else { return false }
            if !isKnownUniquelyReferenced(&node) { node = node.copy() }
            node.keys.remove(at: i)
            return true
        }
        let c = childIndex(node.keys, value)
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
        guard remove(value, from: &node.children[c]) else { return false }
        if node.children[c].entryCount < minCount { rebalance(node, at: c) }
        return true
    }

    /// Refills the underfull child `c` of `parent` from a neighbour: the two
    /// become one node when their entries fit in one, or else share them
    /// evenly. The neighbour may be shared, so both are replaced by new nodes.
    private static func rebalance(_ parent: SortedSetNode, at c: Int) {
        let i = c > 0 ? c - 1 : c
        let left = parent.children[i], right = parent.children[i + 1]
        var keys = left.keys
        if !left.isLeaf { keys.append(parent.keys[i]) }
        keys += right.keys
        let merged = SortedSetNode(keys: keys, children: left.children + right.children)
        if merged.entryCount <= maxCount {
            parent.children[i] = merged
            parent.children.remove(at: i + 1)
            parent.keys.remove(at: i)
        } else {
            let (separator, second) = split(merged, at: merged.entryCount / 2)
            parent.children[i] = merged
            parent.children[i + 1] = second
            parent.keys[i] = separator
        }
    }

    /// Visits the values of `node`'s subtree within the bounds; `false` once
    /// the walk is over (past `upper`, or stopped by `body`).
    private static func visit(
        _ node: SortedSetNode, from lower: Bound?, to upper: Bound?, _ body: (Value) throws -> Bool
    ) rethrows -> Bool {
        if node.isLeaf {
            var i = 0
            if let lower {
                i = partition(node.keys) {
                    let order = Value.compare($0, lower.value)
                    return order == .orderedDescending || (lower.isInclusive && order == .orderedSame)
                }
            }
            while i < node.keys.count {
                let value = node.keys[i]
                if let upper {
                    let order = Value.compare(value, upper.value)
                    if order == .orderedDescending || (!upper.isInclusive && order == .orderedSame) { return false }
                }
                guard try body(value) else { return false }
                i += 1
            }
            return true
        }
        let first = lower.map { childIndex(node.keys, $0.value) } ?? 0
        for c in first..<node.children.count {
            // Only the first child can hold values below `lower`.
            guard try visit(node.children[c], from: c == first ? lower : nil, to: upper, body) else { return false }
        }
        return true
    }
}

extension PersistentSortedSet: Equatable {
    /// Whether the sets hold equal values (`Value`'s `==`), in the same order.
    static func == (lhs: PersistentSortedSet, rhs: PersistentSortedSet) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }
}

extension PersistentSortedSet: @unchecked Sendable {}
// Safe because: nodes are only mutated after `isKnownUniquelyReferenced`
// proves no other set (and so no other thread) can reach them; shared nodes
// are immutable. This is the same contract as Array's copy-on-write.

/// A node of a ``PersistentSortedSet``: a leaf holds values, a branch holds
/// children and the separators between them.
///
/// The fields are exempt from dynamic exclusivity checks, as in
/// ``VectorNode``. Safe because: a node is written only by the set that owns
/// it uniquely, one access at a time down a single path, and shared nodes are
/// never written.
final class SortedSetNode {
    /// A leaf's values, or a branch's separators (one fewer than its children), ascending.
    @exclusivity(unchecked) var keys: ContiguousArray<Value>
    /// A branch's children; empty in a leaf.
    @exclusivity(unchecked) var children: ContiguousArray<SortedSetNode>

    /// A node with room for one entry over ``PersistentSortedSet/maxCount``,
    /// so that the insert that overfills it, just before its split, does not
    /// double its arrays (the left half would keep the doubled capacity).
    init(keys: ContiguousArray<Value>, children: ContiguousArray<SortedSetNode>) {
        self.keys = keys
        self.children = children
        self.keys.reserveCapacity(PersistentSortedSet.maxCount + 1)
        if !children.isEmpty { self.children.reserveCapacity(PersistentSortedSet.maxCount + 1) }
    }

    var isLeaf: Bool { children.isEmpty }

    /// The values of a leaf or the children of a branch: what ``PersistentSortedSet/maxCount`` bounds.
    var entryCount: Int { isLeaf ? keys.count : children.count }

    func copy() -> SortedSetNode { SortedSetNode(keys: keys, children: children) }
}
