public import Foundation

/// A 12-byte unique identifier, compatible with Realm's and MongoDB's `ObjectId`:
/// a 4-byte big-endian timestamp in seconds, 5 random bytes fixed per process,
/// and a 3-byte big-endian counter.
///
/// ```swift
/// let id = ObjectId.generate()
/// let same = try ObjectId(string: id.stringValue)
/// ```
public struct ObjectId: Hashable, Comparable, Sendable, CustomStringConvertible, Codable {
    /// The twelve bytes of the identifier.
    public let bytes: [UInt8]

    private static let processRandom: [UInt8] = (0..<5).map { _ in UInt8.random(in: 0...255) }
    private static let counter = Locked<UInt32>(UInt32.random(in: 0...0xFF_FFFF))

    /// Creates an identifier of twelve zero bytes.
    public init() { bytes = Array(repeating: 0, count: 12) }

    /// Creates an identifier from exactly twelve bytes.
    /// - Throws: ``ShoalError`` `.invalidValue` when `bytes` is not 12 bytes long.
    public init(bytes: [UInt8]) throws {
        guard bytes.count == 12 else {
            throw ShoalError(.invalidValue, "An ObjectId needs exactly 12 bytes; got \(bytes.count).")
        }
        self.bytes = bytes
    }

    /// Parses 24 hexadecimal digits.
    /// - Throws: ``ShoalError`` `.invalidValue` naming the string when it is not 24 hex digits.
    public init(string: String) throws {
        let utf8 = Array(string.utf8)
        guard utf8.count == 24 else {
            throw ShoalError(.invalidValue, "Invalid ObjectId string '\(string)': expected 24 hexadecimal digits.")
        }
        var out = [UInt8]()
        out.reserveCapacity(12)
        for i in stride(from: 0, to: 24, by: 2) {
            guard let hi = Self.hexValue(utf8[i]), let lo = Self.hexValue(utf8[i + 1]) else {
                throw ShoalError(.invalidValue, "Invalid ObjectId string '\(string)': '\(string)' has a non-hexadecimal digit at offset \(i).")
            }
            out.append(hi << 4 | lo)
        }
        bytes = out
    }

    /// Creates an identifier for the given time with the process's random bytes and the next counter value.
    public init(timestamp: Date) {
        let seconds = UInt32(truncatingIfNeeded: Int64(timestamp.timeIntervalSince1970))
        let count = Self.counter.withLock { value -> UInt32 in
            value = (value &+ 1) & 0xFF_FFFF
            return value
        }
        var b = [UInt8](repeating: 0, count: 12)
        b[0] = UInt8(seconds >> 24); b[1] = UInt8(seconds >> 16 & 0xFF)
        b[2] = UInt8(seconds >> 8 & 0xFF); b[3] = UInt8(seconds & 0xFF)
        for i in 0..<5 { b[4 + i] = Self.processRandom[i] }
        b[9] = UInt8(count >> 16 & 0xFF); b[10] = UInt8(count >> 8 & 0xFF); b[11] = UInt8(count & 0xFF)
        bytes = b
    }

    /// Creates an identifier from 24 hexadecimal digits written in the
    /// source, as Realm's `ObjectId("…")`; stops when they are not 24
    /// hexadecimal digits (use ``init(string:)`` for strings read at run time).
    ///
    /// ```swift
    /// let id = ObjectId("6053a1b8c3a7b2f1e4d5c6b7")
    /// ```
    public init(_ str: StaticString) {
        let string = str.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
        do { try self.init(string: string) } catch { shoalPrecondition(error) }
    }

    /// Creates an identifier from a time, a machine identifier (its low
    /// three bytes, least significant first) and a process identifier (its
    /// low two bytes, least significant first), then the next counter value:
    /// the layout of Realm's `ObjectId(timestamp:machineId:processId:)`.
    public init(timestamp: Date, machineId: Int, processId: Int) {
        var b = ObjectId(timestamp: timestamp).bytes
        for i in 0..<3 { b[4 + i] = UInt8(truncatingIfNeeded: machineId >> (8 * i)) }
        for i in 0..<2 { b[7 + i] = UInt8(truncatingIfNeeded: processId >> (8 * i)) }
        bytes = b
    }

    /// Generates a new identifier for the current time.
    public static func generate() -> ObjectId { ObjectId(timestamp: Date()) }

    /// The 24 lowercase hexadecimal digits of the identifier.
    public var stringValue: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(24)
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 0xF)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The creation time encoded in the first four bytes.
    public var timestamp: Date {
        let s = UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])
        return Date(timeIntervalSince1970: TimeInterval(s))
    }

    public var description: String { stringValue }

    public static func < (lhs: ObjectId, rhs: ObjectId) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    public init(from decoder: any Decoder) throws {
        try self.init(string: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(stringValue)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
