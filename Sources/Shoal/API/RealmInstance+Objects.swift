import Foundation

extension Property {
    /// The description of one element of a collection property.
    var elementProperty: Property {
        Property(name: name, type: type, isOptional: isOptional, collection: .none, objectClassName: objectClassName)
    }
}

extension RealmInstance {
    /// A managed accessor for the object at `link`.
    func accessor(_ link: Link) -> Object {
        let (type, plan) = bound(link.table)
        let ref = ObjectRef(realm: self, table: link.table, key: link.key, generation: generation)
        let object = Self.accessor(of: type, ref, offsets: plan.boxOffsets)
        if plan.hasLegacyLinkingObjects {
            let info = ClassRegistry.info(for: type)
            let children = ClassRegistry.children(of: object)
            for (label, property) in info.legacyLinkingObjects {
                (children.first { $0.label == label }?.value as? any LegacyPropertyDeclaration)?.bind(ref, property: property)
            }
        }
        return object
    }

    /// A managed accessor of class `type` for `ref`, whose wrappers are told
    /// their properties at `offsets` (the class's confirmed wrapper
    /// offsets) or, without them, through their boxes.
    static func accessor(of type: Object.Type, _ ref: ObjectRef, offsets: [Int]?) -> Object {
        let construction = AccessorConstruction.Construction(ref: UnretainedObjectRef(ref), needsBoxes: offsets == nil)
        let object = AccessorConstruction.constructing(construction) { type.init(_shoalMetatype: ()) }
        object.ref = ref
        ClassRegistry.markManaged(object, offsets: offsets)
        return object
    }

    /// The class bound to `table` and its plan, in the layout the visible
    /// state has.
    @inline(__always)
    func bound(_ table: TableKey) -> (Object.Type, TablePlan) {
        let i = table.index
        if i < catalog.plans.count, let plan = catalog.plans[i], catalog.boundAt[i] <= schemaVersionVisible {
            return (catalog.classes[i]!, plan)
        }
        return boundOtherwise(table)
    }

    /// ``bound(_:)`` when this instance's catalog misses: the coordinator's
    /// is taken again; a table whose class has not been used in this
    /// process (only reachable through a mixed value) stops, naming it.
    @inline(never)
    private func boundOtherwise(_ table: TableKey) -> (Object.Type, TablePlan) {
        catalog = coordinator.catalog
        let i = table.index
        if i < catalog.plans.count, let plan = catalog.plans[i], catalog.boundAt[i] <= schemaVersionVisible {
            return (catalog.classes[i]!, plan)
        }
        let name = schema[table].className
        shoalPrecondition(ShoalError(.unknownObjectType,
            "Object type '\(name)' has no Swift class in this Realm yet: use the class (for example realm.objects(\(name).self)) before reading its objects through a mixed value.",
            context: ["class": name, "path": coordinator.identifier]))
    }

    /// The table of a class. Without `objectTypes`, a class not used before
    /// joins the schema here (``RealmCoordinator/join(_:holdingWriteLock:)``);
    /// with them, a class they do not list stops, naming the class.
    func tableKey(for type: Object.Type) -> TableKey {
        if let table = catalog.tableByType[ObjectIdentifier(type)], catalog.boundAt[table.index] <= schemaVersionVisible { return table }
        return tableKeyOtherwise(type)
    }

    /// ``tableKey(for:)`` when this instance's catalog misses.
    @inline(never)
    private func tableKeyOtherwise(_ type: Object.Type) -> TableKey {
        let name = Object.className(of: type)
        catalog = coordinator.catalog
        var table = catalog.tableByType[ObjectIdentifier(type)]
        if let t = table, catalog.boundAt[t.index] <= schemaVersionVisible { return t }
        guard table != nil || coordinator.discovers else {
            shoalPrecondition(ShoalError(.unknownObjectType,
                "Object type '\(name)' is not managed by the Realm. Add '\(name)' to Configuration.objectTypes.",
                context: ["class": name, "path": coordinator.identifier]))
        }
        guard !isFrozen else {
            shoalPrecondition(ShoalError(.unknownObjectType,
                "Object type '\(name)' is not in the schema of this frozen Realm's version: it was first used after the Realm was frozen.",
                context: ["class": name, "path": coordinator.identifier]))
        }
        verifyThread()
        do {
            let joined = try coordinator.join(type, holdingWriteLock: transaction != nil)
            didJoin(joined)
        } catch { shoalPrecondition(error) }
        table = catalog.tableByType[ObjectIdentifier(type)]
        guard let t = table, catalog.boundAt[t.index] <= schemaVersionVisible else {
            preconditionFailure("'\(name)' joined the schema of '\(coordinator.identifier)' but is not visible to this Realm")
        }
        return t
    }

    /// The link to `object`, adding it first when it is unmanaged.
    func linkAdding(_ object: Object, update: Realm.UpdatePolicy) -> Link {
        if let ref = object.ref {
            guard ref.realm.coordinator === coordinator else {
                shoalPrecondition(ShoalError(.wrongRealm,
                    "Object is already managed by another Realm. Use create instead to copy it into this Realm.",
                    context: ["class": ref.realm.schema[ref.table].className]))
            }
            ref.checkValid()
            return ref.link
        }
        return add(object, update: update)
    }

    /// `Realm.add`: refuses an embedded class, and an update policy for a
    /// class without a primary key (objects it links to are added whatever
    /// their class: a linked object without a primary key is inserted).
    func addTopLevel(_ object: Object, update: Realm.UpdatePolicy) {
        if let ref = object.ref, !ref.realm.schema[ref.table].isEmbedded {
            // Managed here: nothing to add; managed elsewhere: Realm's refusal.
            _ = linkAdding(object, update: update)
            return
        }
        let table = tableKey(for: Swift.type(of: object))
        refuseEmbedded(table, "add")
        do { try checkUpdatable(table, update) } catch { shoalPrecondition(error) }
        add(object, update: update)
    }

    /// Realm's refusal of `.modified` or `.all` for a class without a primary key.
    func checkUpdatable(_ table: TableKey, _ update: Realm.UpdatePolicy) throws(ShoalError) {
        let schema = self.schema[table]
        guard update != .error, schema.primaryKeyIndex == nil else { return }
        throw ShoalError(.missingPrimaryKey, "'\(schema.className)' does not have a primary key and can not be updated",
            context: ["class": schema.className])
    }

    /// Adds an unmanaged object (and, recursively, the unmanaged objects it
    /// links to), turning it into a managed one. With `existing`, the object
    /// becomes that (embedded) object, updated in place (see
    /// ``updateEmbeddedInPlace(_:table:key:property:update:)``).
    @discardableResult
    func add(_ object: Object, update: Realm.UpdatePolicy, into existing: ObjectKey? = nil) -> Link {
        if let ref = object.ref, ref.realm.coordinator === coordinator {
            ref.checkValid()
            return ref.link
        }
        let tx = requireWrite()
        let type = Swift.type(of: object)
        let table = tableKey(for: type)
        let plan = bound(table).1
        let boxes = ClassRegistry.boxReader(of: object, offsets: plan.boxOffsets)
        func storedValue(_ index: Int) -> Value { boxes[index]?.storedValue(self) ?? .null }
        // Stored properties come first in a schema.
        let stored = 0..<plan.storedCount
        let isDeferred = { (i: Int) in plan.deferred[i] }
        var values = [Value](repeating: .null, count: stored.count)
        for i in stored where !isDeferred(i) { values[i] = storedValue(i) }
        // A link or mixed value that adds nothing (nil, a plain value, a
        // link to a valid object of this Realm) goes into the insert, so a
        // bulk add records plain inserts; only values that need an object
        // added first are set after the insert, as before. Links stop going
        // into the insert at the first value that needs an add: that add
        // may link to the same targets, and their backlinks must stay in the
        // order the sets after the insert would make them.
        let links = plan.links
        var ready = 0  // the first `ready` of `links` are in `values`
        for i in links {
            let value: Value? = if let box = boxes[i] { box.storedValueWithoutAdding(self) } else { .null }
            guard let value else { break }
            values[i] = value
            ready += 1
        }
        let (key, isNew): (ObjectKey, Bool)
        if let existing {
            (key, isNew) = (existing, false)
            do { for i in stored where !isDeferred(i) { try tx.set(table, key, i, values[i]) } } catch { shoalPrecondition(error) }
        } else {
            (key, isNew) = upsert(tx, table, values: values, given: { !isDeferred($0) }, update: update, primaryKey: plan.primaryKey)
        }
        object.ref = ObjectRef(realm: self, table: table, key: key, generation: generation)
        ClassRegistry.markManaged(object, offsets: plan.boxOffsets)
        do {
            for (n, i) in links.enumerated() {
                if n < ready {
                    // An upsert that found an object sets it like any other.
                    if !isNew { try tx.set(table, key, i, values[i]) }
                } else if isNew || update != .modified || !updateEmbeddedInPlace(boxes[i], table: table, key: key, property: i) {
                    try tx.set(table, key, i, storedValue(i))
                }
            }
            for i in plan.collections {
                if !isNew, update == .modified, try updateEmbeddedListInPlace(boxes[i], table: table, key: key, property: i) { continue }
                boxes[i]?.copyCollection(to: ManagedSlot(ref: object.ref!, property: i))
            }
            if plan.hasLegacyLinkingObjects { try bindLegacyProperties(of: object, tx) }
        } catch { shoalPrecondition(error) }
        return Link(table: table, key: key)
    }

    /// Binds the properties `object`, just added, declares without
    /// `@Persisted` to it, first storing the value each `RealmProperty`
    /// held unmanaged (its insert stored null).
    private func bindLegacyProperties(of object: Object, _ tx: WriteTransaction) throws(ShoalError) {
        guard let ref = object.ref else { return }
        let children = ClassRegistry.children(of: object)
        for (label, property) in ClassRegistry.info(for: Swift.type(of: object)).legacyLinkingObjects {
            guard let declaration = children.first(where: { $0.label == label })?.value as? any LegacyPropertyDeclaration else { continue }
            if let stored = declaration as? any RealmPropertyDeclaration {
                try tx.set(ref.table, ref.key, property, stored.unmanagedStored(self))
            }
            declaration.bind(ref, property: property)
        }
    }

    /// Inserts a new object, or with an update policy updates the one with
    /// the same primary key, setting only the `given` properties.
    ///
    /// - Returns: the object's key, and whether it was inserted.
    private func upsert(
        _ tx: WriteTransaction, _ table: TableKey, values: [Value], given: (Int) -> Bool, update: Realm.UpdatePolicy, primaryKey: Int?
    ) -> (ObjectKey, isNew: Bool) {
        do {
            // A class without a primary key has nothing to update by: its
            // object is inserted (`Realm.add` and `create` refuse an update
            // policy for such a class at the top; nested, Realm inserts).
            if update != .error, let pk = primaryKey {
                if let existing = tx.working.object(table, primaryKey: values[pk]) {
                    for i in values.indices where i != pk && given(i) { try tx.set(table, existing, i, values[i]) }
                    return (existing, false)
                }
            }
            return (try tx.insert(table, values: values), true)
        } catch { shoalPrecondition(error) }
    }

    /// Creates (or with an update policy, updates) an object from a
    /// dictionary, an array or another object.
    func create(_ table: TableKey, value: Any, update: Realm.UpdatePolicy) throws(ShoalError) -> Link {
        let tx = requireWrite()
        let schema = self.schema[table]
        let info = ClassRegistry.info(for: bound(table).0)
        var given: [Int: Any?] = [:]
        for (index, item) in Object.namedValues(value, schema: schema) where schema.properties[index].isStored {
            given[index] = item
        }
        var values = info.defaults
        // An unset non-optional ObjectId or UUID gets a value of its own,
        // not the one the class's prototype drew.
        for (i, property) in schema.properties.enumerated()
        where given[i] == nil && property.isStored && property.collection == .none && !property.isOptional {
            if property.type == .objectId { values[i] = .objectId(.generate()) }
            if property.type == .uuid { values[i] = .uuid(UUID()) }
        }
        var scalarGiven: Set<Int> = []
        for (i, item) in given where schema.properties[i].collection == .none && schema.properties[i].type != .object {
            values[i] = try ValueCoercion.value(item, for: schema.properties[i], className: schema.className, realm: self, update: update, copying: true)
            scalarGiven.insert(i)
        }
        if let pk = schema.primaryKeyIndex, given[pk] == nil, update != .error,
            !schema.properties[pk].isOptional
        {
            throw ShoalError(.missingPrimaryKey, "Missing value for primary key property '\(schema.className).\(schema.properties[pk].name)'.",
                context: ["class": schema.className])
        }
        let (key, _) = upsert(tx, table, values: values, given: { scalarGiven.contains($0) }, update: update, primaryKey: bound(table).1.primaryKey)
        let ref = ObjectRef(realm: self, table: table, key: key, generation: generation)
        for (i, item) in given.sorted(by: { $0.key < $1.key }) {
            let property = schema.properties[i]
            if property.collection != .none {
                try replaceCollection(ManagedSlot(ref: ref, property: i), with: item, update: update, copying: true)
            } else if property.type == .object {
                let link = try ValueCoercion.value(item, for: property, className: schema.className, realm: self, update: update, copying: true)
                try tx.set(table, key, i, link)
            }
        }
        return ref.link
    }

    /// Replaces the contents of a managed list, set or map with the elements of `value`.
    /// With `copying` (from `create`), objects are copied as ``ValueCoercion/value(_:for:className:realm:update:copying:)`` says.
    func replaceCollection(_ slot: ManagedSlot, with value: Any?, update: Realm.UpdatePolicy, copying: Bool = false) throws(ShoalError) {
        let tx = requireModification()
        let property = slot.schemaProperty
        let (t, k, p) = (slot.ref.table, slot.ref.key, slot.property)
        let className = schema[t].className
        try tx.collectionClear(t, k, p)
        if property.collection == .map {
            for (key, item) in try ValueCoercion.entries(value, name: slot.qualifiedName) {
                let v = try ValueCoercion.value(item, for: property.elementProperty, className: className, realm: self, update: update, copying: copying)
                try tx.mapSet(t, k, p, key: key, v)
            }
            return
        }
        for item in try ValueCoercion.elements(value, name: slot.qualifiedName) {
            let v = try ValueCoercion.value(item, for: property.elementProperty, className: className, realm: self, update: update, copying: copying)
            if property.collection == .list {
                try tx.listInsert(t, k, p, v, at: tx.working.list(t, k, p).count)
            } else {
                try tx.setInsert(t, k, p, v)
            }
        }
    }

    /// Sets a managed property from a dynamic value (the by-name subscript).
    func setProperty(_ slot: ManagedSlot, from value: Any?) {
        let property = slot.schemaProperty
        do {
            if property.collection != .none {
                try replaceCollection(slot, with: value, update: .error)
            } else {
                let v = try ValueCoercion.value(value, for: property, className: schema[slot.ref.table].className, realm: self, update: .error)
                let tx = requireModification()
                try tx.set(slot.ref.table, slot.ref.key, slot.property, v)
            }
        } catch { shoalPrecondition(error) }
    }

    /// Deletes a managed object of this Realm.
    func delete(_ object: Object) {
        let tx = requireWrite()
        guard let ref = object.ref else {
            shoalPrecondition(ShoalError(.wrongRealm, "Can only delete an object from the Realm it belongs to."))
        }
        guard ref.realm.coordinator === coordinator else {
            shoalPrecondition(ShoalError(.wrongRealm, "Can only delete an object from the Realm it belongs to."))
        }
        ref.checkValid()
        do { try tx.delete(ref.table, ref.key) } catch { shoalPrecondition(error) }
    }
}
