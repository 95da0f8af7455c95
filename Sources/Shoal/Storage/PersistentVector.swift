/// An immutable-by-default vector built as a 64-way radix trie, so that a
/// copy shares all of its nodes and a change copies only the path to the
/// element it touches (at most four nodes of 64 entries below 16 million
/// elements).
///
/// This is what lets every commit publish a new snapshot while readers keep
/// the old one: a write copies only what it touches, not whole columns. The
/// usual value-semantics rule applies: a node is mutated in place only when
/// `isKnownUniquelyReferenced` says no other vector shares it.
struct PersistentVector<Element>: RandomAccessCollection {
    static var bits: Int { 6 }
    static var width: Int { 1 << bits }
    static var mask: Int { width - 1 }

    private var root: VectorNode<Element>?
    /// The level of the root: 0 when the root is a leaf.
    private var shift: Int = 0
    private(set) var count: Int = 0

    init() {}

    init<S: Sequence>(_ elements: S) where S.Element == Element {
        for e in elements { append(e) }
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(index: Int) -> Element {
        get {
            precondition(index >= 0 && index < count, "PersistentVector index \(index) out of range 0..<\(count)")
            var node = root.unsafelyUnwrapped
            var level = shift
            while level > 0 {
                node = node.children[(index >> level) & Self.mask]
                level -= Self.bits
            }
            return node.elements[index & Self.mask]
        }
        set {
            precondition(index >= 0 && index < count, "PersistentVector index \(index) out of range 0..<\(count)")
            Self.update(&root!, level: shift, index: index) { $0 = newValue }
        }
    }

    /// Mutates one element in place, copying only the nodes that are shared.
    mutating func modify<R>(_ index: Int, _ body: (inout Element) -> R) -> R {
        precondition(index >= 0 && index < count, "PersistentVector index \(index) out of range 0..<\(count)")
        return Self.update(&root!, level: shift, index: index, body)
    }

    mutating func append(_ element: Element) {
        if root == nil {
            root = VectorNode(elements: [element])
            count = 1
            return
        }
        if count == 1 << (shift + Self.bits) {
            root = VectorNode(children: [root!])
            shift += Self.bits
        }
        Self.appendPath(&root!, level: shift, index: count, element)
        count += 1
    }

    /// Calls `body` with each leaf's elements and the index of its first
    /// element, in order: the fast path for column scans.
    func forEachChunk(_ body: (Int, ContiguousArray<Element>) throws -> Void) rethrows {
        guard let root else { return }
        var base = 0
        try Self.walk(root, level: shift, base: &base, body)
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

    private static func appendPath(_ node: inout VectorNode<Element>, level: Int, index: Int, _ element: Element) {
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
        if level == 0 {
            node.elements.append(element)
            return
        }
        let slot = (index >> level) & mask
        if slot == node.children.count {
            node.children.append(makePath(level: level - bits, element))
        } else {
            appendPath(&node.children[slot], level: level - bits, index: index, element)
        }
    }

    private static func makePath(level: Int, _ element: Element) -> VectorNode<Element> {
        level == 0 ? VectorNode(elements: [element]) : VectorNode(children: [makePath(level: level - bits, element)])
    }
}

extension PersistentVector: @unchecked Sendable where Element: Sendable {}
// Safe because: nodes are only mutated after `isKnownUniquelyReferenced`
// proves no other vector (and so no other thread) can reach them; shared
// nodes are immutable. This is the same contract as Array's copy-on-write.

/// A trie node: a leaf holds elements, a branch holds children.
final class VectorNode<Element> {
    var children: ContiguousArray<VectorNode<Element>>
    var elements: ContiguousArray<Element>

    init(elements: ContiguousArray<Element>) {
        self.children = []
        self.elements = elements
        self.elements.reserveCapacity(PersistentVector<Element>.width)
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
