import OrderedCollections

// The payload of a snapshot file, format version 2 (columnar form): the whole
// state at one version, object keys included, so that the log continues
// after it. Version 1 wrote the row form (SnapshotCodec+Rows.swift), still
// read. FORMAT.md has the prose.
//
//   snapshot    := version:varint schemaVersion:varint schema
//                  table{classCount} collections{classCount} backlinks{classCount}
//   table       := class:varint slotCount:varint liveCount:varint runCount:varint run{runCount}
//                  (every class once, in an order the writer chooses: a class after the
//                  classes its to-one links point at, unless links form a cycle)
//   run         := skip:varint count:varint columnCount:varint column{columnCount}
//                  (`skip` deleted slots after the previous run, or from slot 0, then `count`
//                  live objects with consecutive keys; 1 <= count <= 4096; `column` as in an
//                  insert run of the log, ChangeRecordCodec.swift, or from format version 4
//                  a leaf column, and from version 5 coded strings, ChangeRecordCodec+Leaves.swift;
//                  the counts add up to
//                  liveCount, the slots after the last run up to slotCount are deleted)
//   collections := (objectCount:varint (keyGap:varint count:varint element{count}){objectCount})
//                  {the class's collection properties, in property order}
//                  (only non-empty collections of live objects, in key order; keyGap is
//                  the key minus the previous listed key minus 1, or the key for the first)
//   element     := value (list, set) | key:string value (map)
//   backlinks   := objectCount:varint (keyGap:varint groupCount:varint group{groupCount}){objectCount}
//                  (only live objects whose backlinks are not in the order loading makes
//                  them in, `loadOrder`, in key order; the list replaces the loaded one)
//   group       := table:varint property:varint count:varint key:varint keyDelta:zigzag{count - 1}
//                  (consecutive backlinks from one class and property: the first origin key,
//                  then each next one as the difference from the one before)
//
// Slots not in any run are deleted objects (keys are never reused).

/// Writes a snapshot's full state and rebuilds it. Loading goes through
/// ``BatchApplier``, the path of log replay: each run is checked and
/// appended a column at a time with ``BatchApplier/apply(_:)-(InsertColumns)``.
enum SnapshotCodec {
    /// The most slots (live and deleted objects) a loaded table may have:
    /// 2^32, far beyond what fits in memory, so that a damaged count is
    /// refused before it is allocated for.
    static let maximumSlots = 1 << 32
    /// The most deleted slots a loaded snapshot may have, all tables
    /// together: 2^26 (67,108,864).
    ///
    /// Deleted slots take no bytes in the file, so their count cannot be
    /// checked against the file's size; this bound is checked before
    /// anything is made for them (FORMAT.md, "Limits"). They take almost no
    /// memory once loaded (whole leaves of placeholders share one buffer,
    /// backlinks hold no leaf for them), but scans still step over each.
    /// The bound was 2^28 cells, then 1 GiB of memory per table: fuzzer
    /// findings loaded 2^28 slots (over 4 GB), then tens of millions in each
    /// of several tables, when each slot still took memory of its own.
    static let maximumDeletedSlots = 1 << 26

    /// Why `deleted` more deleted slots, of `className`, are refused after
    /// the `spent` deleted slots of the tables before (updated), or `nil`
    /// when they stay within ``maximumDeletedSlots``.
    static func deletedSlotsProblem(_ deleted: Int, _ className: String, spent: inout Int) -> String? {
        guard deleted > maximumDeletedSlots - spent else {
            spent += deleted
            return nil
        }
        return "\(deleted) deleted slots of \(className), over the \(maximumDeletedSlots - spent) left of the "
            + "\(maximumDeletedSlots) a loaded snapshot may hold"
    }

    /// Why `snapshot` cannot be written as a snapshot that loads again (it
    /// holds more deleted slots than ``maximumDeletedSlots``), or `nil`.
    static func unloadableProblem(_ snapshot: Snapshot) -> String? {
        let deleted = snapshot.tables.reduce(0) { $0 + $1.alive.count - $1.count }
        guard deleted > maximumDeletedSlots else { return nil }
        return "the database holds the slots of \(deleted) deleted objects, more than a snapshot may hold (\(maximumDeletedSlots))"
    }

    /// ``encode(_:)``, refusing a state whose snapshot would not load again
    /// (``unloadableProblem(_:)``) rather than write it.
    ///
    /// - Throws: `unsupported`, naming `path` and `what` was being written.
    static func encodeLoadable(_ snapshot: Snapshot, what: String, path: String) throws(ShoalError) -> [UInt8] {
        if let problem = unloadableProblem(snapshot) {
            throw ShoalError(.unsupported, "\(what) refused: \(problem); nothing was written.", context: ["path": path])
        }
        return encode(snapshot)
    }

    /// Writes `snapshot` in the columnar form, its columns as leaves where
    /// they fit and its string columns coded while their strings fit a
    /// dictionary (format version 5).
    static func encode(_ snapshot: Snapshot) -> [UInt8] {
        var w = ByteWriter(capacity: 1 << 16)
        w.varint(UInt64(snapshot.version))
        w.varint(snapshot.schemaVersion)
        SchemaCodec.encode(snapshot.schema, into: &w)
        let order = tableOrder(snapshot.schema)
        var position = [Int](repeating: 0, count: order.count)
        for (i, t) in order.enumerated() { position[t] = i }
        for t in order { encodeRuns(snapshot.tables[t], schema: snapshot.schema, into: &w) }
        for table in snapshot.tables { encodeCollections(table, schema: snapshot.schema, into: &w) }
        for table in snapshot.tables { encodeBacklinks(table, schema: snapshot.schema, position: position, into: &w) }
        return w.bytes
    }

    /// Rebuilds the snapshot a payload of format version `formatVersion`
    /// holds, checking it throughout.
    ///
    /// - Throws: `DecodingFailure` with the payload offset and what was
    ///   wrong: a malformed or truncated field, a value that does not fit
    ///   its property, a link to an object that is not live, two objects
    ///   with one primary key, stored backlinks that the links do not make.
    ///   A columnar payload of `decodeAheadFrom` bytes or more is decoded on
    ///   another thread while this one applies it; the outcome is the same.
    static func decode(
        _ bytes: [UInt8], formatVersion: UInt16, decodeAheadFrom threshold: Int = ChangeRecordCodec.decodeAheadThreshold
    ) throws(DecodingFailure) -> Snapshot {
        formatVersion >= LogFormat.columnarSnapshotVersion
            ? try decodeColumnar(
                ByteReader(bytes), leafKinds: formatVersion >= LogFormat.leafSnapshotVersion,
                codedKinds: formatVersion >= LogFormat.codedSnapshotVersion, decodeAheadFrom: threshold)
            : try decodeRows(bytes)
    }

    /// What ``decode(_:formatVersion:decodeAheadFrom:)`` gives for the
    /// payload `payload` is still decompressing (a columnar one): read as
    /// its chunks come in, the thread that applies decompressing the next
    /// one while it has nothing to apply.
    static func decode(
        _ payload: ProgressivePayload, formatVersion: UInt16, decodeAheadFrom threshold: Int = ChangeRecordCodec.decodeAheadThreshold
    ) throws(DecodingFailure) -> Snapshot {
        precondition(formatVersion >= LogFormat.columnarSnapshotVersion, "rows are read from a whole payload")
        return try decodeColumnar(
            ByteReader(payload), leafKinds: formatVersion >= LogFormat.leafSnapshotVersion,
            codedKinds: formatVersion >= LogFormat.codedSnapshotVersion, decodeAheadFrom: threshold)
    }

    /// The order in which the writer puts the tables: each after the tables
    /// its to-one links point at, so that loading meets those links with
    /// their targets in place (a dog after its owner). A cycle is broken
    /// where it closes; its links wait until every table is in.
    static func tableOrder(_ schema: Schema) -> [Int] {
        var visited = [Bool](repeating: false, count: schema.shapes.count)
        var order: [Int] = []
        func visit(_ t: Int) {
            guard !visited[t] else { return }
            visited[t] = true
            for shape in schema.shapes[t] where shape.collection == .none && shape.value.linkTable >= 0 {
                visit(shape.value.linkTable)
            }
            order.append(t)
        }
        for t in schema.shapes.indices { visit(t) }
        return order
    }

    /// Writes a table's head and its live objects as runs.
    private static func encodeRuns(_ table: Table, schema: Schema, into w: inout ByteWriter) {
        let shapes = schema.shapes[table.key.index]
        w.varint(table.key.index)
        w.varint(table.alive.count)
        w.varint(table.count)
        // Stretches of consecutive live slots, cut at the longest run.
        var runs: [Range<Int>] = []
        table.alive.forEachChunk { base, chunk in
            for (i, live) in chunk.enumerated() where live {
                let slot = base + i
                if let last = runs.last, last.upperBound == slot, last.count < ChangeRecordCodec.maximumRun {
                    runs[runs.count - 1] = last.lowerBound..<slot + 1
                } else {
                    runs.append(slot..<slot + 1)
                }
            }
        }
        w.varint(runs.count)
        var end = 0
        var buffer = ContiguousArray<Value>()
        buffer.reserveCapacity(ChangeRecordCodec.maximumRun)
        // The dictionary strings of each coded string column written so far.
        var written = [Int](repeating: 0, count: shapes.count)
        // A string property's column held plain (loaded from the log or an
        // older version) is written coded when its distinct strings fit a
        // dictionary: compaction upgrades it, and loading takes its codes.
        // One that does not fit is written plain, every run.
        let columns = shapes.indices.map { p in
            shapes[p].value.type == .string && shapes[p].collection == .none ? table.scalars[p].coded() ?? table.scalars[p] : table.scalars[p]
        }
        for run in runs {
            w.varint(run.lowerBound - end)
            w.varint(run.count)
            w.varint(shapes.count)
            for p in shapes.indices {
                if shapes[p].collection != .none {
                    ChangeRecordCodec.encodeColumn(repeatElement(Value.null, count: run.count), into: &w)
                    continue
                }
                if columns[p].kind == .codedString {
                    ChangeRecordCodec.encodeCodedStrings(columns[p], slots: run, written: &written[p], into: &w)
                    continue
                }
                if ChangeRecordCodec.encodeTypedSnapshotColumn(columns[p], slots: run, shape: shapes[p], into: &w) { continue }
                buffer.removeAll(keepingCapacity: true)
                columns[p].forEachValue(in: run) { buffer.append($0) }
                ChangeRecordCodec.encodeColumn(buffer, into: &w)
            }
            end = run.upperBound
        }
    }

    /// Writes the non-empty collections of a table's live objects, property by property.
    private static func encodeCollections(_ table: Table, schema: Schema, into w: inout ByteWriter) {
        for (p, shape) in schema.shapes[table.key.index].enumerated() {
            switch shape.collection {
            case .none: continue
            case .list:
                encodeCollection(table.lists[p]!, alive: table.alive, size: \.count, into: &w) { list, w in
                    for v in list { ChangeRecordCodec.encode(v, into: &w) }
                }
            case .set:
                encodeCollection(table.sets[p]!, alive: table.alive, size: \.count, into: &w) { set, w in
                    for v in set { ChangeRecordCodec.encode(v, into: &w) }
                }
            case .map:
                encodeCollection(table.maps[p]!, alive: table.alive, size: \.count, into: &w) { map, w in
                    for (k, v) in map {
                        w.string(k)
                        ChangeRecordCodec.encode(v, into: &w)
                    }
                }
            }
        }
    }

    /// Writes the non-empty collections of one property of live objects:
    /// how many, then each one's key gap, size and elements.
    private static func encodeCollection<C>(
        _ column: PersistentVector<C>, alive: Chunks<Bool>, size: (C) -> Int, into w: inout ByteWriter,
        _ elements: (C, inout ByteWriter) -> Void
    ) {
        var count = 0
        column.forEachChunk { base, chunk in
            for (i, c) in chunk.enumerated() where size(c) > 0 && alive[base + i] { count += 1 }
        }
        w.varint(count)
        var previous = -1
        column.forEachChunk { base, chunk in
            for (i, c) in chunk.enumerated() where size(c) > 0 && alive[base + i] {
                w.varint(base + i - previous - 1)
                previous = base + i
                w.varint(size(c))
                elements(c, &w)
            }
        }
    }

    /// Where loading puts backlink `b` of `target` in the target's list:
    /// loading makes backlinks in this order (``decodeColumnar(_:)``), so
    /// a list in this order needs not be stored.
    ///
    /// First the links of the runs, table by table in the order written
    /// (`position`), object by object, property by property; then, in the
    /// same order, the links that pointed ahead (at a table written later,
    /// or at a later object of their own table); then the collections'
    /// elements, class by class in schema order, property by property,
    /// object by object. Equal backlinks (one list holding a target twice)
    /// are interchangeable.
    static func loadOrder(_ b: Backlink, of target: Link, schema: Schema, position: [Int]) -> (Int, Int, Int64, Int64) {
        let o = b.origin.index
        if schema.shapes[o][b.property].collection != .none { return (2, o, Int64(b.property), b.key.rawValue) }
        let pointsAhead = position[target.table.index] > position[o] || (target.table.index == o && target.key.rawValue >= b.key.rawValue)
        return (pointsAhead ? 1 : 0, position[o], b.key.rawValue, Int64(b.property))
    }

    /// Writes the backlinks of the table's live objects whose order is not
    /// the order loading makes them in (``loadOrder(_:of:schema:position:)``),
    /// grouped by origin class and property, keys as differences. Most
    /// objects have their links in that order and take no bytes.
    private static func encodeBacklinks(_ table: Table, schema: Schema, position: [Int], into w: inout ByteWriter) {
        var listed: [(slot: Int, backlinks: [Backlink])] = []
        table.backlinks.forEachLinked { slot, backlinks in
            if backlinks.count > 1 && table.alive[slot] {
                let target = Link(table: table.key, key: ObjectKey(Int64(slot)))
                let inLoadOrder = zip(backlinks, backlinks.dropFirst()).allSatisfy { a, b in
                    loadOrder(a, of: target, schema: schema, position: position) <= loadOrder(b, of: target, schema: schema, position: position)
                }
                if !inLoadOrder { listed.append((slot, Array(backlinks))) }
            }
        }
        w.varint(listed.count)
        var previous = -1
        for (slot, backlinks) in listed {
            w.varint(slot - previous - 1)
            previous = slot
            var groups: [Range<Int>] = []
            for i in backlinks.indices {
                if let last = groups.last, backlinks[last.lowerBound].origin == backlinks[i].origin,
                    backlinks[last.lowerBound].property == backlinks[i].property
                {
                    groups[groups.count - 1] = last.lowerBound..<i + 1
                } else {
                    groups.append(i..<i + 1)
                }
            }
            w.varint(groups.count)
            for group in groups {
                let first = backlinks[group.lowerBound]
                w.varint(Int(first.origin.rawValue))
                w.varint(first.property)
                w.varint(group.count)
                w.varint(UInt64(bitPattern: first.key.rawValue))
                for i in group.dropFirst() {
                    w.signed(backlinks[i].key.rawValue &- backlinks[i - 1].key.rawValue)
                }
            }
        }
    }
}
