import Dispatch

extension ChangeRecordCodec {
    /// The payload size from which replay decodes on another thread while
    /// it applies (``forEachChangeDecodedAhead(in:schema:op:run:)``): below
    /// it, the hand-off costs more than the overlap saves.
    static let decodeAheadThreshold = 1 << 20

    /// Does what ``forEachChange(in:schema:reserve:op:run:)`` does, with
    /// the same calls in the same order, but decodes on another thread,
    /// a few batches ahead of the caller, so that decoding a large payload
    /// (a bulk insert) overlaps applying it.
    ///
    /// `op` and `run` are called on the calling thread; returning `false`
    /// stops the walk at once, and the decoder when it next hands over a
    /// batch (every run, or every ``DecodedChannel/batchSize`` ops). A decoding
    /// failure is thrown after every change decoded before it was handed
    /// over, as the direct walk would throw it.
    static func forEachChangeDecodedAhead(
        in bytes: [UInt8], schema: Schema, op body: (ChangeOp) -> Bool, run: (InsertColumns) -> Bool
    ) throws(DecodingFailure) {
        let channel = DecodedChannel(capacity: 4)
        let decoded = DispatchGroup()
        DispatchQueue.global().async(group: decoded) {
            var pending: [DecodedChannel.Change] = []
            func flush() -> Bool {
                guard !pending.isEmpty else { return !channel.isStopped }
                let accepted = channel.send(.changes(pending))
                pending = []
                return accepted
            }
            do throws(DecodingFailure) {
                try forEachChange(in: bytes, schema: schema) { op in
                    pending.append(.op(op))
                    return pending.count < DecodedChannel.batchSize || flush()
                } run: { run in
                    pending.append(.run(run))
                    return flush()
                }
                _ = flush()
                _ = channel.send(.end)
            } catch {
                _ = flush()
                _ = channel.send(.failure(error))
            }
        }
        // The decoder ends by sending `.end` or `.failure`, also once stopped,
        // so it is waited for by reading up to that.
        defer { decoded.wait() }
        var stopped = false
        while true {
            switch channel.receive() {
            case .changes(let changes):
                guard !stopped else { continue }
                changes: for change in changes {
                    let goOn = switch change {
                    case .op(let op): body(op)
                    case .run(let columns): run(columns)
                    }
                    if !goOn {
                        stopped = true
                        channel.stop()
                        break changes
                    }
                }
            case .failure(let failure):
                if stopped { return }
                throw failure
            case .end:
                return
            }
        }
    }
}

/// A bounded queue of decoded changes from the decoding thread to the
/// applying one.
private final class DecodedChannel: Sendable {
    enum Change: Sendable {
        case op(ChangeOp)
        case run(InsertColumns)
    }

    enum Message: Sendable {
        case changes([Change])
        case failure(DecodingFailure)
        case end
    }

    /// Single ops sent together (runs go one at a time: each is up to
    /// ``BatchApplier/maximumRun`` objects already).
    static let batchSize = 1_024

    private let state = Locked((messages: [Message](), head: 0, stopped: false))
    private let filled = DispatchSemaphore(value: 0)
    private let free: DispatchSemaphore

    init(capacity: Int) {
        free = DispatchSemaphore(value: capacity)
    }

    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Queues `message`, waiting for room.
    ///
    /// - Returns: `false` once the receiver has stopped (the message is
    ///   queued anyway, for the receiver to read past).
    func send(_ message: Message) -> Bool {
        free.wait()
        let stopped = state.withLock { state in
            state.messages.append(message)
            return state.stopped
        }
        filled.signal()
        return !stopped
    }

    /// The next message, waiting for one.
    func receive() -> Message {
        filled.wait()
        let message = state.withLock { state in
            defer {
                state.head += 1
                if state.head == state.messages.count {
                    state.messages.removeAll(keepingCapacity: true)
                    state.head = 0
                }
            }
            return state.messages[state.head]
        }
        free.signal()
        return message
    }

    /// Asks the sender to stop at its next change.
    func stop() {
        state.withLock { $0.stopped = true }
    }
}
