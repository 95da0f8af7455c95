/// Values of one type in copy-on-write leaves of ``width`` values: the
/// storage of a typed column.
///
/// A copy shares every leaf; a change copies the list of leaves (one
/// reference per `width` values) and the one leaf it touches, when they are
/// shared. Reading a value indexes two arrays, with no trie to walk and, for
/// a trivial `Element` (integers, doubles, dates), no reference count to
/// touch.
struct Chunks<Element: Sendable>: RandomAccessCollection, Sendable {
    /// log2 of the leaf width.
    static var bits: Int { 12 }
    /// The most values a leaf holds (the last leaf may hold fewer).
    static var width: Int { 1 << bits }
    static var mask: Int { width - 1 }

    /// The values in order, in leaves of ``width`` (the last may be shorter).
    private(set) var leaves: [ContiguousArray<Element>] = []
    private(set) var count = 0

    init() {}

    init(repeating value: Element, count: Int) {
        append(repeating: value, count: count)
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(i: Int) -> Element {
        // Through the value's address, so that no leaf array is retained
        // on the way (`self` holds them).
        @inline(__always) get { address(i).pointee }
        set {
            precondition(i >= 0 && i < count, "column index \(i) out of range 0..<\(count)")
            leaves[i &>> Self.bits][i & Self.mask] = newValue
        }
    }

    /// The address of value `i`, valid while this collection (or a copy
    /// sharing its leaf) is neither changed nor released. The leaves'
    /// addresses are taken out of their closures.
    @inline(__always)
    func address(_ i: Int) -> UnsafePointer<Element> {
        precondition(i >= 0 && i < count, "column index \(i) out of range 0..<\(count)")
        let leaf = leaves.withUnsafeBufferPointer { $0.baseAddress! + (i &>> Self.bits) }
        return leaf.pointee.withUnsafeBufferPointer { $0.baseAddress! } + (i & Self.mask)
    }

    mutating func append(_ value: Element) {
        append(value, reservingLeaf: true)
    }

    /// Appends one value; a new leaf reserves room for a whole leaf when
    /// `reservingLeaf`, and otherwise grows as an array does (for values
    /// that come a few at a time, as a dictionary's strings do).
    mutating func append(_ value: Element, reservingLeaf: Bool) {
        if count & Self.mask == 0 {
            var leaf = ContiguousArray<Element>()
            if reservingLeaf { leaf.reserveCapacity(Self.width) }
            leaves.append(leaf)
        }
        leaves[leaves.count - 1].append(value)
        count += 1
    }

    /// Appends `n` copies of `value`. Whole leaves of it share one buffer
    /// (copied only when one of them is written to), so that millions of
    /// placeholders (the slots of deleted objects, which are never written
    /// again) take a reference per leaf, not a value per slot.
    ///
    /// - Parameter fullLeaf: a full leaf of `value` to share, when the
    ///   caller keeps one (full leaves are otherwise made, one per call).
    mutating func append(repeating value: Element, count n: Int, fullLeaf: ContiguousArray<Element>? = nil) {
        precondition(fullLeaf.map { $0.count == Self.width } ?? true, "a full leaf of \(fullLeaf?.count ?? 0) elements")
        var left = n
        var shared = fullLeaf
        while left > 0 {
            if count & Self.mask == 0 && left >= Self.width {
                if shared == nil { shared = ContiguousArray(repeating: value, count: Self.width) }
                leaves.append(shared!)
                count += Self.width
                left -= Self.width
                continue
            }
            if count & Self.mask == 0 {
                var leaf = ContiguousArray<Element>()
                leaf.reserveCapacity(Self.width)
                leaves.append(leaf)
            }
            let take = Swift.min(left, Self.width - (count & Self.mask))
            leaves[leaves.count - 1].append(contentsOf: repeatElement(value, count: take))
            count += take
            left -= take
        }
    }

    /// Appends every element of `values`, a leaf at a time.
    mutating func append(contentsOf values: some Collection<Element>) {
        var i = values.startIndex
        while i != values.endIndex {
            if count & Self.mask == 0 {
                var leaf = ContiguousArray<Element>()
                leaf.reserveCapacity(Self.width)
                leaves.append(leaf)
            }
            let room = Self.width - (count & Self.mask)
            let end = values.index(i, offsetBy: room, limitedBy: values.endIndex) ?? values.endIndex
            let before = leaves[leaves.count - 1].count
            leaves[leaves.count - 1].append(contentsOf: values[i..<end])
            count += leaves[leaves.count - 1].count - before
            i = end
        }
    }

    /// Appends every element of `other`: where this ends at a leaf
    /// boundary, by taking `other`'s leaves as they are (no element is
    /// copied until one of them is written to), otherwise a leaf at a time.
    mutating func append(contentsOf other: Chunks<Element>) {
        guard count & Self.mask == 0 else {
            for leaf in other.leaves { append(contentsOf: leaf) }
            return
        }
        leaves.append(contentsOf: other.leaves)
        count += other.count
    }

    /// Appends `leaf` (at most ``width`` values): where this ends at a leaf
    /// boundary, as a leaf of its own, taken as it is.
    mutating func append(leaf: ContiguousArray<Element>) {
        guard count & Self.mask == 0, leaf.count <= Self.width else {
            append(contentsOf: leaf)
            return
        }
        guard !leaf.isEmpty else { return }
        leaves.append(leaf)
        count += leaf.count
    }

    /// The leaf holding value `i`, and the index of its first value.
    func chunk(containing i: Int) -> (base: Int, elements: ContiguousArray<Element>) {
        precondition(i >= 0 && i < count, "column index \(i) out of range 0..<\(count)")
        return (i & ~Self.mask, leaves[i &>> Self.bits])
    }

    /// Calls `body` with each leaf, as an array, and the index of its first value.
    func forEachChunk(_ body: (_ base: Int, _ leaf: ContiguousArray<Element>) throws -> Void) rethrows {
        for (n, leaf) in leaves.enumerated() { try body(n &<< Self.bits, leaf) }
    }

    /// Calls `body` with each leaf and the index of its first value.
    @inline(__always)
    func forEachLeaf(_ body: (_ base: Int, _ leaf: UnsafeBufferPointer<Element>) throws -> Void) rethrows {
        for (n, leaf) in leaves.enumerated() {
            try leaf.withUnsafeBufferPointer { try body(n &<< Self.bits, $0) }
        }
    }
}

/// Variable-length byte strings (the UTF-8 of `String`s, or `Data`) in
/// copy-on-write leaves of ``Chunks/width`` values, each leaf one byte
/// buffer and the end offset of each value in it, as Apache Arrow lays out
/// a string array. A value is read, compared and hashed in place.
///
/// A full leaf of at most 65,535 bytes (a leaf of names, of short
/// strings) keeps its ends in two bytes each rather than four.
struct ByteChunks: Sendable {
    struct Leaf: Sendable {
        var bytes: ContiguousArray<UInt8> = []
        /// Where each value ends in `bytes`, unless `isShort`.
        var ends: ContiguousArray<UInt32> = []
        /// Where each value ends in `bytes`, when `isShort`.
        var shortEnds: ContiguousArray<UInt16> = []
        /// Whether the ends are in `shortEnds` (a plain flag, so that
        /// reading a value asks no array for its count).
        var isShort = false

        init() {}

        init(bytes: ContiguousArray<UInt8>, ends: ContiguousArray<UInt32>) {
            self.bytes = bytes
            self.ends = ends
        }

        var count: Int { isShort ? shortEnds.count : ends.count }

        @inline(__always)
        func range(_ i: Int) -> Range<Int> {
            isShort
                ? (i == 0 ? 0 : Int(shortEnds[i &- 1]))..<Int(shortEnds[i])
                : (i == 0 ? 0 : Int(ends[i &- 1]))..<Int(ends[i])
        }

        /// Calls `body` with the ends, as four-byte or two-byte offsets.
        func withEnds<R>(
            _ wide: (UnsafeBufferPointer<UInt32>) throws -> R, short: (UnsafeBufferPointer<UInt16>) throws -> R
        ) rethrows -> R {
            isShort ? try shortEnds.withUnsafeBufferPointer(short) : try ends.withUnsafeBufferPointer(wide)
        }

        /// Moves the ends to two bytes each when the leaf is full and its
        /// bytes fit 16-bit offsets.
        mutating func shortenIfFull() {
            guard !isShort, ends.count == Chunks<UInt8>.width, bytes.count <= Int(UInt16.max) else { return }
            // A plain loop over the buffers, which the compiler vectorizes.
            shortEnds = ends.withUnsafeBufferPointer { ends in
                ContiguousArray(unsafeUninitializedCapacity: ends.count) { short, initialized in
                    for i in 0..<ends.count { short[i] = UInt16(truncatingIfNeeded: ends[i]) }
                    initialized = ends.count
                }
            }
            ends = []
            isShort = true
        }

        mutating func replace(_ i: Int, with new: UnsafeRawBufferPointer) {
            let old = range(i)
            let delta = new.count - old.count
            if isShort, bytes.count + delta > Int(UInt16.max) {
                // Too many bytes for two-byte ends now.
                ends = ContiguousArray(shortEnds.lazy.map { UInt32($0) })
                shortEnds = []
                isShort = false
            }
            bytes.replaceSubrange(old, with: new)
            guard delta != 0 else { return }
            if isShort {
                shortEnds.withUnsafeMutableBufferPointer { ends in
                    for j in i..<ends.count { ends[j] = UInt16(Int(ends[j]) + delta) }
                }
            } else {
                ends.withUnsafeMutableBufferPointer { ends in
                    for j in i..<ends.count { ends[j] = UInt32(Int(ends[j]) + delta) }
                }
            }
        }
    }

    private static var bits: Int { Chunks<UInt8>.bits }
    private static var mask: Int { Chunks<UInt8>.mask }

    private(set) var leaves: [Leaf] = []
    private(set) var count = 0
    /// Whether a small ASCII string is made here from its bytes
    /// (``StringCopy/makesSmall``), kept beside the leaves so that a read
    /// checks a field rather than a lazily made global.
    let makesSmall = StringCopy.makesSmall

    init() {}

    /// Calls `body` with the bytes of value `i`, in place.
    @inline(__always)
    func withBytes<R>(_ i: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        // The leaf, and so the bytes, outlive the call: `self` holds them.
        try withExtendedLifetime(self) { try body(unsafeBytes(i)) }
    }

    /// Value `i` as a string (its bytes valid UTF-8): a small ASCII one
    /// made from its bytes with no call into the runtime where this
    /// build's layout allows (``StringCopy/makesSmall``).
    @inline(__always)
    func string(_ i: Int) -> String {
        StringCopy.string(utf8: unsafeBytes(i), makesSmall: makesSmall)
    }

    /// The bytes of value `i`, in place: valid only while this value (or a
    /// copy sharing its leaf) is alive and unchanged.
    ///
    /// The addresses are taken out of the buffer closures on purpose: a
    /// caller that makes a `String` inside them (an opaque call) made the
    /// compiler retain and release the leaf's two arrays around it, a
    /// quarter of the time of reading a short string property.
    @inline(__always)
    func unsafeBytes(_ i: Int) -> UnsafeRawBufferPointer {
        precondition(i >= 0 && i < count, "column index \(i) out of range 0..<\(count)")
        let j = i & Self.mask
        let leaf = leaves.withUnsafeBufferPointer { $0.baseAddress! + (i &>> Self.bits) }
        let (start, end) = leaf.pointee.isShort
            ? leaf.pointee.shortEnds.withUnsafeBufferPointer { ends in (j == 0 ? 0 : Int(ends[j &- 1]), Int(ends[j])) }
            : leaf.pointee.ends.withUnsafeBufferPointer { ends in (j == 0 ? 0 : Int(ends[j &- 1]), Int(ends[j])) }
        let base = leaf.pointee.bytes.withUnsafeBytes { $0.baseAddress }
        return UnsafeRawBufferPointer(start: base.map { $0 + start }, count: end &- start)
    }

    /// Appends one value. A new leaf reserves room for as many bytes as
    /// the leaf before it holds, and a leaf that fills is trimmed to its
    /// bytes, so that the doubling of a growing array leaves no unused
    /// capacity behind (a third of the bytes, on average, before).
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if count & Self.mask == 0 {
            var leaf = Leaf()
            leaf.ends.reserveCapacity(Self.mask + 1)
            if let previous = leaves.last?.bytes.count { leaf.bytes.reserveCapacity(previous + previous / 16) }
            leaves.append(leaf)
        }
        let n = leaves.count - 1
        // Typed, so that the append is one copy rather than a byte at a time.
        leaves[n].bytes.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
        leaves[n].ends.append(UInt32(leaves[n].bytes.count))
        count += 1
        guard count & Self.mask == 0 else { return }
        if leaves[n].bytes.capacity > leaves[n].bytes.count + leaves[n].bytes.count / 8 {
            // Copied through a buffer: an array made from an array shares its storage.
            leaves[n].bytes = leaves[n].bytes.withUnsafeBufferPointer { ContiguousArray($0) }
        }
        leaves[n].shortenIfFull()
    }

    mutating func append(_ string: String) {
        var string = string
        string.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// Appends every value of `other`: where this ends at a leaf boundary,
    /// by taking `other`'s leaves as they are, otherwise value by value.
    mutating func append(contentsOf other: ByteChunks) {
        guard count & Self.mask == 0 else {
            for i in 0..<other.count { other.withBytes(i) { append($0) } }
            return
        }
        leaves.append(contentsOf: other.leaves)
        count += other.count
    }

    /// Appends the values of one leaf, `bytes` with each value's end in
    /// it (at most ``Chunks/width`` values): where this ends at a leaf
    /// boundary, as a leaf of its own, taken as it is.
    mutating func append(leafBytes bytes: ContiguousArray<UInt8>, ends: ContiguousArray<UInt32>) {
        guard count & Self.mask == 0, ends.count <= Self.mask + 1 else {
            bytes.withUnsafeBytes { all in
                var start = 0
                for end in ends {
                    append(UnsafeRawBufferPointer(rebasing: all[start..<Int(end)]))
                    start = Int(end)
                }
            }
            return
        }
        guard !ends.isEmpty else { return }
        var leaf = Leaf(bytes: bytes, ends: ends)
        leaf.shortenIfFull()
        leaves.append(leaf)
        count += ends.count
    }

    /// Appends the values of one leaf, `bytes` with each value's end in it
    /// in two bytes: a full leaf at a leaf boundary is taken as it is
    /// (a loaded snapshot's leaf), anything else as four-byte ends.
    mutating func append(leafBytes bytes: ContiguousArray<UInt8>, shortEnds: ContiguousArray<UInt16>) {
        guard count & Self.mask == 0, shortEnds.count == Self.mask + 1 else {
            append(leafBytes: bytes, ends: ContiguousArray(shortEnds.lazy.map { UInt32($0) }))
            return
        }
        var leaf = Leaf()
        leaf.bytes = bytes
        leaf.shortEnds = shortEnds
        leaf.isShort = true
        leaves.append(leaf)
        count += shortEnds.count
    }

    /// Appends `n` empty values, a leaf at a time (deleted slots of a loaded
    /// snapshot can number millions: one by one, they took seconds). Whole
    /// leaves of empty values share one buffer, as in
    /// ``Chunks/append(repeating:count:)``.
    mutating func appendEmpty(count n: Int) {
        var left = n
        var shared: Leaf?
        while left > 0 {
            if count & Self.mask == 0 && left > Self.mask {
                if shared == nil {
                    var leaf = Leaf(bytes: [], ends: ContiguousArray(repeating: 0, count: Self.mask + 1))
                    leaf.shortenIfFull()
                    shared = leaf
                }
                leaves.append(shared!)
                count += Self.mask + 1
                left -= Self.mask + 1
                continue
            }
            if count & Self.mask == 0 { leaves.append(Leaf()) }
            let last = leaves.count - 1
            let take = Swift.min(left, Self.mask + 1 - (count & Self.mask))
            leaves[last].ends.append(contentsOf: repeatElement(UInt32(leaves[last].bytes.count), count: take))
            count += take
            left -= take
            leaves[last].shortenIfFull()
        }
    }

    mutating func set(_ i: Int, _ bytes: UnsafeRawBufferPointer) {
        precondition(i >= 0 && i < count, "column index \(i) out of range 0..<\(count)")
        leaves[i &>> Self.bits].replace(i & Self.mask, with: bytes)
    }

    mutating func set(_ i: Int, _ string: String) {
        var string = string
        string.withUTF8 { set(i, UnsafeRawBufferPointer($0)) }
    }
}
