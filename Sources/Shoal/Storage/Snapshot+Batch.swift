/// Applies a batch of ops that nobody reads until it is complete (one
/// replayed transaction record, a loaded snapshot, a migration) with the
/// index half of each insert deferred: inserted objects are indexed together
/// when the batch finishes, or earlier, just before an op that needs the
/// indexes of their table (a delete, a set of a primary key).
///
/// Every op is validated with ``Snapshot/problem(applying:checkingPrimaryKey:)``
/// and applied with ``Snapshot/apply(_:indexing:)``, the code path of a live
/// commit; the only difference is when index entries are made. A duplicate
/// primary key is found when the batch is indexed. Either way the result is
/// the snapshot a live commit of the same ops would make.
struct BatchApplier {
    /// The state so far; its indexes are complete only after ``finish()``.
    private(set) var snapshot: Snapshot
    /// Per table index: the first slot not yet in the indexes, if any is.
    private var unindexedFrom: [Int: Int] = [:]

    init(_ snapshot: Snapshot) {
        self.snapshot = snapshot
    }

    /// Validates and applies one op.
    ///
    /// - Returns: why the op cannot be applied (nothing is applied then, and
    ///   the batch must be abandoned), or `nil`.
    mutating func apply(_ op: ChangeOp) -> String? {
        let t = op.target.table
        guard t.index < snapshot.tables.count else { return "table \(t) does not exist" }
        if case .insert = op {
            if let problem = snapshot.problem(applying: op, checkingPrimaryKey: false) { return problem }
            // (No local copy of the table: it would share the columns' nodes
            // and make the insert below copy them.)
            if unindexedFrom[t.index] == nil,
                snapshot.tables[t.index].primaryIndex != nil || !snapshot.tables[t.index].secondaryIndexes.isEmpty
            {
                unindexedFrom[t.index] = op.target.key.slot
            }
            snapshot.apply(op, indexing: false)
            return nil
        }
        switch op {
        case .delete:
            if let problem = indexPending(t.index) { return problem }
        case .set(_, _, let p, _) where snapshot.schema.objectSchema[t.index].properties[p].isPrimary:
            // Checking a new primary key needs every key indexed. A set of a
            // secondary-indexed property does not: its index entry is made
            // now, and made again (idempotently) when the object is indexed.
            if let problem = indexPending(t.index) { return problem }
        default:
            break
        }
        if let problem = snapshot.problem(applying: op) { return problem }
        snapshot.apply(op)
        return nil
    }

    /// Appends an empty, dead slot to a table (restoring a snapshot or
    /// migrating, so that object keys keep their slots).
    mutating func appendDeadSlot(_ t: TableKey) {
        snapshot.tables[t.index].appendDeadSlot()
    }

    /// Indexes what is pending, completing ``snapshot``.
    ///
    /// - Returns: why the batch cannot be completed (a duplicate primary
    ///   key; the batch must be abandoned), or `nil`.
    mutating func finish() -> String? {
        for t in unindexedFrom.keys.sorted() {
            if let problem = indexPending(t) { return problem }
        }
        return nil
    }

    private mutating func indexPending(_ t: Int) -> String? {
        guard let start = unindexedFrom.removeValue(forKey: t) else { return nil }
        return snapshot.tables[t].indexSlots(from: start, schema: snapshot.schema.objectSchema[t])
    }
}
