import Foundation

/// The block a configuration runs when a file's stored `schemaVersion` is
/// lower than the declared one.
public typealias MigrationBlock = @Sendable (_ migration: Migration, _ oldSchemaVersion: UInt64) -> Void

/// Changes data from the stored schema to the declared one, inside a
/// ``MigrationBlock``.
///
/// Before the block runs, every object is already copied to the new schema:
/// properties are matched by name, new properties hold their declared
/// defaults, removed properties and classes are gone. The block reads the
/// old values and fixes up the new ones.
///
/// ```swift
/// config.schemaVersion = 2
/// config.migrationBlock = { migration, oldVersion in
///     if oldVersion < 2 {
///         migration.renameProperty(onType: "Dog", from: "nickname", to: "name")
///         migration.enumerateObjects(ofType: "Dog") { old, new in
///             new?["age"] = (old?["ageInMonths"] as? Int ?? 0) / 12
///         }
///     }
/// }
/// ```
public final class Migration {
    /// The schema the data was stored with.
    public let oldSchema: Schema
    /// The schema being migrated to.
    public let newSchema: Schema
    let old: Snapshot
    let transaction: WriteTransaction
    /// The declared default of each stored property, by class name.
    let defaults: [String: [Value]]

    init(old: Snapshot, new: Snapshot, defaults: [String: [Value]]) {
        self.defaults = defaults
        self.old = old
        self.oldSchema = old.schema
        self.newSchema = new.schema
        self.transaction = WriteTransaction(base: new)
    }

    /// Calls `block` for every object of a class that existed before the
    /// migration, with its old version (read-only) and its new version
    /// (`nil` if the class is gone, or the object was deleted in this migration).
    public func enumerateObjects(ofType typeName: String, _ block: (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) -> Void) {
        guard let oldTable = oldSchema.tableByName[typeName] else { return }
        let newTable = newSchema.tableByName[typeName]
        for key in old.tables[oldTable.index].liveKeys {
            let oldObject = MigrationObject(migration: self, table: oldTable, key: key, isOld: true)
            let newObject = newTable.flatMap { t in
                transaction.working.isAlive(t, key) ? MigrationObject(migration: self, table: t, key: key, isOld: false) : nil
            }
            block(oldObject, newObject)
        }
    }

    /// Creates an object of a class of the new schema.
    @discardableResult
    public func create(_ typeName: String, value: [String: Any] = [:]) -> MigrationObject {
        guard let table = newSchema.tableByName[typeName] else {
            shoalPrecondition(ShoalError(.unknownObjectType, "Cannot create an object of type '\(typeName)', which is not in the new schema."))
        }
        let os = newSchema[table]
        do {
            // Unset properties take the class's declared defaults (null for
            // links and collections, which are set below).
            let classDefaults = defaults[typeName] ?? []
            var values: [Value] = []
            for (index, p) in os.properties.prefix(os.storedCount).enumerated() {
                if p.collection == .none, p.type != .object, let item = value[p.name] {
                    values.append(try ValueCoercion.value(item, for: p, className: typeName, realm: nil, update: .error))
                } else {
                    values.append(p.collection == .none && classDefaults.indices.contains(index) ? classDefaults[index] : .null)
                }
            }
            let key = try transaction.insert(table, values: values)
            let object = MigrationObject(migration: self, table: table, key: key, isOld: false)
            for (name, item) in value {
                guard let p = os[name], p.collection != .none || p.type == .object else { continue }
                object[name] = item
            }
            return object
        } catch { shoalPrecondition(error) }
    }

    /// Deletes an object of the new schema.
    public func delete(_ object: MigrationObject) {
        guard !object.isOld else { shoalPrecondition(ShoalError(.unsupported, "Old objects cannot be deleted in a migration.")) }
        do { try transaction.delete(object.table, object.key) } catch { shoalPrecondition(error) }
    }

    /// Deletes every object of a class, returning whether the class had any.
    @discardableResult
    public func deleteData(forType typeName: String) -> Bool {
        guard let table = newSchema.tableByName[typeName] else { return old.schema.tableByName[typeName] != nil }
        let keys = transaction.working.tables[table.index].liveKeys
        do { for key in keys { try transaction.delete(table, key) } } catch { shoalPrecondition(error) }
        return !keys.isEmpty
    }

    /// Copies the values of a property that was renamed: `oldName` in the
    /// stored schema becomes `newName` in the new one.
    public func renameProperty(onType typeName: String, from oldName: String, to newName: String) {
        guard let oldTable = oldSchema.tableByName[typeName], let oldIndex = oldSchema[oldTable].indexByName[oldName],
            let newTable = newSchema.tableByName[typeName], newSchema[newTable][newName] != nil
        else {
            shoalPrecondition(ShoalError(.unknownProperty,
                "Cannot rename property '\(typeName).\(oldName)' to '\(newName)': one of them does not exist.",
                context: ["class": typeName, "property": oldName]))
        }
        guard oldSchema[oldTable].properties[oldIndex].collection == .none else {
            shoalPrecondition(ShoalError(.unsupported, "Renaming collection property '\(typeName).\(oldName)' is not supported."))
        }
        enumerateObjects(ofType: typeName) { old, new in
            new?.setStored(newName, old.map { $0.storedValue(oldName) } ?? .null)
        }
    }

    /// Runs a migration block on `old`, returning the migrated state.
    static func run(_ block: MigrationBlock?, old: Snapshot, to schema: Schema, schemaVersion: UInt64, classes: [Object.Type]) throws(ShoalError) -> Snapshot {
        var defaults: [String: [Value]] = [:]
        for type in classes {
            let info = ClassRegistry.info(for: type)
            defaults[info.schema.className] = info.defaults
        }
        let start = try old.migrated(to: schema, schemaVersion: schemaVersion, defaults: defaults)
        let migration = Migration(old: old, new: start, defaults: defaults)
        block?(migration, old.schemaVersion)
        var result = migration.transaction.working
        result.version = start.version
        return result
    }
}

/// An object seen by a migration: read by property name, and, for the new
/// version of an object, written by property name.
public final class MigrationObject {
    let migration: Migration
    let table: TableKey
    let key: ObjectKey
    let isOld: Bool

    init(migration: Migration, table: TableKey, key: ObjectKey, isOld: Bool) {
        self.migration = migration
        self.table = table
        self.key = key
        self.isOld = isOld
    }

    private var snapshot: Snapshot { isOld ? migration.old : migration.transaction.working }
    private var objectSchema: ObjectSchema { snapshot.schema[table] }

    func storedValue(_ name: String) -> Value {
        guard let p = objectSchema.indexByName[name], objectSchema.properties[p].isStored, objectSchema.properties[p].collection == .none else {
            return .null
        }
        return snapshot.value(table, key, p)
    }

    func setStored(_ name: String, _ value: Value) {
        guard let p = objectSchema.indexByName[name] else { Object.unknownProperty(name, objectSchema) }
        do { try migration.transaction.set(table, key, p, value) } catch { shoalPrecondition(error) }
    }

    /// The value of a property: a Swift value for scalars (`Int`, `String`,
    /// `Double`, `Date`, …), a `MigrationObject` for a link, an array for a
    /// list or set, a dictionary for a map; `nil` for null. Setting one needs
    /// the new version of an object.
    public subscript(name: String) -> Any? {
        get {
            guard let p = objectSchema.indexByName[name], objectSchema.properties[p].isStored else {
                Object.unknownProperty(name, objectSchema)
            }
            let property = objectSchema.properties[p]
            switch property.collection {
            case .none: return box(snapshot.value(table, key, p))
            case .list, .set: return snapshot.collectionElements(table, key, p).map { box($0) as Any }
            case .map: return Dictionary(uniqueKeysWithValues: snapshot.map(table, key, p).map { ($0.key, box($0.value) as Any) })
            }
        }
        set {
            guard !isOld else { shoalPrecondition(ShoalError(.unsupported, "Old objects are read-only in a migration.")) }
            guard let p = objectSchema.indexByName[name], objectSchema.properties[p].isStored else {
                Object.unknownProperty(name, objectSchema)
            }
            let property = objectSchema.properties[p]
            let tx = migration.transaction
            do {
                if property.collection == .none {
                    try tx.set(table, key, p, try stored(newValue, property.collection == .none ? property : property.elementProperty))
                    return
                }
                try tx.collectionClear(table, key, p)
                if property.collection == .map {
                    for (k, item) in try ValueCoercion.entries(newValue, name: "\(objectSchema.className).\(name)") {
                        try tx.mapSet(table, key, p, key: k, try stored(item, property.elementProperty))
                    }
                } else {
                    for item in try ValueCoercion.elements(newValue, name: "\(objectSchema.className).\(name)") {
                        let v = try stored(item, property.elementProperty)
                        if property.collection == .list {
                            try tx.listInsert(table, key, p, v, at: tx.working.list(table, key, p).count)
                        } else {
                            try tx.setInsert(table, key, p, v)
                        }
                    }
                }
            } catch { shoalPrecondition(error) }
        }
    }

    private func stored(_ any: Any?, _ property: Property) throws(ShoalError) -> Value {
        if let object = ValueCoercion.unwrap(any) as? MigrationObject {
            guard !object.isOld else { throw ShoalError(.unsupported, "Link new objects, not old ones, in a migration.") }
            return .link(Link(table: object.table, key: object.key))
        }
        return try ValueCoercion.value(any, for: property, className: objectSchema.className, realm: nil, update: .error)
    }

    private func box(_ value: Value) -> Any? {
        value.boxed { MigrationObject(migration: migration, table: $0.table, key: $0.key, isOld: isOld) }
    }
}
