/// Copies of stored strings that touch no reference count when the string
/// has none: reading a coded string column hands out its dictionary's
/// `String`, and most such strings are small (up to 15 UTF-8 bytes, held
/// inline in the `String` itself) or literals, which the runtime never
/// counts. A plain copy still calls into the runtime to find that out;
/// this copy tests the `String`'s own "immortal" flag inline.
///
/// It relies on the layout of `String` on 64-bit platforms (two words, the
/// second holding the flags, its top bit "immortal": "the runtime skips
/// reference counting"), which ``knowsLayout`` checks once against this
/// build; where it does not hold, every copy is a plain copy.
enum StringCopy {
    /// Whether `String` has the layout ``copy(_:)`` relies on: checked once,
    /// on strings of each kind made at run time.
    static let knowsLayout: Bool = {
        #if _pointerBitWidth(_64) && _endian(little)
            guard MemoryLayout<String>.size == 16 else { return false }
            func words(_ string: String) -> (UInt64, UInt64) {
                withUnsafeBytes(of: string) { ($0.load(as: UInt64.self), $0.load(fromByteOffset: 8, as: UInt64.self)) }
            }
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

    /// The flag of a `String`'s second word that says no reference is counted.
    private static var immortal: UInt64 { 1 << 63 }

    /// A copy of the string at `string`; its bits when `copiesBits` (the
    /// caller's copy of ``knowsLayout``) and nothing is counted for it.
    @inline(__always)
    static func copy(_ string: UnsafePointer<String>, copiesBits: Bool) -> String {
        #if _pointerBitWidth(_64) && _endian(little)
            let raw = UnsafeRawPointer(string)
            let object = raw.load(fromByteOffset: 8, as: UInt64.self)
            if object & immortal != 0, copiesBits {
                // Nothing is counted for this string: its bits, written
                // into memory bound to `String` and moved out (taking
                // ownership with no retain), are a copy. (`unsafeBitCast`
                // would give an unowned value, which returning retains.)
                return withUnsafeTemporaryAllocation(of: String.self, capacity: 1) { buffer in
                    let bytes = UnsafeMutableRawPointer(buffer.baseAddress!)
                    bytes.storeBytes(of: raw.load(as: UInt64.self), as: UInt64.self)
                    bytes.storeBytes(of: object, toByteOffset: 8, as: UInt64.self)
                    return buffer.baseAddress!.move()
                }
            }
        #endif
        return string.pointee
    }
}
