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
    /// batch (every run, or every ``DecodeAhead/batchSize`` ops). A decoding
    /// failure is thrown after every change decoded before it was handed
    /// over, as the direct walk would throw it.
    static func forEachChangeDecodedAhead(
        in bytes: [UInt8], schema: Schema, op body: (ChangeOp) -> Bool, run: (InsertColumns) -> Bool
    ) throws(DecodingFailure) {
        try DecodeAhead<DecodedChange>.run { emit throws(DecodingFailure) in
            try forEachChange(in: bytes, schema: schema) { op in
                emit(.op(op), false)
            } run: { run in
                emit(.run(run), true)
            }
        } consume: { change in
            switch change {
            case .op(let op): body(op)
            case .run(let columns): run(columns)
            }
        }
    }
}

/// One change handed from the decoding thread to the applying one.
private enum DecodedChange: Sendable {
    case op(ChangeOp)
    case run(InsertColumns)
}

/// Runs a decoder on another thread, a few batches ahead of the calling
/// thread, which consumes what it decodes in order: decoding a large
/// payload (a bulk insert, a snapshot) then overlaps applying it.
enum DecodeAhead<Item: Sendable> {
    /// Items sent together unless the decoder asks for a flush.
    static var batchSize: Int { 1_024 }

    /// The batches consumed that are handed to a worker to free at once.
    static var releasedTogether: Int { 16 }

    /// The batches the decoder may be ahead by: 64 let a million-object
    /// snapshot load with the decoder seldom waiting (4 cost 0.3 ms of a
    /// 4.6 ms open in wake-ups and waits).
    static var queuedBatches: Int { 64 }

    /// Calls `produce` on another thread and `consume` on this one with
    /// every item `produce` emits, in order.
    ///
    /// `produce` emits an item with `emit(item, flush)`: `flush` hands the
    /// batch over at once (for items that are large already, such as an
    /// insert run); otherwise items go over ``batchSize`` at a time. `emit`
    /// returns `false` once the consumer has stopped, and the producer should
    /// then return. `consume` returns `false` to stop. A failure thrown by
    /// `produce` is thrown here after every item emitted before it was
    /// consumed, as decoding on this thread would throw it; not once the
    /// consumer has stopped.
    ///
    /// With `idle`, this thread calls it while nothing is there to consume
    /// (it returns whether it did anything, such as decompressing a chunk
    /// the decoder will read) before it waits.
    static func run(
        produce: @escaping @Sendable (_ emit: (Item, Bool) -> Bool) throws(DecodingFailure) -> Void,
        consume: (Item) -> Bool, idle: (() -> Bool)? = nil
    ) throws(DecodingFailure) {
        // Room for many batches: a decoder that waits for room is woken
        // again for each batch taken (a futex wake-up on the applying
        // thread, and the decoder idle meanwhile). What waits in the
        // queue is what applying keeps anyway.
        let channel = DecodedChannel<Item>(capacity: queuedBatches)
        let decoded = DispatchGroup()
        DispatchQueue.global().async(group: decoded) {
            var pending: [Item] = []
            func flush() -> Bool {
                guard !pending.isEmpty else { return !channel.isStopped }
                let accepted = channel.send(.items(pending))
                pending = []
                return accepted
            }
            do throws(DecodingFailure) {
                try produce { item, now in
                    pending.append(item)
                    return !now && pending.count < batchSize || flush()
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
        let releaser = BackgroundWorker.take()
        var done: [[Item]] = []
        defer {
            release(&done, on: releaser)
            // Back in the pool at once; what is queued still runs, before
            // anything the next taker queues.
            releaser.recycle()
        }
        var stopped = false
        while true {
            let message: DecodedChannel<Item>.Message
            if let idle, !stopped {
                if let ready = channel.receiveIfThere() {
                    message = ready
                } else if idle() {
                    continue
                } else {
                    message = channel.receive()
                }
            } else {
                message = channel.receive()
            }
            switch message {
            case .items(let items):
                guard !stopped else { continue }
                for item in items where !consume(item) {
                    stopped = true
                    channel.stop()
                    break
                }
                // What `consume` did not keep (a run's arrays) is freed on
                // a worker of its own, a few batches at a time: not on this
                // thread, nor on the decoder's, which the load waits for.
                done.append(items)
                if done.count == releasedTogether { release(&done, on: releaser) }
            case .failure(let failure):
                if stopped { return }
                throw failure
            case .end:
                return
            }
        }
    }
}

extension DecodeAhead {
    /// Hands `batches` to `worker` to free, leaving `batches` empty (this
    /// thread keeps no reference to them once its locals are gone).
    fileprivate static func release(_ batches: inout [[Item]], on worker: BackgroundWorker) {
        guard !batches.isEmpty else { return }
        var taken: [[Item]] = []
        swap(&taken, &batches)
        worker.async { [taken] in _ = taken }
    }
}

/// A bounded queue of decoded items from the decoding thread to the
/// applying one.
private final class DecodedChannel<Item: Sendable>: Sendable {
    enum Message: Sendable {
        case items([Item])
        case failure(DecodingFailure)
        case end
    }

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
        return take()
    }

    /// The next message if one is queued, without waiting.
    func receiveIfThere() -> Message? {
        filled.wait(timeout: .now()) == .success ? take() : nil
    }

    /// Takes the next message, which ``filled`` says is there.
    private func take() -> Message {
        let message = state.withLock { state in
            defer {
                state.head += 1
                if state.head == state.messages.count {
                    state.messages.removeAll(keepingCapacity: true)
                    state.head = 0
                }
            }
            // Taken out: the queue keeps no reference to a batch the
            // receiver holds.
            let message = state.messages[state.head]
            state.messages[state.head] = .end
            return message
        }
        free.signal()
        return message
    }

    /// Asks the sender to stop at its next change.
    func stop() {
        state.withLock { $0.stopped = true }
    }
}
