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
    /// A snapshot of no classes: a placeholder for a state taken over
    /// (``BatchApplier/init(taking:)``).
    static let empty = Snapshot(schema: Schema([]))

    init(schema: Schema, version: UInt64 = 0, schemaVersion: UInt64 = 0) {
        self.version = version
        self.schema = schema
        self.schemaVersion = schemaVersion
        self.tables = schema.objectSchema.enumerated().map { Table(key: TableKey($0.offset), schema: $0.element) }
    }

    /// Reads table `t` in place, through a pointer valid only inside `body`.
    ///
    /// `tables[t.index].x` copies the whole `Table` first (a retain and
    /// release per column and index, in every per-object read), and so does
    /// calling a method on a borrowed `Table`: read fields through `pointee`.
    @inline(__always)
    func withTable<R>(_ t: TableKey, _ body: (UnsafePointer<Table>) -> R) -> R {
        tables.withUnsafeBufferPointer { body($0.baseAddress! + t.index) }
    }

    /// The value of a single-valued property of a live object.
    func value(_ table: TableKey, _ key: ObjectKey, _ property: Int) -> Value {
        withTable(table) { Column.value(Self.column($0, property), key.slot) }
    }

    // MARK: Reads through a pointer
    //
    // For a snapshot held behind a pointer (``RealmInstance``'s): a method
    // called on the `pointee` of a snapshot is passed its fields one by
    // one, each copied (a retain per table array and schema field); these
    // read the fields in place. A string property is read through
    // ``unsafeColumn(_:_:_:)`` and ``Column/codedString(_:_:)`` or
    // ``Column/unsafeStringBytes(_:_:)``.

    /// The address of table `table` of the snapshot at `snapshot`, taken
    /// out of the array's closure: valid only while that snapshot is alive
    /// and unchanged.
    @inline(__always)
    static func table(_ snapshot: UnsafePointer<Snapshot>, _ table: TableKey) -> UnsafePointer<Table> {
        snapshot.pointee.tables.withUnsafeBufferPointer { $0.baseAddress! + table.index }
    }

    /// The address of column `property` of the table at `table` (through
    /// a buffer pointer: `scalars[property]` copies the column).
    @inline(__always)
    static func column(_ table: UnsafePointer<Table>, _ property: Int) -> UnsafePointer<Column> {
        table.pointee.scalars.withUnsafeBufferPointer { $0.baseAddress! + property }
    }

    /// Whether object `key` is live in the table at `table`, read field by
    /// field: calling `Table.isAlive` on `pointee` copies the table.
    @inline(__always)
    static func isAlive(in table: UnsafePointer<Table>, _ key: ObjectKey) -> Bool {
        key.rawValue >= 0 && key.slot < table.pointee.alive.count && table.pointee.alive[key.slot]
    }

    /// The address of a column of table `table` of the snapshot at
    /// `snapshot`: valid only while that snapshot is alive and unchanged.
    @inline(__always)
    static func unsafeColumn(_ snapshot: UnsafePointer<Snapshot>, _ table: TableKey, _ property: Int) -> UnsafePointer<Column> {
        column(Self.table(snapshot, table), property)
    }

    /// Whether object `key` of `table` is live in the snapshot at `snapshot`.
    @inline(__always)
    static func isAlive(_ snapshot: UnsafePointer<Snapshot>, _ table: TableKey, _ key: ObjectKey) -> Bool {
        isAlive(in: Self.table(snapshot, table), key)
    }

    /// The object with primary key `value` in the snapshot at `snapshot`, if any.
    static func object(_ snapshot: UnsafePointer<Snapshot>, _ table: TableKey, primaryKey value: Value) -> ObjectKey? {
        Self.table(snapshot, table).pointee.primaryIndex?[value]
    }

    func list(_ table: TableKey, _ key: ObjectKey, _ property: Int) -> [Value] {
        withTable(table) { $0.pointee.lists[property]?[key.slot] ?? [] }
    }

    func set(_ table: TableKey, _ key: ObjectKey, _ property: Int) -> OrderedSetStorage {
        withTable(table) { $0.pointee.sets[property]?[key.slot] ?? [] }
    }

    func map(_ table: TableKey, _ key: ObjectKey, _ property: Int) -> MapStorage {
        withTable(table) { $0.pointee.maps[property]?[key.slot] ?? [:] }
    }

    func isAlive(_ table: TableKey, _ key: ObjectKey) -> Bool {
        withTable(table) { Self.isAlive(in: $0, key) }
    }

    /// The object with primary key `value`, if any.
    func object(_ table: TableKey, primaryKey value: Value) -> ObjectKey? {
        withTable(table) { $0.pointee.primaryIndex?[value] }
    }

    /// The links pointing at an object from `origin`'s `property`, in link order.
    func backlinks(_ table: TableKey, _ key: ObjectKey, origin: TableKey, property: Int) -> [ObjectKey] {
        withTable(table) { table in
            table.pointee.backlinks[key.slot].compactMap { $0.origin == origin && $0.property == property ? $0.key : nil }
        }
    }

    /// Gives each packed integer leaf whose bytes lie in `bytes` (a loaded
    /// snapshot's, adopted) a copy of its own, so that `bytes` can be freed.
    mutating func copyLeaves(sharing bytes: [UInt8]) {
        bytes.withUnsafeBytes { bytes in
            for t in tables.indices {
                for p in tables[t].scalars.indices { tables[t].scalars[p].copyLeaves(sharing: bytes) }
            }
        }
    }

    /// The packed integer leaves whose bytes lie in `bytes`: how many, and
    /// the bytes their values take.
    func leaves(sharing bytes: [UInt8]) -> (count: Int, bytes: Int) {
        bytes.withUnsafeBytes { bytes in
            var shared = (count: 0, bytes: 0)
            for table in tables {
                for column in table.scalars {
                    let leaves = column.ints.leaves(sharing: bytes)
                    shared.count += leaves.count
                    shared.bytes += leaves.bytes
                }
            }
            return shared
        }
    }
}
