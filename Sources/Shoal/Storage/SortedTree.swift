import Foundation

/// A key of a ``SortedTree``: anything with a strict order.
protocol SortedTreeKey {
    static func compare(_ lhs: Self, _ rhs: Self) -> ComparisonResult
}

extension Value: SortedTreeKey {}

extension ObjectKey: SortedTreeKey {
    static func compare(_ lhs: ObjectKey, _ rhs: ObjectKey) -> ComparisonResult {
        lhs.rawValue < rhs.rawValue ? .orderedAscending : (lhs.rawValue == rhs.rawValue ? .orderedSame : .orderedDescending)
    }
}

/// One end of a range of keys.
struct TreeBound<Key> {
    var key: Key
    var isInclusive: Bool
}

extension TreeBound: Equatable where Key: Equatable {}
extension TreeBound: Sendable where Key: Sendable {}

/// A map from distinct keys, in `Key.compare` order, to payloads, held as a
/// persistent B+ tree: a copy shares every node, and a change copies only
/// the path from the root to the leaf it touches (at most four nodes of 64
/// entries below 16 million keys).
///
/// Every index is one: a primary key index maps values to objects, a
/// secondary index maps values to the set of objects holding them (itself a
/// tree of object keys with no payload), so that one structure answers
/// equality, ranges and ordered walks, and a batch builds it in one pass
/// from sorted entries (``merge(_:)``) instead of key by key.
///
/// Entries live in the leaves; a branch holds its children and, between each
/// two, a separator: a key above everything in the left child and no greater
/// than anything in the right one. As in ``PersistentVector``, a node is
/// mutated in place only when `isKnownUniquelyReferenced` says no other tree
/// shares it.
///
/// Written here rather than taken from swift-collections, whose sorted
/// collections are available only behind its `UnstableSortedCollections`
/// trait, which its authors describe as not ready for production use. Its
/// hash trees (`TreeDictionary`), which the indexes used before, have no
/// ordered walk and no bulk construction.
///
/// - Note: `Key.compare` must order the keys strictly (as `Value.compare`
///   orders the values of one typed property). An equal key (`3` and `3.0`
///   in a mixed property) finds the entry made first, whose key is kept.
struct SortedTree<Key: SortedTreeKey, Payload>: Sequence {
    typealias Element = (key: Key, payload: Payload)
    typealias Node = SortedTreeNode<Key, Payload>
    typealias Bound = TreeBound<Key>

    /// The most entries in a leaf, and the most children of a branch.
    static var maxCount: Int { 64 }
    /// The fewest entries in a leaf, or children of a branch, unless the
    /// node is the root or on the tree's right edge (where ascending inserts
    /// leave the last node of each level nearly empty on purpose).
    static var minCount: Int { maxCount / 2 }

    /// The root node; `nil` when the tree is empty (read by the invariant check).
    private(set) var root: Node?
    /// The number of entries.
    private(set) var count = 0

    /// An empty tree.
    init() {}

    /// A tree of `sorted`, whose keys must be strictly ascending, built in
    /// O(n) with leaves as full as an even spread allows.
    init(sorted: some Collection<Element>) {
        count = sorted.count
        guard count > 0 else { return }
        // Leaves are cut straight from contiguous entries (an array, as
        // index builds and merges pass), others are gathered first.
        var level = sorted.withContiguousStorageIfAvailable { buffer in Self.leaves(buffer) } ?? Self.leaves(ContiguousArray(sorted))
        while level.count > 1 {
            level = Self.spread(level.count).map { range in
                let group = level[range]
                let node = Node(separators: ContiguousArray(group.dropFirst().map(\.least)), children: ContiguousArray(group.map(\.node)))
                return (node, group.first!.least)
            }
        }
        root = level[0].node
        _checkInvariants()
    }

    /// Leaves holding `entries` in order, with their least keys.
    private static func leaves(_ entries: some RandomAccessCollection<Element>) -> [(node: Node, least: Key)] {
        spread(entries.count).map { range in
            let slice = entries[entries.index(entries.startIndex, offsetBy: range.lowerBound)..<entries.index(entries.startIndex, offsetBy: range.upperBound)]
            return (Node(entries: ContiguousArray(slice)), slice.first!.key)
        }
    }

    /// `0..<count` cut into the fewest runs of at most ``maxCount``, of even sizes.
    private static func spread(_ count: Int) -> [Range<Int>] {
        let runs = (count + maxCount - 1) / maxCount
        return (0..<runs).map { r in count * r / runs..<count * (r + 1) / runs }
    }

    var isEmpty: Bool { count == 0 }

    var underestimatedCount: Int { count }

    /// The payload of the entry whose key equals `key`, if any.
    subscript(key: Key) -> Payload? {
        guard let (leaf, i) = find(key) else { return nil }
        return leaf.entries[i].payload
    }

    /// Whether an entry's key equals `key`.
    func contains(_ key: Key) -> Bool { find(key) != nil }

    /// The entry whose key equals `key` (as it was first stored), if any.
    func entry(_ key: Key) -> Element? {
        guard let (leaf, i) = find(key) else { return nil }
        return leaf.entries[i]
    }

    /// The entry with the greatest key, if any.
    var last: Element? {
        guard var node = root else { return nil }
        while !node.isLeaf { node = node.children[node.children.count - 1] }
        return node.entries.last
    }

    /// The leaf holding the entry whose key equals `key`, and its position.
    ///
    /// The descent reads each node in place and retains none but the leaf
    /// it returns: the tree, which `self` holds for the call, keeps every
    /// node alive (a retain and release per level was a third of a
    /// look-up by primary key).
    private func find(_ key: Key) -> (Node, Int)? {
        guard let root else { return nil }
        var node = Unmanaged.passUnretained(root)
        while let child = node._withUnsafeGuaranteedRef({ Self.child(of: $0, toward: key) }) { node = child }
        let leaf = node.takeUnretainedValue()
        let i = Self.position(leaf.entries, key)
        guard i < leaf.entries.count, Key.compare(leaf.entries[i].key, key) == .orderedSame else { return nil }
        return (leaf, i)
    }

    /// The child of branch `node` whose keys may include `key`, unretained;
    /// `nil` when `node` is a leaf.
    private static func child(of node: Node, toward key: Key) -> Unmanaged<Node>? {
        node.children.withUnsafeBufferPointer { children in
            children.isEmpty ? nil : Unmanaged.passUnretained(children[childIndex(node.separators, key)])
        }
    }

    /// Sets the payload of the entry whose key equals `key`, or adds the
    /// entry. An existing entry keeps its key.
    ///
    /// - Returns: the payload replaced, or `nil` when the entry is new.
    @discardableResult
    mutating func updateValue(_ payload: Payload, forKey key: Key) -> Payload? {
        let (old, new) = modify(key, default: payload) { stored -> Payload in
            defer { stored = payload }
            return stored
        }
        return new ? nil : old
    }

    /// Adds an entry unless one with an equal key is present.
    ///
    /// - Returns: whether it was added.
    @discardableResult
    mutating func insert(_ key: Key, _ payload: Payload) -> Bool {
        guard root != nil else {
            root = Node(entries: [(key, payload)])
            count = 1
            return true
        }
        // No body: an `inout` access to a payload of no size (a key set's
        // `Void`) has the address just past its entry, which the thread
        // sanitizer takes for an access to whatever is allocated there.
        let (split, new) = Self.modify(key, in: &root!, atRightEdge: true, default: { payload }, calling: false) { _ in }
        if let split { root = Node(separators: [split.separator], children: [root!, split.right]) }
        if new { count += 1 }
        return new
    }

    /// Calls `body` with the payload of the entry whose key equals `key`,
    /// made first with payload `default` if there is none, for changing it in
    /// place: the path to its leaf is copied if shared, the payload is not.
    ///
    /// - Returns: what `body` returned, and whether the entry is new.
    @discardableResult
    mutating func modify<R>(_ key: Key, default: @autoclosure () -> Payload, _ body: (inout Payload) -> R) -> (result: R, new: Bool) {
        guard root != nil else {
            var entry = (key: key, payload: `default`())
            let result = body(&entry.payload)
            root = Node(entries: [entry])
            count = 1
            return (result, true)
        }
        var result: R?
        let (split, new) = Self.modify(key, in: &root!, atRightEdge: true, default: `default`, calling: true) { payload in
            result = body(&payload)
        }
        if let split { root = Node(separators: [split.separator], children: [root!, split.right]) }
        if new { count += 1 }
        return (result!, new)
    }

    /// Removes the entry whose key equals `key`, if any.
    ///
    /// - Returns: the removed entry, with its key as stored.
    @discardableResult
    mutating func remove(_ key: Key) -> Element? {
        guard root != nil, let removed = Self.remove(key, from: &root!) else { return nil }
        count -= 1
        if root!.isLeaf {
            if root!.entries.isEmpty { root = nil }
        } else if root!.children.count == 1 {
            root = root!.children[0]
        }
        return removed
    }

    /// Adds `sorted` (ascending keys): the bulk path of a batch.
    /// A batch at least an eighth the size of the tree is merged with it and
    /// the tree built anew in O(n); a smaller one is inserted entry by entry.
    ///
    /// - Returns: the first entry of `sorted` whose key the tree already
    ///   held (that entry is skipped; the tree keeps its own), or `nil`.
    @discardableResult
    mutating func merge(_ sorted: some Collection<Element>) -> Element? {
        guard !sorted.isEmpty else { return nil }
        var clash: Element?
        guard sorted.count >= count / 8 else {
            for entry in sorted where !insert(entry.key, entry.payload) && clash == nil { clash = entry }
            return clash
        }
        if isEmpty, !zip(sorted, sorted.dropFirst()).contains(where: { Key.compare($0.key, $1.key) != .orderedAscending }) {
            // A first build (a replayed bulk insert, a loaded snapshot):
            // nothing to merge with.
            self = SortedTree(sorted: sorted)
            return nil
        }
        if let last, Key.compare(last.key, sorted.first!.key) == .orderedAscending,
            !zip(sorted, sorted.dropFirst()).contains(where: { Key.compare($0.key, $1.key) != .orderedAscending })
        {
            // Appending (ascending primary keys, new object keys): no merge.
            var merged = ContiguousArray<Element>()
            merged.reserveCapacity(count + sorted.count)
            for entry in self { merged.append(entry) }
            merged.append(contentsOf: sorted)
            self = SortedTree(sorted: merged)
            return nil
        }
        var merged = ContiguousArray<Element>()
        merged.reserveCapacity(count + sorted.count)
        var existing = makeIterator()
        var next = existing.next()
        for entry in sorted {
            while let e = next, Key.compare(e.key, entry.key) == .orderedAscending {
                merged.append(e)
                next = existing.next()
            }
            // An entry equal to one present, or to the one before it in the
            // batch (which must not happen, but must not make a tree with
            // two equal keys either), is a clash and is skipped.
            if let e = next, Key.compare(e.key, entry.key) == .orderedSame {
                if clash == nil { clash = entry }
                continue
            }
            if let previous = merged.last, Key.compare(previous.key, entry.key) != .orderedAscending {
                if clash == nil { clash = entry }
                continue
            }
            merged.append(entry)
        }
        while let e = next {
            merged.append(e)
            next = existing.next()
        }
        self = SortedTree(sorted: merged)
        return clash
    }

    /// Calls `body` with each entry from `lower` to `upper` (an end that is
    /// `nil` is open), in order, until it returns `false`. Finding the first
    /// entry costs O(log n); each further one O(1) amortized.
    func forEach(from lower: Bound?, to upper: Bound?, _ body: (Key, Payload) throws -> Bool) rethrows {
        guard let root else { return }
        _ = try Self.visit(root, from: lower, to: upper, body)
    }

    func makeIterator() -> Iterator { Iterator(root) }

    /// The entries in order: the leaves, left to right.
    struct Iterator: IteratorProtocol {
        /// The branches above the current leaf, each with its next child to visit.
        private var path: [(node: Node, next: Int)] = []
        private var leaf: ContiguousArray<Element> = []
        private var position = 0

        fileprivate init(_ root: Node?) {
            if let root { descend(root) }
        }

        private mutating func descend(_ node: Node) {
            var node = node
            while !node.isLeaf {
                path.append((node, 1))
                node = node.children[0]
            }
            leaf = node.entries
            position = 0
        }

        mutating func next() -> Element? {
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

extension SortedTree where Payload == Void {
    /// A set of `sorted`, which must be strictly ascending.
    init(sortedKeys: some Collection<Key>) {
        // Contiguous keys are read in place as entries, which have their
        // layout (an empty payload takes no bytes): mapping them lazily
        // copied them into an array of entries first.
        let inPlace = sortedKeys.withContiguousStorageIfAvailable { keys in
            keys.withMemoryRebound(to: Element.self) { SortedTree(sorted: $0) }
        }
        self = inPlace ?? SortedTree(sorted: sortedKeys.lazy.map { (key: $0, payload: ()) })
    }

    /// Adds `key` unless it is present.
    @discardableResult
    mutating func insert(_ key: Key) -> Bool { insert(key, ()) }

    /// The keys, in order.
    var keys: LazyMapSequence<SortedTree, Key> {
        // A closure, not `\.key`: a key path is projected through the
        // runtime (with a generic metadata look-up) for every element.
        lazy.map { $0.key }
    }

    /// Appends the keys, in order, to `out`: a leaf at a time, with no
    /// iterator per key.
    func appendKeys(to out: inout [Key]) {
        // Grown geometrically: reserving the exact sum on each of many
        // calls would copy the array every time.
        if out.capacity < out.count + count { out.reserveCapacity(Swift.max(out.count + count, out.capacity * 2)) }
        func walk(_ node: Node) {
            if node.isLeaf {
                node.entries.withUnsafeBufferPointer { entries in
                    for entry in entries { out.append(entry.key) }
                }
            } else {
                for child in node.children { walk(child) }
            }
        }
        if let root { walk(root) }
    }
}

extension SortedTree {
    /// The new right sibling of a node that was split, and the separator between them.
    private typealias Split = (separator: Key, right: Node)

    /// The first index of `entries` whose key is not below `key`, by binary search.
    ///
    /// Reads each key in place: `entries[mid].key` (or the pointee's key)
    /// copies the whole entry first, and a payload holding a reference (a
    /// secondary index's bucket) was retained and released at every probe.
    private static func position(_ entries: ContiguousArray<Element>, _ key: Key) -> Int {
        entries.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            // A tuple's memory is bound to its element types too, the key
            // at its own offset.
            let keyOffset = MemoryLayout<Element>.offset(of: \Element.key)!
            func keyPointer(_ i: Int) -> UnsafePointer<Key> {
                (UnsafeRawPointer(base + i) + keyOffset).assumingMemoryBound(to: Key.self)
            }
            var low = 0, high = buffer.count
            while low < high {
                let mid = (low + high) / 2
                if Key.compare(keyPointer(mid).pointee, key) == .orderedAscending {
                    low = mid + 1
                } else {
                    high = mid
                }
            }
            return low
        }
    }

    /// The child of a branch with `separators` whose subtree holds `key`'s
    /// place: the number of separators not above `key`.
    private static func childIndex(_ separators: ContiguousArray<Key>, _ key: Key) -> Int {
        var low = 0, high = separators.count
        while low < high {
            let mid = (low + high) / 2
            if Key.compare(separators[mid], key) == .orderedDescending { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// Finds or adds the entry of `key` below `node` and, if `calling`,
    /// calls `body` with its payload.
    ///
    /// - Returns: the split of `node`, if it overflowed, and whether the
    ///   entry is new.
    private static func modify(
        _ key: Key, in node: inout Node, atRightEdge: Bool, default: () -> Payload, calling: Bool, _ body: (inout Payload) -> Void
    ) -> (split: Split?, new: Bool) {
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
        var new = true
        if node.isLeaf {
            let i = position(node.entries, key)
            if i < node.entries.count && Key.compare(node.entries[i].key, key) == .orderedSame {
                if calling { body(&node.entries[i].payload) }
                return (nil, false)
            }
            // Room for the entry that overfills the leaf just before its
            // split, so that it does not double the array (the left half
            // would keep the doubled capacity).
            if node.entries.count == maxCount { node.entries.reserveCapacity(maxCount + 1) }
            node.entries.insert((key, `default`()), at: i)
            if calling { body(&node.entries[i].payload) }
        } else {
            let c = childIndex(node.separators, key)
            let (childSplit, childNew) = modify(key, in: &node.children[c], atRightEdge: atRightEdge && c == node.children.count - 1, default: `default`, calling: calling, body)
            new = childNew
            guard let childSplit else { return (nil, new) }
            if node.children.count == maxCount {
                node.separators.reserveCapacity(maxCount)
                node.children.reserveCapacity(maxCount + 1)
            }
            node.separators.insert(childSplit.separator, at: c)
            node.children.insert(childSplit.right, at: c + 1)
        }
        guard node.entryCount > maxCount else { return (nil, new) }
        // Keys arriving in ascending order (the usual primary keys, object
        // keys in a bucket) all land on the right edge: splitting there keeps
        // the left node nearly full, where an even split would leave every
        // node half empty.
        return (split(node, at: atRightEdge ? node.entryCount - 2 : node.entryCount / 2), new)
    }

    /// Cuts `node` after its first `m` entries (leaf) or children (branch),
    /// keeping the left part in `node`.
    private static func split(_ node: Node, at m: Int) -> Split {
        if node.isLeaf {
            let right = Node(entries: ContiguousArray(node.entries[m...]))
            node.entries.removeSubrange(m...)
            return (right.entries[0].key, right)
        }
        let right = Node(separators: ContiguousArray(node.separators[m...]), children: ContiguousArray(node.children[m...]))
        let separator = node.separators[m - 1]
        node.separators.removeSubrange((m - 1)...)
        node.children.removeSubrange(m...)
        return (separator, right)
    }

    private static func remove(_ key: Key, from node: inout Node) -> Element? {
        if node.isLeaf {
            let i = position(node.entries, key)
            guard i < node.entries.count && Key.compare(node.entries[i].key, key) == .orderedSame else { return nil }
            if !isKnownUniquelyReferenced(&node) { node = node.copy() }
            return node.entries.remove(at: i)
        }
        let c = childIndex(node.separators, key)
        // Whether the key is present is known only at the leaf, so the path
        // is copied first (a failed remove may copy it for nothing).
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
        guard let removed = remove(key, from: &node.children[c]) else { return nil }
        if node.children[c].entryCount < minCount { rebalance(node, at: c) }
        return removed
    }

    /// Refills the underfull child `c` of `parent` from a neighbour: the two
    /// become one node when their entries fit in one, or else share them
    /// evenly. The neighbour may be shared, so both are replaced by new nodes.
    private static func rebalance(_ parent: Node, at c: Int) {
        let i = c > 0 ? c - 1 : c
        let left = parent.children[i], right = parent.children[i + 1]
        let merged = left.isLeaf
            ? Node(entries: left.entries + right.entries)
            : Node(separators: left.separators + [parent.separators[i]] + right.separators, children: left.children + right.children)
        if merged.entryCount <= maxCount {
            parent.children[i] = merged
            parent.children.remove(at: i + 1)
            parent.separators.remove(at: i)
        } else {
            let (separator, second) = split(merged, at: merged.entryCount / 2)
            parent.children[i] = merged
            parent.children[i + 1] = second
            parent.separators[i] = separator
        }
    }

    /// Visits the entries of `node`'s subtree within the bounds; `false`
    /// once the walk is over (past `upper`, or stopped by `body`).
    private static func visit(
        _ node: Node, from lower: Bound?, to upper: Bound?, _ body: (Key, Payload) throws -> Bool
    ) rethrows -> Bool {
        if node.isLeaf {
            var i = 0
            if let lower {
                i = position(node.entries, lower.key)
                if !lower.isInclusive, i < node.entries.count, Key.compare(node.entries[i].key, lower.key) == .orderedSame { i += 1 }
            }
            while i < node.entries.count {
                let entry = node.entries[i]
                if let upper {
                    let order = Key.compare(entry.key, upper.key)
                    if order == .orderedDescending || (!upper.isInclusive && order == .orderedSame) { return false }
                }
                guard try body(entry.key, entry.payload) else { return false }
                i += 1
            }
            return true
        }
        let first = lower.map { childIndex(node.separators, $0.key) } ?? 0
        for c in first..<node.children.count {
            // Only the first child can hold keys below `lower`.
            guard try visit(node.children[c], from: c == first ? lower : nil, to: upper, body) else { return false }
        }
        return true
    }
}

extension SortedTree: @unchecked Sendable where Key: Sendable, Payload: Sendable {}
// Safe because: nodes are only mutated after `isKnownUniquelyReferenced`
// proves no other tree (and so no other thread) can reach them; shared nodes
// are immutable. This is the same contract as Array's copy-on-write.

/// A node of a ``SortedTree``: a leaf holds entries, a branch holds
/// children and the separators between them.
///
/// The fields are exempt from dynamic exclusivity checks, as in
/// ``VectorNode``. Safe because: a node is written only by the tree that
/// owns it uniquely, one access at a time down a single path, and shared
/// nodes are never written.
final class SortedTreeNode<Key: SortedTreeKey, Payload> {
    /// A leaf's entries, ascending by key; empty in a branch.
    @exclusivity(unchecked) var entries: ContiguousArray<(key: Key, payload: Payload)>
    /// A branch's separators (one fewer than its children), ascending; empty in a leaf.
    @exclusivity(unchecked) var separators: ContiguousArray<Key>
    /// A branch's children; empty in a leaf.
    @exclusivity(unchecked) var children: ContiguousArray<SortedTreeNode>

    init(entries: ContiguousArray<(key: Key, payload: Payload)>) {
        self.entries = entries
        self.separators = []
        self.children = []
    }

    init(separators: ContiguousArray<Key>, children: ContiguousArray<SortedTreeNode>) {
        self.entries = []
        self.separators = separators
        self.children = children
    }

    var isLeaf: Bool { children.isEmpty }

    /// The entries of a leaf or the children of a branch: what ``SortedTree/maxCount`` bounds.
    var entryCount: Int { isLeaf ? entries.count : children.count }

    func copy() -> SortedTreeNode {
        isLeaf ? SortedTreeNode(entries: entries) : SortedTreeNode(separators: separators, children: children)
    }
}
