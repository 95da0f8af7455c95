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
    /// The lists of objects handed out, by owner and property (see ``list(of:property:)``).
    var lists: [ListID: List<MigrationObject>] = [:]

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
            let oldObject = self.object(oldTable, key, isOld: true)
            let newObject = newTable.flatMap { t in
                transaction.working.isAlive(t, key) ? self.object(t, key, isOld: false) : nil
            }
            block(oldObject, newObject)
        }
    }

    /// Creates an object of a class of the new schema from a dictionary of
    /// property values or an array of values in property order, as
    /// `Realm.create` takes them; links and list elements may be objects of
    /// this migration.
    ///
    /// ```swift
    /// let marley = migration.create("Pet", value: ["Marley", Pet.Kind.dog.rawValue])
    /// let toto = migration.create("Pet", value: ["name": "Toto"])
    /// ```
    @discardableResult
    public func create(_ typeName: String, value: Any = [String: Any]()) -> MigrationObject {
        do { return try insert(typeName, value: value) } catch { shoalPrecondition(error) }
    }

    /// A new object of a class of the new schema, made from what
    /// ``create(_:value:)`` takes (also for an embedded class: its owner's
    /// link is set by the caller).
    func insert(_ typeName: String, value: Any) throws(ShoalError) -> MigrationObject {
        guard let table = newSchema.tableByName[typeName] else {
            throw ShoalError(.unknownObjectType, "Cannot create an object of type '\(typeName)', which is not in the new schema.")
        }
        let os = newSchema[table]
        do {
            // Unset properties take the class's declared defaults (null for
            // links and collections, which are set below).
            let classDefaults = defaults[typeName] ?? []
            let given = Dictionary(Object.namedValues(value, schema: os), uniquingKeysWith: { _, last in last })
            var values: [Value] = []
            for (index, p) in os.properties.prefix(os.storedCount).enumerated() {
                if p.collection == .none, p.type != .object, let item = given[index] {
                    values.append(try ValueCoercion.value(item, for: p, className: typeName, realm: nil, update: .error))
                } else {
                    values.append(p.collection == .none && classDefaults.indices.contains(index) ? classDefaults[index] : .null)
                }
            }
            let key = try transaction.insert(table, values: values)
            let object = self.object(table, key, isOld: false)
            for (index, item) in given.sorted(by: { $0.key < $1.key }) {
                let p = os.properties[index]
                guard p.collection != .none || p.type == .object else { continue }
                object[p.name] = item
            }
            return object
        }
    }

    /// Deletes an object of the new schema.
    public func delete(_ object: MigrationObject) {
        guard let migrated = object.migrated, !migrated.isOld else {
            shoalPrecondition(ShoalError(.unsupported, "Only new objects of this migration can be deleted in a migration."))
        }
        do { try transaction.delete(migrated.table, migrated.key) } catch { shoalPrecondition(error) }
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
            new?.migrated?.setStored(newName, old?.migrated.map { $0.storedValue(oldName) } ?? .null)
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
        try migration.flushLists()
        try migration.settleEmbeddedObjects()
        var result = migration.transaction.working
        result.version = start.version
        return result
    }
}

extension Realm {
    /// Runs the configuration's migration on its database now, without
    /// opening a Realm for use: when the stored schema version is lower
    /// than ``Configuration/schemaVersion``, ``Configuration/migrationBlock``
    /// runs and the migrated state is written, as opening would do. A later
    /// open finds the database migrated. Nothing to do for an in-memory
    /// configuration or a database that does not exist yet (it is created).
    ///
    /// ```swift
    /// let config = Realm.Configuration(fileURL: url, schemaVersion: 3, migrationBlock: migrationBlock)
    /// try Realm.performMigration(for: config)
    /// let realm = try Realm(configuration: config)
    /// ```
    ///
    /// - Throws: ``ShoalError`` `alreadyOpen` when a Realm for the database
    ///   is open in this process (Realm's "Cannot migrate Realms that are
    ///   already open."); the errors opening gives otherwise.
    public static func performMigration(for configuration: Configuration = .defaultConfiguration) throws {
        guard configuration.inMemoryIdentifier == nil else { return }
        if RealmCoordinator.isOpen(configuration.storeIdentifier) {
            throw ShoalError(.alreadyOpen, "Cannot migrate Realms that are already open.",
                context: ["path": configuration.databasePath])
        }
        // Opening the store runs the migration; the store closes again
        // when the last reference to it goes, here.
        _ = try RealmCoordinator.coordinator(for: configuration)
    }
}

/// An object seen by a migration: a ``DynamicObject``, as in Realm, read by
/// property name and, for the new version of an object, written by
/// property name.
///
/// ```swift
/// migration.enumerateObjects(ofType: "Person") { _, newObject in
///     let pets = newObject!["pets"] as! List<MigrationObject>
///     pets.append(migration.create("Pet", value: ["Marley", 1]))
/// }
/// ```
public typealias MigrationObject = DynamicObject

/// What makes a ``DynamicObject`` a ``MigrationObject``: its migration, and
/// which object of the old or new state it is.
final class MigratedObject {
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
    var objectSchema: ObjectSchema { snapshot.schema[table] }

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

    /// See ``DynamicObject/subscript(_:)``.
    func get(_ name: String) -> Any? {
        guard let p = objectSchema.indexByName[name], objectSchema.properties[p].isStored else {
            Object.unknownProperty(name, objectSchema)
        }
        let property = objectSchema.properties[p]
        switch property.collection {
        case .none: return box(snapshot.value(table, key, p))
        case .list where property.type == .object: return migration.list(of: self, property: p)
        case .list, .set: return snapshot.collectionElements(table, key, p).map { box($0) as Any }
        case .map: return Dictionary(uniqueKeysWithValues: snapshot.map(table, key, p).map { ($0.key, box($0.value) as Any) })
        }
    }

    /// See ``DynamicObject/subscript(_:)``.
    func set(_ name: String, _ newValue: Any?) {
        guard !isOld else { shoalPrecondition(ShoalError(.unsupported, "Old objects are read-only in a migration.")) }
        guard let p = objectSchema.indexByName[name], objectSchema.properties[p].isStored else {
            Object.unknownProperty(name, objectSchema)
        }
        let property = objectSchema.properties[p]
        let tx = migration.transaction
        do {
            if property.collection == .none {
                try tx.set(table, key, p, try stored(newValue, property))
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
            migration.listWasAssigned(table, key, p)
        } catch { shoalPrecondition(error) }
    }

    private func stored(_ any: Any?, _ property: Property) throws(ShoalError) -> Value {
        let unwrapped = ValueCoercion.unwrap(any)
        if let object = unwrapped as? DynamicObject, let migrated = object.migrated {
            return try migrated.link()
        }
        // An unmanaged object, or a dictionary or array of property values,
        // for a link or a list of objects makes a new object of the target
        // class from its values, as Realm's migrations do (its Migration
        // example gives `Address(value:)` for an embedded `Address`). The
        // unmanaged object stays unmanaged: nothing of this migration lives
        // past it.
        if property.type == .object, let target = property.objectClassName, let unwrapped,
            (unwrapped as? Object).map({ $0.ref == nil }) ?? (unwrapped is [String: Any?] || unwrapped is [Any?])
        {
            guard let created = try migration.insert(target, value: unwrapped).migrated else {
                preconditionFailure("an object a migration creates is a migration object")
            }
            return try created.link()
        }
        return try ValueCoercion.value(any, for: property, className: objectSchema.className, realm: nil, update: .error)
    }

    /// The link to this object, which must be a new one.
    func link() throws(ShoalError) -> Value {
        guard !isOld else { throw ShoalError(.unsupported, "Link new objects, not old ones, in a migration.") }
        return .link(Link(table: table, key: key))
    }

    func box(_ value: Value) -> Any? {
        value.boxed { migration.object($0.table, $0.key, isOld: isOld) }
    }
}

extension Migration {
    /// The migration object for object `key` of `table` in the old or new state.
    func object(_ table: TableKey, _ key: ObjectKey, isOld: Bool) -> MigrationObject {
        let object = DynamicObject()
        object.migrated = MigratedObject(migration: self, table: table, key: key, isOld: isOld)
        return object
    }

    /// The list of objects `property` of `owner`, as a `List<MigrationObject>`:
    /// the same list each time it is read, so that what is appended to it is
    /// what the next read sees. The lists of new objects are written to the
    /// migrated state when the block returns (``flushLists()``), and when
    /// the property is assigned.
    func list(of owner: MigratedObject, property: Int) -> List<MigrationObject> {
        let id = ListID(table: owner.table, key: owner.key, property: property, isOld: owner.isOld)
        if let list = lists[id] { return list }
        let snapshot = owner.isOld ? old : transaction.working
        let list = List<MigrationObject>()
        for value in snapshot.list(owner.table, owner.key, property) {
            guard case .link(let link) = value else { continue }
            list.append(object(link.table, link.key, isOld: owner.isOld))
        }
        lists[id] = list
        return list
    }

    /// After a list property was assigned: the list read earlier, if any,
    /// now holds what was assigned.
    func listWasAssigned(_ table: TableKey, _ key: ObjectKey, _ property: Int) {
        let id = ListID(table: table, key: key, property: property, isOld: false)
        guard let list = lists.removeValue(forKey: id) else { return }
        let fresh = self.list(of: MigratedObject(migration: self, table: table, key: key, isOld: false), property: property)
        lists[id] = list
        list.removeAll()
        list.append(objectsIn: fresh)
    }

    /// Writes each list of new objects read during the migration to the
    /// migrated state, where it differs: elements deleted since are left
    /// out, and an old object in one stops the migration.
    func flushLists() throws(ShoalError) {
        let working = transaction
        let handedOut = lists
        lists.removeAll()
        for (id, list) in handedOut where !id.isOld && working.working.isAlive(id.table, id.key) {
            var links: [Value] = []
            for element in list {
                guard let migrated = element.migrated else {
                    throw ShoalError(.unsupported, "Only objects of this migration can be added to a list in a migration.")
                }
                let link = try migrated.link()
                guard working.working.isAlive(migrated.table, migrated.key) else { continue }
                links.append(link)
            }
            guard links != working.working.list(id.table, id.key, id.property) else { continue }
            try working.collectionClear(id.table, id.key, id.property)
            for (index, link) in links.enumerated() { try working.listInsert(id.table, id.key, id.property, link, at: index) }
        }
    }
}

/// Which object's list property a ``Migration`` handed out, in the old or new state.
struct ListID: Hashable {
    let table: TableKey
    let key: ObjectKey
    let property: Int
    let isOld: Bool
}
