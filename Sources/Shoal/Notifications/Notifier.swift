/// What a notifier keeps in sync with the commits: one observed collection
/// or object, at the version of the last commit it processed.
///
/// Notifiers live on the tracker's worker and read only snapshots, never
/// accessors or live collections.
class Notifier {
    /// The version the kept state reflects.
    var version: UInt64
    let filter: ModificationFilter

    init(version: UInt64, filter: ModificationFilter) {
        self.version = version
        self.filter = filter
    }

    /// Where routing finds the notifier.
    var anchor: NotifierAnchor { fatalError("abstract") }
    /// The columns and link edges that can change what it shows.
    func dependencies(schema: Schema) -> Dependencies { fatalError("abstract") }
    /// Updates the kept state for one commit; `candidates` are the objects
    /// routing found for it (root objects, or the anchor object). Returns
    /// what the commit changed, or `nil` when nothing that it shows changed.
    func process(_ digest: ChangeDigest, candidates: Set<ObjectKey>) -> NotifierOutput? { fatalError("abstract") }

    /// The observed collection's elements as the kept state holds them, for
    /// a delivery at `version` (the version the engine has processed up
    /// to, which the kept state reflects); `nil` where the collection reads
    /// its elements without evaluating a query (objects, lists, sets, maps).
    func deliveredElements(at version: UInt64) -> DeliveredElements? { nil }
}

/// A notifier's elements at the version a delivery is made at, handed to
/// the delivered collection (as Realm's notifiers hand the results they
/// ran over), so that reading it in the callback evaluates nothing.
///
/// Taking it copies no elements: the kept order's storage is shared until
/// the notifier next changes it (one chunk copied then).
struct DeliveredElements {
    /// The version of the snapshot the elements are of.
    let version: UInt64
    let contents: Contents

    enum Contents {
        /// Objects of one table, by key, in the results' order.
        case keys(TableKey, ChunkedArray<ElementID>)
        /// Elements in stored form.
        case values([Value])
    }

    var count: Int {
        switch contents {
        case .keys(_, let keys): keys.count
        case .values(let values): values.count
        }
    }
}

/// How routing reaches a notifier.
enum NotifierAnchor {
    /// Results over a whole table: reached through the table's routing
    /// index, by an equality on `path` when there is one, otherwise by a
    /// range of values on a path when there is one.
    case table(TableKey, equality: (path: [BoundProperty], values: Set<Value>)?, range: RangeAnchor? = nil)
    /// A collection of one object, or the object itself.
    case object(Link)
}

/// What one commit changed for a notifier.
enum NotifierOutput {
    /// An ordered collection's elements moved, appeared, vanished or may be
    /// modified; `objects` names the object behind each possibly modified id.
    case order(OrderChange, objects: [ElementID: Link], rootDeleted: Bool)
    /// The observed object was modified (root property changes per filter
    /// are asked of the digest) or deleted.
    case object(deleted: Bool)
    /// A map's entries changed: its entries before the commit, and the keys
    /// whose object values were modified under the filter.
    case map(before: [String: Value], modified: Set<String>, rootDeleted: Bool)
}

/// An ordered notifier's shared state: its elements' identities in order.
class OrderNotifier: Notifier {
    var order: ContiguousArray<ElementID> = []
    /// The notifier's root table, for filters (nil for values).
    var elementTable: TableKey?

    /// The element at a position of the kept order, in stored form.
    func element(at index: Int) -> Value { fatalError("abstract") }

    /// A change between two whole orders, given as arrays of values, with
    /// new identities for new elements: the fallback diff.
    static func difference(from old: [Value], to new: [Value], ids: inout ContiguousArray<ElementID>,
        nextID: inout ElementID) -> OrderChange
    {
        var change = OrderChange()
        let diff = new.difference(from: old)
        var removedOffsets = Set<Int>()
        for case .remove(let offset, _, _) in diff.removals { removedOffsets.insert(offset) }
        var kept: [ElementID] = []
        for (offset, id) in ids.enumerated() {
            if removedOffsets.contains(offset) { change.removed.append((id, offset)) } else { kept.append(id) }
        }
        var insertedOffsets = Set<Int>()
        for case .insert(let offset, _, _) in diff.insertions { insertedOffsets.insert(offset) }
        var result = ContiguousArray<ElementID>()
        result.reserveCapacity(new.count)
        var keptIterator = kept.makeIterator()
        var oldPositions: [ElementID: Int] = [:]
        for (offset, id) in ids.enumerated() where !removedOffsets.contains(offset) { oldPositions[id] = offset }
        for offset in new.indices {
            if insertedOffsets.contains(offset) {
                let id = nextID
                nextID += 1
                result.append(id)
                change.inserted.append((id, offset))
            } else if let id = keptIterator.next() {
                result.append(id)
                change.kept[id] = (oldPositions[id] ?? offset, offset)
            }
        }
        ids = result
        return change
    }
}
