import Foundation

/// Appends the primitive encodings the record and schema codecs use:
/// LEB128 varints (zigzag for signed), little-endian fixed widths (through
/// the log's `appendLittleEndian`), and length-prefixed byte strings.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    mutating func byte(_ b: UInt8) { bytes.append(b) }

    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func varint(_ value: Int) { varint(UInt64(value)) }
    mutating func signed(_ value: Int64) { varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    mutating func fixed64(_ value: UInt64) { bytes.appendLittleEndian(value) }
    mutating func fixed32(_ value: UInt32) { bytes.appendLittleEndian(value) }
    mutating func fixed16(_ value: UInt16) { bytes.appendLittleEndian(value) }

    /// Bytes with no length before them (``raw(_:)`` writes the length first).
    mutating func unprefixed(_ raw: UnsafeRawBufferPointer) { bytes.append(contentsOf: raw) }

    /// A string's UTF-8 bytes with no length before them.
    mutating func utf8(_ s: String) {
        var s = s
        s.withUTF8 { bytes.append(contentsOf: $0) }
    }

    mutating func raw<C: Collection>(_ data: C) where C.Element == UInt8 {
        varint(data.count)
        bytes.append(contentsOf: data)
    }

    /// A length-prefixed UTF-8 string, copied from the string's own storage.
    mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { utf8 in
            varint(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }
}

/// Why a payload could not be decoded, with the byte offset in the payload.
struct DecodingFailure: Error, Equatable, CustomStringConvertible {
    var offset: Int
    var reason: String
    var description: String { "\(reason) at payload offset \(offset)" }
}

/// Reads what ``ByteWriter`` writes, throwing on truncation or malformed input.
struct ByteReader {
    let bytes: [UInt8]
    private(set) var offset = 0
    /// Whether packed integer leaves are adopted where they lie in
    /// ``bytes`` rather than copied (a loaded snapshot's; see
    /// ``SnapshotCodec/keepsAdoptedLeaves(adopted:of:)``).
    var adoptsLeaves = false
    /// The bytes are still being decompressed into ``bytes`` (a large
    /// snapshot loading, ``ProgressivePayload``): only those before
    /// ``limit`` may be read, and a read past it waits for more.
    let progress: ProgressivePayload?
    /// The end of the bytes known to be there: every byte read lies
    /// before it. The whole payload unless ``progress`` fills it.
    private(set) var limit: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        progress = nil
        limit = bytes.count
    }

    /// A reader of `progress`'s payload, which is read as it is decompressed.
    init(_ progress: ProgressivePayload) {
        bytes = progress.bytes
        self.progress = progress
        limit = progress.readyBytes
    }

    /// Whether the `n` bytes from ``offset`` are there (waiting, while the
    /// payload is decompressed, until they are or cannot be): what every
    /// read checks first.
    @inline(__always)
    mutating func has(_ n: Int) -> Bool {
        n <= limit &- offset || waitFor(n)
    }

    /// ``has(_:)`` past ``limit``: waits for the payload to reach the
    /// bytes, or to stop short of them (the end, or a chunk that fails).
    @inline(never)
    private mutating func waitFor(_ n: Int) -> Bool {
        guard let progress, limit < bytes.count, n >= 0 else { return false }
        limit = progress.waitForBytes(upTo: offset + min(n, bytes.count - offset))
        return n <= limit &- offset
    }

    var isAtEnd: Bool { offset == bytes.count }
    /// The bytes not read yet: the most of anything that takes a byte each.
    var remaining: Int { bytes.count - offset }

    /// Continues at `newOffset`, where another reader of the same bytes
    /// stopped.
    mutating func move(to newOffset: Int) {
        precondition(newOffset >= 0 && newOffset <= bytes.count, "offset \(newOffset) outside the \(bytes.count) bytes")
        offset = newOffset
    }

    func fail(_ reason: String) -> DecodingFailure { DecodingFailure(offset: offset, reason: reason) }

    mutating func byte() throws(DecodingFailure) -> UInt8 {
        guard has(1) else { throw fail("unexpected end of payload") }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// The next byte, not stepped over; `nil` at the end.
    mutating func peek() -> UInt8? {
        has(1) ? bytes[offset] : nil
    }

    mutating func varint() throws(DecodingFailure) -> UInt64 {
        // One byte, the commonest length: no loop.
        if offset < limit, bytes[offset] < 0x80 {
            defer { offset += 1 }
            return UInt64(bytes[offset])
        }
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try byte()
            if shift == 63 && b > 1 { throw fail("varint overflows 64 bits") }
            result |= UInt64(b & 0x7F) << shift
            if b & 0x80 == 0 { return result }
            shift += 7
            if shift > 63 { throw fail("varint longer than 10 bytes") }
        }
    }

    /// Reads `output.count` varints into `output`: what as many calls of
    /// ``varint()`` would read, with the same failures at the same offsets,
    /// but in one loop over the payload's bytes. A varint of up to nine
    /// bytes with ten bytes of payload left is decoded in the loop; any
    /// other (the last few, or a tenth byte that may overflow) by
    /// ``varint()`` itself.
    mutating func varints(into output: UnsafeMutableBufferPointer<UInt64>) throws(DecodingFailure) {
        var done = 0
        while done < output.count {
            // As many as the loop can take, without a check per byte.
            let (next, decoded) = bytes.withUnsafeBufferPointer { [limit] payload -> (Int, Int) in
                var at = offset, i = done
                let safeEnd = limit - 10
                while i < output.count, at <= safeEnd {
                    var b = UInt64(payload[at])
                    if b < 0x80 {
                        output[i] = b
                        at += 1
                        i += 1
                        continue
                    }
                    var result = b & 0x7F
                    var shift: UInt64 = 7
                    var length = 1
                    repeat {
                        b = UInt64(payload[at + length])
                        result |= (b & 0x7F) << shift
                        shift += 7
                        length += 1
                    } while b >= 0x80 && length < 9
                    // A tenth byte (which can overflow) is left to `varint()`.
                    guard b < 0x80 else { break }
                    output[i] = result
                    at += length
                    i += 1
                }
                return (at, i)
            }
            offset = next
            done = decoded
            if done < output.count {
                output[done] = try varint()
                done += 1
            }
        }
    }

    /// Where varint `index` begins, counting from the one at `start`
    /// (which ``varints(into:)`` read): for a failure's offset.
    func offset(ofVarint index: Int, from start: Int) -> Int {
        var at = start
        for _ in 0..<index {
            while at < limit, bytes[at] >= 0x80 { at += 1 }
            at += 1
        }
        return at
    }

    /// A varint that must fit in `0..<limit`.
    mutating func index(below limit: Int, _ what: String) throws(DecodingFailure) -> Int {
        let start = offset
        let v = try varint()
        guard v < UInt64(limit) else { throw DecodingFailure(offset: start, reason: "\(what) \(v) out of range 0..<\(limit)") }
        return Int(v)
    }

    mutating func count(_ what: String) throws(DecodingFailure) -> Int {
        let start = offset
        let v = try varint()
        guard v <= UInt64(bytes.count - offset) * 64 + 64 else {
            throw DecodingFailure(offset: start, reason: "\(what) \(v) is larger than the payload allows")
        }
        return Int(v)
    }

    /// A varint that fits in `Int`.
    mutating func int(_ what: String) throws(DecodingFailure) -> Int {
        let start = offset
        let v = try varint()
        guard v <= UInt64(Int.max) else { throw DecodingFailure(offset: start, reason: "\(what) \(v) out of range") }
        return Int(v)
    }

    mutating func signed() throws(DecodingFailure) -> Int64 {
        let v = try varint()
        return Int64(bitPattern: (v >> 1) ^ (0 &- (v & 1)))
    }

    mutating func fixed64() throws(DecodingFailure) -> UInt64 {
        guard has(8) else { throw fail("unexpected end of payload") }
        defer { offset += 8 }
        return bytes.loadLittleEndian(UInt64.self, at: offset)
    }

    mutating func fixed32() throws(DecodingFailure) -> UInt32 {
        guard has(4) else { throw fail("unexpected end of payload") }
        defer { offset += 4 }
        return bytes.loadLittleEndian(UInt32.self, at: offset)
    }

    mutating func raw() throws(DecodingFailure) -> ArraySlice<UInt8> {
        let start = offset
        let n = try varint()
        guard n <= UInt64(bytes.count - offset), has(Int(n)) else {
            throw DecodingFailure(offset: start, reason: "length \(n) runs past the end of the payload")
        }
        defer { offset += Int(n) }
        return bytes[offset..<offset + Int(n)]
    }

    /// A length-prefixed string that must be valid UTF-8.
    ///
    /// Read straight from the payload's buffer (a slice would retain and
    /// release the array per string, which showed in replay profiles), and
    /// decoded with `String(decoding:as:)`, whose contiguous-UTF-8 path is
    /// specialised (the generic `String(validating:as:)` looks up metadata
    /// at run time). ASCII needs no further check; otherwise a repair of
    /// invalid input changes the bytes, so comparing them back is the
    /// validation.
    mutating func string() throws(DecodingFailure) -> String {
        let (start, range) = try lengthPrefixed()
        let valid: String? = bytes.withUnsafeBufferPointer { all in
            Self.validString(UnsafeBufferPointer(rebasing: all[range]))
        }
        guard let valid else { throw DecodingFailure(offset: start, reason: "string is not valid UTF-8") }
        return valid
    }

    /// Throws unless the payload's bytes in `range` (a string whose length
    /// prefix is at `start`) are valid UTF-8.
    func checkUTF8(_ range: Range<Int>, prefixAt start: Int) throws(DecodingFailure) {
        let valid: Bool = bytes.withUnsafeBufferPointer { all in
            let input = UnsafeBufferPointer(rebasing: all[range])
            return Self.isASCII(input) || Self.validString(input) != nil
        }
        guard valid else { throw DecodingFailure(offset: start, reason: "string is not valid UTF-8") }
    }

    /// Steps over the next `n` bytes, which must be there: their range in
    /// the payload (see ``withPayload(_:)``). `what` names them in the failure.
    mutating func take(_ n: Int, _ what: @autoclosure () -> String) throws(DecodingFailure) -> Range<Int> {
        guard n >= 0, n <= remaining, has(n) else { throw fail("\(what()): \(n) bytes, past the end of the payload (\(remaining) left)") }
        defer { offset += n }
        return offset..<offset + n
    }

    /// Calls `body` with the payload, in place, up to ``limit``: the bytes
    /// that are there (ranges that ``take(_:_:)`` gave lie in it).
    func withPayload<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try bytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[..<limit])) }
    }

    /// Reads a length prefix and steps over that many bytes, which must be
    /// there: where the prefix starts, and the bytes' range in the payload
    /// (see ``withPayload(_:)``). Nothing of the bytes is checked: a string
    /// column's decoder checks a whole leaf of strings for ASCII at once,
    /// and each with ``checkUTF8(_:prefixAt:)`` only when it is not.
    mutating func lengthPrefixed() throws(DecodingFailure) -> (start: Int, range: Range<Int>) {
        let start = offset
        let n = try varint()
        guard n <= UInt64(bytes.count - offset), has(Int(n)) else {
            throw DecodingFailure(offset: start, reason: "length \(n) runs past the end of the payload")
        }
        let from = offset
        offset += Int(n)
        return (start, from..<offset)
    }

    /// The bytes of the shortest varint of `n` (at least 0).
    @inline(__always)
    static func varintSize(_ n: Int) -> Int {
        var size = 1
        while n >> (7 &* size) != 0 { size &+= 1 }
        return size
    }

    /// Reads `count` length-prefixed byte strings at once: one array of
    /// exactly their bytes, and where each ends in it. Reads what `count`
    /// calls of ``lengthPrefixed()`` would, with the same failures at the
    /// same offsets, but one-byte prefixes (strings under 128 bytes) in one
    /// loop over the payload, and the bytes copied into an array of the
    /// right size. Nothing of the bytes is checked.
    mutating func lengthPrefixedRun(_ count: Int) throws(DecodingFailure) -> (bytes: ContiguousArray<UInt8>, ends: ContiguousArray<UInt32>) {
        let start = offset
        var ends = ContiguousArray<UInt32>(repeating: 0, count: count)
        var total = 0
        var done = 0
        /// Whether every prefix takes the fewest bytes its length needs
        /// (the decoder accepts longer ones, which no writer makes).
        var minimalPrefixes = true
        while done < count {
            // As many one-byte prefixes as the loop can take.
            let (next, stepped, sum) = bytes.withUnsafeBufferPointer { [limit] payload in
                ends.withUnsafeMutableBufferPointer { ends -> (Int, Int, Int) in
                    var at = offset, i = done, total = total
                    while i < count, at < limit {
                        let n = Int(payload[at])
                        guard n < 0x80, n < limit - at, total + n <= Int(UInt32.max) else { break }
                        at += 1 + n
                        total += n
                        ends[i] = UInt32(truncatingIfNeeded: total)
                        i += 1
                    }
                    return (at, i, total)
                }
            }
            offset = next
            done = stepped
            total = sum
            guard done < count else { break }
            // A longer prefix, or one that fails: as `lengthPrefixed()` reads it.
            let string = try lengthPrefixed()
            if string.range.lowerBound - string.start != Self.varintSize(string.range.count) { minimalPrefixes = false }
            total += string.range.count
            guard total <= Int(UInt32.max) else {
                throw DecodingFailure(offset: string.start, reason: "\(total) bytes of strings in one leaf, over \(UInt32.max)")
            }
            ends[done] = UInt32(truncatingIfNeeded: total)
            done += 1
        }
        // Then the bytes, the prefixes (all read and checked above) walked
        // again. A string is copied eight bytes at a time where the payload
        // goes on past it (a `memmove` call per string of a few bytes was a
        // fifth of decoding a log of inserts); the words written past its
        // end land in the room the next string, or the eight bytes of
        // capacity beyond the last, overwrite.
        let copied = ContiguousArray<UInt8>(unsafeUninitializedCapacity: total + 8) { buffer, initialized in
            bytes.withUnsafeBufferPointer { [limit] payload in
                var at = start, written = 0
                for i in 0..<count {
                    // The length from the ends, and the prefix's size from
                    // the length when every prefix is minimal: no load
                    // waits for the byte before it.
                    let n = Int(ends[i]) &- written
                    at = minimalPrefixes ? at &+ Self.varintSize(n) : offset(ofVarint: 1, from: at)
                    if n > 0 {
                        if n <= 64, at &+ n &+ 8 <= limit {
                            let source = UnsafeRawPointer(payload.baseAddress! + at)
                            let target = UnsafeMutableRawPointer(buffer.baseAddress! + written)
                            var k = 0
                            while k < n {
                                target.storeBytes(of: source.loadUnaligned(fromByteOffset: k, as: UInt64.self), toByteOffset: k, as: UInt64.self)
                                k &+= 8
                            }
                        } else {
                            (buffer.baseAddress! + written).initialize(from: payload.baseAddress! + at, count: n)
                        }
                    }
                    at += n
                    written += n
                }
            }
            initialized = total
        }
        return (copied, ends)
    }

    /// `input` as a `String` if it is valid UTF-8. ASCII needs no further
    /// check; otherwise a repair of invalid input changes the bytes, so
    /// comparing them back is the validation.
    private static func validString(_ input: UnsafeBufferPointer<UInt8>) -> String? {
        var s = String(decoding: input, as: UTF8.self)
        if isASCII(input) { return s }
        let same = s.withUTF8 { output in
            output.count == input.count && memcmp(output.baseAddress!, input.baseAddress!, input.count) == 0
        }
        return same ? s : nil
    }

    /// Whether every byte is below 0x80, checked eight bytes at a time.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        let high: UInt64 = 0x8080_8080_8080_8080
        var i = 0
        var seen: UInt64 = 0
        while i + 8 <= bytes.count {
            seen |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < bytes.count {
            seen |= UInt64(bytes[i])
            i += 1
        }
        return seen & high == 0
    }
}
