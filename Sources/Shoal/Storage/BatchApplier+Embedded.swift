import OrderedCollections

/// Ownership of embedded objects in a batch: a live write keeps every
/// embedded object owned exactly once (``WriteTransaction`` records the
/// deletion of each object it orphans), but ops read from a file may not, so
/// the batch notes every embedded object an op may give or take an owner,
/// and ``BatchApplier/finish()`` checks each that is still alive.
extension BatchApplier {
    /// Notes the embedded objects `op` may change the owners of: those it
    /// inserts, links to, or unlinks (read before the op is applied).
    mutating func noteEmbedded(_ op: ChangeOp) {
        let (t, k) = op.target
        let live = snapshot.isAlive(t, k)
        let shapes = snapshot.schema.shapes[t.index]
        /// The value of single-valued property `p` before the op.
        func current(_ p: Int) -> Value? {
            pendingValue(t, k, p) ?? (live && p < shapes.count && shapes[p].collection == .none ? snapshot.value(t, k, p) : nil)
        }
        /// The elements of collection property `p` before the op.
        func elements(_ p: Int) -> [Value] {
            guard live, p < shapes.count else { return [] }
            switch shapes[p].collection {
            case .none: return []
            case .list: return snapshot.list(t, k, p)
            case .set: return Array(snapshot.set(t, k, p))
            case .map: return Array(snapshot.map(t, k, p).values)
            }
        }
        switch op {
        case .insert(_, _, let values):
            if embeddedTables[t.index] { embeddedToCheck.insert(Link(table: t, key: k)) }
            for v in values { note(v) }
        case .delete:
            for p in shapes.indices {
                if shapes[p].collection == .none { current(p).map { note($0) } } else { for v in elements(p) { note(v) } }
            }
        case .set(_, _, let p, let v):
            note(v)
            current(p).map { note($0) }
        case .listInsert(_, _, _, _, let v), .setInsert(_, _, _, let v), .setRemove(_, _, _, let v):
            note(v)
        case .listSet(_, _, let p, let i, let v):
            note(v)
            let list = elements(p)
            if i >= 0, i < list.count { note(list[i]) }
        case .listRemove(_, _, let p, let i):
            let list = elements(p)
            if i >= 0, i < list.count { note(list[i]) }
        case .listMove:
            break
        case .mapSet(_, _, let p, let key, let v):
            note(v)
            if live, p < shapes.count, shapes[p].collection == .map, let old = snapshot.map(t, k, p)[key] { note(old) }
        case .mapRemove(_, _, let p, let key):
            if live, p < shapes.count, shapes[p].collection == .map, let old = snapshot.map(t, k, p)[key] { note(old) }
        case .collectionClear(_, _, let p):
            for v in elements(p) { note(v) }
        }
    }

    /// Notes the target of `value` if it is an embedded object.
    private mutating func note(_ value: Value) {
        guard let link = value.linkValue, link.table.index >= 0, link.table.index < embeddedTables.count, embeddedTables[link.table.index]
        else { return }
        embeddedToCheck.insert(link)
    }

    /// The first noted embedded object, still alive, without exactly one
    /// owner, described, or `nil`.
    func embeddedOwnershipProblem() -> String? {
        let noted = embeddedToCheck.sorted { ($0.table.rawValue, $0.key.rawValue) < ($1.table.rawValue, $1.key.rawValue) }
        for link in noted where snapshot.isAlive(link.table, link.key) {
            let owners = snapshot.withTable(link.table) { $0.pointee.backlinks.linkCount(link.key.slot) }
            if owners != 1 {
                return "embedded \(snapshot.schema.objectSchema[link.table.index].className) \(link.key) has \(owners) owners, not 1"
            }
        }
        return nil
    }
}
