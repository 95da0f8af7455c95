/// Watches one object: its deletion, and changes of its properties under
/// the filter (shallow unless key paths say otherwise).
final class ObjectNotifier: Notifier {
    let object: Link

    init(object: Link, snapshot: Snapshot, filter: ModificationFilter) {
        self.object = object
        super.init(version: snapshot.version, filter: filter)
    }

    override var anchor: NotifierAnchor { .object(object) }

    override func dependencies(schema: Schema) -> Dependencies {
        var d = Dependencies()
        d.add(filter, root: object.table, schema: schema)
        return d
    }

    override func process(_ digest: ChangeDigest, candidates: Set<ObjectKey>) -> NotifierOutput? {
        version = digest.version
        if digest.isDeleted(object) { return .object(deleted: true) }
        guard digest.after.isAlive(object.table, object.key) else { return nil }
        return digest.changedRootProperties(object, by: filter).isEmpty ? nil : .object(deleted: false)
    }

}

/// Watches a map property of one object: keys set and removed, and keys
/// whose object values change under the filter.
final class MapNotifier: Notifier {
    let owner: Link
    let property: Int
    private(set) var entries: [String: Value]
    private let valueTable: TableKey?

    init(owner: Link, property: Int, snapshot: Snapshot, filter: ModificationFilter) {
        self.owner = owner
        self.property = property
        entries = Dictionary(uniqueKeysWithValues: snapshot.map(owner.table, owner.key, property).map { ($0.key, $0.value) })
        let p = snapshot.schema[owner.table].properties[property]
        valueTable = p.type == .object ? snapshot.schema.tableByName[p.objectClassName ?? ""] : nil
        super.init(version: snapshot.version, filter: filter)
    }

    override var anchor: NotifierAnchor { .object(owner) }

    override func dependencies(schema: Schema) -> Dependencies {
        var d = Dependencies()
        d.columns.insert(.property(property))
        if let valueTable {
            d.edges.append(.backlinks(from: valueTable, origin: owner.table, property: property))
            var inner = Dependencies()
            inner.add(filter, root: valueTable, schema: schema)
            d.edges += inner.edges
            d.maxHops = inner.maxHops + 1
        }
        return d
    }

    override func process(_ digest: ChangeDigest, candidates: Set<ObjectKey>) -> NotifierOutput? {
        version = digest.version
        let before = entries
        entries = Dictionary(uniqueKeysWithValues: digest.after.map(owner.table, owner.key, property).map { ($0.key, $0.value) })
        var modified = Set<String>()
        for (key, value) in entries {
            if let link = value.linkValue, before[key].map({ $0.isIdentical(to: value) }) == true, digest.isModified(link, by: filter) {
                modified.insert(key)
            }
        }
        let rootDeleted = digest.isDeleted(owner)
        let same = before.count == entries.count && before.allSatisfy { entries[$0.key]?.isIdentical(to: $0.value) == true }
        guard !same || !modified.isEmpty else { return nil }
        return .map(before: before, modified: modified, rootDeleted: rootDeleted)
    }

}
