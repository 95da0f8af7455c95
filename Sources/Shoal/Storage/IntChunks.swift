import CShoalScan

/// Integers (an int column's values, a link column's object keys) in
/// copy-on-write leaves of ``Chunks/width`` values, each full leaf packed
/// to the fewest bytes its values need: stored as their difference from
/// the leaf's least value, in 0, 1, 2 or 4 bytes each, or as they are when
/// the leaf spans more than 32 bits. This is realm-core's per-leaf bit
/// width, by whole bytes, with a frame of reference: ages take a byte,
/// and consecutive ids or keys (whose leaf spans 4,096) two.
///
/// Only full leaves are packed; the last leaf, which appends go to, holds
/// its values as they are until it fills. A write that does not fit its
/// packed leaf widens that leaf (a copy, which the write would make anyway
/// when the leaf is shared). Whole leaves of one value (the keys of deleted
/// slots) take no bytes at all.
///
/// Reads go through the leaves' addresses, as ``Chunks`` reads, with no
/// reference counted; scans get each leaf as `Int64`s
/// (``forEachLeaf(_:)``), a packed leaf unpacked into one buffer reused
/// from leaf to leaf.
struct IntChunks: RandomAccessCollection, Sendable {
    static var bits: Int { Chunks<Int64>.bits }
    static var width: Int { Chunks<Int64>.width }
    static var mask: Int { Chunks<Int64>.mask }

    /// One leaf: its values as they are (`width` 8), or packed.
    ///
    /// Separate stored arrays, not an enum's payloads, so that reading a
    /// value binds nothing that would be retained.
    struct Leaf: Sendable {
        /// The values, when `width` is 8; empty otherwise.
        var wide: ContiguousArray<Int64> = []
        /// Each value minus `base`, `width` bytes each in native order,
        /// when `width` is 1, 2 or 4; empty otherwise. A slice: of an array
        /// of the leaf's own, or of a loaded snapshot's bytes, adopted
        /// where they lie (copied out on the first write, as any shared
        /// leaf is), so not aligned to the width: read with unaligned
        /// loads, which on x86-64 and ARM64 are the same instructions.
        var packed: ArraySlice<UInt8> = []
        /// The least value of a packed leaf (every value of a leaf of width 0).
        var base: Int64 = 0
        /// Bytes per value: 0, 1, 2, 4, or 8 for values as they are.
        var width = 8
        var count: Int

        /// A leaf holding `values` as they are.
        init(wide values: ContiguousArray<Int64>) {
            wide = values
            count = values.count
        }

        /// A leaf of `count` values, each `base` plus its `width`-byte
        /// offset in `packed` (native order; `width` 1, 2 or 4).
        init(packed: ArraySlice<UInt8>, width: Int, base: Int64, count: Int) {
            precondition([1, 2, 4].contains(width) && packed.count == width * count, "a packed leaf of \(packed.count) bytes for \(count) values of \(width) bytes")
            self.packed = packed
            self.width = width
            self.base = base
            self.count = count
        }

        /// A leaf of `count` copies of `value`, which takes no bytes.
        init(repeating value: Int64, count: Int) {
            base = value
            width = 0
            self.count = count
        }

        /// `values` in the fewest bytes that hold them.
        init(packing values: UnsafeBufferPointer<Int64>) {
            count = values.count
            guard var least = values.first else { return }
            var most = least
            for v in values {
                least = Swift.min(least, v)
                most = Swift.max(most, v)
            }
            // The span as an unsigned number: wraps to the exact
            // difference, which fits 64 bits even from Int64.min to .max.
            let span = UInt64(bitPattern: most &- least)
            width = span == 0 ? 0 : span <= 0xFF ? 1 : span <= 0xFFFF ? 2 : span <= 0xFFFF_FFFF ? 4 : 8
            guard width != 8 else {
                wide = ContiguousArray(values)
                return
            }
            base = least
            // (A leaf of one value needs no bytes. An array made with no
            // capacity would write its count into the storage every empty
            // array shares: harmless, but a race to the thread sanitizer.)
            guard width != 0 else { return }
            let width = width
            packed = [UInt8](unsafeUninitializedCapacity: values.count * width) { bytes, initialized in
                let raw = UnsafeMutableRawPointer(bytes.baseAddress)
                // A loop per width (one switching per value did not vectorize).
                func pack<T: FixedWidthInteger & UnsignedInteger>(_: T.Type) {
                    for j in values.indices {
                        raw!.storeBytes(of: T(truncatingIfNeeded: UInt64(bitPattern: values[j] &- least)), toByteOffset: j &* MemoryLayout<T>.size, as: T.self)
                    }
                }
                switch width {
                case 1: pack(UInt8.self)
                case 2: pack(UInt16.self)
                case 4: pack(UInt32.self)
                default: break
                }
                initialized = values.count * width
            }[...]
        }

        /// Value `j`.
        @inline(__always)
        func value(_ j: Int) -> Int64 {
            switch width {
            case 8: return wide.withUnsafeBufferPointer { $0.baseAddress! }[j]
            case 0: return base
            default:
                let raw = UnsafeRawPointer(packed.withUnsafeBufferPointer { $0.baseAddress! })
                let offset: UInt64 =
                    switch width {
                    case 1: UInt64(raw.load(fromByteOffset: j, as: UInt8.self))
                    case 2: UInt64(raw.loadUnaligned(fromByteOffset: j &* 2, as: UInt16.self))
                    default: UInt64(raw.loadUnaligned(fromByteOffset: j &* 4, as: UInt32.self))
                    }
                return base &+ Int64(bitPattern: offset)
            }
        }

        /// Calls `body` with values `first` through `last` in order, in a
        /// loop typed by the leaf's width, until it returns `false`;
        /// returns whether it never did.
        @inline(__always)
        func forEach(from first: Int, through last: Int, _ body: (Int64) -> Bool) -> Bool {
            func offsets<T: FixedWidthInteger & UnsignedInteger>(_: T.Type) -> Bool {
                packed.withUnsafeBytes { raw in
                    for j in first...last {
                        let offset = raw.loadUnaligned(fromByteOffset: j &* MemoryLayout<T>.size, as: T.self)
                        if !body(base &+ Int64(bitPattern: UInt64(offset))) { return false }
                    }
                    return true
                }
            }
            switch width {
            case 8:
                return wide.withUnsafeBufferPointer { values in
                    for j in first...last where !body(values[j]) { return false }
                    return true
                }
            case 0:
                for _ in first...last where !body(base) { return false }
                return true
            case 1: return offsets(UInt8.self)
            case 2: return offsets(UInt16.self)
            default: return offsets(UInt32.self)
            }
        }

        /// The least and the greatest value (`nil` for no values), in one
        /// typed pass over the offsets: what a decoder checks a leaf's range with.
        var bounds: (least: Int64, most: Int64)? {
            guard count > 0 else { return nil }
            func offsets<T: FixedWidthInteger & UnsignedInteger>(_: T.Type) -> (T, T) {
                packed.withUnsafeBytes { raw in
                    var least = T.max, most = T.min
                    for j in 0..<count {
                        let v = raw.loadUnaligned(fromByteOffset: j &* MemoryLayout<T>.size, as: T.self)
                        least = Swift.min(least, v)
                        most = Swift.max(most, v)
                    }
                    return (least, most)
                }
            }
            switch width {
            case 0: return (base, base)
            case 8: return (wide.min()!, wide.max()!)
            case 1:
                let (l, m) = offsets(UInt8.self)
                return (base &+ Int64(l), base &+ Int64(m))
            case 2:
                let (l, m) = offsets(UInt16.self)
                return (base &+ Int64(l), base &+ Int64(m))
            default:
                let (l, m) = offsets(UInt32.self)
                return (base &+ Int64(l), base &+ Int64(m))
            }
        }

        /// How many values equal `value`.
        func count(equalTo value: Int64) -> Int {
            guard count > 0 else { return 0 }
            func matches<T: FixedWidthInteger>(_ values: UnsafeRawBufferPointer, _ wanted: T) -> Int {
                let start = values.baseAddress!
                var n = 0
                var j = 0
                // Counted in blocks, in a counter of the values' own width
                // (a byte's holds 255), so that the loop compares and adds
                // a whole vector of values at a time; an `Int` counter
                // widened every byte to 64 bits.
                let block = T.bitWidth == 8 ? 255 : Chunks<Int64>.width
                while j < count {
                    let end = Swift.min(count, j &+ block)
                    var matched: T = 0
                    while j < end {
                        matched &+= start.loadUnaligned(fromByteOffset: j &* MemoryLayout<T>.size, as: T.self) == wanted ? 1 : 0
                        j &+= 1
                    }
                    n &+= Int(truncatingIfNeeded: matched)
                }
                return n
            }
            switch width {
            case 0: return base == value ? count : 0
            case 8: return wide.withUnsafeBytes { matches($0, value) }
            default:
                // The offset `value` would have, if the leaf's width holds it.
                let (offset, overflow) = value.subtractingReportingOverflow(base)
                guard !overflow, offset >= 0, offset < Int64(1) << (8 * width) else { return 0 }
                return packed.withUnsafeBytes { raw in
                    switch width {
                    case 1: matches(raw, UInt8(offset))
                    case 2: matches(raw, UInt16(offset))
                    default: matches(raw, UInt32(offset))
                    }
                }
            }
        }

        /// Whether values `range` are `first`, `first + 1`, … in order:
        /// one pass over the values as stored, with no branch per value.
        func countsUp(_ range: Range<Int>, from first: Int64) -> Bool {
            guard !range.isEmpty else { return true }
            switch width {
            case 0: return range.count == 1 && base == first
            case 8:
                return wide.withUnsafeBufferPointer { values in
                    var misses = 0
                    for j in range { misses &+= values[j] &- Int64(j) != first &- Int64(range.lowerBound) ? 1 : 0 }
                    return misses == 0
                }
            default:
                // Offsets from the base: offset `j` must be `first - base + (j - lower)`.
                let (start, overflow) = first.subtractingReportingOverflow(base)
                guard !overflow, start >= 0 else { return false }
                func check<T: FixedWidthInteger & UnsignedInteger>(_: T.Type) -> Bool {
                    // The last offset expected must fit the width; then the
                    // offsets are compared in it (as many to a register as
                    // the width allows), and none wraps.
                    guard start <= Int64(T.max) - Int64(range.count - 1) else { return false }
                    return packed.withUnsafeBytes { raw in
                        var expected = T(truncatingIfNeeded: start)
                        var misses: T = 0
                        for j in range {
                            misses |= raw.loadUnaligned(fromByteOffset: j &* MemoryLayout<T>.size, as: T.self) ^ expected
                            expected &+= 1
                        }
                        return misses == 0
                    }
                }
                switch width {
                case 1: return check(UInt8.self)
                case 2: return check(UInt16.self)
                default: return check(UInt32.self)
                }
            }
        }

        /// The least value when it is below 0, else `nil` (what a link
        /// column's check of its keys, -1 for null, needs). With a base not
        /// below 0 and a width whose widest offset cannot pass Int64.max,
        /// no value is below the base, and none is read; otherwise the
        /// least is found as ``value(_:)`` reads the values (wrapping, for a
        /// leaf decoded from a file whose base and offsets overflow), in a
        /// pass typed by the width.
        var negativeLeast: Int64? {
            guard count > 0 else { return nil }
            if width != 8, base >= 0, base <= Int64.max - ((Int64(1) << (8 * width)) - 1) { return nil }
            let least = leastValue
            return least < 0 ? least : nil
        }

        /// The least value as ``value(_:)`` reads them (see ``negativeLeast``).
        private var leastValue: Int64 {
            func least<T: FixedWidthInteger>(_ values: UnsafeRawBufferPointer, _: T.Type, plus base: Int64) -> Int64 {
                var least = Int64.max
                for j in 0..<count {
                    least = Swift.min(least, base &+ Int64(values.loadUnaligned(fromByteOffset: j &* MemoryLayout<T>.size, as: T.self)))
                }
                return least
            }
            switch width {
            case 0: return base
            case 8: return wide.withUnsafeBytes { least($0, Int64.self, plus: 0) }
            case 1: return packed.withUnsafeBytes { least($0, UInt8.self, plus: base) }
            case 2: return packed.withUnsafeBytes { least($0, UInt16.self, plus: base) }
            default: return packed.withUnsafeBytes { least($0, UInt32.self, plus: base) }
            }
        }

        /// Writes where each run of equal values starts (0 first) to
        /// `starts`, and each run's value to `values`, both with room for
        /// ``count`` entries, and returns how many runs there are: one
        /// vector pass over the values as stored, which visits only the
        /// values that start a run (``shoal_run_starts``), then one read per
        /// run (what grouping a link column's objects by target reads).
        func runStarts(into starts: UnsafeMutablePointer<Int32>, values: UnsafeMutablePointer<Int64>) -> Int {
            guard count > 0 else { return 0 }
            starts[0] = 0
            guard width != 0 else {
                values[0] = base
                return 1
            }
            func find<T: FixedWidthInteger>(_ raw: UnsafeRawBufferPointer, _: T.Type, plus base: Int64) -> Int {
                let runs = shoal_run_starts(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count, MemoryLayout<T>.size, starts)
                for r in 0..<runs {
                    values[r] = base &+ Int64(truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: Int(starts[r]) &* MemoryLayout<T>.size, as: T.self))
                }
                return runs
            }
            switch width {
            case 8: return wide.withUnsafeBytes { find($0, Int64.self, plus: 0) }
            case 1: return packed.withUnsafeBytes { find($0, UInt8.self, plus: base) }
            case 2: return packed.withUnsafeBytes { find($0, UInt16.self, plus: base) }
            default: return packed.withUnsafeBytes { find($0, UInt32.self, plus: base) }
            }
        }

        /// Calls `body` with the values as `Int64`s: a wide leaf's own,
        /// or a packed leaf's unpacked into `scratch`.
        func withValues<R>(scratch: inout ContiguousArray<Int64>, _ body: (UnsafeBufferPointer<Int64>) throws -> R) rethrows -> R {
            if width == 8 { return try wide.withUnsafeBufferPointer(body) }
            if scratch.count != count {
                // Made at its size and written once (appending zeros first
                // went value by value).
                scratch = ContiguousArray(unsafeUninitializedCapacity: count) { out, made in
                    copyValues(0..<count, to: out.baseAddress!)
                    made = count
                }
            } else {
                scratch.withUnsafeMutableBufferPointer { copyValues(0..<count, to: $0.baseAddress!) }
            }
            return try scratch.withUnsafeBufferPointer(body)
        }

        /// The values as they are.
        var unpacked: ContiguousArray<Int64> {
            if width == 8 { return wide }
            guard count > 0 else { return [] }
            return ContiguousArray(unsafeUninitializedCapacity: count) { values, initialized in
                copyValues(0..<count, to: values.baseAddress!)
                initialized = count
            }
        }

        /// Writes values `range` to `out`, in a loop typed by the width.
        func copyValues(_ range: Range<Int>, to out: UnsafeMutablePointer<Int64>) {
            switch width {
            case 8:
                wide.withUnsafeBufferPointer { out.update(from: $0.baseAddress! + range.lowerBound, count: range.count) }
            case 0:
                out.update(repeating: base, count: range.count)
            case 1:
                packed.withUnsafeBufferPointer { bytes in
                    for j in range { out[j &- range.lowerBound] = base &+ Int64(bytes[j]) }
                }
            case 2:
                packed.withUnsafeBytes { raw in
                    for j in range { out[j &- range.lowerBound] = base &+ Int64(raw.loadUnaligned(fromByteOffset: j &* 2, as: UInt16.self)) }
                }
            default:
                packed.withUnsafeBytes { raw in
                    for j in range { out[j &- range.lowerBound] = base &+ Int64(raw.loadUnaligned(fromByteOffset: j &* 4, as: UInt32.self)) }
                }
            }
        }

        /// Stores `v` as value `j`, widening the leaf when `v` does not fit.
        mutating func set(_ j: Int, _ v: Int64) {
            if width == 8 {
                wide[j] = v
                return
            }
            let offset = UInt64(bitPattern: v &- base)
            let fits = v >= base && (width == 0 ? offset == 0 : width == 4 ? offset <= 0xFFFF_FFFF : offset < 1 << (8 * UInt64(width)))
            guard fits else {
                self = Leaf(wide: unpacked)
                wide[j] = v
                return
            }
            guard width != 0 else { return }  // the value it already holds
            packed.withUnsafeMutableBytes { raw in
                switch width {
                case 1: raw.storeBytes(of: UInt8(truncatingIfNeeded: offset), toByteOffset: j, as: UInt8.self)
                case 2: raw.storeBytes(of: UInt16(truncatingIfNeeded: offset), toByteOffset: j &* 2, as: UInt16.self)
                default: raw.storeBytes(of: UInt32(truncatingIfNeeded: offset), toByteOffset: j &* 4, as: UInt32.self)
                }
            }
        }

        /// Whether the packed bytes lie in `bytes`.
        func sharesBytes(of bytes: UnsafeRawBufferPointer) -> Bool {
            guard !packed.isEmpty, let start = bytes.baseAddress else { return false }
            let address = packed.withUnsafeBytes { Int(bitPattern: $0.baseAddress) }
            return address >= Int(bitPattern: start) && address < Int(bitPattern: start) + bytes.count
        }

        /// The bytes the leaf's values take.
        var storedBytes: Int { width == 8 ? wide.count * 8 : packed.count }
    }

    /// Gives each packed leaf whose bytes lie in `bytes` (a loaded
    /// snapshot's, adopted) a copy of its own.
    mutating func copyLeaves(sharing bytes: UnsafeRawBufferPointer) {
        for i in leaves.indices where leaves[i].width != 8 && leaves[i].sharesBytes(of: bytes) {
            leaves[i].packed = Array(leaves[i].packed)[...]
        }
    }

    /// The packed leaves whose bytes lie in `bytes`: how many, and the
    /// bytes their values take.
    func leaves(sharing bytes: UnsafeRawBufferPointer) -> (count: Int, bytes: Int) {
        var shared = (count: 0, bytes: 0)
        for leaf in leaves where leaf.width != 8 && leaf.sharesBytes(of: bytes) {
            shared.count += 1
            shared.bytes += leaf.storedBytes
        }
        return shared
    }

    /// The leaves in order; all are full but the last, and only full
    /// leaves are packed.
    private(set) var leaves: [Leaf] = []
    private(set) var count = 0

    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(i: Int) -> Int64 {
        @inline(__always) get {
            precondition(i >= 0 && i < count, "column index \(i) out of range 0..<\(count)")
            // Through the leaf's address, so that no leaf is retained on the way.
            let leaf = leaves.withUnsafeBufferPointer { $0.baseAddress! + (i &>> Self.bits) }
            return leaf.pointee.value(i & Self.mask)
        }
        set {
            precondition(i >= 0 && i < count, "column index \(i) out of range 0..<\(count)")
            leaves[i &>> Self.bits].set(i & Self.mask, newValue)
        }
    }

    /// The bytes the values take, over every leaf (a leaf shared by
    /// several is counted each time).
    var storedBytes: Int { leaves.reduce(0) { $0 + $1.storedBytes } }

    mutating func append(_ value: Int64) {
        if count & Self.mask == 0 {
            var leaf = ContiguousArray<Int64>()
            leaf.reserveCapacity(Self.width)
            leaves.append(Leaf(wide: leaf))
        }
        let last = leaves.count - 1
        leaves[last].wide.append(value)
        leaves[last].count += 1
        count += 1
        packIfFull(last)
    }

    /// Packs leaf `l` once it is full.
    private mutating func packIfFull(_ l: Int) {
        guard leaves[l].count == Self.width, leaves[l].width == 8 else { return }
        leaves[l] = leaves[l].wide.withUnsafeBufferPointer { Leaf(packing: $0) }
    }

    /// Appends `n` copies of `value`; each whole leaf of it takes no bytes.
    mutating func append(repeating value: Int64, count n: Int) {
        var left = n
        while left > 0 {
            if count & Self.mask == 0 && left >= Self.width {
                leaves.append(Leaf(repeating: value, count: Self.width))
                count += Self.width
                left -= Self.width
                continue
            }
            let take = Swift.min(left, Self.width - (count & Self.mask))
            append(contentsOf: repeatElement(value, count: take))
            left -= take
        }
    }

    /// Appends every element of `values`, a leaf at a time.
    mutating func append(contentsOf values: some Collection<Int64>) {
        var i = values.startIndex
        while i != values.endIndex {
            if count & Self.mask == 0 {
                var leaf = ContiguousArray<Int64>()
                leaf.reserveCapacity(Self.width)
                leaves.append(Leaf(wide: leaf))
            }
            let last = leaves.count - 1
            let room = Self.width - (count & Self.mask)
            let end = values.index(i, offsetBy: room, limitedBy: values.endIndex) ?? values.endIndex
            let before = leaves[last].wide.count
            leaves[last].wide.append(contentsOf: values[i..<end])
            let added = leaves[last].wide.count - before
            leaves[last].count += added
            count += added
            packIfFull(last)
            i = end
        }
    }

    /// Appends every element of `other`: where this ends at a leaf
    /// boundary, by taking `other`'s leaves as they are, otherwise a leaf
    /// at a time.
    mutating func append(contentsOf other: IntChunks) {
        guard count & Self.mask == 0 else {
            var scratch = ContiguousArray<Int64>()
            for leaf in other.leaves { leaf.withValues(scratch: &scratch) { append(contentsOf: $0) } }
            return
        }
        leaves.append(contentsOf: other.leaves)
        count += other.count
    }

    /// Appends `leaf` (at most ``width`` values): where this ends at a leaf
    /// boundary, as a leaf of its own (packed when full).
    mutating func append(leaf: ContiguousArray<Int64>) {
        guard count & Self.mask == 0, leaf.count <= Self.width else {
            append(contentsOf: leaf)
            return
        }
        guard !leaf.isEmpty else { return }
        leaves.append(leaf.count == Self.width ? leaf.withUnsafeBufferPointer { Leaf(packing: $0) } : Leaf(wide: leaf))
        count += leaf.count
    }

    /// Appends `leaf` as it is when it is a full leaf starting at a leaf
    /// boundary (a loaded snapshot's packed leaf, adopted with no copy);
    /// its values otherwise.
    ///
    /// The leaf is taken, not copied: a copy retained its arrays, 80 ns an
    /// adopted leaf when loading.
    mutating func append(adopting leaf: consuming Leaf) {
        guard count & Self.mask == 0, leaf.count == Self.width else {
            append(leaf: leaf.unpacked)
            return
        }
        count += leaf.count
        leaves.append(leaf)
    }

    /// The leaves holding values `range`, shared (no value copied), and
    /// where those values lie among them.
    func sharing(_ range: Range<Int>) -> (chunks: IntChunks, range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "values \(range) out of range 0..<\(count)")
        guard !range.isEmpty else { return (IntChunks(), 0..<0) }
        let first = range.lowerBound &>> Self.bits
        let end = (range.upperBound &+ Self.mask) &>> Self.bits
        var part = IntChunks()
        part.leaves = Array(leaves[first..<end])
        part.count = part.leaves.reduce(0) { $0 &+ $1.count }
        let shift = first &<< Self.bits
        return (part, (range.lowerBound &- shift)..<(range.upperBound &- shift))
    }

    /// The first of values `range` when each is one more than the one
    /// before (ids counting up), else `nil`: checked a leaf at a time on
    /// the values as stored, with no value copied.
    func consecutiveFirst(_ range: Range<Int>) -> Int64? {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "values \(range) out of range 0..<\(count)")
        guard !range.isEmpty else { return nil }
        let first = self[range.lowerBound]
        // The last must not pass Int64.max: the checks below compare
        // modulo 2^64, and would take a wrap to Int64.min for counting on.
        guard first <= Int64.max - Int64(range.count - 1) else { return nil }
        var i = range.lowerBound
        while i < range.upperBound {
            let start = i & ~Self.mask
            let end = Swift.min(range.upperBound, start &+ Self.width)
            // Value `i` must be `first` plus its distance from `range`'s start.
            let expected = first &+ Int64(i &- range.lowerBound)
            guard leaves[i &>> Self.bits].countsUp((i &- start)..<(end &- start), from: expected) else { return nil }
            i = end
        }
        return first
    }

    /// Writes values `range` to `out`, a leaf at a time, each in the loop
    /// typed by its width.
    func copyValues(_ range: Range<Int>, to out: UnsafeMutablePointer<Int64>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "values \(range) out of range 0..<\(count)")
        var i = range.lowerBound
        while i < range.upperBound {
            let start = i & ~Self.mask
            let end = Swift.min(range.upperBound, start &+ Self.width)
            leaves[i &>> Self.bits].copyValues((i &- start)..<(end &- start), to: out + (i &- range.lowerBound))
            i = end
        }
    }

    /// The values of the leaf holding value `i`, and the index of its first value.
    func chunk(containing i: Int) -> (base: Int, elements: ContiguousArray<Int64>) {
        precondition(i >= 0 && i < count, "column index \(i) out of range 0..<\(count)")
        return (i & ~Self.mask, leaves[i &>> Self.bits].unpacked)
    }

    /// Calls `body` with values `first` through `last` (within the
    /// chunks) in order, leaf by leaf, until it returns `false`.
    func forEach(from first: Int, through last: Int, _ body: (Int64) -> Bool) {
        var i = first
        while i <= last {
            let leaf = i &>> Self.bits
            let start = leaf &<< Self.bits
            guard leaves[leaf].forEach(from: i &- start, through: Swift.min(last &- start, Self.mask), body) else { return }
            i = start &+ Self.width
        }
    }

    /// The number of values from index `first` through `last` that `test`
    /// passes, read where they are packed. The count is kept per leaf in a
    /// local: counted through ``forEach(from:through:_:)``, each value was
    /// an increment in memory, a store waited on by the next.
    @inline(__always)
    func count(from first: Int, through last: Int, where test: (Int64) -> Bool) -> Int {
        var total = 0
        var i = first
        while i <= last {
            let leaf = i &>> Self.bits
            let start = leaf &<< Self.bits
            var passed = 0
            _ = leaves[leaf].forEach(from: i &- start, through: Swift.min(last &- start, Self.mask)) { value in
                // The flag's byte added, not a branch on it: with values
                // passing at random, the branch was mispredicted often.
                passed &+= Int(unsafeBitCast(test(value), to: UInt8.self))
                return true
            }
            total &+= passed
            i = start &+ Self.width
        }
        return total
    }

    /// How many values equal `value`: each leaf in a loop typed by its
    /// width, comparing the values as stored (which vectorizes; the
    /// general ``count(from:through:where:)`` calls a test per value).
    func count(equalTo value: Int64) -> Int {
        var total = 0
        for leaf in leaves { total &+= leaf.count(equalTo: value) }
        return total
    }

    /// Calls `body` with each leaf's values and the index of its first value.
    func forEachLeaf(_ body: (_ base: Int, _ leaf: UnsafeBufferPointer<Int64>) throws -> Void) rethrows {
        var scratch = ContiguousArray<Int64>()
        for (n, leaf) in leaves.enumerated() {
            try leaf.withValues(scratch: &scratch) { try body(n &<< Self.bits, $0) }
        }
    }
}
