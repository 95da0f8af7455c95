import OrderedCollections

extension Snapshot {
    /// This database's objects under a new schema, one version later: the
    /// starting point of a migration.
    ///
    /// Classes and properties are matched by name. Object keys are kept. A
    /// property present in both schemas with values that still fit keeps
    /// them; a new (or retyped) property takes `defaults[class][property]`
    /// (or null). Links keep pointing at the same objects when their class is
    /// still there; links into removed classes become null.
    ///
    /// Embedded objects are not checked to have one owner each: a class
    /// that became embedded can leave objects with none or several, which
    /// the migration settles after its block, as Realm's does.
    ///
    /// - Throws: `schemaMismatch` when the copied data breaks the new schema
    ///   (for example duplicate values for a new primary key).
    func migrated(to schema: Schema, schemaVersion: UInt64, defaults: [String: [Value]]) throws(ShoalError) -> Snapshot {
        var next = BatchApplier(Snapshot(schema: schema, version: version + 1, schemaVersion: schemaVersion))
        next.checksEmbeddedOwnership = false
        var deferred: [ChangeOp] = []
        func remap(_ v: Value) -> Value? {
            guard let link = v.linkValue else { return v }
            let name = self.schema[link.table].className
            guard let table = schema.tableByName[name] else { return nil }
            return .link(Link(table: table, key: link.key))
        }
        for os in schema.objectSchema {
            let t = schema.tableByName[os.className]!
            guard let oldTable = self.schema.tableByName[os.className] else { continue }
            let oldSchema = self.schema[oldTable]
            let table = tables[oldTable.index]
            let classDefaults = defaults[os.className] ?? []
            /// Deleted slots not appended yet: appended a run at a time.
            var dead = 0
            for slot in 0..<table.alive.count {
                let key = ObjectKey(Int64(slot))
                guard table.alive[slot] else {
                    dead += 1
                    continue
                }
                next.appendDeadSlots(t, count: dead)
                dead = 0
                var values: [Value] = []
                for p in 0..<os.storedCount {
                    let property = os.properties[p]
                    let fallback = p < classDefaults.count ? classDefaults[p] : .null
                    guard let oldIndex = oldSchema.indexByName[property.name], oldSchema.properties[oldIndex].isStored,
                        oldSchema.properties[oldIndex].collection == property.collection
                    else {
                        values.append(property.collection == .none ? fallback : .null)
                        continue
                    }
                    if property.collection != .none {
                        values.append(.null)
                        let element = property.elementProperty
                        switch property.collection {
                        case .map:
                            for (k, v) in map(oldTable, key, oldIndex) {
                                if let v = remap(v), schema.accepts(v, for: element) { deferred.append(.mapSet(t, key, property: p, key: k, v)) }
                            }
                        default:
                            var index = 0
                            for v in collectionElements(oldTable, key, oldIndex) {
                                guard let v = remap(v), schema.accepts(v, for: element) else { continue }
                                deferred.append(property.collection == .list
                                    ? .listInsert(t, key, property: p, index: index, v) : .setInsert(t, key, property: p, v))
                                index += 1
                            }
                        }
                        continue
                    }
                    let old = value(oldTable, key, oldIndex)
                    if let v = remap(old), schema.accepts(v, for: property) {
                        if v.linkValue != nil {
                            deferred.append(.set(t, key, property: p, v))
                            values.append(.null)
                        } else {
                            values.append(v)
                        }
                    } else {
                        values.append(schema.accepts(fallback, for: property) ? fallback : .null)
                    }
                }
                if let problem = next.apply(.insert(t, key, values)) {
                    throw ShoalError(.schemaMismatch, "Migrating '\(os.className)' failed: \(problem).", context: ["class": os.className])
                }
            }
            next.appendDeadSlots(t, count: dead)
            if let problem = next.finish() {
                throw ShoalError(.schemaMismatch, "Migrating '\(os.className)' failed: \(problem).", context: ["class": os.className])
            }
        }
        for op in deferred {
            if let problem = next.apply(op) {
                throw ShoalError(.schemaMismatch, "Migrating links failed: \(problem).", context: ["class": schema[op.target.table].className])
            }
        }
        _ = next.finish()
        return next.snapshot
    }
}

extension Snapshot {
    /// This database after classes joined it, one version later:
    /// `schema` extends this snapshot's schema additively
    /// (``Schema/extendsAdditively(_:)``). Tables keep their keys and
    /// objects; a new class's table comes after them, empty. A stored class
    /// that gained properties is copied over to its new layout (as a
    /// migration copies it), the new properties of its objects holding
    /// ``Schema/joinValue(for:)``.
    ///
    /// Replay of a schema record calls this as the live join does, so the
    /// state after a restart is the state before it.
    func joining(_ schema: Schema) throws(ShoalError) -> Snapshot {
        precondition(schema.extendsAdditively(self.schema), "a join must extend the schema additively")
        let old = self.schema.objectSchema.count
        if zip(schema.objectSchema, self.schema.objectSchema).allSatisfy({ $0 == $1 }) {
            var next = self
            next.schema = schema
            next.version = version + 1
            for index in old..<schema.objectSchema.count {
                next.tables.append(Table(key: TableKey(index), schema: schema.objectSchema[index]))
            }
            return next
        }
        var defaults: [String: [Value]] = [:]
        for os in schema.objectSchema { defaults[os.className] = os.properties.prefix(os.storedCount).map(Schema.joinValue(for:)) }
        return try migrated(to: schema, schemaVersion: schemaVersion, defaults: defaults)
    }
}
