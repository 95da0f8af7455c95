// Loading a columnar snapshot (format version 2; grammar in SnapshotCodec.swift).

extension SnapshotCodec {
    /// Rebuilds a snapshot written in the columnar form.
    ///
    /// Each run is checked and appended by ``BatchApplier``, as log replay
    /// appends an insert run. A link whose target is not in yet (a cycle
    /// between classes, a later object of its own class, a mixed link to a
    /// class read later) is stored as null and set once every table is in.
    /// Collections are added next, element by element through the checked
    /// ops of replay, then the indexes are completed. Last, the stored
    /// backlinks are compared with those the links made: they must hold
    /// the same links, and their stored order (the order the links were
    /// made) wins. Objects whose backlinks are not stored keep the order
    /// loading made, which is theirs (``SnapshotCodec/loadOrder(_:of:schema:position:)``).
    ///
    /// `reader` is at the payload's start. When its payload is still being
    /// decompressed (``ByteReader/progress``), both threads read it as it
    /// fills, and this one decompresses what the decoder reads next while
    /// it has nothing to apply.
    static func decodeColumnar(
        _ reader: ByteReader, leafKinds: Bool, codedKinds: Bool, decodeAheadFrom threshold: Int
    ) throws(DecodingFailure) -> Snapshot {
        var r = reader
        let bytes = r.bytes
        let version = try r.varint()
        let schemaVersion = try r.varint()
        let schema = try SchemaCodec.decode(&r)
        let classCount = schema.objectSchema.count
        var batch = BatchApplier(Snapshot(schema: schema, version: 0, schemaVersion: schemaVersion))
        /// Links set after the tables, with the offsets of their runs.
        var deferred: [(offset: Int, op: ChangeOp)] = []
        var afterTables = r.offset
        var failure: DecodingFailure?
        let apply = { (event: TableEvent) -> Bool in
            switch event {
            case .run(let offset, let skip, let run, let later):
                for op in later { deferred.append((offset, op)) }
                batch.appendDeadSlots(run.table, count: skip)
                if let problem = batch.apply(run) {
                    failure = DecodingFailure(offset: offset, reason: problem)
                    return false
                }
            case .tableEnd(let t, let deadSlots):
                batch.appendDeadSlots(t, count: deadSlots)
            case .end(let offset):
                afterTables = offset
            }
            return true
        }
        // A large snapshot is decoded on another thread while this one
        // applies, as replay does a large record.
        r.adoptsLeaves = true
        if bytes.count >= threshold {
            let start = r
            // While the payload decompresses, this thread takes the next chunk when it has nothing to apply.
            let idle: (() -> Bool)? = r.progress.map { progress in { progress.decodeNext() } }
            try DecodeAhead<TableEvent>.run(
                produce: { emit throws(DecodingFailure) in
                    var r = start
                    try decodeTables(&r, schema: schema, leafKinds: leafKinds, codedKinds: codedKinds) { event in emit(event, event.isLarge) }
                }, consume: { apply($0) }, idle: idle)
        } else {
            try decodeTables(&r, schema: schema, leafKinds: leafKinds, codedKinds: codedKinds, emit: apply)
        }
        if let failure { throw failure }
        r.move(to: afterTables)
        for (offset, op) in deferred {
            if let problem = batch.apply(op) { throw DecodingFailure(offset: offset, reason: problem) }
        }
        for t in 0..<classCount { try decodeCollections(&r, table: t, into: &batch) }
        // Counted as the tables hold them (a run appended off a leaf's
        // boundary was copied), and copied out, if so, before the secondary
        // index builds are handed the tables.
        if !keepsAdoptedLeaves(adopted: batch.snapshot.leaves(sharing: bytes).bytes, of: bytes.count) {
            batch.copyLeaves(sharing: bytes)
        }
        if let problem = batch.finish() { throw r.fail(problem) }
        var snapshot = batch.snapshot
        for t in 0..<classCount { try decodeBacklinks(&r, table: t, into: &snapshot) }
        guard r.isAtEnd else { throw r.fail("\(bytes.count - r.offset) bytes left after the backlinks") }
        snapshot.version = version
        return snapshot
    }

    /// Whether a loaded snapshot keeps the packed leaves it adopted in its
    /// decompressed bytes, which they then keep in memory whole: when the
    /// leaves its tables hold there make up at least three quarters of them, so that what is kept and
    /// not theirs (strings, collections, the schema) is at most a third
    /// of what they would take copied. Otherwise they are copied out
    /// (``Snapshot/copyLeaves(sharing:)``) and the bytes freed.
    static func keepsAdoptedLeaves(adopted: Int, of total: Int) -> Bool {
        adopted > 0 && adopted >= total - total / 4
    }

    /// What reading the tables of a columnar snapshot hands to the thread
    /// that applies them.
    private enum TableEvent: Sendable {
        /// A run of objects after `skip` deleted slots, with the links
        /// taken out of it to set once every table is in.
        case run(offset: Int, skip: Int, InsertColumns, later: [ChangeOp])
        /// The deleted slots after a table's last run.
        case tableEnd(TableKey, deadSlots: Int)
        /// Where the tables end.
        case end(offset: Int)

        /// Whether it should be handed over without waiting for a batch.
        var isLarge: Bool {
            if case .run = self { true } else { false }
        }
    }

    /// Reads the tables of a columnar snapshot, checking every count and
    /// every run's columns, and hands each run to `emit` in order; stops
    /// when `emit` returns `false`.
    private static func decodeTables(
        _ r: inout ByteReader, schema: Schema, leafKinds: Bool, codedKinds: Bool, emit: (TableEvent) -> Bool
    ) throws(DecodingFailure) {
        let classCount = schema.objectSchema.count
        /// Tables whose objects are all in.
        var complete = [Bool](repeating: false, count: classCount)
        /// The deleted slots of the tables so far.
        var deletedSlots = 0
        for _ in 0..<classCount {
            let tableOffset = r.offset
            let t = try r.index(below: classCount, "table")
            let className = schema.objectSchema[t].className
            guard !complete[t] else { throw DecodingFailure(offset: tableOffset, reason: "table \(className) appears twice") }
            let slotOffset = r.offset
            let slotCount = try r.int("slot count")
            // Deleted slots take no bytes but do take memory when loaded:
            // a count no database could have reached is damage.
            guard slotCount <= SnapshotCodec.maximumSlots else {
                throw DecodingFailure(offset: slotOffset, reason: "\(slotCount) slots of \(className), over the most a table holds (\(SnapshotCodec.maximumSlots))")
            }
            let liveOffset = r.offset
            let liveCount = try r.int("live count")
            guard liveCount <= slotCount else {
                throw DecodingFailure(offset: liveOffset, reason: "\(liveCount) live \(className) objects in \(slotCount) slots")
            }
            // Live objects take bytes in the runs; deleted slots only memory.
            guard liveCount <= r.remaining else {
                throw DecodingFailure(offset: liveOffset, reason: "\(liveCount) live \(className) objects in \(r.remaining) bytes")
            }
            if let problem = SnapshotCodec.deletedSlotsProblem(
                slotCount - liveCount, className, spent: &deletedSlots)
            {
                throw DecodingFailure(offset: slotOffset, reason: problem)
            }
            let runCount = try r.count("run count")
            let coded = codedKinds ? CodedStringRuns() : nil
            var end = 0
            var loaded = 0
            for _ in 0..<runCount {
                let runOffset = r.offset
                let skip = try r.int("deleted slots")
                let count = try r.int("run length")
                guard count >= 1, count <= ChangeRecordCodec.maximumRun else {
                    throw DecodingFailure(
                        offset: runOffset, reason: "run of \(count) \(className) objects; a run holds 1...\(ChangeRecordCodec.maximumRun)")
                }
                guard skip <= slotCount - end, count <= slotCount - end - skip else {
                    throw DecodingFailure(
                        offset: runOffset, reason: "run of \(className) objects past the table's \(slotCount) slots")
                }
                var run = InsertColumns(
                    table: TableKey(t), firstKey: ObjectKey(Int64(end + skip)), count: count,
                    columns: try ChangeRecordCodec.decodeColumns(&r, count: count, schema: schema, table: t, leafKinds: leafKinds, coded: coded))
                var later: [ChangeOp] = []
                deferLinksAhead(&run, schema: schema, complete: complete) { later.append($0) }
                guard emit(.run(offset: runOffset, skip: skip, run, later: later)) else { return }
                end += skip + count
                loaded += count
            }
            guard loaded == liveCount else {
                throw DecodingFailure(
                    offset: liveOffset, reason: "the runs of \(className) hold \(loaded) objects, but its live count is \(liveCount)")
            }
            guard emit(.tableEnd(TableKey(t), deadSlots: slotCount - end)) else { return }
            complete[t] = true
        }
        _ = emit(.end(offset: r.offset))
    }

    /// Takes out of `run` the links whose targets are not in yet, handing
    /// each to `later` as the set that restores it: links into a table not
    /// complete, unless to an earlier object of the run's own table (those
    /// are in, or earlier in the run, which ``BatchApplier`` allows).
    private static func deferLinksAhead(
        _ run: inout InsertColumns, schema: Schema, complete: [Bool], later: (ChangeOp) -> Void
    ) {
        let t = run.table
        // Only links and mixed values hold links; a link property into a
        // complete table never points ahead.
        let candidates = schema.shapes[t.index].indices.filter { p in
            let shape = schema.shapes[t.index][p]
            return shape.collection == .none
                && (shape.value.type == .any || (shape.value.linkTable >= 0 && !complete[shape.value.linkTable]))
        }
        guard !candidates.isEmpty else { return }
        // Object by object, property by property: the order the encoder
        // expects these links to be made in (``SnapshotCodec/loadOrder``).
        for i in 0..<run.count {
            for p in candidates {
                guard let link = run.columns[p][i].linkValue, !complete[link.table.index] else { continue }
                let key = ObjectKey(run.firstKey.rawValue + Int64(i))
                if link.table == t && link.key.rawValue < key.rawValue { continue }
                later(.set(t, key, property: p, .link(link)))
                run.columns[p][i] = .null
            }
        }
    }

    /// Reads the collections of table `t` and adds their elements, each
    /// checked as replay checks an op.
    private static func decodeCollections(_ r: inout ByteReader, table t: Int, into batch: inout BatchApplier) throws(DecodingFailure) {
        let schema = batch.snapshot.schema
        let className = schema.objectSchema[t].className
        let slotCount = batch.snapshot.tables[t].alive.count
        for (p, shape) in schema.shapes[t].enumerated() where shape.collection != .none {
            let name = "\(className).\(schema.objectSchema[t].properties[p].name)"
            let objectCount = try r.count("count of non-empty '\(name)'")
            var previous = -1
            for _ in 0..<objectCount {
                let key = try decodeKey(&r, after: &previous, slotCount: slotCount, className)
                let sizeOffset = r.offset
                let size = try r.count("size of '\(name)'")
                guard size >= 1 else { throw DecodingFailure(offset: sizeOffset, reason: "empty '\(name)' of \(key) listed") }
                for i in 0..<size {
                    let mapKey = shape.collection == .map ? try r.string() : ""
                    let offset = r.offset
                    let v = try ChangeRecordCodec.decodeValue(&r, schema)
                    guard shape.value.accepts(v) else {
                        throw DecodingFailure(offset: offset, reason: "element \(v) does not fit '\(name)'")
                    }
                    let op: ChangeOp =
                        switch shape.collection {
                        case .list: .listInsert(TableKey(t), key, property: p, index: i, v)
                        case .set: .setInsert(TableKey(t), key, property: p, v)
                        default: .mapSet(TableKey(t), key, property: p, key: mapKey, v)
                        }
                    if let problem = batch.apply(op) { throw DecodingFailure(offset: offset, reason: problem) }
                }
            }
        }
    }

    /// Reads the stored backlinks of table `t`'s objects (those whose order
    /// is not the order loading made them in) and puts each object's list
    /// in place of the one its links made, which must hold the same links.
    ///
    /// Each stored backlink is compared with the rebuilt one in its place
    /// as it is read, and a list is only made once one differs.
    private static func decodeBacklinks(_ r: inout ByteReader, table t: Int, into snapshot: inout Snapshot) throws(DecodingFailure) {
        let schema = snapshot.schema
        let className = schema.objectSchema[t].className
        /// Objects whose stored order differs from the rebuilt one.
        var reordered: [(slot: Int, backlinks: [Backlink])] = []
        do {
            // Read in place: copying the table would retain every column.
            let (alive, rebuiltLists) = snapshot.withTable(TableKey(t)) { ($0.pointee.alive, $0.pointee.backlinks) }
            let objectCount = try r.count("count of \(className) objects with backlinks")
            var previous = -1
            for _ in 0..<objectCount {
                let objectOffset = r.offset
                let key = try decodeKey(&r, after: &previous, slotCount: alive.count, className)
                guard alive[key.slot] else {
                    throw DecodingFailure(offset: objectOffset, reason: "backlinks of \(className) \(key), which is not a live object")
                }
                let rebuilt = rebuiltLists[key.slot]
                /// How many stored backlinks matched the rebuilt ones in their places.
                var matched = 0
                /// Every stored backlink, once one did not match.
                var stored: [Backlink]?
                let groupsOffset = r.offset
                let groupCount = try r.count("backlink group count")
                guard groupCount >= 1 else { throw DecodingFailure(offset: groupsOffset, reason: "no backlinks of \(className) \(key) listed") }
                for _ in 0..<groupCount {
                    let origin = TableKey(try r.index(below: schema.objectSchema.count, "backlink table"))
                    let property = try r.index(below: schema[origin].storedCount, "backlink property")
                    let countOffset = r.offset
                    let count = try r.count("backlink count")
                    guard count >= 1 else { throw DecodingFailure(offset: countOffset, reason: "empty backlink group of \(className) \(key)") }
                    var originKey = try r.varint()
                    for i in 0..<count {
                        if i > 0 {
                            let delta = try r.signed()
                            let (next, overflow) = Int64(bitPattern: originKey).addingReportingOverflow(delta)
                            guard !overflow, next >= 0 else { throw r.fail("backlink key out of range") }
                            originKey = UInt64(next)
                        }
                        guard originKey < UInt64(Int64.max) else { throw r.fail("backlink key out of range") }
                        let backlink = Backlink(origin: origin, property: property, key: ObjectKey(Int64(originKey)))
                        if stored == nil, matched < rebuilt.count, rebuilt[matched] == backlink {
                            matched += 1
                        } else {
                            if stored == nil { stored = Array(rebuilt[..<matched]) }
                            stored!.append(backlink)
                        }
                    }
                }
                // Otherwise they must hold the same links, and the stored
                // order (the order links were made) wins.
                guard let stored else {
                    guard matched == rebuilt.count else {
                        throw DecodingFailure(offset: objectOffset, reason: "stored backlinks of \(className) \(key) do not match its links")
                    }
                    continue
                }
                guard Dictionary(grouping: stored, by: { $0 }).mapValues(\.count) == Dictionary(grouping: rebuilt, by: { $0 }).mapValues(\.count)
                else {
                    throw DecodingFailure(offset: objectOffset, reason: "stored backlinks of \(className) \(key) do not match its links")
                }
                reordered.append((key.slot, stored))
            }
        }
        for (slot, backlinks) in reordered { snapshot.tables[t].backlinks[slot] = Backlinks(backlinks) }
    }

    /// Reads the key gap of the next listed object of a table: its key must
    /// come after `previous` (updated) and be below `slotCount`.
    private static func decodeKey(
        _ r: inout ByteReader, after previous: inout Int, slotCount: Int, _ className: String
    ) throws(DecodingFailure) -> ObjectKey {
        let offset = r.offset
        let gap = try r.int("key gap")
        guard gap < slotCount - previous - 1 else {
            throw DecodingFailure(offset: offset, reason: "\(className) key \(previous + 1)+\(gap) beyond its \(slotCount) slots")
        }
        previous += 1 + gap
        return ObjectKey(Int64(previous))
    }
}
