// The column kinds only snapshots of format version 4 or later hold: integers and
// links as packed leaves, strings as a leaf of lengths and bytes, and (from
// version 5) strings as a dictionary's new strings and a leaf of codes,
// stored as the table keeps them in memory, so that loading copies and checks
// them rather than decoding value by value (FORMAT.md, "Snapshot payload").
//
//   packed     := width:byte (base:zigzag, unless width is 8) offset{count}
//                 (width 0, 1, 2, 4 or 8 bytes per value; value = base + offset, the
//                 offset unsigned little-endian; width 0 stores nothing, every value
//                 is base; width 8 stores each value as it is, with no base)
//   stringLeaf := byteCount:varint lengthWidth:byte length{count} byte{byteCount}
//                 (lengthWidth 1, 2 or 4; each length unsigned little-endian, the string's
//                 bytes; the lengths add up to byteCount; the bytes valid UTF-8. Lengths,
//                 not ends: small repeated lengths compress where ends, all different,
//                 do not, and their sums are the ends the leaf keeps)
//   coded      := newCount:varint stringLeaf{ceil(newCount / 4096)} packed
//                 (version 5: the strings the column's dictionary gives codes to next,
//                 in code order, in string leaves of 4,096 but the last; then the run's
//                 codes as a packed leaf, -1 for null; every code below the dictionary's
//                 count so far, and no string given twice)

/// The dictionaries a snapshot's coded string columns (format version 5)
/// have built so far, by property, across one table's runs: each run's
/// column holds every string up to its own, so that loading appends its
/// codes as they are (``StringDictionary/isPrefix(of:)``).
final class CodedStringRuns {
    var dictionaries: [Int: StringDictionary] = [:]
}

extension ChangeRecordCodec {
    /// Writes the values of `slots` of a column as a snapshot run's leaf
    /// column (format version 4), read straight from the column, when it
    /// is a typed column, with no null in `slots`, of a required int property, a link
    /// property (holding a link), or a required string property; returns
    /// whether it did. Any other column is written as an insert run's
    /// (``encodeColumn(_:into:)``).
    static func encodeTypedSnapshotColumn(_ column: Column, slots: Range<Int>, shape: PropertyShape, into w: inout ByteWriter) -> Bool {
        // (A column keeps a null mark per slot once any slot is null, a
        // deleted object's included: the run's own slots must hold none.)
        guard shape.collection == .none, !slots.isEmpty, column.nulls.map({ nulls in !slots.contains { nulls[$0] } }) ?? true
        else { return false }
        switch (shape.value.type, column.kind) {
        case (.int, .int) where !shape.value.isOptional:
            w.byte(ColumnKind.packedInt.rawValue)
            encodePackedInts(ContiguousArray(slots.lazy.map { column.ints[$0] }), into: &w)
        case (.object, .link):
            let keys = ContiguousArray(slots.lazy.map { column.ints[$0] })
            guard let target = column.linkTarget, keys.contains(where: { $0 >= 0 }) else { return false }
            w.byte(ColumnKind.packedLink.rawValue)
            w.varint(Int(target.rawValue))
            encodePackedInts(keys, into: &w)
        case (.string, .string) where !shape.value.isOptional:
            w.byte(ColumnKind.stringLeaf.rawValue)
            encodeStringLeaf(count: slots.count, into: &w, length: { column.bytes.withBytes(slots.lowerBound + $0) { $0.count } }) { i, w in
                column.bytes.withBytes(slots.lowerBound + i) { w.unprefixed($0) }
            }
        default:
            return false
        }
        return true
    }

    /// Writes the values of `slots` of a coded string column (format
    /// version 5): the dictionary's strings from `written` on, then the
    /// slots' codes. `written` is how many of the dictionary's strings the
    /// table's earlier runs wrote.
    ///
    /// The table's first run writes every string up to the highest code
    /// any slot of the column holds (later runs none), though the grammar
    /// lets each run bring only those it uses first: loading then builds
    /// the dictionary once. (Strings brought run by run were added to a
    /// dictionary the runs loaded before still shared, copying its last
    /// leaf of strings each time.) Strings past that code, which no object
    /// holds any more, are dropped.
    static func encodeCodedStrings(_ column: Column, slots: Range<Int>, written: inout Int, into w: inout ByteWriter) {
        let dictionary = column.dictionary!
        let codes = ContiguousArray(slots.lazy.map { column.ints[$0] })
        // Every run's codes are at most the column's highest.
        let end = written > 0 ? written : Int(column.ints.leaves.lazy.compactMap { $0.bounds?.most }.max() ?? -1) + 1
        w.byte(ColumnKind.codedStrings.rawValue)
        w.varint(end - written)
        var start = written
        while start < end {
            let leaf = start..<Swift.min(end, start + Chunks<UInt8>.width)
            let strings = leaf.map { dictionary.strings[$0] }
            encodeStringLeaf(count: strings.count, into: &w, length: { strings[$0].utf8.count }) { i, w in w.utf8(strings[i]) }
            start = leaf.upperBound
        }
        written = end
        encodePackedInts(codes, into: &w)
    }

    /// Reads a run's coded strings (format version 5): adds its new
    /// strings to `dictionary` (the column's, as the table's earlier runs
    /// left it), then takes its codes as a leaf. Damage: a string given
    /// twice, a code the dictionary does not hold, more strings than a
    /// dictionary takes.
    static func decodeCodedStrings(
        _ r: inout ByteReader, count: Int, into dictionary: inout StringDictionary
    ) throws(DecodingFailure) -> (column: Column, hasNull: Bool) {
        let newOffset = r.offset
        let new = try r.int("new dictionary strings")
        guard new <= StringDictionary.capacity - dictionary.count else {
            throw DecodingFailure(offset: newOffset, reason: "coded strings: \(new) new strings past the \(dictionary.count) of a dictionary that holds \(StringDictionary.capacity)")
        }
        var left = new
        while left > 0 {
            let n = Swift.min(left, Chunks<UInt8>.width)
            let leafOffset = r.offset
            var strings = Column(kind: .string)
            try decodeStringLeaf(&r, count: n, into: &strings)
            // Made from the leaf's bytes (checked UTF-8), with no `Value`.
            let made = withUnsafePointer(to: &strings) { column -> [String]? in
                var new: [String] = []
                new.reserveCapacity(n)
                for j in 0..<n {
                    guard let bytes = Column.unsafeStringBytes(column, j) else { return nil }
                    new.append(String(decoding: bytes, as: UTF8.self))
                }
                return new
            }
            guard let new = made else {
                throw DecodingFailure(offset: leafOffset, reason: "coded strings: a new string of the dictionary's leaf is not a string")
            }
            if let j = dictionary.addNew(new) {
                throw DecodingFailure(offset: leafOffset, reason: "coded strings: the dictionary's new string \(j) of this leaf is one it holds")
            }
            left -= n
        }
        let codesOffset = r.offset
        let codes = try decodePackedInts(&r, count: count)
        let (least, most) = codes.bounds ?? (0, 0)
        for code in [least, most] where code < -1 || code >= Int64(dictionary.count) {
            throw DecodingFailure(offset: codesOffset, reason: "coded strings: code \(code) of a dictionary of \(dictionary.count) strings")
        }
        return (Column(codes: codes, dictionary: dictionary), least == -1)
    }

    /// Writes `values` as a packed leaf: packed as ``IntChunks`` packs a
    /// full leaf (``IntChunks/Leaf/init(packing:)``), so that loading
    /// adopts exactly the leaf the table would hold.
    static func encodePackedInts(_ values: ContiguousArray<Int64>, into w: inout ByteWriter) {
        let leaf = values.withUnsafeBufferPointer { IntChunks.Leaf(packing: $0) }
        w.byte(UInt8(leaf.width))
        if leaf.width == 8 {
            for v in leaf.wide { w.fixed64(UInt64(bitPattern: v)) }
            return
        }
        w.signed(leaf.base)
        #if _endian(little)
            leaf.packed.withUnsafeBytes { w.unprefixed($0) }
        #else
            for j in 0..<leaf.count {
                let offset = UInt64(bitPattern: leaf.value(j) &- leaf.base)
                switch leaf.width {
                case 1: w.byte(UInt8(truncatingIfNeeded: offset))
                case 2: w.fixed16(UInt16(truncatingIfNeeded: offset))
                default: w.fixed32(UInt32(truncatingIfNeeded: offset))
                }
            }
        #endif
    }

    /// Writes a string leaf of `count` strings: their byte count, the
    /// width of the lengths (the fewest bytes that hold the longest), each
    /// string's `length(i)`, then the bytes, which `write(i, &w)` appends.
    static func encodeStringLeaf(count: Int, into w: inout ByteWriter, length: (Int) -> Int, write: (Int, inout ByteWriter) -> Void) {
        var total = 0, longest = 0
        for i in 0..<count {
            total += length(i)
            longest = Swift.max(longest, length(i))
        }
        let width = longest <= Int(UInt8.max) ? 1 : longest <= Int(UInt16.max) ? 2 : 4
        w.varint(total)
        w.byte(UInt8(width))
        for i in 0..<count {
            switch width {
            case 1: w.byte(UInt8(length(i)))
            case 2: w.fixed16(UInt16(length(i)))
            default: w.fixed32(UInt32(length(i)))
            }
        }
        for i in 0..<count { write(i, &w) }
    }

    /// Reads a packed leaf of `count` integers as the leaf ``IntChunks``
    /// keeps (packed when its width is 1, 2 or 4; as values when 8).
    static func decodePackedInts(_ r: inout ByteReader, count: Int) throws(DecodingFailure) -> IntChunks.Leaf {
        let widthOffset = r.offset
        let width = Int(try r.byte())
        guard [0, 1, 2, 4, 8].contains(width) else {
            throw DecodingFailure(offset: widthOffset, reason: "packed leaf: \(width) bytes per value, not 0, 1, 2, 4 or 8")
        }
        if width == 8 {
            let range = try r.take(count * 8, "packed leaf of \(count) values")
            let values = r.withPayload { payload in
                ContiguousArray<Int64>(unsafeUninitializedCapacity: count) { buffer, initialized in
                    let raw = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: payload[range]))
                    for j in 0..<count { buffer[j] = Int64(bitPattern: raw.loadLittleEndian(UInt64.self, at: j * 8)) }
                    initialized = count
                }
            }
            return IntChunks.Leaf(wide: values)
        }
        let base = try r.signed()
        if width == 0 { return IntChunks.Leaf(repeating: base, count: count) }
        let range = try r.take(count * width, "packed leaf of \(count) values")
        #if _endian(little)
            // Adopted where they lie: a slice of the payload, with no copy.
            if r.adoptsLeaves {
                return IntChunks.Leaf(packed: r.bytes[range], width: width, base: base, count: count)
            }
        #endif
        let packed = r.withPayload { payload in
            [UInt8](unsafeUninitializedCapacity: range.count) { buffer, initialized in
                _ = buffer.initialize(from: payload[range])
                initialized = range.count
                #if _endian(big)
                    let raw = UnsafeMutableRawBufferPointer(buffer)
                    for j in 0..<count {
                        switch width {
                        case 2: raw.storeBytes(of: UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: j * 2, as: UInt16.self)), toByteOffset: j * 2, as: UInt16.self)
                        case 4: raw.storeBytes(of: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: j * 4, as: UInt32.self)), toByteOffset: j * 4, as: UInt32.self)
                        default: break
                        }
                    }
                #endif
            }
        }
        return IntChunks.Leaf(packed: packed[...], width: width, base: base, count: count)
    }

    /// Reads a string leaf of `count` strings into `column`, checking the
    /// lengths and the UTF-8: a full leaf of at most 65,535 bytes is
    /// adopted with two-byte ends, as the column keeps it.
    static func decodeStringLeaf(_ r: inout ByteReader, count: Int, into column: inout Column) throws(DecodingFailure) {
        let total = try r.int("string leaf byte count")
        let widthOffset = r.offset
        let width = Int(try r.byte())
        guard width == 1 || width == 2 || width == 4 else {
            throw DecodingFailure(offset: widthOffset, reason: "string leaf: lengths of \(width) bytes, not 1, 2 or 4")
        }
        let lengthsRange = try r.take(count * width, "string leaf lengths of \(count) strings")
        /// The lengths summed into ends of type `T`, or `nil` when they do
        /// not add up to `total`.
        func ends<T: FixedWidthInteger>(_: T.Type) -> ContiguousArray<T>? {
            r.withPayload { payload in
                let raw = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: payload[lengthsRange]))
                var end = 0
                let ends = ContiguousArray<T>(unsafeUninitializedCapacity: count) { buffer, initialized in
                    for j in 0..<count {
                        switch width {
                        case 1: end &+= Int(raw[j])
                        case 2: end &+= Int(raw.loadLittleEndian(UInt16.self, at: j * 2))
                        default: end &+= Int(raw.loadLittleEndian(UInt32.self, at: j * 4))
                        }
                        buffer[j] = T(truncatingIfNeeded: end)
                    }
                    initialized = count
                }
                // Each length is under 2^32 and there are at most 4,096:
                // the sum cannot wrap.
                return end == total ? ends : nil
            }
        }
        let short = total <= Int(UInt16.max) && count == Chunks<UInt8>.width
        guard total <= Int(UInt32.max) else {
            throw DecodingFailure(offset: widthOffset, reason: "string leaf: \(total) bytes, over \(UInt32.max)")
        }
        let shortEnds = short ? ends(UInt16.self) : nil
        let longEnds = short ? nil : ends(UInt32.self)
        guard shortEnds != nil || longEnds != nil else {
            throw DecodingFailure(offset: lengthsRange.lowerBound, reason: "string leaf: the lengths do not add up to the byte count \(total)")
        }
        let bytesRange = try r.take(total, "string leaf of \(total) bytes")
        let bytes = r.withPayload { payload in ContiguousArray(payload[bytesRange]) }
        if !bytes.withUnsafeBufferPointer(ByteReader.isASCII) {
            // String by string, so that the failure names the first bad one.
            var start = 0
            for j in 0..<count {
                let end = shortEnds.map { Int($0[j]) } ?? Int(longEnds![j])
                try r.checkUTF8(bytesRange.lowerBound + start..<bytesRange.lowerBound + end, prefixAt: bytesRange.lowerBound + start)
                start = end
            }
        }
        if let shortEnds {
            column.appendBytes(bytes, shortEnds: shortEnds)
        } else {
            column.appendBytes(bytes, ends: longEnds!)
        }
    }
}
