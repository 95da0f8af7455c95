/// What one table's objects went through in a record, net: the view the
/// dependency tracker uses to decide which observers a commit affects.
struct TableChangeSummary: Sendable, Equatable {
    /// Objects created by the record (and not deleted again).
    var insertions: Set<ObjectKey> = []
    /// Objects that existed before the record and were deleted.
    var deletions: Set<ObjectKey> = []
    /// Objects that existed before and after, with the properties changed.
    /// A collection edit counts as a change of the collection property.
    var modifications: [ObjectKey: Set<Int>] = [:]

    var isEmpty: Bool { insertions.isEmpty && deletions.isEmpty && modifications.isEmpty }
}

extension ChangeRecord {
    /// The net changes per table, with Realm's rules: a modification of an
    /// object inserted in the same record is not reported; deleting an object
    /// drops its modifications and cancels its insertion.
    var summary: [TableKey: TableChangeSummary] {
        var out: [TableKey: TableChangeSummary] = [:]
        for op in ops {
            let (table, key) = op.target
            switch op {
            case .insert:
                out[table, default: .init()].insertions.insert(key)
            case .delete:
                var s = out[table, default: .init()]
                s.modifications[key] = nil
                if s.insertions.remove(key) == nil { s.deletions.insert(key) }
                out[table] = s
            default:
                guard let property = op.property else { continue }
                if out[table]?.insertions.contains(key) == true { continue }
                out[table, default: .init()].modifications[key, default: []].insert(property)
            }
        }
        return out.filter { !$0.value.isEmpty }
    }
}
