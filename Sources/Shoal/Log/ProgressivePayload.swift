import Foundation

/// A large snapshot's payload, decompressed while it is decoded: the
/// threads that load it take its chunks in order, each verifying and
/// decompressing a chunk into its place when it needs bytes not there yet
/// (the decoder) or has nothing else to do (the thread applying what the
/// decoder read). A chunk is then mostly decoded by the thread that has
/// just decompressed it, while its bytes are still in that core's cache,
/// and decompressing overlaps decoding instead of coming before it.
///
/// A reader (``ByteReader/init(_:)-(ProgressivePayload)``) reads only the
/// bytes before ``readyBytes``, the chunks verified and decompressed in a
/// row from the first. A chunk whose checksum does not match, or that does
/// not decompress, stops the payload there: readers waiting past it see
/// its end, and fail. The loader then reads the snapshot again the whole
/// way (``SnapshotFile/decode(path:contents:parallelThreshold:)``), so that
/// the damage reported is exactly the one that way reports.
final class ProgressivePayload: @unchecked Sendable {
    // Safe because: the payload's storage is written only through
    // `output`, each chunk's range by the one thread that claimed the chunk
    // (under `condition`), and read only below `readyBytes`, which grows
    // under `condition` after the chunk is written; the other state is
    // only reached under `condition`. The claims and waits make every read
    // of a byte happen after its write.
    //
    // Writing through a pointer taken from `withUnsafeMutableBytes` after
    // the closure returns, into storage that `let` arrays share, is outside
    // what Swift's array rules promise: the compiler may take such an
    // array's bytes as unchanging. It holds here because no byte is read
    // before it is written (a reader reads only below a `readyBytes` it got
    // under the lock, after the write), so there is no earlier load of it
    // to reuse; the storage stays put because `bytes` keeps it and nothing
    // mutates or grows the array. Readers only slice and load.

    /// The payload, its bytes filled in chunk by chunk. Readers hold it to
    /// slice leaves out of; nothing writes it through Swift.
    let bytes: [UInt8]
    /// `bytes`' storage, written by the chunks' decoding. Taken while the
    /// array was unique and never mutated through it since, so that its
    /// storage stays where it is for as long as `bytes` lives.
    private let output: UnsafeMutableRawBufferPointer
    /// The snapshot file's contents, which hold the stored chunks.
    private let input: [UInt8]
    private let chunks: [ChunkDecoding.Chunk]
    /// Whether chunk `i`'s stored bytes are the ones written (its checksum).
    private let verify: @Sendable (Int, UnsafeRawBufferPointer) -> Bool

    private let condition = NSCondition()
    /// The chunks handed to a thread to decode; the next is the first not handed out.
    private var claimed = 0
    private var decoded: [Bool]
    /// The chunks decoded in a row from the first.
    private var readyChunks = 0
    /// Set when a chunk failed: no byte after it will be there.
    private var failed = false

    /// A payload of `chunks`, stored in `input`, each checked by `verify`
    /// before it is decompressed. Nothing is decompressed yet.
    init(input: [UInt8], chunks: [ChunkDecoding.Chunk], verify: @escaping @Sendable (Int, UnsafeRawBufferPointer) -> Bool) {
        let size = chunks.last?.raw.upperBound ?? 0
        // Counted as initialized, and filled in by the chunks before any
        // byte is read (a reader reads only below `readyBytes`). At least
        // one byte of capacity: an array made with none shares its storage.
        var bytes = [UInt8](unsafeUninitializedCapacity: Swift.max(size, 1)) { _, initialized in initialized = size }
        let base = bytes.withUnsafeMutableBytes { $0.baseAddress! }
        self.bytes = bytes
        output = UnsafeMutableRawBufferPointer(start: base, count: size)
        self.input = input
        self.chunks = chunks
        self.verify = verify
        decoded = Array(repeating: false, count: chunks.count)
    }

    /// The end of the bytes decompressed and verified in a row from the start.
    var readyBytes: Int {
        condition.lock()
        defer { condition.unlock() }
        return readyEnd
    }

    /// ``readyBytes``, with `condition` locked.
    private var readyEnd: Int {
        readyChunks == chunks.count ? output.count : chunks[readyChunks].raw.lowerBound
    }

    /// Whether every chunk is decompressed and verified.
    var isComplete: Bool {
        condition.lock()
        defer { condition.unlock() }
        return readyChunks == chunks.count
    }

    /// Waits until the bytes before `needed` are there, decoding chunks
    /// no thread has taken yet meanwhile, or until a chunk before them
    /// failed.
    ///
    /// - Returns: the new ``readyBytes``: at least `needed` unless a chunk failed.
    func waitForBytes(upTo needed: Int) -> Int {
        condition.lock()
        defer { condition.unlock() }
        while readyEnd < needed && !failed {
            if claimed < chunks.count {
                decodeClaimed()
            } else {
                // The chunk is being decoded by another thread.
                condition.wait()
            }
        }
        return readyEnd
    }

    /// Decodes the next chunk no thread has taken, if there is one: what a
    /// thread does while it waits for other work.
    ///
    /// - Returns: whether it decoded one.
    func decodeNext() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard claimed < chunks.count, !failed else { return false }
        decodeClaimed()
        return true
    }

    /// Claims the next chunk, decodes it without the lock, and records the
    /// outcome. Called, and returns, with `condition` locked.
    private func decodeClaimed() {
        let i = claimed
        claimed += 1
        condition.unlock()
        let ok = input.withUnsafeBytes { input in
            verify(i, input) && ChunkDecoding.decode(chunks[i], from: input, into: output) == .decoded
        }
        condition.lock()
        if ok {
            decoded[i] = true
            while readyChunks < chunks.count && decoded[readyChunks] { readyChunks += 1 }
        } else {
            failed = true
        }
        condition.broadcast()
    }
}
