/// Object keys (the origins of backlinks from one property) in the fewest
/// bytes that hold them: each key is stored as its difference from a
/// reference key (the first one stored), in 1, 2, 4 or 8 bytes, the width
/// the largest difference so far needs. An owner's dogs, made one after
/// another, take a byte each rather than eight.
///
/// Reading a key is a load and an add, so the keys stay a random-access
/// collection; a key that needs more bytes than the others widens them
/// all once, which happens at most three times. Equal keys in the same
/// order compare and hash equal, whatever their widths and reference.
struct PackedKeys: RandomAccessCollection, Hashable, Sendable, ExpressibleByArrayLiteral {
    /// What every key is stored relative to: the first key stored since
    /// the collection was last empty (not necessarily still held).
    private var reference: Int64 = 0
    /// log2 of the bytes per key: 0, 1, 2 or 3.
    private var shift: UInt8 = 0
    /// Each key minus `reference`, `1 << shift` bytes each, little-endian
    /// (the low bytes of the difference, which sign-extend back to it).
    private var bytes: ContiguousArray<UInt8> = []

    init() {}

    init(_ keys: some Sequence<Int64>) {
        append(contentsOf: keys)
    }

    init(arrayLiteral keys: Int64...) { self.init(keys) }

    var startIndex: Int { 0 }
    var endIndex: Int { bytes.count &>> Int(shift) }

    /// The bytes a key takes.
    var width: Int { 1 << Int(shift) }

    subscript(i: Int) -> Int64 {
        precondition(i >= 0 && i < count, "key index \(i) out of range 0..<\(count)")
        return reference &+ bytes.withUnsafeBytes { raw in Self.difference(raw, i, shift) }
    }

    private static func difference(_ raw: UnsafeRawBufferPointer, _ i: Int, _ shift: UInt8) -> Int64 {
        switch shift {
        case 0: Int64(raw.load(fromByteOffset: i, as: Int8.self))
        case 1: Int64(Int16(littleEndian: raw.load(fromByteOffset: i &<< 1, as: Int16.self)))
        case 2: Int64(Int32(littleEndian: raw.load(fromByteOffset: i &<< 2, as: Int32.self)))
        default: Int64(littleEndian: raw.load(fromByteOffset: i &<< 3, as: Int64.self))
        }
    }

    /// The shift of the width `difference` needs.
    private static func shift(for difference: Int64) -> UInt8 {
        Int8(exactly: difference) != nil ? 0 : Int16(exactly: difference) != nil ? 1 : Int32(exactly: difference) != nil ? 2 : 3
    }

    mutating func append(_ key: Int64) {
        if bytes.isEmpty {
            reference = key
            shift = 0
        }
        // Wrapping: the difference of any two keys, added back, gives the key.
        let difference = key &- reference
        let needed = Self.shift(for: difference)
        if needed > shift { widen(to: needed) }
        let width = self.width
        // Grown by half, not doubled, so that little room is left unused.
        if bytes.count + width > bytes.capacity { bytes.reserveCapacity(Swift.max(bytes.count + width, bytes.count + bytes.count / 2)) }
        appendBytes(of: difference, width: width)
    }

    /// Appends the low `width` bytes of `difference`, little-endian.
    private mutating func appendBytes(of difference: Int64, width: Int) {
        if width == 1 {
            bytes.append(UInt8(truncatingIfNeeded: difference))
            return
        }
        withUnsafeBytes(of: difference.littleEndian) { raw in
            bytes.append(contentsOf: UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: width))
        }
    }

    mutating func append(contentsOf keys: some Sequence<Int64>) {
        for key in keys { append(key) }
    }

    /// Stores every key in `1 << newShift` bytes.
    private mutating func widen(to newShift: UInt8) {
        let keys = Array(self)
        shift = newShift
        bytes = []
        bytes.reserveCapacity(keys.count << Int(newShift) + (1 << Int(newShift)))
        for key in keys { appendBytes(of: key &- reference, width: 1 << Int(newShift)) }
    }

    @discardableResult
    mutating func remove(at i: Int) -> Int64 {
        let key = self[i]
        bytes.removeSubrange((i &<< Int(shift))..<((i + 1) &<< Int(shift)))
        return key
    }

    mutating func reserveCapacity(_ n: Int) {
        bytes.reserveCapacity(n &<< Int(shift))
    }

    static func == (a: PackedKeys, b: PackedKeys) -> Bool { a.elementsEqual(b) }

    func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for key in self { hasher.combine(key) }
    }
}
