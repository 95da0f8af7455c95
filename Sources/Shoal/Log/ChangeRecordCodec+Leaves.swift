// The column kinds only snapshots of format version 4 hold: integers and
// links as packed leaves, and strings as a leaf of bytes and ends, stored
// as the table keeps them in memory, so that loading copies and checks
// them rather than decoding value by value (FORMAT.md, "Snapshot payload").
//
//   packed     := width:byte (base:zigzag, unless width is 8) offset{count}
//                 (width 0, 1, 2, 4 or 8 bytes per value; value = base + offset, the
//                 offset unsigned little-endian; width 0 stores nothing, every value
//                 is base; width 8 stores each value as it is, with no base)
//   stringLeaf := byteCount:varint endWidth:byte end{count} byte{byteCount}
//                 (endWidth 2 or 4; each end little-endian, where its string ends in the
//                 bytes: ends never decrease and the last is byteCount; 2 only when
//                 byteCount < 65,536; the bytes valid UTF-8)

extension ChangeRecordCodec {
    /// Writes a column of a snapshot run (format version 4): a required int
    /// property's ints or a link property's links as a packed leaf, a
    /// required string property's strings as a string leaf; anything else
    /// as an insert run's column (``encodeColumn(_:into:)``).
    static func encodeSnapshotColumn(_ column: ContiguousArray<Value>, shape: PropertyShape, into w: inout ByteWriter) {
        guard shape.collection == .none, !column.isEmpty else { return encodeColumn(column, into: &w) }
        /// Every value as `extract` gives it, or `nil` if one gives none.
        func all<T>(_ extract: (Value) -> T?) -> ContiguousArray<T>? {
            var result = ContiguousArray<T>()
            result.reserveCapacity(column.count)
            for v in column {
                guard let x = extract(v) else { return nil }
                result.append(x)
            }
            return result
        }
        switch shape.value.type {
        case .int where !shape.value.isOptional:
            guard let ints = all({ if case .int(let i) = $0 { i } else { nil } }) else { return encodeColumn(column, into: &w) }
            w.byte(ColumnKind.packedInt.rawValue)
            encodePackedInts(ints, into: &w)
        case .object:
            // Links into one class, or null (-1).
            guard let target = column.lazy.compactMap({ if case .link(let l) = $0 { l.table } else { nil } }).first,
                let keys = all({ v -> Int64? in
                    switch v {
                    case .null: -1
                    case .link(let l) where l.key.rawValue >= 0 && l.table == target: l.key.rawValue
                    default: nil
                    }
                })
            else { return encodeColumn(column, into: &w) }
            w.byte(ColumnKind.packedLink.rawValue)
            w.varint(Int(target.rawValue))
            encodePackedInts(keys, into: &w)
        case .string where !shape.value.isOptional:
            guard let strings = all({ if case .string(let s) = $0 { s } else { nil } }) else { return encodeColumn(column, into: &w) }
            w.byte(ColumnKind.stringLeaf.rawValue)
            encodeStringLeaf(strings, into: &w)
        default:
            encodeColumn(column, into: &w)
        }
    }

    /// Writes `values` as a packed leaf: the fewest bytes per value that
    /// hold each one's difference from the least, as ``IntChunks`` packs a
    /// full leaf.
    static func encodePackedInts(_ values: ContiguousArray<Int64>, into w: inout ByteWriter) {
        let least = values.min() ?? 0, most = values.max() ?? 0
        let span = UInt64(bitPattern: most &- least)
        let width = span == 0 ? 0 : span <= 0xFF ? 1 : span <= 0xFFFF ? 2 : span <= 0xFFFF_FFFF ? 4 : 8
        w.byte(UInt8(width))
        if width == 8 {
            for v in values { w.fixed64(UInt64(bitPattern: v)) }
            return
        }
        w.signed(least)
        for v in values {
            let offset = UInt64(bitPattern: v &- least)
            switch width {
            case 1: w.byte(UInt8(truncatingIfNeeded: offset))
            case 2: w.fixed16(UInt16(truncatingIfNeeded: offset))
            case 4: w.fixed32(UInt32(truncatingIfNeeded: offset))
            default: break
            }
        }
    }

    /// Writes `strings` as a string leaf: their byte count, the width of
    /// the ends (2 bytes when the bytes fit 16 bits), the ends, the bytes.
    static func encodeStringLeaf(_ strings: ContiguousArray<String>, into w: inout ByteWriter) {
        let total = strings.reduce(0) { $0 + $1.utf8.count }
        w.varint(total)
        let short = total <= Int(UInt16.max)
        w.byte(short ? 2 : 4)
        var end = 0
        for s in strings {
            end += s.utf8.count
            if short { w.fixed16(UInt16(end)) } else { w.fixed32(UInt32(end)) }
        }
        for s in strings { w.utf8(s) }
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
        let packed = r.withPayload { payload in
            ContiguousArray<UInt8>(unsafeUninitializedCapacity: range.count) { buffer, initialized in
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
        return IntChunks.Leaf(packed: packed, width: width, base: base, count: count)
    }

    /// Reads a string leaf of `count` strings into `column`, checking the
    /// ends and the UTF-8: a full leaf whose ends take two bytes is adopted
    /// as it is.
    static func decodeStringLeaf(_ r: inout ByteReader, count: Int, into column: inout Column) throws(DecodingFailure) {
        let totalOffset = r.offset
        let total = try r.int("string leaf byte count")
        let widthOffset = r.offset
        let endWidth = Int(try r.byte())
        guard endWidth == 2 || endWidth == 4 else {
            throw DecodingFailure(offset: widthOffset, reason: "string leaf: ends of \(endWidth) bytes, not 2 or 4")
        }
        guard endWidth == 4 || total <= Int(UInt16.max) else {
            throw DecodingFailure(offset: totalOffset, reason: "string leaf: \(total) bytes with two-byte ends")
        }
        let endsRange = try r.take(count * endWidth, "string leaf ends of \(count) strings")
        // Ends that never decrease, the last at the byte count.
        let endsFailure: String? = r.withPayload { payload in
            let raw = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: payload[endsRange]))
            var previous = 0
            for j in 0..<count {
                let end = endWidth == 2 ? Int(raw.loadLittleEndian(UInt16.self, at: j * 2)) : Int(raw.loadLittleEndian(UInt32.self, at: j * 4))
                guard end >= previous else { return "string leaf: string \(j) ends at \(end), before the one before it (\(previous))" }
                previous = end
            }
            return previous == total ? nil : "string leaf: the strings end at \(previous), not at the byte count \(total)"
        }
        if let endsFailure { throw DecodingFailure(offset: endsRange.lowerBound, reason: endsFailure) }
        let bytesRange = try r.take(total, "string leaf of \(total) bytes")
        let bytes = r.withPayload { payload in ContiguousArray(payload[bytesRange]) }
        if !bytes.withUnsafeBufferPointer(ByteReader.isASCII) {
            // String by string, so that the failure names the first bad one.
            var start = 0
            for j in 0..<count {
                let end = r.withPayload { payload in
                    let raw = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: payload[endsRange]))
                    return endWidth == 2 ? Int(raw.loadLittleEndian(UInt16.self, at: j * 2)) : Int(raw.loadLittleEndian(UInt32.self, at: j * 4))
                }
                try r.checkUTF8(bytesRange.lowerBound + start..<bytesRange.lowerBound + end, prefixAt: bytesRange.lowerBound + start)
                start = end
            }
        }
        /// The ends, converted to `T`.
        func ends<T: FixedWidthInteger>(_: T.Type) -> ContiguousArray<T> {
            r.withPayload { payload in
                let raw = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: payload[endsRange]))
                return ContiguousArray(unsafeUninitializedCapacity: count) { buffer, initialized in
                    for j in 0..<count {
                        buffer[j] = endWidth == 2
                            ? T(truncatingIfNeeded: raw.loadLittleEndian(UInt16.self, at: j * 2))
                            : T(truncatingIfNeeded: raw.loadLittleEndian(UInt32.self, at: j * 4))
                    }
                    initialized = count
                }
            }
        }
        if endWidth == 2, count == Chunks<UInt8>.width {
            column.appendBytes(bytes, shortEnds: ends(UInt16.self))
        } else {
            column.appendBytes(bytes, ends: ends(UInt32.self))
        }
    }
}
