import Dispatch

/// Decoding of a payload cut into LZ4 chunks (a snapshot, a log record over
/// 1 MiB): every chunk straight into its place in the payload, with no
/// array per chunk and no copy, the chunks shared out between two threads
/// for a large payload.
enum ChunkDecoding {
    /// The payload size from which two threads share the chunks: below it,
    /// a second thread costs more than it saves.
    static let parallelThreshold = 4 << 20

    /// One chunk: its stored block in the input, and its place in the
    /// payload. A block as long as its place is stored raw.
    struct Chunk: Sendable {
        let stored: Range<Int>
        let raw: Range<Int>
    }

    /// What decoding one chunk found.
    enum Outcome: Equatable, Sendable {
        case decoded
        /// `accept` refused the chunk (its checksum does not match, say): not decoded.
        case rejected
        case undecodable(Compression.Failure)
    }

    /// The payload `chunks` of `input` make, each decoded into its place
    /// once `accept` (called on any of the threads) takes it, on two
    /// threads when the payload is at least `parallelThreshold` bytes and
    /// there are several chunks; places of chunks not decoded hold
    /// whatever was in memory.
    ///
    /// - Returns: the payload (the chunks' places end to end, from 0), and
    ///   each chunk's outcome, in order, for the caller to report the
    ///   damage met first.
    static func payload(
        _ chunks: [Chunk], from input: UnsafeRawBufferPointer,
        parallelThreshold: Int = parallelThreshold, accept: (Int) -> Bool = { _ in true }
    ) -> (payload: [UInt8], outcomes: [Outcome]) {
        let size = chunks.last?.raw.upperBound ?? 0
        var outcomes: [Outcome] = []
        // At least one byte of capacity: an array made with none writes its
        // count into the storage every empty array shares.
        let payload = [UInt8](unsafeUninitializedCapacity: Swift.max(size, 1)) { output, initialized in
            let output = UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(output)[0..<size])
            outcomes = decode(chunks, from: input, into: output, parallelThreshold: parallelThreshold, accept: accept)
            initialized = size
        }
        return (payload, outcomes)
    }

    /// Decodes each of `chunks` of `input` into its place in `output`, once
    /// `accept` takes it.
    private static func decode(
        _ chunks: [Chunk], from input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
        parallelThreshold: Int, accept: (Int) -> Bool
    ) -> [Outcome] {
        var outcomes = [Outcome](repeating: .decoded, count: chunks.count)
        withoutActuallyEscaping(accept) { accept in
            outcomes.withUnsafeMutableBufferPointer { outcomes in
                let work = Work(input: input, output: output, outcomes: outcomes, chunks: chunks, accept: accept)
                let workers = output.count >= parallelThreshold && chunks.count > 1 ? 2 : 1
                // Each worker takes every `workers`-th chunk: the chunks are
                // of equal size but for the last, so the work is even.
                DispatchQueue.concurrentPerform(iterations: workers) { worker in
                    for i in stride(from: worker, to: work.chunks.count, by: workers) { work.run(i) }
                }
            }
        }
        return outcomes
    }

    /// The buffers the workers of ``payload(_:from:parallelThreshold:accept:)`` share.
    private struct Work: @unchecked Sendable {
        // Safe because: the buffers outlive `concurrentPerform`, which
        // returns only once every worker is done; a worker reads the input
        // and writes only the outcome and the payload range of the chunks it
        // alone is given; `accept` only reads.
        let input: UnsafeRawBufferPointer
        let output: UnsafeMutableRawBufferPointer
        let outcomes: UnsafeMutableBufferPointer<Outcome>
        let chunks: [Chunk]
        let accept: (Int) -> Bool

        /// Decodes chunk `i` into its place, if accepted.
        func run(_ i: Int) {
            outcomes[i] = accept(i) ? ChunkDecoding.decode(chunks[i], from: input, into: output) : .rejected
        }
    }

    /// Decodes `chunk` of `input` into its place in `output`: `.decoded`,
    /// or `.undecodable` with LZ4's failure.
    static func decode(_ chunk: Chunk, from input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Outcome {
        let source = UnsafeRawBufferPointer(rebasing: input[chunk.stored])
        let target = UnsafeMutableRawBufferPointer(rebasing: output[chunk.raw])
        if source.count == target.count {
            target.copyMemory(from: source)
            return .decoded
        }
        do throws(Compression.Failure) { try Compression.decompress(source, into: target) } catch {
            return .undecodable(error)
        }
        return .decoded
    }
}
