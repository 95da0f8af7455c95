internal import CXXHash

/// XXH3-64 checksums (libxxhash), the only checksum format version 1 uses.
///
/// Records are checksummed with the file's random salt as seed; file headers with seed 0.
enum Checksum {
    /// XXH3-64 of `bytes` with `seed`.
    static func xxh3(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        XXH3_64bits_withSeed(bytes.baseAddress, bytes.count, seed)
    }

    /// XXH3-64 of `bytes` with `seed`.
    static func xxh3(_ bytes: [UInt8], seed: UInt64) -> UInt64 {
        bytes.withUnsafeBytes { xxh3($0, seed: seed) }
    }

    /// XXH3-64 of `bytes[range]` with `seed`.
    static func xxh3(_ bytes: [UInt8], range: Range<Int>, seed: UInt64) -> UInt64 {
        bytes.withUnsafeBytes { xxh3(UnsafeRawBufferPointer(rebasing: $0[range]), seed: seed) }
    }

    /// An incremental XXH3-64, for data that is not contiguous in memory.
    /// Gives the same result as ``Checksum/xxh3(_:seed:)-(UnsafeRawBufferPointer,_)`` over the concatenation.
    struct Hasher: ~Copyable {
        private let state: OpaquePointer

        init(seed: UInt64) {
            guard let state = XXH3_createState() else { fatalError("XXH3_createState: out of memory") }
            self.state = state
            XXH3_64bits_reset_withSeed(state, seed)
        }

        deinit { XXH3_freeState(state) }

        mutating func update(_ bytes: UnsafeRawBufferPointer) {
            XXH3_64bits_update(state, bytes.baseAddress, bytes.count)
        }

        mutating func update(_ bytes: [UInt8]) {
            bytes.withUnsafeBytes { update($0) }
        }

        func finalize() -> UInt64 { XXH3_64bits_digest(state) }
    }
}
