import OrderedCollections
/// The state of one write transaction: the snapshot it started from, the
/// working snapshot with its changes applied, and the change record.
///
/// Every mutation is turned into primitive ``ChangeOp``s, each appended to
/// the record and applied to the working snapshot with ``Snapshot/apply(_:)``,
/// the same function replay uses; so at commit the working snapshot is, by
/// construction, `base.applying(record)`.
final class WriteTransaction {
    private(set) var base: Snapshot
    private(set) var working: Snapshot
    private(set) var record: ChangeRecord
    /// The number of ops so far: lets cached query results tell that the
    /// working state changed.
    var changeCount: Int { record.ops.count }

    init(base: Snapshot) {
        self.base = base
        self.working = base
        self.record = ChangeRecord(baseVersion: base.version)
    }

    /// Moves the transaction onto `base`, a later snapshot that only
    /// extends this one's schema (a class joined during the write, committed
    /// at its own version): its ops, which touch only tables whose layout
    /// the join kept, are applied again on it, as replay will apply them.
    func rebase(onto base: Snapshot) {
        var working = base
        for op in record.ops { working.apply(op) }
        self.base = base
        self.working = working
        record.baseVersion = base.version
    }

    private func emit(_ op: ChangeOp) {
        working.apply(op)
        record.ops.append(op)
    }

    private func objectSchema(_ t: TableKey) -> ObjectSchema { working.schema[t] }

    private func checkAlive(_ t: TableKey, _ k: ObjectKey) throws(ShoalError) {
        guard working.isAlive(t, k) else {
            throw ShoalError(.objectInvalidated, "Object has been deleted or invalidated.",
                context: ["class": objectSchema(t).className, "key": "\(k.rawValue)"])
        }
    }

    // MARK: Objects

    /// Creates an object with the given stored values and returns its key.
    /// - Throws: `duplicatePrimaryKey` when the primary key is taken.
    func insert(_ t: TableKey, values: [Value]) throws(ShoalError) -> ObjectKey {
        // The primary key's index read in place: copying the class's schema
        // (its name, properties and name table) cost a retain and release
        // of each, for every object inserted.
        if let pk = working.schema.objectSchema[t.index].primaryKeyIndex {
            let value = values[pk]
            if working.object(t, primaryKey: value) != nil {
                let schema = objectSchema(t)
                throw ShoalError(.duplicatePrimaryKey,
                    "Attempting to create an object of type '\(schema.className)' with an existing primary key value '\(value.displayString)'.",
                    context: ["class": schema.className, "property": schema.properties[pk].name, "value": value.displayString])
            }
        }
        for (p, value) in values.enumerated() where value.linkValue != nil || value.isCollection {
            try checkNotMixed(t, p, value)
            try checkUnowned(value, at: .link)
        }
        let key = working.withTable(t) { $0.pointee.nextKey }
        emit(.insert(t, key, values))
        return key
    }

    /// Sets a single-valued property. Writing the current value is not a
    /// change: nothing is recorded.
    /// - Throws: `primaryKeyChange` when `property` is the primary key and the value differs.
    func set(_ t: TableKey, _ k: ObjectKey, _ property: Int, _ value: Value) throws(ShoalError) {
        try checkAlive(t, k)
        let old = working.value(t, k, property)
        if old.isIdentical(to: value) { return }
        let p = objectSchema(t).properties[property]
        if p.isPrimary {
            throw ShoalError(.primaryKeyChange,
                "Primary key can't be changed after an object is inserted: '\(objectSchema(t).className).\(p.name)' from '\(old.displayString)' to '\(value.displayString)'.",
                context: ["class": objectSchema(t).className, "property": p.name])
        }
        try checkNotMixed(t, property, value)
        if p.type == .object { try checkUnowned(value, at: .link) }
        emit(.set(t, k, property: property, value))
        // An embedded object its owner stops pointing at goes with it.
        if p.type == .object { try deleteOrphan(old) }
    }

    /// Deletes an object, first removing every link that points at it
    /// (to-one links become null; lists, sets and maps drop it), then the
    /// embedded objects it owns, each by a delete of its own.
    func delete(_ t: TableKey, _ k: ObjectKey) throws(ShoalError) {
        try checkAlive(t, k)
        let children = embeddedChildren(t, k)
        let target = Value.link(Link(table: t, key: k))
        while let backlink = working.tables[t.index].backlinks[k.slot].last {
            let (ot, ok, op) = (backlink.origin, backlink.key, backlink.property)
            let table = working.tables[ot.index]
            if let lists = table.lists[op] {
                if let i = lists[ok.slot].lastIndex(of: target) { emit(.listRemove(ot, ok, property: op, index: i)) }
            } else if table.sets[op] != nil {
                emit(.setRemove(ot, ok, property: op, target))
            } else if let maps = table.maps[op] {
                if let entry = maps[ok.slot].elements.last(where: { $0.value == target }) { emit(.mapRemove(ot, ok, property: op, key: entry.key)) }
            } else {
                emit(.set(ot, ok, property: op, .null))
            }
        }
        emit(.delete(t, k))
        for child in children { try deleteOrphan(.link(child)) }
    }

    /// Deletes every object of every table (embedded objects with their owners).
    func deleteAll() throws(ShoalError) {
        for table in working.tables where !working.schema[table.key].isEmbedded {
            for key in working.tables[table.key.index].liveKeys { try delete(table.key, key) }
        }
    }

    // MARK: Collections

    func listInsert(_ t: TableKey, _ k: ObjectKey, _ p: Int, _ value: Value, at index: Int) throws(ShoalError) {
        try checkAlive(t, k)
        let count = working.list(t, k, p).count
        try checkIndex(index, count + 1, t, p)
        try checkNotMixed(t, p, value)
        try checkUnowned(value, at: .list)
        emit(.listInsert(t, k, property: p, index: index, value))
    }

    func listSet(_ t: TableKey, _ k: ObjectKey, _ p: Int, _ value: Value, at index: Int) throws(ShoalError) {
        try checkAlive(t, k)
        let list = working.list(t, k, p)
        try checkIndex(index, list.count, t, p)
        if list[index].isIdentical(to: value) { return }
        try checkNotMixed(t, p, value)
        try checkUnowned(value, at: .list)
        emit(.listSet(t, k, property: p, index: index, value))
        try deleteOrphan(list[index])
    }

    func listRemove(_ t: TableKey, _ k: ObjectKey, _ p: Int, at index: Int) throws(ShoalError) {
        try checkAlive(t, k)
        let list = working.list(t, k, p)
        try checkIndex(index, list.count, t, p)
        emit(.listRemove(t, k, property: p, index: index))
        try deleteOrphan(list[index])
    }

    func listMove(_ t: TableKey, _ k: ObjectKey, _ p: Int, from: Int, to: Int) throws(ShoalError) {
        try checkAlive(t, k)
        let count = working.list(t, k, p).count
        try checkIndex(from, count, t, p)
        try checkIndex(to, count, t, p)
        if from != to { emit(.listMove(t, k, property: p, from: from, to: to)) }
    }

    func setInsert(_ t: TableKey, _ k: ObjectKey, _ p: Int, _ value: Value) throws(ShoalError) {
        try checkAlive(t, k)
        try checkNotMixed(t, p, value)
        if !working.set(t, k, p).contains(value) { emit(.setInsert(t, k, property: p, value)) }
    }

    func setRemove(_ t: TableKey, _ k: ObjectKey, _ p: Int, _ value: Value) throws(ShoalError) {
        try checkAlive(t, k)
        if working.set(t, k, p).contains(value) { emit(.setRemove(t, k, property: p, value)) }
    }

    func mapSet(_ t: TableKey, _ k: ObjectKey, _ p: Int, key: String, _ value: Value) throws(ShoalError) {
        try checkAlive(t, k)
        let old = working.map(t, k, p)[key]
        if let old, old.isIdentical(to: value) { return }
        try checkNotMixed(t, p, value)
        try checkUnowned(value, at: .map)
        emit(.mapSet(t, k, property: p, key: key, value))
        if let old { try deleteOrphan(old) }
    }

    func mapRemove(_ t: TableKey, _ k: ObjectKey, _ p: Int, key: String) throws(ShoalError) {
        try checkAlive(t, k)
        guard let old = working.map(t, k, p)[key] else { return }
        emit(.mapRemove(t, k, property: p, key: key))
        try deleteOrphan(old)
    }

    func collectionClear(_ t: TableKey, _ k: ObjectKey, _ p: Int) throws(ShoalError) {
        try checkAlive(t, k)
        let elements = working.collectionElements(t, k, p)
        if !elements.isEmpty || !working.map(t, k, p).isEmpty {
            emit(.collectionClear(t, k, property: p))
            for element in elements { try deleteOrphan(element) }
        }
    }

    private func checkIndex(_ index: Int, _ count: Int, _ t: TableKey, _ p: Int) throws(ShoalError) {
        if index < 0 {
            // Realm's wording for a negative index.
            throw ShoalError(.indexOutOfBounds, "Cannot pass a negative value for 'index'.", context: ["index": "\(index)"])
        }
        guard index < count else {
            let name = "\(objectSchema(t).className).\(objectSchema(t).properties[p].name)"
            throw ShoalError(.indexOutOfBounds, "Index \(index) is out of bounds (must be less than \(count)) in '\(name)'.",
                context: ["property": name, "index": "\(index)"])
        }
    }
}

extension Value {
    /// The value as a user would write it in a message.
    var displayString: String {
        switch self {
        case .string(let s): s
        default: description
        }
    }
}
