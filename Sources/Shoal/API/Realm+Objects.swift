extension Realm {
    /// Adds an unmanaged object, and the unmanaged objects it links to, to the Realm.
    ///
    /// ```swift
    /// try realm.write { realm.add(Dog(value: ["id": 1, "name": "Rex"])) }
    /// ```
    /// With `.modified` or `.all`, an existing object with the same primary
    /// key is updated instead. Adding an object this Realm already manages
    /// does nothing. Stops, as Realm does, outside a write transaction, on a
    /// duplicate primary key with `.error`, and for an object managed by
    /// another Realm.
    public func add(_ object: Object, update: UpdatePolicy = .error) {
        instance.addTopLevel(object, update: update)
    }

    /// Adds every object of a sequence; see ``add(_:update:)``.
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) where S.Element: Object {
        for object in objects { instance.addTopLevel(object, update: update) }
    }

    /// Creates a managed object from a dictionary of values, an array of
    /// values in property order, or another object, and returns it.
    ///
    /// ```swift
    /// let ann = realm.create(Person.self, value: ["id": 7, "name": "Ann"])
    /// ```
    /// Missing properties take their declared defaults; nested dictionaries
    /// create linked objects. Stops with a message naming the class and
    /// property on an unknown property or a wrong value type.
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) -> T {
        let table = instance.tableKey(for: type)
        instance.refuseEmbedded(table, "create")
        do {
            try instance.checkUpdatable(table, update)
            let link = try instance.create(table, value: value, update: update)
            return instance.accessor(link) as! T
        } catch { shoalPrecondition(error) }
    }

    /// Deletes a managed object. Links to it become `nil`; lists, sets and
    /// maps drop it.
    public func delete(_ object: Object) {
        instance.delete(object)
    }

    /// Deletes every object of a sequence.
    public func delete<S: Sequence>(_ objects: S) where S.Element: Object {
        let all = Array(objects)
        for object in all where !object.isInvalidated { instance.delete(object) }
    }

    /// Deletes every object in the results, as they are when called.
    public func delete<Element: Object>(_ objects: Results<Element>) {
        delete(Array(objects))
    }

    /// Deletes every object of every class.
    public func deleteAll() {
        let tx = instance.requireWrite()
        do { try tx.deleteAll() } catch { shoalPrecondition(error) }
    }

    /// All objects of a class, live: they reflect every later change.
    public func objects<Element: Object>(_ type: Element.Type) -> Results<Element> {
        instance.verifyThread()
        let table = instance.tableKey(for: type)
        instance.refuseEmbedded(table, "query")
        return Results(instance: instance, table: table, source: .table)
    }

    /// The object of a class with the given primary key, or `nil`.
    ///
    /// Stops when the class has no primary key or the key's type does not
    /// match the primary key property.
    public func object<Element: Object, KeyType>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        instance.verifyThread()
        let table = instance.tableKey(for: type)
        let plan = instance.bound(table).1
        guard let pk = plan.primaryKeyProperty else {
            shoalPrecondition(ShoalError(.missingPrimaryKey, "'\(plan.className)' does not have a primary key",
                context: ["class": plan.className]))
        }
        do {
            let value = try ValueCoercion.value(key: key, for: pk, className: plan.className)
            guard let objectKey = instance.object(table, primaryKey: value) else { return nil }
            return instance.accessor(Link(table: table, key: objectKey)) as? Element
        } catch { shoalPrecondition(error) }
    }
}
