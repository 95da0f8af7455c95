// Insert runs (op tag 13, format version 2): consecutive inserts into one
// table, stored a column at a time so that replay decodes each column with
// one check of its kind against the property, and appends the objects
// without making a `ChangeOp` per object. The grammar is at the top of
// ChangeRecordCodec.swift and in FORMAT.md.

extension ChangeRecordCodec {
    /// The op tag of an insert run.
    static let insertRunTag: UInt8 = 13
    /// The fewest consecutive inserts the encoder writes as a run: below
    /// this, the columns' kind bytes cost more than they save.
    static let minimumRun = 8
    /// The most objects in one run: the decoder refuses more, so that a
    /// damaged count cannot make it allocate columns the payload cannot
    /// fill (an all-null column takes no bytes). As long as
    /// ``BatchApplier/maximumRun``, so a run's columns stay in cache.
    static let maximumRun = BatchApplier.maximumRun

    /// How a column of a run is stored (the byte before it).
    enum ColumnKind: UInt8 {
        /// Every value null; nothing follows.
        case null = 0
        /// Tagged values, as in an insert.
        case tagged = 1
        /// Every value an int: zigzag varints.
        case int = 2
        /// Every value a string: length-prefixed UTF-8.
        case string = 3
        /// Links into one table, or null: the table, then per value 0 for
        /// null or the key + 1.
        case link = 4
        /// Every value an int, as a packed leaf (snapshots of format
        /// version 4): see ``ChangeRecordCodec/encodePackedInts(_:into:)``.
        case packedInt = 5
        /// Links into one table, or null (`-1`), as a packed leaf of keys
        /// (snapshots of format version 4): the table, then the leaf.
        case packedLink = 6
        /// Every value a string, as a leaf of lengths and bytes (snapshots of
        /// format version 4): see ``ChangeRecordCodec/encodeStringLeaf(count:into:length:write:)``.
        case stringLeaf = 7
        /// Strings as codes into the column's dictionary (snapshots of
        /// format version 5): the dictionary's strings new in this run,
        /// then a packed leaf of codes. See ``ChangeRecordCodec/encodeCodedStrings(_:slots:written:into:)``.
        case codedStrings = 8

        /// Whether the kind is one only snapshots of format version 4 or
        /// later hold.
        var isLeafKind: Bool { rawValue >= ColumnKind.packedInt.rawValue }
    }

    /// The number of ops from `i` that can form one run: inserts into one
    /// table with consecutive keys and as many values each (at most
    /// ``maximumRun``; 0 when `ops[i]` is not an insert).
    static func runLength(_ ops: [ChangeOp], at i: Int) -> Int {
        guard case .insert(let t, let k, let first) = ops[i] else { return 0 }
        var j = i + 1
        while j < ops.count, j - i < maximumRun, case .insert(let t2, let k2, let values) = ops[j],
            t2 == t, k2.rawValue == k.rawValue + Int64(j - i), values.count == first.count
        {
            j += 1
        }
        return j - i
    }

    /// Writes the inserts `ops` (a run, as ``runLength(_:at:)`` found it).
    static func encodeRun(_ ops: ArraySlice<ChangeOp>, into w: inout ByteWriter) {
        let rows: [[Value]] = ops.map { if case .insert(_, _, let values) = $0 { values } else { [] } }
        let (t, k) = ops.first!.target
        w.byte(insertRunTag)
        w.varint(Int(t.rawValue))
        w.varint(UInt64(bitPattern: k.rawValue))
        w.varint(rows.count)
        let columnCount = rows[0].count
        w.varint(columnCount)
        for p in 0..<columnCount { encodeColumn(rows.lazy.map { $0[p] }, into: &w) }
    }

    /// Writes one column of a run: its kind byte, chosen from the values
    /// (the most compact kind that holds them all), then the values. Insert
    /// runs of the log and the runs of a snapshot share it.
    static func encodeColumn(_ column: some Collection<Value>, into w: inout ByteWriter) {
        var allNull = true, allInt = true, allString = true
        var linkTable: TableKey?
        var linksOnly = true
        for v in column {
            switch v {
            case .null: allInt = false; allString = false
            case .int: allNull = false; allString = false; linksOnly = false
            case .string: allNull = false; allInt = false; linksOnly = false
            case .link(let l):
                allNull = false; allInt = false; allString = false
                if linkTable == nil { linkTable = l.table } else if linkTable != l.table { linksOnly = false }
                if l.key.rawValue < 0 || l.key.rawValue == .max { linksOnly = false }
            default: allNull = false; allInt = false; allString = false; linksOnly = false
            }
        }
        if allNull {
            w.byte(ColumnKind.null.rawValue)
        } else if allInt {
            w.byte(ColumnKind.int.rawValue)
            for v in column { if case .int(let i) = v { w.signed(i) } }
        } else if allString {
            w.byte(ColumnKind.string.rawValue)
            for v in column { if case .string(let s) = v { w.string(s) } }
        } else if linksOnly, let linkTable {
            w.byte(ColumnKind.link.rawValue)
            w.varint(Int(linkTable.rawValue))
            for v in column {
                if case .link(let l) = v { w.varint(UInt64(bitPattern: l.key.rawValue) + 1) } else { w.byte(0) }
            }
        } else {
            w.byte(ColumnKind.tagged.rawValue)
            for v in column { encode(v, into: &w) }
        }
    }

    /// Reads an insert run, checking the table, the count, the key range,
    /// the column count and every column's values against `schema`.
    static func decodeRun(_ r: inout ByteReader, _ schema: Schema) throws(DecodingFailure) -> InsertColumns {
        let shapes = schema.shapes
        _ = try r.byte()
        let table = try r.index(below: shapes.count, "table")
        let className = schema.objectSchema[table].className
        let keyOffset = r.offset
        let keyRaw = try r.varint()
        let countOffset = r.offset
        let count = try r.varint()
        guard count >= 1, count <= UInt64(maximumRun) else {
            throw DecodingFailure(offset: countOffset, reason: "insert run of \(count) \(className) objects; a run holds 1...\(maximumRun)")
        }
        guard keyRaw < UInt64(Int64.max) - count else {
            throw DecodingFailure(offset: keyOffset, reason: "insert run of \(className) keys \(keyRaw)..<\(keyRaw)+\(count) out of range")
        }
        let columns = try decodeColumns(&r, count: Int(count), schema: schema, table: table)
        return InsertColumns(table: TableKey(table), firstKey: ObjectKey(Int64(keyRaw)), count: Int(count), columns: columns)
    }

    /// Reads the column count and the columns of a run of `count` objects
    /// of class `table` (`1...maximumRun`, checked by the caller), checking
    /// every column against its property. Insert runs of the log and the
    /// runs of a snapshot share it.
    ///
    /// `leafKinds` allows the kinds of snapshots of format version 4
    /// (``ColumnKind/isLeafKind``), and `coded` (one per table, across its
    /// runs) those of version 5 too; anywhere else they are unknown kinds.
    static func decodeColumns(
        _ r: inout ByteReader, count: Int, schema: Schema, table: Int, leafKinds: Bool = false, coded: CodedStringRuns? = nil
    ) throws(DecodingFailure) -> [RunColumn] {
        let shapes = schema.shapes[table]
        let stored = shapes.count
        let columnsOffset = r.offset
        let columnCount = try r.varint()
        guard columnCount == UInt64(stored) else {
            throw DecodingFailure(offset: columnsOffset,
                reason: "insert run into \(schema.objectSchema[table].className) has \(columnCount) columns for \(stored) stored properties")
        }
        var columns: [RunColumn] = []
        columns.reserveCapacity(stored)
        for p in 0..<stored {
            columns.append(try decodeColumn(
                &r, count: count, shape: shapes[p], schema: schema, table: table, property: p, leafKinds: leafKinds, coded: coded))
        }
        return columns
    }

    /// Reads one column of `count` values of property `property`, checking
    /// the column's kind against the property once, and tagged values one
    /// by one.
    private static func decodeColumn(
        _ r: inout ByteReader, count: Int, shape: PropertyShape, schema: Schema, table: Int, property: Int, leafKinds: Bool,
        coded: CodedStringRuns?
    ) throws(DecodingFailure) -> RunColumn {
        func describe() -> String {
            let p = schema.objectSchema[table].properties[property]
            return "'\(schema.objectSchema[table].className).\(p.name)' (\(p.typeName))"
        }
        /// Checks that `v` (or every value of its kind) fits the property.
        func check(_ v: Value, at offset: Int) throws(DecodingFailure) {
            if shape.collection != .none {
                guard v.isNull else {
                    throw DecodingFailure(offset: offset, reason: "insert run: collection property \(describe()) must start empty")
                }
            } else if !shape.value.accepts(v) {
                throw DecodingFailure(offset: offset, reason: "insert run: value \(v) does not fit \(describe())")
            }
        }
        let kindOffset = r.offset
        let kindByte = try r.byte()
        guard let kind = ColumnKind(rawValue: kindByte), leafKinds || !kind.isLeafKind, coded != nil || kind != .codedStrings else {
            throw DecodingFailure(offset: kindOffset, reason: "insert run: unknown column kind \(kindByte) for \(describe())")
        }
        var column = RunColumn()
        /// Fills the column a piece at a time, each value from `next`.
        func fill(_ next: (inout ByteReader) throws(DecodingFailure) -> Value) throws(DecodingFailure) {
            var done = 0
            while done < count {
                let n = Swift.min(RunColumn.leafWidth, count - done)
                var leaf = ContiguousArray<Value>()
                leaf.reserveCapacity(n)
                for _ in 0..<n { leaf.append(try next(&r)) }
                column.append(leaf: leaf)
                done += n
            }
        }
        switch kind {
        case .null:
            try check(.null, at: kindOffset)
            if shape.collection != .none {
                // A collection property's column: placeholders, which take
                // no memory and are appended as a count.
                var placeholders = Column(kind: .none)
                placeholders.appendNulls(count)
                column = RunColumn(typed: placeholders)
            } else {
                column = RunColumn(repeating: .null, count: count)
            }
        case .tagged:
            try fill { r throws(DecodingFailure) in
                let offset = r.offset
                let v = try decodeValue(&r, schema)
                try check(v, at: offset)
                return v
            }
        case .int:
            try check(.int(0), at: kindOffset)
            // A column of an int property is decoded straight into the
            // typed column the table keeps (a mixed one into values).
            guard shape.value.type == .int else {
                try fill { r throws(DecodingFailure) in .int(try r.signed()) }
                break
            }
            var typed = Column(kind: .int)
            try Self.fillInts(&typed, &r, count: count) { raw, _, _ throws(DecodingFailure) in
                // Zigzag: the Int64's bits, as ``ByteReader/signed()`` makes them.
                for i in raw.indices { raw[i] = (raw[i] >> 1) ^ (0 &- (raw[i] & 1)) }
            }
            return RunColumn(typed: typed)
        case .string:
            try check(.string(""), at: kindOffset)
            guard shape.value.type == .string else {
                try fill { r throws(DecodingFailure) in .string(try r.string()) }
                break
            }
            var typed = Column(kind: .string)
            var done = 0
            while done < count {
                let n = Swift.min(Chunks<UInt8>.width, count - done)
                // A leaf of strings at once, in one array of exactly their
                // bytes (no growing array, whose spare capacity the table
                // would keep), then checked: all at once when all are
                // ASCII, string by string otherwise.
                let start = r.offset
                let (bytes, ends) = try r.lengthPrefixedRun(n)
                if !bytes.withUnsafeBufferPointer(ByteReader.isASCII) {
                    var again = r
                    again.move(to: start)
                    for _ in 0..<n {
                        let string = try again.lengthPrefixed()
                        try again.checkUTF8(string.range, prefixAt: string.start)
                    }
                }
                typed.appendBytes(bytes, ends: ends)
                done += n
            }
            return RunColumn(typed: typed)
        case .link:
            let target = TableKey(try r.index(below: schema.objectSchema.count, "link table"))
            try check(.link(Link(table: target, key: ObjectKey(0))), at: kindOffset)
            var nullChecked = false
            /// The key of the next link, `-1` for null.
            func nextKey(_ r: inout ByteReader) throws(DecodingFailure) -> Int64 {
                let offset = r.offset
                let ref = try r.varint()
                if ref == 0 {
                    if !nullChecked {
                        try check(.null, at: offset)
                        nullChecked = true
                    }
                    return -1
                }
                guard ref - 1 < UInt64(Int64.max) else { throw DecodingFailure(offset: offset, reason: "insert run: link key out of range") }
                return Int64(ref - 1)
            }
            guard shape.value.type == .object else {
                try fill { r throws(DecodingFailure) in
                    let key = try nextKey(&r)
                    return key < 0 ? .null : .link(Link(table: target, key: ObjectKey(key)))
                }
                break
            }
            var typed = Column(kind: .link, linkTarget: target)
            try Self.fillInts(&typed, &r, count: count) { raw, start, reader throws(DecodingFailure) in
                // Refs: 0 is null (stored as -1), k + 1 a link to key k.
                for i in raw.indices {
                    if raw[i] == 0 {
                        if !nullChecked {
                            try check(.null, at: reader.offset(ofVarint: i, from: start))
                            nullChecked = true
                        }
                        raw[i] = UInt64(bitPattern: -1)
                    } else {
                        guard raw[i] - 1 < UInt64(Int64.max) else {
                            throw DecodingFailure(offset: reader.offset(ofVarint: i, from: start), reason: "insert run: link key out of range")
                        }
                        raw[i] -= 1
                    }
                }
            }
            return RunColumn(typed: typed)
        case .packedInt:
            guard shape.collection == .none, shape.value.type == .int, !shape.value.isOptional else {
                throw DecodingFailure(offset: kindOffset, reason: "insert run: a packed int column does not fit \(describe())")
            }
            var typed = Column(kind: .int)
            typed.appendInts(adopting: try decodePackedInts(&r, count: count))
            return RunColumn(typed: typed)
        case .packedLink:
            let target = TableKey(try r.index(below: schema.objectSchema.count, "link table"))
            try check(.link(Link(table: target, key: ObjectKey(0))), at: kindOffset)
            guard shape.value.type == .object else {
                throw DecodingFailure(offset: kindOffset, reason: "insert run: a packed link column does not fit \(describe())")
            }
            let leafOffset = r.offset
            let leaf = try decodePackedInts(&r, count: count)
            // Keys, or -1 for null (which the property must take). (Found
            // without reading the keys where the leaf's base allows: a
            // switch on the width per key was a fifth of the decoding
            // thread's time.)
            if let least = leaf.negativeLeast {
                if least < -1 { throw DecodingFailure(offset: leafOffset, reason: "insert run: link key \(least) out of range") }
                try check(.null, at: leafOffset)
            }
            var typed = Column(kind: .link, linkTarget: target)
            typed.appendInts(adopting: leaf)
            return RunColumn(typed: typed)
        case .stringLeaf:
            guard shape.collection == .none, shape.value.type == .string, !shape.value.isOptional else {
                throw DecodingFailure(offset: kindOffset, reason: "insert run: a string leaf does not fit \(describe())")
            }
            var typed = Column(kind: .string)
            try decodeStringLeaf(&r, count: count, into: &typed)
            return RunColumn(typed: typed)
        case .codedStrings:
            guard shape.collection == .none, shape.value.type == .string, let coded else {
                throw DecodingFailure(offset: kindOffset, reason: "insert run: coded strings do not fit \(describe())")
            }
            let (typed, hasNull) = try decodeCodedStrings(&r, count: count, into: &coded.dictionaries[property, default: StringDictionary()])
            if hasNull { try check(.null, at: kindOffset) }
            return RunColumn(typed: typed)
        }
        return column
    }

    /// Appends `count` integers to an int or link column, a leaf at a time:
    /// each leaf's varints are read at once, then `convert` turns them
    /// (in place) into the column's integers' bits, given where the leaf's
    /// first varint began and the reader (to find a failure's offset).
    private static func fillInts(
        _ column: inout Column, _ r: inout ByteReader, count: Int,
        _ convert: (UnsafeMutableBufferPointer<UInt64>, _ start: Int, _ reader: ByteReader) throws(DecodingFailure) -> Void
    ) throws(DecodingFailure) {
        var done = 0
        while done < count {
            let n = Swift.min(Chunks<Int64>.width, count - done)
            var failure: DecodingFailure?
            let leaf = ContiguousArray<Int64>(unsafeUninitializedCapacity: n) { buffer, initialized in
                buffer.withMemoryRebound(to: UInt64.self) { raw in
                    let start = r.offset
                    do throws(DecodingFailure) {
                        try r.varints(into: raw)
                        try convert(raw, start, r)
                    } catch {
                        // Damage in this leaf: read it again a value at a
                        // time, converting each, so that the damage first
                        // in the payload is the one reported.
                        r.move(to: start)
                        do throws(DecodingFailure) {
                            for i in raw.indices {
                                let at = r.offset
                                raw[i] = try r.varint()
                                try convert(UnsafeMutableBufferPointer(rebasing: raw[i..<(i + 1)]), at, r)
                            }
                        } catch {
                            failure = error
                            return
                        }
                    }
                    initialized = n
                }
            }
            if let failure { throw failure }
            column.appendInts(leaf)
            done += n
        }
    }
}
