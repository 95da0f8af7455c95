import HashTreeCollections
import OrderedCollections

/// One link pointing at an object: who links, through which property.
struct Backlink: Hashable, Sendable {
    var origin: TableKey
    var property: Int
    var key: ObjectKey
}

/// The objects of one class, held column-wise in persistent vectors indexed
/// by object key (a key is a slot; slots of deleted objects stay empty and
/// are never reused).
///
/// Every structure here is persistent, so copying a `Table` is O(1) and a
/// change copies only the nodes it touches.
struct Table: Sendable {
    let key: TableKey
    /// One column per stored single-valued property, by property index
    /// (collection properties have an empty placeholder column).
    var scalars: [PersistentVector<Value>]
    var lists: [Int: PersistentVector<[Value]>] = [:]
    var sets: [Int: PersistentVector<OrderedSet<Value>>] = [:]
    var maps: [Int: PersistentVector<OrderedDictionary<String, Value>>] = [:]
    /// Whether each slot holds a live object.
    var alive = PersistentVector<Bool>()
    /// Links pointing at each object, in the order they were made.
    var backlinks = PersistentVector<[Backlink]>()
    /// The number of live objects.
    var count = 0
    /// Primary key value to object, when the class has a primary key.
    var primaryIndex: TreeDictionary<Value, ObjectKey>?
    /// Property index to (value to objects), for `indexed: true` properties.
    var secondaryIndexes: [Int: TreeDictionary<Value, TreeSet<ObjectKey>>] = [:]

    init(key: TableKey, schema: ObjectSchema) {
        self.key = key
        var scalars: [PersistentVector<Value>] = []
        for (i, p) in schema.properties.enumerated() where p.isStored {
            scalars.append(PersistentVector())
            switch p.collection {
            case .none:
                if p.isPrimary { primaryIndex = [:] } else if p.isIndexed { secondaryIndexes[i] = [:] }
            case .list: lists[i] = PersistentVector()
            case .set: sets[i] = PersistentVector()
            case .map: maps[i] = PersistentVector()
            }
        }
        self.scalars = scalars
    }

    /// The next key an insert must use.
    var nextKey: ObjectKey { ObjectKey(Int64(alive.count)) }

    func isAlive(_ key: ObjectKey) -> Bool {
        key.rawValue >= 0 && key.slot < alive.count && alive[key.slot]
    }

    /// Keys of live objects in key (table) order.
    var liveKeys: [ObjectKey] {
        var out: [ObjectKey] = []
        out.reserveCapacity(count)
        alive.forEachChunk { base, chunk in
            for (i, live) in chunk.enumerated() where live { out.append(ObjectKey(Int64(base + i))) }
        }
        return out
    }
}

typealias OrderedSetStorage = OrderedSet<Value>
typealias MapStorage = OrderedDictionary<String, Value>

extension Table {
    /// Appends the slot of an object deleted before a snapshot was written:
    /// empty values, not alive. Used only when restoring a snapshot, so that
    /// keys keep their slots.
    mutating func appendDeadSlot() {
        for p in 0..<scalars.count {
            scalars[p].append(.null)
            if lists[p] != nil { lists[p]!.append([]) }
            if sets[p] != nil { sets[p]!.append([]) }
            if maps[p] != nil { maps[p]!.append([:]) }
        }
        alive.append(false)
        backlinks.append([])
    }
}

extension Table {
    /// Adds the live objects in slots `start...` to the primary and secondary
    /// indexes, which must not hold them yet: the deferred half of an insert
    /// applied with `indexing: false`.
    ///
    /// Values are grouped first, so a secondary index takes one bucket union
    /// per distinct value rather than one nested insert per object, and the
    /// primary-key insert doubles as the duplicate check.
    ///
    /// - Returns: a description of the first duplicate primary key, or `nil`
    ///   (the indexes are then incomplete, and the table must be discarded).
    mutating func indexSlots(from start: Int, schema: ObjectSchema) -> String? {
        guard start < alive.count, primaryIndex != nil || !secondaryIndexes.isEmpty else { return nil }
        var keys: [ObjectKey] = []
        keys.reserveCapacity(alive.count - start)
        for slot in start..<alive.count where alive[slot] { keys.append(ObjectKey(Int64(slot))) }
        if primaryIndex != nil, let pk = schema.primaryKeyIndex {
            for key in keys {
                let value = scalars[pk][key.slot]
                if let other = primaryIndex!.updateValue(key, forKey: value) {
                    return "\(schema.className) \(other) and \(key) share the primary key \(value)"
                }
            }
        }
        // (Not `for p in secondaryIndexes.keys`: the keys view would share
        // the dictionary's storage, and every write below would copy it.)
        for p in Array(secondaryIndexes.keys) {
            if keys.count == 1 {
                // One object (an insert followed by a set, as a live write
                // makes them): no grouping.
                secondaryIndexes[p]![scalars[p][keys[0].slot], default: []].insert(keys[0])
                continue
            }
            var groups: [Value: [ObjectKey]] = [:]
            for key in keys { groups[scalars[p][key.slot], default: []].append(key) }
            for (value, members) in groups {
                if secondaryIndexes[p]![value] == nil {
                    secondaryIndexes[p]![value] = TreeSet(members)
                } else {
                    secondaryIndexes[p]![value]!.formUnion(members)
                }
            }
        }
        return nil
    }
}
