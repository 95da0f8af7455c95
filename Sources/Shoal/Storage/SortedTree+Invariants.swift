import Foundation

extension SortedTree: InvariantChecking {
    /// The first broken invariant, or `nil`: keys strictly ascending and
    /// within their separators, every leaf at the same depth, branches with
    /// one more child than separators, nodes within ``maxCount`` and (off
    /// the root and the right edge) at least ``minCount``, and `count` right.
    func invariantViolation() -> String? {
        var entries = 0
        var leafDepth: Int?
        func check(_ node: Node, depth: Int, from lower: Key?, below upper: Key?, isRoot: Bool, onRightEdge: Bool) -> String? {
            if node.entryCount > Self.maxCount { return "a node of \(node.entryCount) entries at depth \(depth)" }
            if node.entryCount < (isRoot || onRightEdge ? 1 : Self.minCount) {
                return "a node of \(node.entryCount) entries at depth \(depth)"
            }
            let keys = node.isLeaf ? ContiguousArray(node.entries.map(\.key)) : node.separators
            for (a, b) in zip(keys, keys.dropFirst()) where Key.compare(a, b) != .orderedAscending {
                return "\(a) before \(b) at depth \(depth)"
            }
            guard !node.isLeaf else {
                if !node.separators.isEmpty { return "a leaf with \(node.separators.count) separators at depth \(depth)" }
                if leafDepth == nil { leafDepth = depth }
                if leafDepth != depth { return "leaves at depths \(leafDepth!) and \(depth)" }
                for key in keys {
                    if let lower, Key.compare(key, lower) == .orderedAscending { return "\(key) below its separator \(lower)" }
                    if let upper, Key.compare(key, upper) != .orderedAscending { return "\(key) not below its separator \(upper)" }
                }
                entries += keys.count
                return nil
            }
            if !node.entries.isEmpty { return "a branch with \(node.entries.count) entries at depth \(depth)" }
            if node.children.count != node.separators.count + 1 || node.children.count < 2 {
                return "a branch of \(node.children.count) children and \(node.separators.count) separators"
            }
            for (i, child) in node.children.enumerated() {
                let last = i == node.children.count - 1
                if let problem = check(child, depth: depth + 1, from: i == 0 ? lower : node.separators[i - 1], below: last ? upper : node.separators[i],
                    isRoot: false, onRightEdge: onRightEdge && last)
                {
                    return problem
                }
            }
            return nil
        }
        if let root, let problem = check(root, depth: 0, from: nil, below: nil, isRoot: true, onRightEdge: true) { return problem }
        return entries == count ? nil : "count \(count) but \(entries) entries"
    }
}
