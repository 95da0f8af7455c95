import OrderedCollections

extension Migration {
    /// Gives every object of an embedded class exactly one owner once the
    /// migration block has run, as Realm does for a class that became
    /// embedded: an object nothing links to is deleted (with the embedded
    /// objects it owns), and an object several owners link to is copied
    /// (with the embedded objects it owns) for every owner but the first.
    func settleEmbeddedObjects() throws(ShoalError) {
        let tx = transaction
        for os in newSchema.objectSchema where os.isEmbedded {
            guard let table = newSchema.tableByName[os.className] else { continue }
            for key in tx.working.tables[table.index].liveKeys where tx.working.isAlive(table, key) {
                let owners = Array(tx.working.tables[table.index].backlinks[key.slot])
                guard !owners.isEmpty else {
                    try tx.delete(table, key)
                    continue
                }
                let shared = Value.link(Link(table: table, key: key))
                for owner in owners.dropFirst() {
                    let copy = Value.link(try copyEmbedded(table, key))
                    try repoint(owner, from: shared, to: copy)
                }
            }
        }
    }

    /// A new object of embedded class `table` with the values of object
    /// `key`, owning copies of the embedded objects that one owns; it has
    /// no owner yet.
    private func copyEmbedded(_ table: TableKey, _ key: ObjectKey) throws(ShoalError) -> Link {
        let tx = transaction
        let os = tx.working.schema[table]
        /// `value`, or a link to a copy of the embedded object it links to.
        func copied(_ value: Value) throws(ShoalError) -> Value {
            guard let link = tx.embeddedLink(value) else { return value }
            return .link(try copyEmbedded(link.table, link.key))
        }
        var values: [Value] = []
        for p in 0..<os.storedCount {
            let value = tx.working.value(table, key, p)
            values.append(os.properties[p].collection == .none && tx.embeddedLink(value) == nil ? value : .null)
        }
        let copy = try tx.insert(table, values: values)
        for (p, property) in os.properties.prefix(os.storedCount).enumerated() {
            switch property.collection {
            case .none:
                let value = tx.working.value(table, key, p)
                if tx.embeddedLink(value) != nil { try tx.set(table, copy, p, try copied(value)) }
            case .list:
                for (index, element) in tx.working.list(table, key, p).enumerated() {
                    try tx.listInsert(table, copy, p, try copied(element), at: index)
                }
            case .set:
                for element in tx.working.collectionElements(table, key, p) { try tx.setInsert(table, copy, p, element) }
            case .map:
                for (mapKey, element) in tx.working.map(table, key, p) { try tx.mapSet(table, copy, p, key: mapKey, try copied(element)) }
            }
        }
        return Link(table: table, key: copy)
    }

    /// Makes the link of `owner` (a link property, or one element of a
    /// list or map) that holds `old` hold `new` instead.
    private func repoint(_ owner: Backlink, from old: Value, to new: Value) throws(ShoalError) {
        let tx = transaction
        switch tx.working.schema[owner.origin].properties[owner.property].collection {
        case .none:
            try tx.set(owner.origin, owner.key, owner.property, new)
        case .list:
            guard let index = tx.working.list(owner.origin, owner.key, owner.property).firstIndex(of: old) else { return }
            try tx.listSet(owner.origin, owner.key, owner.property, new, at: index)
        case .map:
            guard let entry = tx.working.map(owner.origin, owner.key, owner.property).first(where: { $0.value == old }) else { return }
            try tx.mapSet(owner.origin, owner.key, owner.property, key: entry.key, new)
        case .set:
            // A set cannot hold embedded objects.
            return
        }
    }
}
