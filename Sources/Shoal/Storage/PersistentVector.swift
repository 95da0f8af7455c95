/// An immutable-by-default vector built as a 64-way radix trie, so that a
/// copy shares all of its nodes and a change copies only the path to the
/// element it touches (at most four nodes of 64 entries below 16 million
/// elements). The last partial leaf is kept apart as a plain array (the
/// tail, as in Clojure's vectors), so an append usually touches nothing else.
///
/// This is what lets every commit publish a new snapshot while readers keep
/// the old one: a write copies only what it touches, not whole columns. The
/// usual value-semantics rule applies: a node is mutated in place only when
/// `isKnownUniquelyReferenced` says no other vector shares it.
struct PersistentVector<Element>: RandomAccessCollection {
    static var bits: Int { 6 }
    static var width: Int { 1 << bits }
    static var mask: Int { width - 1 }

    /// The trie of full leaves: exactly the first `count - tail.count`
    /// elements, a multiple of `width`.
    private var root: VectorNode<Element>?
    /// The level of the root: 0 when the root is a leaf.
    private var shift: Int = 0
    /// The last 1...`width` elements (none when empty), kept out of the trie
    /// so that appending touches one array instead of a path of nodes.
    private var tail: ContiguousArray<Element> = []
    private(set) var count: Int = 0

    init() {}

    init<S: Sequence>(_ elements: S) where S.Element == Element {
        for e in elements { append(e) }
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    /// The index of the tail's first element.
    private var tailOffset: Int { count - tail.count }

    subscript(index: Int) -> Element {
        get {
            precondition(index >= 0 && index < count, "PersistentVector index \(index) out of range 0..<\(count)")
            let offset = tailOffset
            if index >= offset { return tail[index - offset] }
            var node = root.unsafelyUnwrapped
            var level = shift
            while level > 0 {
                node = node.children[(index >> level) & Self.mask]
                level -= Self.bits
            }
            return node.elements[index & Self.mask]
        }
        set {
            modify(index) { $0 = newValue }
        }
    }

    /// Mutates one element in place, copying only the nodes that are shared.
    mutating func modify<R>(_ index: Int, _ body: (inout Element) -> R) -> R {
        precondition(index >= 0 && index < count, "PersistentVector index \(index) out of range 0..<\(count)")
        let offset = tailOffset
        if index >= offset { return body(&tail[index - offset]) }
        return Self.update(&root!, level: shift, index: index, body)
    }

    /// Mutates the elements at the positions `index` gives for `items`,
    /// which must ascend (repeats allowed), calling `body` for each item in
    /// order: a leaf is reached (and copied if shared) once for all the
    /// items in it, not once per item as with ``modify(_:_:)``.
    mutating func modify<C: RandomAccessCollection>(
        ascending items: C, index: (C.Element) -> Int, _ body: (C.Element, inout Element) -> Void
    ) where C.Index == Int {
        let offset = tailOffset
        var i = items.startIndex
        while i < items.endIndex {
            let first = index(items[i])
            precondition(first >= 0 && first < count, "PersistentVector index \(first) out of range 0..<\(count)")
            if first >= offset {
                body(items[i], &tail[first - offset])
                i += 1
                continue
            }
            // Trie leaves end at multiples of `width`, and so does the trie.
            let leafEnd = (first | Self.mask) + 1
            var j = i + 1
            while j < items.endIndex, index(items[j]) < leafEnd { j += 1 }
            Self.updateLeaf(&root!, level: shift, index: first) { leaf in
                for k in i..<j {
                    let at = index(items[k])
                    precondition(at >= first, "PersistentVector.modify(ascending:) given descending indices")
                    body(items[k], &leaf[at & Self.mask])
                }
            }
            i = j
        }
    }

    mutating func append(_ element: Element) {
        if tail.count == Self.width { pushTail() }
        if tail.isEmpty { tail.reserveCapacity(Self.width) }
        tail.append(element)
        count += 1
    }

    /// Appends every element of `elements`, a leaf at a time: the bulk form
    /// of ``append(_:)`` that replay and snapshot loading use.
    mutating func append<C: Collection>(contentsOf elements: C) where C.Element == Element {
        var i = elements.startIndex
        while i != elements.endIndex {
            if tail.count == Self.width { pushTail() }
            if tail.isEmpty { tail.reserveCapacity(Self.width) }
            let end = elements.index(i, offsetBy: Self.width - tail.count, limitedBy: elements.endIndex) ?? elements.endIndex
            let before = tail.count
            tail.append(contentsOf: elements[i..<end])
            count += tail.count - before
            i = end
        }
    }

    /// Appends `n` copies of `element`. Whole leaves of it are one shared
    /// node (copied only when one of them is written to), so that millions
    /// of placeholders (the empty collections of deleted objects' slots,
    /// never written again) take a reference per leaf, not a value per slot.
    mutating func append(repeating element: Element, count n: Int) {
        var left = n
        var shared: VectorNode<Element>?
        while left > 0 {
            if tail.count == Self.width { pushTail() }
            if tail.isEmpty && left > Self.width {
                if shared == nil { shared = VectorNode(elements: ContiguousArray(repeating: element, count: Self.width)) }
                // The tail is empty, so the trie holds all `count`.
                pushLeaf(shared!, at: count)
                count += Self.width
                left -= Self.width
                continue
            }
            if tail.isEmpty { tail.reserveCapacity(Self.width) }
            let take = Swift.min(left, Self.width - tail.count)
            tail.append(contentsOf: repeatElement(element, count: take))
            count += take
            left -= take
        }
    }

    /// Appends the elements of a contiguous array (a column of a replayed
    /// run) whole leaves at a time: a leaf is made straight from the
    /// column, without passing through the tail.
    mutating func append(contentsOf elements: ContiguousArray<Element>) {
        var i = 0
        while i < elements.count {
            if tail.count == Self.width { pushTail() }
            if tail.isEmpty && elements.count - i > Self.width {
                // The tail stays empty until the last elements, so the trie
                // holds all `count`: the leaf goes at the end of it.
                pushLeaf(VectorNode(elements: ContiguousArray(elements[i..<i + Self.width])), at: count)
                count += Self.width
                i += Self.width
                continue
            }
            if tail.isEmpty { tail.reserveCapacity(Self.width) }
            let end = Swift.min(elements.count, i + Self.width - tail.count)
            tail.append(contentsOf: elements[i..<end])
            count += end - i
            i = end
        }
    }

    /// Appends pieces of at most ``width`` elements (a run's column): at a
    /// leaf boundary a piece becomes the tail as it is, and the trie's next
    /// leaf when the next piece comes, without copying an element; a piece
    /// that does not start at a boundary is copied.
    mutating func append(leaves: [ContiguousArray<Element>]) {
        for leaf in leaves where !leaf.isEmpty {
            guard count & Self.mask == 0, leaf.count <= Self.width else {
                append(contentsOf: leaf)
                continue
            }
            if tail.count == Self.width { pushTail() }
            tail = leaf
            count += leaf.count
        }
    }

    /// Moves the full tail into the trie as its last leaf.
    private mutating func pushTail() {
        let inTrie = tailOffset
        // Moved out first, so that the leaf holds the only reference to the
        // buffer (a copy would make its `reserveCapacity` copy the elements).
        var full: ContiguousArray<Element> = []
        swap(&full, &tail)
        pushLeaf(VectorNode(elements: consume full), at: inTrie)
    }

    /// Adds `leaf` to the trie as the leaf of elements `inTrie...`, the
    /// trie holding exactly `inTrie` elements.
    private mutating func pushLeaf(_ leaf: VectorNode<Element>, at inTrie: Int) {
        guard root != nil else {
            root = leaf
            shift = 0
            return
        }
        if inTrie == 1 << (shift + Self.bits) {
            root = VectorNode(children: [root!])
            shift += Self.bits
        }
        Self.pushLeaf(&root!, level: shift, index: inTrie, leaf)
    }

    /// Calls `body` with each leaf's elements and the index of its first
    /// element, in order: the fast path for column scans.
    func forEachChunk(_ body: (Int, ContiguousArray<Element>) throws -> Void) rethrows {
        var base = 0
        if let root { try Self.walk(root, level: shift, base: &base, body) }
        if !tail.isEmpty { try body(base, tail) }
    }

    private static func walk(
        _ node: VectorNode<Element>, level: Int, base: inout Int,
        _ body: (Int, ContiguousArray<Element>) throws -> Void
    ) rethrows {
        if level == 0 {
            try body(base, node.elements)
            base += node.elements.count
            return
        }
        for child in node.children { try walk(child, level: level - bits, base: &base, body) }
    }

    private static func update<R>(
        _ node: inout VectorNode<Element>, level: Int, index: Int, _ body: (inout Element) -> R
    ) -> R {
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
        if level == 0 { return body(&node.elements[index & mask]) }
        return update(&node.children[(index >> level) & mask], level: level - bits, index: index, body)
    }

    private static func updateLeaf(
        _ node: inout VectorNode<Element>, level: Int, index: Int, _ body: (inout ContiguousArray<Element>) -> Void
    ) {
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
        if level == 0 { return body(&node.elements) }
        updateLeaf(&node.children[(index >> level) & mask], level: level - bits, index: index, body)
    }

    /// Adds `leaf` as the leaf holding elements `index...`, below a branch at `level`.
    private static func pushLeaf(_ node: inout VectorNode<Element>, level: Int, index: Int, _ leaf: VectorNode<Element>) {
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
        let slot = (index >> level) & mask
        if slot == node.children.count {
            node.children.append(makePath(level: level - bits, leaf))
        } else {
            pushLeaf(&node.children[slot], level: level - bits, index: index, leaf)
        }
    }

    private static func makePath(level: Int, _ leaf: VectorNode<Element>) -> VectorNode<Element> {
        level == 0 ? leaf : VectorNode(children: [makePath(level: level - bits, leaf)])
    }
}

extension PersistentVector {
    /// The leaf (or tail) holding element `index`, and the index of its
    /// first element: for reading a run of elements a leaf at a time.
    func chunk(containing index: Int) -> (base: Int, elements: ContiguousArray<Element>) {
        precondition(index >= 0 && index < count, "PersistentVector index \(index) out of range 0..<\(count)")
        let offset = tailOffset
        if index >= offset { return (offset, tail) }
        var node = root.unsafelyUnwrapped
        var level = shift
        while level > 0 {
            node = node.children[(index >> level) & Self.mask]
            level -= Self.bits
        }
        return (index & ~Self.mask, node.elements)
    }
}

extension PersistentVector: @unchecked Sendable where Element: Sendable {}
// Safe because: nodes are only mutated after `isKnownUniquelyReferenced`
// proves no other vector (and so no other thread) can reach them; shared
// nodes are immutable. This is the same contract as Array's copy-on-write.

/// A trie node: a leaf holds elements, a branch holds children.
///
/// The fields are exempt from dynamic exclusivity checks, which cost a
/// runtime call per access. Safe because: a node is written only by the
/// vector that owns it uniquely (after `isKnownUniquelyReferenced`), through
/// one access at a time down a single path, and shared nodes are never written.
final class VectorNode<Element> {
    @exclusivity(unchecked) var children: ContiguousArray<VectorNode<Element>>
    @exclusivity(unchecked) var elements: ContiguousArray<Element>

    init(elements: ContiguousArray<Element>) {
        self.children = []
        self.elements = elements
        // (Not when it has room: the check would copy a buffer shared
        // with the run it came from.)
        if self.elements.capacity < PersistentVector<Element>.width {
            self.elements.reserveCapacity(PersistentVector<Element>.width)
        }
    }

    init(children: ContiguousArray<VectorNode<Element>>) {
        self.children = children
        self.elements = []
    }

    func copy() -> VectorNode<Element> {
        let node = VectorNode(children: children)
        node.elements = elements
        return node
    }
}
