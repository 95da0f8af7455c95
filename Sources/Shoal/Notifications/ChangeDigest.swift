import OrderedCollections

/// One commit as the notification engine reads it: the commit's
/// ``ChangeRecord`` (through its net ``ChangeRecord/summary``) and the two
/// snapshots it turned into each other.
///
/// Everything here is derived from the record and the snapshots; there is no
/// second description of a change. Old values come from `before`, new ones
/// from `after`. The digest answers, for one object, "did anything a filter
/// observes change?", walking forward from the object only along the paths
/// the filter names (or, unfiltered, to the configured depth), and memoises
/// the answers for the commit.
final class ChangeDigest {
    let version: UInt64
    let before: Snapshot
    let after: Snapshot
    let summary: [TableKey: TableChangeSummary]
    let record: ChangeRecord
    /// Objects whose backlinks changed: the targets of links made or removed,
    /// with the (origin table, property) of those links.
    private(set) lazy var backlinkChanges: [Link: Set<RouteColumn>] = computeBacklinkChanges()
    /// The ops of the record grouped by the object they change.
    private(set) lazy var opsByObject: [Link: [ChangeOp]] = {
        var out: [Link: [ChangeOp]] = [:]
        for op in record.ops {
            let (t, k) = op.target
            out[Link(table: t, key: k), default: []].append(op)
        }
        return out
    }()
    private var deepMemo: [Link: Int] = [:]

    init(record: ChangeRecord, before: Snapshot, after: Snapshot) {
        self.version = after.version
        self.before = before
        self.after = after
        self.record = record
        self.summary = Self.net(record.summary, before: before, after: after)
    }

    /// The summary without properties whose value ended as it began: a
    /// value changed and changed back in one transaction is no change.
    private static func net(_ summary: [TableKey: TableChangeSummary], before: Snapshot, after: Snapshot) -> [TableKey: TableChangeSummary] {
        var out = summary
        for (table, var changes) in summary {
            let properties = after.schema[table].properties
            for (key, modified) in changes.modifications {
                let kept = modified.filter { p in
                    switch properties[p].collection {
                    case .none: return !before.value(table, key, p).isIdentical(to: after.value(table, key, p))
                    case .list: return !identical(before.list(table, key, p), after.list(table, key, p))
                    case .set: return !identical(Array(before.set(table, key, p)), Array(after.set(table, key, p)))
                    case .map:
                        let (b, a) = (before.map(table, key, p), after.map(table, key, p))
                        return !(b.keys.elementsEqual(a.keys) && identical(Array(b.values), Array(a.values)))
                    }
                }
                changes.modifications[key] = kept.isEmpty ? nil : kept
            }
            out[table] = changes.isEmpty ? nil : changes
        }
        return out
    }

    private static func identical(_ a: [Value], _ b: [Value]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.isIdentical(to: $1) }
    }

    // MARK: Net changes of one object

    func isInserted(_ link: Link) -> Bool { summary[link.table]?.insertions.contains(link.key) ?? false }
    func isDeleted(_ link: Link) -> Bool { summary[link.table]?.deletions.contains(link.key) ?? false }
    func modifiedProperties(_ link: Link) -> Set<Int>? { summary[link.table]?.modifications[link.key] }

    /// Whether a step of a path changed on `link`: its property (a
    /// collection edit counts), or the object's backlinks for a backlinks step.
    func changed(_ link: Link, step: PathComponent) -> Bool {
        switch step.kind {
        case .property(let p): return summary[link.table]?.modifications[link.key]?.contains(p) == true
        case .backlinks(let origin, let property): return backlinkChanges[link]?.contains(.backlink(origin, property)) == true
        case .allBacklinks: return backlinkChanges[link] != nil
        }
    }

    /// The objects a step leads to from `link` in `snapshot`: link targets
    /// (to-one, list, set and map values), or the origins of backlinks.
    func targets(_ link: Link, step: PathComponent, in snapshot: Snapshot) -> [Link] {
        guard step.target != nil || step.kind == .allBacklinks, snapshot.isAlive(link.table, link.key) else { return [] }
        switch step.kind {
        case .property(let p): return targets(link, property: p, in: snapshot)
        case .backlinks(let origin, let property):
            return snapshot.backlinks(link.table, link.key, origin: origin, property: property).map { Link(table: origin, key: $0) }
        case .allBacklinks:
            return snapshot.withTable(link.table) { $0.pointee.backlinks[link.key.slot] }.map { Link(table: $0.origin, key: $0.key) }
        }
    }

    /// The objects a link property of `link` points at in `snapshot`.
    func targets(_ link: Link, property: Int, in snapshot: Snapshot) -> [Link] {
        guard snapshot.isAlive(link.table, link.key) else { return [] }
        let p = snapshot.schema[link.table].properties[property]
        guard p.type == .object else { return [] }
        switch p.collection {
        case .none: return snapshot.value(link.table, link.key, property).linkValue.map { [$0] } ?? []
        case .list: return snapshot.list(link.table, link.key, property).compactMap(\.linkValue)
        case .set: return snapshot.set(link.table, link.key, property).compactMap(\.linkValue)
        case .map: return snapshot.map(link.table, link.key, property).values.compactMap(\.linkValue)
        }
    }

    private func computeBacklinkChanges() -> [Link: Set<RouteColumn>] {
        var out: [Link: Set<RouteColumn>] = [:]
        func note(_ origin: Link, _ property: Int, live: Bool, _ snapshot: Snapshot, into counts: inout [Link: Int], sign: Int) {
            guard live else { return }
            for target in targets(origin, property: property, in: snapshot) { counts[target, default: 0] += sign }
        }
        for (table, changes) in summary {
            let linkProperties = after.schema[table].properties.indices.filter {
                let p = after.schema[table].properties[$0]
                return p.type == .object
            }
            guard !linkProperties.isEmpty else { continue }
            func visit(_ key: ObjectKey, _ properties: some Sequence<Int>) {
                let origin = Link(table: table, key: key)
                for property in properties where linkProperties.contains(property) {
                    var counts: [Link: Int] = [:]
                    note(origin, property, live: before.isAlive(table, key), before, into: &counts, sign: -1)
                    note(origin, property, live: after.isAlive(table, key), after, into: &counts, sign: 1)
                    for (target, delta) in counts where delta != 0 {
                        out[target, default: []].insert(.backlink(table, property))
                    }
                }
            }
            for key in changes.insertions { visit(key, linkProperties) }
            for key in changes.deletions { visit(key, linkProperties) }
            for (key, properties) in changes.modifications { visit(key, properties) }
        }
        return out
    }

    // MARK: Filters

    /// Whether `link`, present before and after the commit, changed in a way
    /// `filter` observes.
    func isModified(_ link: Link, by filter: ModificationFilter) -> Bool {
        switch filter {
        case .shallow: return modifiedProperties(link).map { !$0.isEmpty } ?? false
        case .deep(let depth): return deepModified(link, depth: depth)
        case .paths(let paths): return paths.contains { changed(link, along: $0[...]) }
        case .union(let a, let b): return isModified(link, by: a) || isModified(link, by: b)
        }
    }

    /// The root properties of `link` whose observed paths changed, in
    /// property order: what an object notification reports.
    func changedRootProperties(_ link: Link, by filter: ModificationFilter) -> [Int] {
        switch filter {
        case .shallow, .deep:
            return (modifiedProperties(link) ?? []).sorted()
        case .paths(let paths):
            var out: [Int] = []
            for path in paths {
                guard let root = path[0].declared, !out.contains(root), changed(link, along: path[...]) else { continue }
                out.append(root)
            }
            return out.sorted()
        case .union(let a, let b):
            return Set(changedRootProperties(link, by: a) + changedRootProperties(link, by: b)).sorted()
        }
    }

    /// A change along a key path: the first property changed, or a later one
    /// on any object reachable through it (before or after the commit), or
    /// an object on the way was created by the commit.
    private func changed(_ link: Link, along path: ArraySlice<PathComponent>) -> Bool {
        guard let step = path.first else { return false }
        if changed(link, step: step) { return true }
        guard path.count > 1 else { return false }
        var seen = Set<Link>()
        for snapshot in [after, before] {
            for target in targets(link, step: step, in: snapshot) where seen.insert(target).inserted {
                if isInserted(target) || changed(target, along: path.dropFirst()) { return true }
            }
        }
        return false
    }

    /// Any property of the object, or of an object reachable through forward
    /// links within `depth` hops, changed. Memoised per commit.
    private func deepModified(_ link: Link, depth: Int) -> Bool {
        if let m = modifiedProperties(link), !m.isEmpty { return true }
        guard depth > 0, after.isAlive(link.table, link.key) else { return false }
        // Depth falls at every hop, so cycles end; only finished answers are kept.
        if let checked = deepMemo[link], checked >= depth { return false }
        let properties = after.schema[link.table].properties
        for (index, p) in properties.enumerated() where p.type == .object {
            for target in targets(link, property: index, in: after) {
                if isInserted(target) || deepModified(target, depth: depth - 1) { return true }
            }
        }
        deepMemo[link] = depth
        return false
    }
}

/// What a routing index is keyed by on a table: a property, or the
/// backlinks made by one (origin table, property).
enum RouteColumn: Hashable, Sendable {
    case property(Int)
    case backlink(TableKey, Int)
}
