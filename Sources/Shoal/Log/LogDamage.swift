/// A damaged region of a log segment, as the reader reports it: where it starts,
/// how many bytes it covers, the version the reader expected there, and why the
/// bytes at `offset` are not a valid record (LevelDB's `Reporter::Corruption(bytes, status)`).
struct LogDamage: Equatable, Sendable, CustomStringConvertible {
    /// Why bytes are not a valid record.
    enum Reason: Error, Equatable, Sendable, CustomStringConvertible {
        /// Fewer than 36 bytes remain.
        case truncatedHeader(available: Int)
        /// A header field holds a value no writer produces (type 0, unknown codec, nonzero reserved).
        case invalidField(String)
        /// The stated lengths are impossible for the codec or over the 1 GiB limit.
        case lengthOutOfBounds(payloadLength: Int, rawLength: Int)
        /// The header states more payload than the file holds.
        case truncatedPayload(declared: Int, available: Int)
        /// The checksum does not match (damaged bytes, or a record from another file).
        case checksumMismatch
        /// The checksum matches but the payload does not decode to its stated length.
        case undecodablePayload(String)
        /// Only zero bytes remain.
        case zeroFilled
        /// A valid record whose version is not the previous one plus 1.
        case nonMonotonicVersion(expected: UInt64, found: UInt64)

        var description: String {
            switch self {
            case .truncatedHeader(let available): "record header cut short (\(available) of 36 bytes)"
            case .invalidField(let field): "invalid record header field \(field)"
            case .lengthOutOfBounds(let payload, let raw): "impossible lengths (payload \(payload), raw \(raw))"
            case .truncatedPayload(let declared, let available):
                "payload cut short (\(available) of \(declared) bytes)"
            case .checksumMismatch: "checksum mismatch"
            case .undecodablePayload(let detail): "payload does not decode: \(detail)"
            case .zeroFilled: "zero-filled"
            case .nonMonotonicVersion(let expected, let found): "version \(found) where \(expected) was expected"
            }
        }
    }

    /// Byte offset of the first damaged byte in the file.
    var offset: Int64
    /// How many bytes the damage covers: up to the next valid record, or to the end of the file.
    var byteCount: Int64
    /// The version the reader expected at `offset` (the previous valid record's plus 1).
    var expectedVersion: UInt64
    var reason: Reason

    var description: String {
        "\(byteCount) bytes at offset \(offset) (version \(expectedVersion) expected): \(reason)"
    }
}
