/// Objects that a ``BatchApplier`` has checked and queued but not applied
/// yet: the next keys of one table. Checks count them as live.
struct PendingInserts {
    var table: TableKey
    var keys: Range<Int64>

    func contains(_ t: TableKey, _ k: ObjectKey) -> Bool { t == table && keys.contains(k.rawValue) }
}

extension Snapshot {
    /// Why inserts into `t` from key `k`, with `valueCount` values each,
    /// cannot be applied: `k` must be the next key (after `pending`
    /// objects of `t`), and there must be one value per stored property.
    /// The checks single inserts and insert runs share.
    func insertProblem(_ t: TableKey, at k: ObjectKey, valueCount: Int, pending: PendingInserts? = nil) -> String? {
        // The fast path of replay: no copies of the table or its schema.
        let (tableNextKey, columnCount) = withTable(t) { ($0.pointee.nextKey, $0.pointee.scalars.count) }
        let nextKey = pending?.table == t ? ObjectKey(pending!.keys.upperBound) : tableNextKey
        guard k == nextKey else { return "insert of \(schema[t].className) \(k), but the next key is \(nextKey)" }
        guard valueCount == columnCount else { return "insert of \(schema[t].className) with \(valueCount) values" }
        return nil
    }

    /// Why `op` cannot be applied to this snapshot, or `nil` when it can.
    ///
    /// A write transaction only makes ops that apply; replay runs this check
    /// on each decoded op first, so that a record that decodes but does not
    /// fit the state (a damaged or foreign log) is reported as corrupt rather
    /// than tripping a storage precondition.
    ///
    /// With `checkingPrimaryKey` false an insert's primary key is not looked
    /// up: a ``BatchApplier`` finds duplicates when it indexes the batch.
    /// `pending` objects count as live, and an insert into their table must
    /// take the key after them.
    func problem(applying op: ChangeOp, checkingPrimaryKey: Bool = true, pending: PendingInserts? = nil) -> String? {
        let (t, k) = op.target
        guard t.index < tables.count else { return "table \(t) does not exist" }
        func linkProblem(_ v: Value) -> String? {
            guard let l = v.linkValue else { return nil }
            if pending?.contains(l.table, l.key) == true { return nil }
            guard l.table.index < tables.count, isAlive(l.table, l.key) else { return "link to \(l), which is not a live object" }
            return nil
        }
        if case .insert(_, _, let values) = op {
            if let problem = insertProblem(t, at: k, valueCount: values.count, pending: pending) { return problem }
            if checkingPrimaryKey, let pk = schema.objectSchema[t.index].primaryKeyIndex, object(t, primaryKey: values[pk]) != nil {
                return "insert of \(schema[t].className) with duplicate primary key \(values[pk])"
            }
            for v in values where v.linkValue != nil {
                if let problem = linkProblem(v) { return problem }
            }
            return nil
        }
        // (No local copies of the table or its schema: this runs for every
        // replayed op, and a copy costs a retain per column.)
        var className: String { schema.objectSchema[t.index].className }
        guard isAlive(t, k) || pending?.contains(t, k) == true else { return "\(className) \(k) is not a live object" }
        switch op {
        case .insert: return nil
        case .delete:
            let links = withTable(t) { $0.pointee.backlinks.linkCount(k.slot) }
            return links == 0 ? nil : "delete of \(className) \(k) while \(links) links still point at it"
        case .set(_, _, let p, let v):
            if schema.objectSchema[t.index].primaryKeyIndex == p, let other = object(t, primaryKey: v), other != k {
                return "primary key of \(className) \(k) set to \(v), which \(other) already has"
            }
            return linkProblem(v)
        case .listInsert(_, _, let p, let i, let v):
            let n = list(t, k, p).count
            return i > n ? "list insert at \(i) into a list of \(n)" : linkProblem(v)
        case .listSet(_, _, let p, let i, let v):
            let n = list(t, k, p).count
            return i >= n ? "list set at \(i) in a list of \(n)" : linkProblem(v)
        case .listRemove(_, _, let p, let i):
            let n = list(t, k, p).count
            return i >= n ? "list remove at \(i) from a list of \(n)" : nil
        case .listMove(_, _, let p, let from, let to):
            let n = list(t, k, p).count
            return from >= n || to >= n ? "list move \(from)→\(to) in a list of \(n)" : nil
        case .setInsert(_, _, _, let v), .mapSet(_, _, _, _, let v): return linkProblem(v)
        case .setRemove, .mapRemove, .collectionClear: return nil
        }
    }
}
