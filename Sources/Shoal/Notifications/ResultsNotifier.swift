import Foundation

/// Keeps an observed query over a whole table, optionally sorted, up to date
/// commit by commit without re-running it.
///
/// The kept order holds object keys sorted by the sort keys, then by key
/// (table order), so that it is total and a binary search finds exactly one
/// slot. After a commit only the objects routing hands over are looked at:
/// each is tested against the predicate on the old and the new snapshot;
/// one that left, or whose sort values changed, is found with the old values
/// and removed; one that entered, or moved, is placed with the new values.
/// Untouched objects have equal values in both snapshots, so both searches
/// are consistent. The cost is O(t log n) for t touched objects, plus the
/// array moves.
///
/// Where incremental work does not pay, the query is re-run on the new
/// snapshot and the two orders are compared by key (O(n)): when a commit
/// touches more than an eighth of the results (or 64 objects, whichever is
/// more). Distinct and queries over a
/// collection are handled by ``RecomputingNotifier`` instead.
final class ResultsNotifier: OrderNotifier {
    let table: TableKey
    let source: ResultsSource
    private let predicate: CompiledPredicate?
    private let boundPredicate: BoundPredicate?
    private let ordering: [OrderingStep]
    /// The sort keys, primary first.
    private let sortKeys: [SortKey]
    private let equality: (path: [BoundProperty], values: Set<Value>)?
    /// The range routing reaches the notifier by when it has no equality.
    private let range: RangeAnchor?
    /// The kept order, in chunks: placing or removing an element moves one
    /// chunk, not the whole order.
    private var ids = ChunkedArray<ElementID>()
    /// Sort values of elements that ended a chunk when a search met them:
    /// the chunk-level steps of a search then read no snapshot. An element
    /// keeps its sort values while it sits in the order (one whose values
    /// change is removed and placed again, and loses its entry then).
    private var fences: [ElementID: [Value?]] = [:]

    /// The kept order as one array (O(n): for coalescing subscriptions only).
    override var order: ContiguousArray<ElementID> {
        get { ContiguousArray(ids) }
        set { ids = ChunkedArray(newValue) }
    }

    /// Whether a source can be kept incrementally by this notifier.
    static func supports(_ source: ResultsSource) -> Bool {
        switch source {
        case .table: return true
        case .collection: return false
        case .query(let base, let descriptor):
            guard case .table = base else { return false }
            return descriptor.ordering.allSatisfy { if case .sort = $0 { true } else { false } }
        }
    }

    init(table: TableKey, source: ResultsSource, snapshot: Snapshot, filter: ModificationFilter) {
        self.table = table
        self.source = source
        var predicate: BoundPredicate?
        var ordering: [OrderingStep] = []
        if case .query(_, let descriptor) = source {
            predicate = descriptor.predicate
            ordering = descriptor.ordering
        }
        self.boundPredicate = predicate
        self.predicate = predicate.map(CompiledPredicate.init)
        self.ordering = ordering
        // A later sort is primary; earlier ones break its ties (a stable sort each time).
        var keys: [SortKey] = []
        for step in ordering.reversed() { if case .sort(let k) = step { keys.append(contentsOf: k) } }
        self.sortKeys = keys
        self.equality = predicate.flatMap(Self.equality)
        self.range = equality == nil ? predicate.flatMap { RangeAnchor.of($0, schema: snapshot.schema) } : nil
        super.init(version: snapshot.version, filter: filter)
        self.elementTable = table
        order = ContiguousArray(source.evaluate(table: table, snapshot: snapshot).compactMap { $0.linkValue?.key.rawValue })
    }

    override var anchor: NotifierAnchor { .table(table, equality: equality, range: range) }

    override func element(at index: Int) -> Value { .link(Link(table: table, key: ObjectKey(ids[index]))) }

    /// The kept order: the results' objects, in the order evaluating the
    /// query gives (sort keys, then table order).
    override func deliveredElements(at version: UInt64) -> DeliveredElements? {
        DeliveredElements(version: version, contents: .keys(table, ids))
    }

    override func dependencies(schema: Schema) -> Dependencies {
        var d = Dependencies()
        if let boundPredicate { for path in DependencyCompiler.paths(of: boundPredicate, root: table, schema: schema) { d.add(path) } }
        for path in DependencyCompiler.paths(of: ordering) { d.add(path) }
        d.add(filter, root: table, schema: schema)
        return d
    }

    /// An equality conjunct on a to-one path (`owner.id == 3`, `breed IN
    /// {...}`): objects whose value on that path is none of `values`, before
    /// and after a commit, cannot be in the results, so routing skips them.
    static func equality(of predicate: BoundPredicate) -> (path: [BoundProperty], values: Set<Value>)? {
        let conjuncts: [BoundPredicate]
        if case .and(let ops) = predicate { conjuncts = ops } else { conjuncts = [predicate] }
        for case .comparison(let c) in conjuncts {
            guard c.op == .equal || c.op == .in, c.options.isEmpty, case .path(let path) = c.lhs, path.root == 0,
                !path.isMultiValued
            else { continue }
            var steps: [BoundProperty] = []
            for step in path.steps {
                guard case .property(let p) = step else { break }
                steps.append(p)
            }
            guard steps.count == path.steps.count, !steps.isEmpty else { continue }
            // Null is matched through null links too: no anchor for it.
            switch c.rhs {
            case .constant(let v) where c.op == .equal && !v.isNull: return (steps, [v])
            case .list(let vs) where c.op == .in && !vs.contains(where: \.isNull): return (steps, Set(vs))
            default: continue
            }
        }
        return nil
    }

    // MARK: Maintenance

    private func matches(_ key: ObjectKey, in snapshot: Snapshot) -> Bool {
        guard snapshot.isAlive(table, key) else { return false }
        guard let predicate else { return true }
        return QueryEvaluator(snapshot: snapshot).matches(predicate, .link(Link(table: table, key: key)))
    }

    private func sortValues(_ key: ObjectKey, in snapshot: Snapshot) -> [Value?] {
        sortKeys.map { OrderingStep.value($0.path, of: .link(Link(table: table, key: key)), snapshot) }
    }

    private func compare(_ a: [Value?], _ aKey: ElementID, _ b: ElementID, in snapshot: Snapshot) -> ComparisonResult {
        if !sortKeys.isEmpty {
            let link = Value.link(Link(table: table, key: ObjectKey(b)))
            for (i, key) in sortKeys.enumerated() {
                let r = OrderingStep.compare(a[i], OrderingStep.value(key.path, of: link, snapshot), ascending: key.ascending)
                if r != .orderedSame { return r }
            }
        }
        return aKey < b ? .orderedAscending : (aKey == b ? .orderedSame : .orderedDescending)
    }

    /// Compares (`a`, `aKey`) with an element whose sort values are known.
    private func compare(_ a: [Value?], _ aKey: ElementID, to b: [Value?], _ bKey: ElementID) -> ComparisonResult {
        for (i, key) in sortKeys.enumerated() {
            let r = OrderingStep.compare(a[i], b[i], ascending: key.ascending)
            if r != .orderedSame { return r }
        }
        return aKey < bKey ? .orderedAscending : (aKey == bKey ? .orderedSame : .orderedDescending)
    }

    /// The first position whose element does not sort before (`values`, `id`):
    /// a binary search over the chunks' last elements, then inside one chunk.
    private func position(of values: [Value?], _ id: ElementID, in snapshot: Snapshot) -> Int {
        let chunks = ids.chunks
        var low = 0, high = chunks.count
        while low < high {
            let mid = (low + high) / 2
            let fence = chunks[mid][chunks[mid].count - 1]
            let fenceValues = fences[fence] ?? sortValues(ObjectKey(fence), in: snapshot)
            fences[fence] = fenceValues
            if compare(values, id, to: fenceValues, fence) == .orderedDescending { low = mid + 1 } else { high = mid }
        }
        guard low < chunks.count else { return ids.count }
        let chunk = chunks[low]
        var (l, h) = (0, chunk.count)
        while l < h {
            let mid = (l + h) / 2
            if compare(values, id, chunk[mid], in: snapshot) == .orderedDescending { l = mid + 1 } else { h = mid }
        }
        return ids.start(ofChunk: low) + l
    }

    override func process(_ digest: ChangeDigest, candidates: Set<ObjectKey>) -> NotifierOutput? {
        version = digest.version
        // Re-running the query costs a pass over the table, so only a run
        // that touched a large share of the table takes it; a merged run of
        // many small commits, however many results it reaches, is applied
        // object by object.
        let tableCount = digest.after.withTable(table) { $0.pointee.count }
        if candidates.count > max(64, tableCount / 8) { return recompute(digest.after, touched: candidates) }
        // Entries of elements that no longer end a chunk are harmless but
        // would pile up as chunks split: start afresh now and then.
        if fences.count > 4 * ids.chunks.count + 64 { fences = [:] }
        let (before, after) = (digest.before, digest.after)
        var removed: [(id: ElementID, index: Int)] = []
        var entering: [(id: ElementID, values: [Value?])] = []
        var same: [(id: ElementID, old: Int)] = []
        for key in candidates {
            let wasIn = matches(key, in: before), isIn = matches(key, in: after)
            guard wasIn || isIn else { continue }
            let id = key.rawValue
            let old = wasIn ? sortValues(key, in: before) : []
            let new = isIn ? sortValues(key, in: after) : []
            if wasIn && isIn && zip(old, new).allSatisfy({ $0 == $1 && $0?.kindRank == $1?.kindRank }) {
                same.append((id, position(of: old, id, in: before)))
                continue
            }
            if wasIn { removed.append((id, position(of: old, id, in: before))) }
            if isIn { entering.append((id, new)) }
        }
        guard !removed.isEmpty || !entering.isEmpty || !same.isEmpty else { return nil }
        removed.sort { $0.index < $1.index }
        for r in removed.reversed() {
            ids.remove(at: r.index)
            fences[r.id] = nil
        }
        entering.sort { compare($0.values, $0.id, $1.id, in: after) == .orderedAscending }
        var change = OrderChange()
        change.removed = removed
        for e in entering {
            let at = position(of: e.values, e.id, in: after)
            ids.insert(e.id, at: at)
            change.inserted.append((e.id, at))
        }
        for s in same {
            change.kept[s.id] = (s.old, position(of: sortValues(ObjectKey(s.id), in: after), s.id, in: after))
        }
        return .order(change, objects: touchedObjects(change), rootDeleted: false)
    }


    /// Re-runs the query and compares the orders by key; only `touched`
    /// objects may move (untouched ones keep their relative order).
    private func recompute(_ snapshot: Snapshot, touched: Set<ObjectKey>) -> NotifierOutput? {
        let new = ContiguousArray(source.evaluate(table: table, snapshot: snapshot).compactMap { $0.linkValue?.key.rawValue })
        let moving = Set(touched.map(\.rawValue))
        var change = OrderChange()
        for (index, id) in ids.enumerated() where moving.contains(id) { change.removed.append((id, index)) }
        for (index, id) in new.enumerated() where moving.contains(id) { change.inserted.append((id, index)) }
        ids = ChunkedArray(new)
        fences = [:]
        guard !change.isEmpty else { return nil }
        return .order(change, objects: touchedObjects(change), rootDeleted: false)
    }

    /// Every element the change names, with its object: an object that left
    /// and came back across coalesced commits is checked for modification
    /// in each commit it changed in (and deleted or created ones never are).
    private func touchedObjects(_ change: OrderChange) -> [ElementID: Link] {
        var out: [ElementID: Link] = [:]
        for id in change.kept.keys { out[id] = Link(table: table, key: ObjectKey(id)) }
        for r in change.removed { out[r.id] = Link(table: table, key: ObjectKey(r.id)) }
        for i in change.inserted { out[i.id] = Link(table: table, key: ObjectKey(i.id)) }
        return out
    }
}
