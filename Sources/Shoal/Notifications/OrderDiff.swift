/// The identity of an element in one notifier's kept order: an object key
/// for results, a per-notifier serial number for positional collections
/// (which may hold one value twice).
typealias ElementID = Int64

/// Index changes between two versions of one collection, in Realm's index
/// spaces: deletions and `modifications` in the old collection, insertions
/// and `modificationsNew` in the new one; every array ascending. Each move's
/// `from` is also a deletion and its `to` an insertion.
struct IndexChanges: Sendable, Equatable {
    struct Move: Sendable, Equatable, Hashable {
        var from: Int
        var to: Int
    }
    var deletions: [Int] = []
    var insertions: [Int] = []
    var modifications: [Int] = []
    var modificationsNew: [Int] = []
    var moves: [Move] = []
    /// For sectioned observations: the elements at `insertions`, in order,
    /// so that sections are kept without reading the collection again.
    var insertedValues: [Value] = []
    /// For sectioned observations: elements that stayed in place (old and
    /// new index) but changed in what their section key reads.
    var rekeyed: [Move] = []

    var isEmpty: Bool { deletions.isEmpty && insertions.isEmpty && modifications.isEmpty && rekeyed.isEmpty }
}

/// What one commit did to a notifier's kept order, by element identity.
struct OrderChange: Sendable {
    /// Touched elements present before, with their old positions, ascending.
    var removed: [(id: ElementID, index: Int)] = []
    /// Touched elements present after, with their new positions, ascending.
    var inserted: [(id: ElementID, index: Int)] = []
    /// Untouched elements (present before and after, not moved) that may
    /// have been modified, with both positions.
    var kept: [ElementID: (old: Int, new: Int)] = [:]
    /// Elements replaced in place (a list's `set`): modified whatever the filter.
    var replaced: Set<ElementID> = []

    var isEmpty: Bool { removed.isEmpty && inserted.isEmpty && kept.isEmpty && replaced.isEmpty }
}

/// Turns touched elements' old and new positions into the smallest changeset
/// that reports only touched elements.
///
/// An element present in both orders *stays* when the number of untouched
/// elements before it is the same in both (the same gap); among the
/// touched elements of one gap, the longest run in unchanged relative order
/// stays and the others move (a deletion plus an insertion). Untouched
/// elements keep their relative order, so they never appear.
enum OrderDiff {
    static func changes(_ change: OrderChange, modified: Set<ElementID>) -> IndexChanges {
        var out = IndexChanges()
        var oldOf: [ElementID: (index: Int, gap: Int)] = [:]
        for (rank, r) in change.removed.enumerated() { oldOf[r.id] = (r.index, r.index - rank) }
        // Candidates to stay, grouped by gap: (old index, new index, id).
        var groups: [Int: [(old: Int, new: Int, id: ElementID)]] = [:]
        var newOf: [ElementID: Int] = [:]
        for (rank, i) in change.inserted.enumerated() {
            newOf[i.id] = i.index
            if let old = oldOf[i.id], old.gap == i.index - rank {
                groups[old.gap, default: []].append((old.index, i.index, i.id))
            }
        }
        var stays = Set<ElementID>()
        for (_, group) in groups {
            let sorted = group.sorted { $0.old < $1.old }
            for position in longestIncreasing(sorted.map(\.new)) { stays.insert(sorted[position].id) }
        }
        var modifiedPairs: [(old: Int, new: Int)] = []
        for r in change.removed {
            if stays.contains(r.id) {
                if modified.contains(r.id) || change.replaced.contains(r.id) { modifiedPairs.append((r.index, newOf[r.id]!)) }
            } else {
                out.deletions.append(r.index)
                if let to = newOf[r.id] { out.moves.append(.init(from: r.index, to: to)) }
            }
        }
        for i in change.inserted where !stays.contains(i.id) { out.insertions.append(i.index) }
        for (id, position) in change.kept where modified.contains(id) || change.replaced.contains(id) {
            modifiedPairs.append(position)
        }
        modifiedPairs.sort { $0.old < $1.old }
        out.modifications = modifiedPairs.map(\.old)
        out.modificationsNew = modifiedPairs.map(\.new).sorted()
        out.deletions.sort()
        out.insertions.sort()
        out.moves.sort { $0.from < $1.from }
        return out
    }

    /// The changes from `baseline` to `current` over the elements touched in
    /// between; `modified` are elements flagged modified by some commit.
    /// O(n): used when several commits coalesce before a delivery.
    static func changes(from baseline: ContiguousArray<ElementID>, to current: ContiguousArray<ElementID>,
        touched: Set<ElementID>, modified: Set<ElementID>, replaced: Set<ElementID>) -> IndexChanges
    {
        changes(change(from: baseline, to: current, touched: touched, watched: modified.union(replaced), replaced: replaced),
            modified: modified)
    }

    /// The touched elements' old and new positions between `baseline` and
    /// `current`, and those of the untouched `watched` ones: O(n), once,
    /// however many sets of modified elements are then asked about.
    static func change(from baseline: ContiguousArray<ElementID>, to current: ContiguousArray<ElementID>,
        touched: Set<ElementID>, watched: Set<ElementID>, replaced: Set<ElementID>) -> OrderChange
    {
        var change = OrderChange()
        change.replaced = replaced
        var keptOld: [ElementID: Int] = [:]
        for (index, id) in baseline.enumerated() {
            if touched.contains(id) {
                change.removed.append((id, index))
            } else if watched.contains(id) {
                keptOld[id] = index
            }
        }
        for (index, id) in current.enumerated() {
            if touched.contains(id) {
                change.inserted.append((id, index))
            } else if let old = keptOld[id] {
                change.kept[id] = (old, index)
            }
        }
        return change
    }

    /// Positions (in `values`) of a longest strictly increasing subsequence.
    static func longestIncreasing(_ values: [Int]) -> [Int] {
        guard values.count > 1 else { return Array(values.indices) }
        var tails: [Int] = []  // positions of the smallest tail of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if values[tails[mid]] < value { low = mid + 1 } else { high = mid }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var out: [Int] = []
        var position = tails.last ?? -1
        while position >= 0 {
            out.append(position)
            position = previous[position]
        }
        return out.reversed()
    }

    /// The order before a change, rebuilt from the order after it: what a
    /// subscription that must coalesce keeps as its baseline.
    static func baseline(before change: OrderChange, from current: ContiguousArray<ElementID>) -> ContiguousArray<ElementID> {
        var order = current
        for i in change.inserted.reversed() { order.remove(at: i.index) }
        for r in change.removed { order.insert(r.id, at: r.index) }
        return order
    }
}
