/// Copies of stored strings that touch no reference count when the string
/// has none, and small strings made from stored UTF-8 with no call into
/// the runtime.
///
/// Reading a coded string column hands out its dictionary's `String`, and
/// most such strings are small (up to 15 UTF-8 bytes, held inline in the
/// `String` itself) or literals, which the runtime never counts. A plain
/// copy still calls into the runtime to find that out; ``copy(_:copiesBits:)``
/// tests the `String`'s own "immortal" flag inline. Reading a plain string
/// column makes a `String` of its bytes; ``string(utf8:makesSmall:)``
/// writes the two words of a small ASCII string directly, where
/// `String(decoding:as:)` calls into the runtime to validate and copy them.
///
/// Both rely on the layout of `String` on 64-bit platforms (two words, the
/// second's top byte holding the flags: "immortal", "ASCII", "small", and
/// the count of a small string, whose bytes fill the words from the first),
/// which ``knowsLayout`` and ``makesSmall`` check once against this build;
/// where it does not hold, every copy is a plain copy and every string is
/// decoded by the runtime.
enum StringCopy {
    /// Whether `String` has the layout ``copy(_:copiesBits:)`` relies on:
    /// checked once, on strings of each kind made at run time.
    static let knowsLayout: Bool = {
        #if _pointerBitWidth(_64) && _endian(little)
            guard MemoryLayout<String>.size == 16 else { return false }
            let small = String(decoding: [0x73, 0x68, 0x6F, 0x61, 0x6C], as: UTF8.self)
            let large = String(repeating: small, count: 20)
            guard words(small).1 & immortal != 0, words(large).1 & immortal == 0 else { return false }
            // A copy made the way reads make it gives the string back.
            var bits = words(small)
            return withUnsafeMutableBytes(of: &bits) { bytes in
                bytes.baseAddress!.withMemoryRebound(to: String.self, capacity: 1) { copy(UnsafePointer($0), copiesBits: true) }
            } == small
        #else
            return false
        #endif
    }()

    /// Whether ``string(utf8:makesSmall:)`` makes the very words the runtime makes:
    /// checked once, for ASCII strings of every length it makes (0 to 15
    /// bytes), against `String(decoding:as:)`.
    static let makesSmall: Bool = {
        #if _pointerBitWidth(_64) && _endian(little)
            guard knowsLayout else { return false }
            let sample: [UInt8] = Array("Shoal 0123456789".utf8)
            for n in 0...15 {
                let bytes = Array(sample.prefix(n))
                let made = bytes.withUnsafeBytes { bits(ascii: $0) }
                let runtime = String(decoding: bytes, as: UTF8.self)
                guard let made, made == words(runtime), string(made) == runtime else { return false }
            }
            // Not ASCII, or too long: not made here.
            return ([0xC3, 0xA9] as [UInt8]).withUnsafeBytes { bits(ascii: $0) } == nil
                && sample.withUnsafeBytes { bits(ascii: $0) } == nil
        #else
            return false
        #endif
    }()

    /// The flag of a `String`'s second word that says no reference is counted.
    private static var immortal: UInt64 { 1 << 63 }

    /// The two words of `string`.
    private static func words(_ string: String) -> (UInt64, UInt64) {
        withUnsafeBytes(of: string) { ($0.load(as: UInt64.self), $0.load(fromByteOffset: 8, as: UInt64.self)) }
    }

    /// A copy of the string at `string`; its bits when `copiesBits` (the
    /// caller's copy of ``knowsLayout``) and nothing is counted for it.
    @inline(__always)
    static func copy(_ string: UnsafePointer<String>, copiesBits: Bool) -> String {
        #if _pointerBitWidth(_64) && _endian(little)
            let raw = UnsafeRawPointer(string)
            let object = raw.load(fromByteOffset: 8, as: UInt64.self)
            if object & immortal != 0, copiesBits { return Self.string((raw.load(as: UInt64.self), object)) }
        #endif
        return string.pointee
    }

    /// The string of `utf8`, valid UTF-8: made from its bytes directly when
    /// it is small and ASCII and `makesSmall` (the caller's copy of
    /// ``makesSmall``), else by the runtime.
    @inline(__always)
    static func string(utf8: UnsafeRawBufferPointer, makesSmall: Bool) -> String {
        if makesSmall, let bits = bits(ascii: utf8) { return string(bits) }
        return decoded(utf8)
    }

    /// The string of `utf8` as the runtime makes it: the uncommon case of
    /// ``string(utf8:makesSmall:)``, kept out of the reads that inline it.
    @inline(never)
    private static func decoded(_ utf8: UnsafeRawBufferPointer) -> String {
        String(decoding: utf8, as: UTF8.self)
    }

    /// The two words of the small string of `bytes`, when they are at most
    /// 15 and all ASCII; `nil` otherwise. Loads only within `bytes`: two
    /// overlapping loads of 8 or 4 bytes (three single bytes for fewer
    /// than 4), shifted into place.
    @inline(__always)
    private static func bits(ascii bytes: UnsafeRawBufferPointer) -> (UInt64, UInt64)? {
        let n = bytes.count
        guard n <= 15 else { return nil }
        guard let p = bytes.baseAddress else { return (0, 0xE0 << 56) }
        var low: UInt64 = 0, high: UInt64 = 0
        if n >= 8 {
            low = p.loadUnaligned(as: UInt64.self)
            // Bytes 8..<n: the last eight bytes, the first 16 - n dropped.
            high = p.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self) >> (8 &* (16 &- n))
        } else if n >= 4 {
            low = UInt64(p.loadUnaligned(as: UInt32.self))
                | UInt64(p.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)) &<< (8 &* (n &- 4))
        } else if n > 0 {
            low = UInt64(p.load(as: UInt8.self))
                | UInt64(p.load(fromByteOffset: n &>> 1, as: UInt8.self)) &<< (8 &* (n &>> 1))
                | UInt64(p.load(fromByteOffset: n &- 1, as: UInt8.self)) &<< (8 &* (n &- 1))
        }
        guard (low | high) & 0x8080_8080_8080_8080 == 0 else { return nil }
        // Immortal, ASCII, small, and the count.
        return (low, high | (0xE0 | UInt64(n)) &<< 56)
    }

    /// The string whose two words are `bits`, which count no reference:
    /// written into memory bound to `String` and moved out, taking ownership
    /// with no retain. (`unsafeBitCast` would give an unowned value, which
    /// returning retains.)
    @inline(__always)
    private static func string(_ bits: (UInt64, UInt64)) -> String {
        withUnsafeTemporaryAllocation(of: String.self, capacity: 1) { buffer in
            let bytes = UnsafeMutableRawPointer(buffer.baseAddress!)
            bytes.storeBytes(of: bits.0, as: UInt64.self)
            bytes.storeBytes(of: bits.1, toByteOffset: 8, as: UInt64.self)
            return buffer.baseAddress!.move()
        }
    }
}
