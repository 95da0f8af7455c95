internal import CLZ4

/// LZ4 block compression (liblz4), without the LZ4 frame: our own framing
/// stores the exact decoded length and a checksum (PERSISTENCE.md §7).
enum Compression {
    /// Why a compressed block could not be decoded.
    enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// The block is malformed, or decodes to a length other than the stated one.
        case lengthMismatch(expected: Int, decoded: Int)
        /// A stated length is negative or beyond what LZ4 supports.
        case invalidLength(Int)

        var description: String {
            switch self {
            case .lengthMismatch(let expected, let decoded):
                decoded < 0
                    ? "LZ4 block is malformed (expected \(expected) bytes)"
                    : "LZ4 block decodes to \(decoded) bytes, expected \(expected)"
            case .invalidLength(let length): "invalid LZ4 length \(length)"
            }
        }
    }

    /// Largest input LZ4 accepts.
    static let maxInputBytes = Int(LZ4_MAX_INPUT_SIZE)

    /// Compresses `input` into one LZ4 block, or returns `nil` when that would not
    /// save at least one byte (the caller then stores the bytes raw).
    static func compress(_ input: UnsafeRawBufferPointer) -> [UInt8]? {
        guard input.count > 1, input.count <= maxInputBytes else { return nil }
        // Capacity count - 1: LZ4 gives up (returns 0) as soon as the output
        // would not be strictly smaller, which is exactly the store-raw rule.
        let capacity = input.count - 1
        return [UInt8](unsafeUninitializedCapacity: capacity) { output, initialized in
            let written = LZ4_compress_default(
                input.baseAddress!.assumingMemoryBound(to: CChar.self),
                UnsafeMutableRawPointer(output.baseAddress!).assumingMemoryBound(to: CChar.self),
                Int32(input.count), Int32(capacity))
            initialized = Int(max(written, 0))
        }.nilIfEmpty
    }

    /// Compresses `input`; see ``compress(_:)-(UnsafeRawBufferPointer)``.
    static func compress(_ input: [UInt8]) -> [UInt8]? {
        input.withUnsafeBytes { compress($0) }
    }

    /// Decodes one LZ4 block that must decode to exactly `rawLength` bytes.
    static func decompress(_ block: UnsafeRawBufferPointer, rawLength: Int) throws(Failure) -> [UInt8] {
        guard rawLength > 0, rawLength <= maxInputBytes else { throw .invalidLength(rawLength) }
        var failure: Failure?
        let output = [UInt8](unsafeUninitializedCapacity: rawLength) { output, initialized in
            do throws(Failure) {
                try decompress(block, into: UnsafeMutableRawBufferPointer(output))
                initialized = rawLength
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return output
    }

    /// Decodes one LZ4 block into `output`, which it must fill exactly:
    /// for a reader that assembles several blocks in one buffer, without
    /// an array per block.
    static func decompress(_ block: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(Failure) {
        let rawLength = output.count
        guard rawLength > 0, rawLength <= maxInputBytes else { throw .invalidLength(rawLength) }
        guard block.count > 0, block.count <= maxInputBytes else { throw .invalidLength(block.count) }
        let decoded = LZ4_decompress_safe(
            block.baseAddress!.assumingMemoryBound(to: CChar.self), output.baseAddress!.assumingMemoryBound(to: CChar.self),
            Int32(block.count), Int32(rawLength))
        guard Int(decoded) == rawLength else { throw .lengthMismatch(expected: rawLength, decoded: Int(decoded)) }
    }

    /// Decodes one LZ4 block; see ``decompress(_:rawLength:)-(UnsafeRawBufferPointer,_)``.
    static func decompress(_ block: [UInt8], rawLength: Int) throws(Failure) -> [UInt8] {
        try block.withUnsafeBytes { buffer in
            Result { () throws(Failure) in try decompress(buffer, rawLength: rawLength) }
        }.get()
    }
}

extension Array {
    fileprivate var nilIfEmpty: Self? { isEmpty ? nil : self }
}
