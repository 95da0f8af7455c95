/// Keeps a list or set property of one object in sync from the record's
/// positional ops (insert, remove, set, move, clear), as realm-core's list
/// notifier does: each slot has an identity, so a `set` is a modification
/// in place, a move is a deletion plus an insertion, and elements whose
/// objects change (under the filter) are modifications.
final class CollectionNotifier: OrderNotifier {
    let owner: Link
    let property: Int
    private var values: [Value]
    private var nextID: ElementID = 0

    init(owner: Link, property: Int, snapshot: Snapshot, filter: ModificationFilter) {
        self.owner = owner
        self.property = property
        let p = snapshot.schema[owner.table].properties[property]
        values = p.collection == .set ? Array(snapshot.set(owner.table, owner.key, property)) : snapshot.list(owner.table, owner.key, property)
        super.init(version: snapshot.version, filter: filter)
        elementTable = p.type == .object ? snapshot.schema.tableByName[p.objectClassName ?? ""] : nil
        order = ContiguousArray(values.indices.map { ElementID($0) })
        nextID = ElementID(values.count)
    }

    override var anchor: NotifierAnchor { .object(owner) }

    override func element(at index: Int) -> Value { values[index] }

    override func dependencies(schema: Schema) -> Dependencies {
        .collection(owner, property: property, elements: elementTable, filter: filter, schema: schema)
    }

    override func process(_ digest: ChangeDigest, candidates: Set<ObjectKey>) -> NotifierOutput? {
        version = digest.version
        if digest.isDeleted(owner) {
            var change = OrderChange()
            change.removed = order.enumerated().map { ($0.element, $0.offset) }
            order = []
            values = []
            return change.removed.isEmpty ? nil : .order(change, objects: [:], rootDeleted: true)
        }
        let before = order
        var touched = Set<ElementID>()
        var replaced = Set<ElementID>()
        func insert(_ value: Value, at index: Int) {
            values.insert(value, at: index)
            order.insert(nextID, at: index)
            touched.insert(nextID)
            nextID += 1
        }
        for op in digest.opsByObject[owner] ?? [] {
            switch op {
            case .listInsert(_, _, property, let index, let value):
                insert(value, at: index)
            case .setInsert(_, _, property, let value):
                guard !values.contains(where: { $0 == value && $0.kindRank == value.kindRank }) else { continue }
                insert(value, at: values.count)
            case .listRemove(_, _, property, let index):
                touched.insert(order.remove(at: index))
                values.remove(at: index)
            case .setRemove(_, _, property, let value):
                guard let at = values.firstIndex(where: { $0 == value && $0.kindRank == value.kindRank }) else { continue }
                touched.insert(order.remove(at: at))
                values.remove(at: at)
            case .listSet(_, _, property, let index, let value):
                values[index] = value
                replaced.insert(order[index])
            case .listMove(_, _, property, let from, let to):
                let id = order.remove(at: from)
                values.insert(values.remove(at: from), at: to)
                order.insert(id, at: to)
                touched.insert(id)
            case .collectionClear(_, _, property):
                touched.formUnion(order)
                order = []
                values = []
            default: continue
            }
        }
        var change = OrderChange()
        change.replaced = replaced.subtracting(touched)
        var keptOld: [ElementID: Int] = [:]
        for (index, id) in before.enumerated() {
            if touched.contains(id) { change.removed.append((id, index)) } else { keptOld[id] = index }
        }
        var objects: [ElementID: Link] = [:]
        let removedIDs = Set(change.removed.map(\.id))
        for (index, id) in order.enumerated() {
            if touched.contains(id) {
                change.inserted.append((id, index))
                // Moved: present before too; its object may be modified.
                if removedIDs.contains(id), let link = values[index].linkValue { objects[id] = link }
            } else if let old = keptOld[id] {
                let link = values[index].linkValue
                if change.replaced.contains(id) || (link.map { digest.isModified($0, by: filter) } ?? false) {
                    change.kept[id] = (old, index)
                    if let link { objects[id] = link }
                }
            }
        }
        return change.isEmpty ? nil : .order(change, objects: objects, rootDeleted: false)
    }

}

/// Keeps any other observed collection by re-evaluating it when routing
/// says it may have changed, and comparing the element arrays (Myers'
/// difference, O((n + m) d)): linking objects, results over a collection,
/// and results with `distinct`. Incremental maintenance is not attempted
/// there: their order depends on positions in another collection (or on
/// which member of a group comes first), which a single object's change
/// does not determine.
final class RecomputingNotifier: OrderNotifier {
    let table: TableKey
    let source: ResultsSource
    let root: NotifierAnchor
    private var values: [Value]
    private var nextID: ElementID = 0
    private let dependencyPaths: [[PathComponent]]

    init(table: TableKey, source: ResultsSource, snapshot: Snapshot, filter: ModificationFilter) {
        self.table = table
        self.source = source
        var base = source
        var paths: [[PathComponent]] = []
        while case .query(let inner, let descriptor) = base {
            if let predicate = descriptor.predicate { paths += DependencyCompiler.paths(of: predicate, root: table, schema: snapshot.schema) }
            paths += DependencyCompiler.paths(of: descriptor.ordering)
            base = inner
        }
        if case .collection(let owner, _) = base { root = .object(owner) } else { root = .table(table, equality: nil) }
        dependencyPaths = paths
        values = source.evaluate(table: table, snapshot: snapshot)
        super.init(version: snapshot.version, filter: filter)
        if case .table = source.root(table: table, schema: snapshot.schema) { elementTable = table }
        order = ContiguousArray(values.indices.map { ElementID($0) })
        nextID = ElementID(values.count)
    }

    override var anchor: NotifierAnchor { root }

    override func element(at index: Int) -> Value { values[index] }

    /// The elements the last evaluation gave.
    override func deliveredElements(at version: UInt64) -> DeliveredElements? {
        DeliveredElements(version: version, contents: .values(values))
    }

    override func dependencies(schema: Schema) -> Dependencies {
        var d = Dependencies()
        var base = source
        while case .query(let inner, _) = base { base = inner }
        if case .collection(let owner, let property) = base {
            let p = schema[owner.table].properties[property]
            let target = schema.tableByName[p.objectClassName ?? ""]
            if p.type == .linkingObjects, let target, let origin = schema[target].indexByName[p.linkOriginPropertyName ?? ""] {
                d.columns.insert(.backlink(target, origin))
                d.edges.append(.forward(from: target, property: origin))
            } else {
                d.columns.insert(.property(property))
                if let target { d.edges.append(.backlinks(from: target, origin: owner.table, property: property)) }
            }
            // Element paths hang one hop further from the owner.
            var inner = Dependencies()
            if let elementTable { inner.add(filter, root: elementTable, schema: schema) }
            for path in dependencyPaths { inner.add(path) }
            d.edges += inner.edges
            d.maxHops = inner.maxHops + 1
        } else {
            for path in dependencyPaths { d.add(path) }
            d.add(filter, root: table, schema: schema)
        }
        return d
    }

    override func process(_ digest: ChangeDigest, candidates: Set<ObjectKey>) -> NotifierOutput? {
        version = digest.version
        var rootDeleted = false
        if case .object(let owner) = root, digest.isDeleted(owner) { rootDeleted = true }
        let new = source.evaluate(table: table, snapshot: digest.after)
        var change = Self.difference(from: values, to: new, ids: &order, nextID: &nextID)
        values = new
        var objects: [ElementID: Link] = [:]
        for (id, position) in change.kept {
            if let link = values[position.new].linkValue, digest.isModified(link, by: filter) {
                objects[id] = link
            } else {
                change.kept[id] = nil
            }
        }
        guard !change.isEmpty else { return nil }
        return .order(change, objects: objects, rootDeleted: rootDeleted && change.inserted.isEmpty)
    }

}
