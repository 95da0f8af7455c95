import Foundation

extension PersistentSortedSet: InvariantChecking {
    /// The first broken invariant, or `nil`: values strictly ascending and
    /// within their separators, every leaf at the same depth, branches with
    /// one more child than separators, nodes within ``maxCount`` and (off
    /// the root and the right edge) at least ``minCount``, and `count` right.
    func invariantViolation() -> String? {
        var values = 0
        var leafDepth: Int?
        func check(_ node: SortedSetNode, depth: Int, from lower: Value?, below upper: Value?, isRoot: Bool, onRightEdge: Bool) -> String? {
            if node.entryCount > Self.maxCount { return "a node of \(node.entryCount) entries at depth \(depth)" }
            if node.entryCount < (isRoot || onRightEdge ? 1 : Self.minCount) {
                return "a node of \(node.entryCount) entries at depth \(depth)"
            }
            for (a, b) in zip(node.keys, node.keys.dropFirst()) where Value.compare(a, b) != .orderedAscending {
                return "\(a) before \(b) at depth \(depth)"
            }
            guard !node.isLeaf else {
                if leafDepth == nil { leafDepth = depth }
                if leafDepth != depth { return "leaves at depths \(leafDepth!) and \(depth)" }
                for value in node.keys {
                    if let lower, Value.compare(value, lower) == .orderedAscending { return "\(value) below its separator \(lower)" }
                    if let upper, Value.compare(value, upper) != .orderedAscending { return "\(value) not below its separator \(upper)" }
                }
                values += node.keys.count
                return nil
            }
            if node.children.count != node.keys.count + 1 || node.children.count < 2 {
                return "a branch of \(node.children.count) children and \(node.keys.count) separators"
            }
            for (i, child) in node.children.enumerated() {
                let last = i == node.children.count - 1
                if let problem = check(child, depth: depth + 1, from: i == 0 ? lower : node.keys[i - 1], below: last ? upper : node.keys[i],
                    isRoot: false, onRightEdge: onRightEdge && last)
                {
                    return problem
                }
            }
            return nil
        }
        if let root, let problem = check(root, depth: 0, from: nil, below: nil, isRoot: true, onRightEdge: true) { return problem }
        return values == count ? nil : "count \(count) but \(values) values"
    }
}
