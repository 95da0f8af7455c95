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
    /// Rebuilds the primary and secondary indexes from the columns in one
    /// pass, after a bulk load that skipped them.
    ///
    /// - Returns: a description of the first duplicate primary key, or `nil`.
    mutating func rebuildIndexes(schema: ObjectSchema) -> String? {
        let keys = liveKeys
        if primaryIndex != nil, let pk = schema.primaryKeyIndex {
            var entries: [Value: ObjectKey] = [:]
            entries.reserveCapacity(keys.count)
            for key in keys {
                let value = scalars[pk][key.slot]
                if let other = entries.updateValue(key, forKey: value) {
                    return "\(schema.className) \(other) and \(key) share the primary key \(value)"
                }
            }
            primaryIndex = TreeDictionary(uniqueKeysWithValues: entries)
        }
        for p in secondaryIndexes.keys {
            var groups: [Value: [ObjectKey]] = [:]
            for key in keys { groups[scalars[p][key.slot], default: []].append(key) }
            secondaryIndexes[p] = TreeDictionary(uniqueKeysWithValues: groups.lazy.map { ($0.key, TreeSet($0.value)) })
        }
        return nil
    }
}
