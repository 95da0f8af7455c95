import HashTreeCollections
import OrderedCollections
/// One immutable version of the whole database: the schema and every table.
///
/// Snapshots are values built from persistent structures, so holding one
/// costs nothing, copying one is O(number of tables), and a commit's new
/// snapshot shares everything it did not touch with the previous one.
/// Readers hold a snapshot; a writer builds the next one from a copy and
/// publishes it atomically, so readers never block and never see half a write.
struct Snapshot: Sendable {
    /// The version: the number of committed records applied since the empty database.
    var version: UInt64
    var schema: Schema
    /// The application's `schemaVersion` the data was last written under.
    var schemaVersion: UInt64 = 0
    var tables: [Table]

    /// An empty database with the given schema at version 0.
    init(schema: Schema, version: UInt64 = 0, schemaVersion: UInt64 = 0) {
        self.version = version
        self.schema = schema
        self.schemaVersion = schemaVersion
        self.tables = schema.objectSchema.enumerated().map { Table(key: TableKey($0.offset), schema: $0.element) }
    }

    /// The value of a single-valued property of a live object.
    func value(_ table: TableKey, _ key: ObjectKey, _ property: Int) -> Value {
        tables[table.index].scalars[property][key.slot]
    }

    func list(_ table: TableKey, _ key: ObjectKey, _ property: Int) -> [Value] {
        tables[table.index].lists[property]?[key.slot] ?? []
    }

    func set(_ table: TableKey, _ key: ObjectKey, _ property: Int) -> OrderedSetStorage {
        tables[table.index].sets[property]?[key.slot] ?? []
    }

    func map(_ table: TableKey, _ key: ObjectKey, _ property: Int) -> MapStorage {
        tables[table.index].maps[property]?[key.slot] ?? [:]
    }

    func isAlive(_ table: TableKey, _ key: ObjectKey) -> Bool {
        tables[table.index].isAlive(key)
    }

    /// The object with primary key `value`, if any.
    func object(_ table: TableKey, primaryKey value: Value) -> ObjectKey? {
        tables[table.index].primaryIndex?[value]
    }

    /// The links pointing at an object from `origin`'s `property`, in link order.
    func backlinks(_ table: TableKey, _ key: ObjectKey, origin: TableKey, property: Int) -> [ObjectKey] {
        tables[table.index].backlinks[key.slot].compactMap {
            $0.origin == origin && $0.property == property ? $0.key : nil
        }
    }
}
