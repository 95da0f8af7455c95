import OrderedCollections

extension Snapshot {
    /// The snapshot that results from applying `record` to this one: the one
    /// code path shared by commit and by log replay.
    func applying(_ record: ChangeRecord) -> Snapshot {
        precondition(record.baseVersion == version, "Change record for version \(record.baseVersion) applied to version \(version)")
        var next = self
        for op in record.ops { next.apply(op) }
        next.version = version + 1
        return next
    }

    /// Applies one primitive op, keeping indexes, backlinks and counts current.
    ///
    /// Ops are validated by whoever makes them (the write transaction, or the
    /// log decoder); an op that breaks the storage invariants stops the
    /// program rather than corrupt the snapshot.
    mutating func apply(_ op: ChangeOp) {
        apply(op, indexing: true)
    }

    /// Applies one op; with `indexing` false an insert leaves the primary and
    /// secondary indexes alone (a ``BatchApplier`` adds them later with
    /// ``Table/indexSlots(from:schema:)``). Backlinks are always maintained.
    mutating func apply(_ op: ChangeOp, indexing: Bool) {
        let (t, k) = op.target
        let ti = t.index
        var className: String { schema.objectSchema[ti].className }
        switch op {
        case .insert(_, _, let values):
            let (nextKey, columnCount) = withTable(t) { ($0.pointee.nextKey, $0.pointee.scalars.count) }
            precondition(k == nextKey, "insert of \(k) into \(className) whose next key is \(nextKey)")
            precondition(values.count == columnCount, "insert into \(className) with \(values.count) values for \(columnCount) properties")
            for (p, v) in values.enumerated() { tables[ti].scalars[p].append(v) }
            tables[ti].appendSlots(1, alive: true)
            for (p, v) in values.enumerated() {
                if indexing { addToIndex(t, k, p, v) }
                if case .link(let link) = v { addBacklink(link, Backlink(origin: t, property: p, key: k)) }
            }

        case .delete:
            let isLive = isAlive(t, k)
            precondition(isLive, "delete of \(k), which is not a live \(className)")
            // Outgoing links of the deleted object go with it.
            for p in 0..<tables[ti].scalars.count {
                let v = value(t, k, p)
                removeFromIndex(t, k, p, v)
                if let link = v.linkValue { removeBacklink(link, Backlink(origin: t, property: p, key: k)) }
                if !v.isNull { tables[ti].scalars[p].set(k.slot, .null) }
                for element in collectionElements(t, k, p) {
                    if let link = element.linkValue { removeBacklink(link, Backlink(origin: t, property: p, key: k)) }
                }
                if tables[ti].lists[p] != nil { tables[ti].lists[p]![k.slot] = [] }
                if tables[ti].sets[p] != nil { tables[ti].sets[p]![k.slot] = [] }
                if tables[ti].maps[p] != nil { tables[ti].maps[p]![k.slot] = [:] }
            }
            let isUnlinked = withTable(t) { $0.pointee.backlinks[k.slot].isEmpty }
            precondition(isUnlinked, "delete of \(className) \(k) while links still point at it")
            tables[ti].alive[k.slot] = false
            tables[ti].count -= 1

        case .set(_, _, let p, let v):
            let old = value(t, k, p)
            removeFromIndex(t, k, p, old)
            if let link = old.linkValue { removeBacklink(link, Backlink(origin: t, property: p, key: k)) }
            tables[ti].scalars[p].set(k.slot, v)
            addToIndex(t, k, p, v)
            if let link = v.linkValue { addBacklink(link, Backlink(origin: t, property: p, key: k)) }

        case .listInsert(_, _, let p, let index, let v):
            tables[ti].lists[p]!.modify(k.slot) { $0.insert(v, at: index) }
            if let link = v.linkValue { addBacklink(link, Backlink(origin: t, property: p, key: k)) }

        case .listSet(_, _, let p, let index, let v):
            let old = tables[ti].lists[p]!.modify(k.slot) { list -> Value in
                defer { list[index] = v }
                return list[index]
            }
            if let link = old.linkValue { removeBacklink(link, Backlink(origin: t, property: p, key: k)) }
            if let link = v.linkValue { addBacklink(link, Backlink(origin: t, property: p, key: k)) }

        case .listRemove(_, _, let p, let index):
            let old = tables[ti].lists[p]!.modify(k.slot) { $0.remove(at: index) }
            if let link = old.linkValue { removeBacklink(link, Backlink(origin: t, property: p, key: k)) }

        case .listMove(_, _, let p, let from, let to):
            tables[ti].lists[p]!.modify(k.slot) { list in
                let v = list.remove(at: from)
                list.insert(v, at: to)
            }

        case .setInsert(_, _, let p, let v):
            let inserted = tables[ti].sets[p]!.modify(k.slot) { $0.append(v).inserted }
            if inserted, let link = v.linkValue { addBacklink(link, Backlink(origin: t, property: p, key: k)) }

        case .setRemove(_, _, let p, let v):
            let removed = tables[ti].sets[p]!.modify(k.slot) { $0.remove(v) }
            if removed != nil, let link = v.linkValue { removeBacklink(link, Backlink(origin: t, property: p, key: k)) }

        case .mapSet(_, _, let p, let key, let v):
            let old = tables[ti].maps[p]!.modify(k.slot) { map -> Value? in
                defer { map[key] = v }
                return map[key]
            }
            if let link = old?.linkValue { removeBacklink(link, Backlink(origin: t, property: p, key: k)) }
            if let link = v.linkValue { addBacklink(link, Backlink(origin: t, property: p, key: k)) }

        case .mapRemove(_, _, let p, let key):
            let old = tables[ti].maps[p]!.modify(k.slot) { $0.removeValue(forKey: key) }
            if let link = old?.linkValue { removeBacklink(link, Backlink(origin: t, property: p, key: k)) }

        case .collectionClear(_, _, let p):
            for element in collectionElements(t, k, p) {
                if let link = element.linkValue { removeBacklink(link, Backlink(origin: t, property: p, key: k)) }
            }
            if tables[ti].lists[p] != nil { tables[ti].lists[p]![k.slot] = [] }
            if tables[ti].sets[p] != nil { tables[ti].sets[p]![k.slot] = [] }
            if tables[ti].maps[p] != nil { tables[ti].maps[p]![k.slot] = [:] }
        }
    }

    /// Applies a run of inserts into table `t` with their index entries
    /// deferred, as `apply(.insert(t, k, values), indexing: false)` for
    /// each object in key order would, but a column at a time: object `i`
    /// of the run gets key `nextKey + i` and the values `columns[p][i]`,
    /// and `links` are the backlinks its links make, in the order to make
    /// them. The bulk path of ``BatchApplier``, which has checked the run.
    mutating func appendObjects(_ t: TableKey, columns: [RunColumn], links: [(target: Link, backlink: Backlink)]) {
        let ti = t.index
        let columnCount = withTable(t) { $0.pointee.scalars.count }
        precondition(columns.count == columnCount, "insert into \(schema.objectSchema[ti].className) with \(columns.count) columns for \(columnCount) properties")
        for p in columns.indices {
            if columns[p].isTyped {
                tables[ti].scalars[p].append(contentsOf: columns[p].typed)
            } else {
                tables[ti].scalars[p].append(contentsOf: columns[p])
            }
        }
        tables[ti].appendSlots(columns.first?.count ?? 0, alive: true)
        addBacklinks(links)
    }

    /// Adds the backlinks of a run's one link column: each group's objects
    /// (positions in the run, whose first object has key `firstKey`) link
    /// through `property` of `origin` to the group's object of `target`.
    /// The groups' targets must ascend, and be live. Gives the lists
    /// ``addBacklinks(_:)`` gives for the same links.
    mutating func addBacklinks(_ groups: [LinkGroup], target: TableKey, origin: TableKey, property: Int, firstKey: ObjectKey) {
        tables[target.index].backlinks.appendRuns(groups, origin: origin, property: property, firstKey: firstKey.rawValue)
    }

    /// Adds backlinks as `addBacklink` would one by one in this order, but
    /// grouped per target: sorted by target (and by position, so that each
    /// target gets its backlinks in the order given), each table's
    /// backlink store reaching each leaf once rather than once per link.
    private mutating func addBacklinks(_ links: [(target: Link, backlink: Backlink)]) {
        if links.count < 2 {
            for (target, backlink) in links { addBacklink(target, backlink) }
            return
        }
        func precedes(_ a: Int, _ b: Int) -> Bool {
            let (x, y) = (links[a].target, links[b].target)
            return (x.table.rawValue, x.key.rawValue, a) < (y.table.rawValue, y.key.rawValue, b)
        }
        // Objects are often added in the order of what they link to (a
        // person's dogs after the person): then there is nothing to sort.
        // (Bound as a constant: the closures below read it per link, and a
        // captured variable is checked for exclusive access each time.)
        let order = {
            var order = Array(links.indices)
            if zip(order, order.dropFirst()).contains(where: { !precedes($0, $1) }) { order.sort(by: precedes) }
            return order
        }()
        // Runs of links to one target, so that its array grows once.
        var groups: [Range<Int>] = []
        var start = 0
        for i in 1...order.count where i == order.count || links[order[i]].target != links[order[start]].target {
            // (Checked once per target, outside `precondition`, whose
            // autoclosure would copy the table.)
            let target = links[order[start]].target
            let isLive = isAlive(target.table, target.key)
            precondition(isLive, "link to \(target), which is not a live object")
            groups.append(start..<i)
            start = i
        }
        var g = 0
        while g < groups.count {
            let table = links[order[groups[g].lowerBound]].target.table
            var h = g + 1
            while h < groups.count, links[order[groups[h].lowerBound]].target.table == table { h += 1 }
            tables[table.index].backlinks.modify(ascending: groups[g..<h], slot: { links[order[$0.lowerBound]].target.key.slot }) { group, backlinks in
                // Links from one property (a run's link column) are added
                // as keys.
                let first = links[order[group.lowerBound]].backlink
                if group.allSatisfy({ links[order[$0]].backlink.origin == first.origin && links[order[$0]].backlink.property == first.property }) {
                    backlinks.append(origin: first.origin, property: first.property, keys: group.lazy.map { links[order[$0]].backlink.key.rawValue })
                } else {
                    backlinks.append(contentsOf: group.lazy.map { links[order[$0]].backlink })
                }
            }
            g = h
        }
    }

    /// The elements (map values for a map) of a collection property; empty for other properties.
    func collectionElements(_ t: TableKey, _ k: ObjectKey, _ p: Int) -> [Value] {
        let table = tables[t.index]
        if let lists = table.lists[p] { return lists[k.slot] }
        if let sets = table.sets[p] { return Array(sets[k.slot]) }
        if let maps = table.maps[p] { return Array(maps[k.slot].values) }
        return []
    }

    /// Indexes object `k` under its value `v` of property `p`.
    private mutating func addToIndex(_ t: TableKey, _ k: ObjectKey, _ p: Int, _ v: Value) {
        let ti = t.index
        let (isPrimary, isSecondary) = withTable(t) { ($0.pointee.primaryIndex != nil, $0.pointee.hasSecondaryIndex(p)) }
        if isPrimary, schema.objectSchema[ti].primaryKeyIndex == p {
            tables[ti].primaryIndex!.updateValue(k, forKey: v)
        } else if isSecondary {
            Table.insert(CollectionOfOne(k), at: v, into: &tables[ti].secondaryIndexes[p]!)
        }
    }

    /// Unindexes object `k` from its value `v` of property `p`; a value no
    /// object holds any more leaves the index.
    private mutating func removeFromIndex(_ t: TableKey, _ k: ObjectKey, _ p: Int, _ v: Value) {
        let ti = t.index
        let (isPrimary, isSecondary) = withTable(t) { ($0.pointee.primaryIndex != nil, $0.pointee.hasSecondaryIndex(p)) }
        if isPrimary, schema.objectSchema[ti].primaryKeyIndex == p {
            if object(t, primaryKey: v) == k { tables[ti].primaryIndex!.remove(v) }
        } else if isSecondary {
            Table.remove(k, at: v, from: &tables[ti].secondaryIndexes[p]!)
        }
    }

    private mutating func addBacklink(_ target: Link, _ backlink: Backlink) {
        // (Checked outside `precondition`, whose autoclosure would copy the table.)
        let isLive = isAlive(target.table, target.key)
        precondition(isLive, "link to \(target), which is not a live object")
        tables[target.table.index].backlinks.modify(target.key.slot) { $0.append(backlink) }
    }

    private mutating func removeBacklink(_ target: Link, _ backlink: Backlink) {
        guard isAlive(target.table, target.key) else { return }
        tables[target.table.index].backlinks.modify(target.key.slot) { links in
            if let i = links.firstIndex(of: backlink) { links.remove(at: i) }
        }
    }
}

/// Consecutive objects of an insert run linking to one object, through one
/// property: the target's slot and the objects' positions in the run.
struct LinkGroup: Sendable {
    var slot: Int
    var objects: Range<Int>
}
