/// The one description of what a write transaction changed.
///
/// A write produces exactly one record. It has three consumers and there is
/// no other description of a change anywhere:
/// 1. the snapshot: ``Snapshot/applying(_:)`` turns version `baseVersion`
///    into `baseVersion + 1`; the write transaction itself builds its
///    working state by calling the same ``Snapshot/apply(_:)`` op by op, so
///    commit and replay run the same code;
/// 2. the log, which encodes the ops (by table and property index) and
///    replays them on open through that same path;
/// 3. the dependency tracker, which reads ``summary`` to find affected
///    observers from the record alone: which tables, which objects, which
///    columns. Old values come from the previous snapshot, which every commit
///    keeps (it is immutable and shares structure with the new one), and new
///    values from the ops or the new snapshot; neither requires re-reading or
///    re-querying whole tables.
///
/// Ops are primitive and explicit: deleting an object that others link to
/// records the nullified links and list removals as ops of their own before
/// the `delete`, so applying a record never derives further changes except
/// for bookkeeping (indexes, backlinks, counts) that follows from the ops.
struct ChangeRecord: Sendable, Equatable {
    /// The version this record applies to; applying it yields `baseVersion + 1`.
    var baseVersion: UInt64
    /// Microseconds since the Unix epoch at commit; informational.
    var timestampMicros: Int64 = 0
    /// The operations, in the order they were made.
    var ops: [ChangeOp] = []

    var isEmpty: Bool { ops.isEmpty }

    /// Whether a value of an op is a nested list or dictionary (only a
    /// mixed property's value can be).
    var holdsNestedCollection: Bool {
        ops.contains { op in
            switch op {
            case .insert(_, _, let values): values.contains(where: \.isCollection)
            case .set(_, _, _, let value): value.isCollection
            default: false
            }
        }
    }
}

/// One primitive change to one object.
///
/// `property` is the index of a stored property in the class's
/// ``ObjectSchema/properties``. List indices are positions at the time the op
/// is applied, after all earlier ops of the record.
enum ChangeOp: Sendable, Equatable {
    /// Creates the object with key `key`, which must be the table's next key.
    /// `values` holds one value per stored property; collection properties
    /// start empty and their slot holds `.null`.
    case insert(TableKey, ObjectKey, [Value])
    /// Deletes the object. Links pointing at it were removed by earlier ops.
    case delete(TableKey, ObjectKey)
    /// Sets a single-valued property.
    case set(TableKey, ObjectKey, property: Int, Value)
    case listInsert(TableKey, ObjectKey, property: Int, index: Int, Value)
    case listSet(TableKey, ObjectKey, property: Int, index: Int, Value)
    case listRemove(TableKey, ObjectKey, property: Int, index: Int)
    case listMove(TableKey, ObjectKey, property: Int, from: Int, to: Int)
    case setInsert(TableKey, ObjectKey, property: Int, Value)
    case setRemove(TableKey, ObjectKey, property: Int, Value)
    case mapSet(TableKey, ObjectKey, property: Int, key: String, Value)
    case mapRemove(TableKey, ObjectKey, property: Int, key: String)
    /// Removes every element of a list, set or map.
    case collectionClear(TableKey, ObjectKey, property: Int)

    /// The object the op changes.
    var target: (table: TableKey, key: ObjectKey) {
        switch self {
        case .insert(let t, let k, _), .delete(let t, let k), .set(let t, let k, _, _),
            .listInsert(let t, let k, _, _, _), .listSet(let t, let k, _, _, _), .listRemove(let t, let k, _, _),
            .listMove(let t, let k, _, _, _), .setInsert(let t, let k, _, _), .setRemove(let t, let k, _, _),
            .mapSet(let t, let k, _, _, _), .mapRemove(let t, let k, _, _), .collectionClear(let t, let k, _):
            (t, k)
        }
    }

    /// The property the op changes, for everything but insert and delete.
    var property: Int? {
        switch self {
        case .insert, .delete: nil
        case .set(_, _, let p, _), .listInsert(_, _, let p, _, _), .listSet(_, _, let p, _, _),
            .listRemove(_, _, let p, _), .listMove(_, _, let p, _, _), .setInsert(_, _, let p, _),
            .setRemove(_, _, let p, _), .mapSet(_, _, let p, _, _), .mapRemove(_, _, let p, _),
            .collectionClear(_, _, let p):
            p
        }
    }
}

/// Consecutive inserts into one table, held a column at a time: what an
/// insert run of the log decodes to, so that replay appends the objects
/// (``BatchApplier/apply(_:)-(InsertColumns)``) without making a
/// ``ChangeOp`` per object. It stands for exactly the ops of ``ops``.
struct InsertColumns: Sendable, Equatable {
    var table: TableKey
    /// The key of the first object; object `i` has key `firstKey + i`.
    var firstKey: ObjectKey
    /// The number of objects (kept apart: a class may have no stored property).
    var count: Int
    /// One column per stored property, each of `count` values: object
    /// `i`'s value of property `p` is `columns[p][i]`.
    var columns: [RunColumn]

    /// The inserts this stands for, in key order.
    var ops: [ChangeOp] {
        (0..<count).map { i in .insert(table, ObjectKey(firstKey.rawValue + Int64(i)), columns.map { $0[i] }) }
    }
}
