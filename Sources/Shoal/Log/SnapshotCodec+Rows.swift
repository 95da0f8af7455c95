import OrderedCollections

// The payload of a snapshot file in format version 1 (row form): the
// whole state at one version, object keys included, so that the log
// continues after it. Version 2 writes the columnar form instead
// (SnapshotCodec.swift); this one is still read.
//
//   snapshot  := version:varint schemaVersion:varint schema table{schema.classCount}
//   table     := slotCount:varint liveCount:varint object{liveCount}
//   object    := key:varint value{storedCount} collection{collectionProperties} backlinks
//   backlinks := count:varint (table:varint property:varint key:varint){count}
//   collection:= count:varint (value | key:string value){count}
//
// Slots not listed are deleted objects (keys are never reused). Values use
// the change record value encoding (ChangeRecordCodec.swift).

extension SnapshotCodec {
    /// Rebuilds a snapshot written in the row form. Objects are inserted with their to-one links when
    /// the target already exists; a table whose links point at tables read
    /// after it is held until those are in (tables are applied in reverse
    /// order at the end), so that the usual shapes (a dog linking to its
    /// owner) load as plain inserts. Links that still point ahead (cycles)
    /// and the collections are set last, so links may point anywhere. Every
    /// op is checked against the state before it is applied.
    static func decodeRows(_ bytes: [UInt8]) throws(DecodingFailure) -> Snapshot {
        var r = ByteReader(bytes)
        let version = try r.varint()
        let schemaVersion = try r.varint()
        let schema = try SchemaCodec.decode(&r)
        var batch = BatchApplier(Snapshot(schema: schema, version: 0, schemaVersion: schemaVersion))
        var deferred: [ChangeOp] = []
        // Only the objects that have backlinks (most have none); the total
        // count shows that no other object gained any when links were rebuilt.
        var storedBacklinks: [(TableKey, ObjectKey, [Backlink])] = []
        var storedBacklinkCount = 0
        /// Tables whose objects are all in.
        var complete = [Bool](repeating: false, count: schema.objectSchema.count)
        /// Objects of tables held back, with their offsets (for errors), and the tables' slot counts.
        var held: [(t: TableKey, slotCount: Int, objects: [(offset: Int, key: ObjectKey, values: [Value])])] = []

        /// Inserts one object, after the dead slots before it; a link whose
        /// target is not in yet waits in `deferred`.
        func insert(_ t: TableKey, _ key: ObjectKey, _ values: [Value], offset: Int) throws(DecodingFailure) {
            batch.appendDeadSlots(t, count: key.slot - batch.nextKey(t).slot)
            var values = values
            for p in values.indices {
                guard let link = values[p].linkValue, !complete[link.table.index], link.table != t || link.key >= key else { continue }
                deferred.append(.set(t, key, property: p, values[p]))
                values[p] = .null
            }
            if let problem = batch.apply(.insert(t, key, values)) { throw DecodingFailure(offset: offset, reason: problem) }
        }
        func finish(_ t: TableKey, slotCount: Int) {
            batch.appendDeadSlots(t, count: slotCount - batch.nextKey(t).slot)
            complete[t.index] = true
        }

        /// The deleted slots of the tables so far.
        var deletedSlots = 0
        for os in schema.objectSchema {
            let t = schema.tableByName[os.className]!
            let shapes = schema.shapes[t.index]
            let pointsAhead = shapes.contains { $0.collection == .none && $0.value.linkTable > t.index }
            let slotCount = try r.count("slot count")
            let liveCount = try r.count("live count")
            guard liveCount <= slotCount else { throw r.fail("\(liveCount) live objects in \(slotCount) slots") }
            // Each live object takes at least a byte; deleted slots only memory.
            guard liveCount <= r.remaining else { throw r.fail("\(liveCount) live objects in \(r.remaining) bytes") }
            if let problem = SnapshotCodec.deletedSlotsProblem(slotCount - liveCount, os.className, spent: &deletedSlots) {
                throw r.fail(problem)
            }
            let stored = os.storedCount
            var previous: Int64 = -1
            var objects: [(offset: Int, key: ObjectKey, values: [Value])] = []
            if pointsAhead { objects.reserveCapacity(liveCount) }
            for _ in 0..<liveCount {
                let offset = r.offset
                let keyRaw = try r.varint()
                guard keyRaw < UInt64(slotCount), Int64(keyRaw) > previous else { throw r.fail("object key \(keyRaw) out of order or range") }
                let key = ObjectKey(Int64(keyRaw))
                previous = Int64(keyRaw)
                var values: [Value] = []
                values.reserveCapacity(stored)
                for p in 0..<stored {
                    let start = r.offset
                    let v = try ChangeRecordCodec.decodeValue(&r, schema)
                    guard shapes[p].collection == .none ? shapes[p].value.accepts(v) : v.isNull else {
                        throw DecodingFailure(offset: start, reason: "value \(v) does not fit '\(os.className).\(os.properties[p].name)'")
                    }
                    values.append(v)
                }
                for p in 0..<stored where shapes[p].collection != .none {
                    let n = try r.count("collection size")
                    for i in 0..<n {
                        let key2 = shapes[p].collection == .map ? try r.string() : ""
                        let start = r.offset
                        let v = try ChangeRecordCodec.decodeValue(&r, schema)
                        guard shapes[p].value.accepts(v) else {
                            throw DecodingFailure(offset: start, reason: "element \(v) does not fit '\(os.className).\(os.properties[p].name)'")
                        }
                        switch shapes[p].collection {
                        case .list: deferred.append(.listInsert(t, key, property: p, index: i, v))
                        case .set: deferred.append(.setInsert(t, key, property: p, v))
                        default: deferred.append(.mapSet(t, key, property: p, key: key2, v))
                        }
                    }
                }
                var backlinks: [Backlink] = []
                for _ in 0..<(try r.count("backlink count")) {
                    let origin = TableKey(try r.index(below: schema.objectSchema.count, "backlink table"))
                    let property = try r.index(below: schema[origin].storedCount, "backlink property")
                    let originKey = try r.varint()
                    guard originKey < UInt64(Int64.max) else { throw r.fail("backlink key out of range") }
                    backlinks.append(Backlink(origin: origin, property: property, key: ObjectKey(Int64(originKey))))
                }
                if !backlinks.isEmpty { storedBacklinks.append((t, key, backlinks)) }
                storedBacklinkCount += backlinks.count
                if pointsAhead {
                    objects.append((offset, key, values))
                } else {
                    try insert(t, key, values, offset: offset)
                }
            }
            if pointsAhead {
                held.append((t, slotCount, objects))
            } else {
                finish(t, slotCount: slotCount)
            }
        }
        for (t, slotCount, objects) in held.reversed() {
            for object in objects { try insert(t, object.key, object.values, offset: object.offset) }
            finish(t, slotCount: slotCount)
        }
        guard r.isAtEnd else { throw r.fail("bytes left after the last table") }
        for op in deferred {
            if let problem = batch.apply(op) { throw r.fail(problem) }
        }
        if let problem = batch.finish() { throw r.fail(problem) }
        var snapshot = batch.snapshot
        let rebuiltBacklinkCount = snapshot.tables.reduce(0) { $0 + $1.backlinks.totalLinkCount }
        guard rebuiltBacklinkCount == storedBacklinkCount else {
            throw r.fail("the snapshot stores \(storedBacklinkCount) backlinks, but its links make \(rebuiltBacklinkCount)")
        }
        for (t, key, stored) in storedBacklinks {
            let rebuilt = snapshot.tables[t.index].backlinks[key.slot]
            // Usually equal as they are; otherwise they must hold the same
            // links, and their stored order (the order links were made) wins.
            guard !stored.elementsEqual(rebuilt) else { continue }
            guard Dictionary(grouping: stored, by: { $0 }).mapValues(\.count) == Dictionary(grouping: rebuilt, by: { $0 }).mapValues(\.count)
            else {
                throw r.fail("stored backlinks of \(schema[t].className) \(key) do not match its links")
            }
            snapshot.tables[t.index].backlinks[key.slot] = Backlinks(stored)
        }
        snapshot.version = version
        return snapshot
    }
}
