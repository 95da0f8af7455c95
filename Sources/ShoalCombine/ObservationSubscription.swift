import Dispatch
import Foundation
import OpenCombine
import Shoal

/// Where a subscription's notifications arrive, and so where buffered values
/// may be handed to the subscriber: the observing thread, or the serial
/// queue given to `subscribe(on:)`.
enum DeliveryContext {
    case thread(Thread)
    case queue(DispatchQueue)

    init(_ queue: DispatchQueue?) {
        self = queue.map(DeliveryContext.queue) ?? .thread(.current)
    }
}

/// The subscription behind every Realm publisher: one notification token,
/// invalidated on cancel, and demand respected.
///
/// A notification that arrives while the subscriber has no demand is kept,
/// merged with any that follow (`merge`), and handed over when demand
/// arrives: on the delivering thread or queue, either at once (a request
/// made there, usually from `receive(_:)`), or, for a request made
/// elsewhere, on the queue or main thread, or else with the next
/// notification of the observing thread.
final class ObservationSubscription<Downstream: Subscriber, Buffer>: Subscription, @unchecked Sendable {
    // Safe because: the mutable state is guarded by `lock`; `downstream` is
    // only called on the delivery context, outside the lock.
    private let lock = NSLock()
    private var downstream: Downstream?
    private var demand = Subscribers.Demand.none
    private var pending: Buffer?
    private var draining = false
    private var token: NotificationToken?
    private var onCancel: (() -> Void)?
    private let context: DeliveryContext
    private let merge: (Buffer, Buffer) -> Buffer
    private let output: (Buffer) -> Downstream.Input

    /// - Parameters:
    ///   - merge: combines a kept value with a newer one.
    ///   - output: what the subscriber receives for a buffered value.
    init(_ downstream: Downstream, context: DeliveryContext, merge: @escaping (Buffer, Buffer) -> Buffer,
        output: @escaping (Buffer) -> Downstream.Input)
    {
        self.downstream = downstream
        self.context = context
        self.merge = merge
        self.output = output
    }

    /// Starts the subscription: keeps the token (and what to undo on
    /// cancel), then hands the subscription to the subscriber.
    func start(token: NotificationToken, onCancel: (() -> Void)? = nil) {
        lock.lock()
        let live = downstream
        if live != nil {
            self.token = token
            self.onCancel = onCancel
        }
        lock.unlock()
        guard let live else {
            token.invalidate()
            onCancel?()
            return
        }
        live.receive(subscription: self)
    }

    /// A notification: handed over if there is demand, kept otherwise.
    func send(_ value: Buffer) {
        lock.lock()
        guard downstream != nil else {
            lock.unlock()
            return
        }
        pending = pending.map { merge($0, value) } ?? value
        lock.unlock()
        drain()
    }

    /// Ends the stream: the subscriber is told, the token invalidated, and
    /// values kept for lack of demand are dropped.
    func finish(_ completion: Subscribers.Completion<Downstream.Failure>) {
        lock.lock()
        let live = downstream
        downstream = nil
        pending = nil
        lock.unlock()
        stop()
        live?.receive(completion: completion)
    }

    func request(_ more: Subscribers.Demand) {
        lock.lock()
        demand += more
        let waiting = pending != nil && !draining && downstream != nil
        lock.unlock()
        guard waiting else { return }
        switch context {
        case .queue(let queue): queue.async(execute: Work(drain).run)
        case .thread(let thread) where thread == .current: drain()
        case .thread(let thread) where thread.isMainThread: DispatchQueue.main.async(execute: Work(drain).run)
        case .thread: break   // handed over with the next notification
        }
    }

    func cancel() {
        lock.lock()
        downstream = nil
        pending = nil
        lock.unlock()
        stop()
    }

    private func stop() {
        lock.lock()
        let (token, onCancel) = (self.token, self.onCancel)
        self.token = nil
        self.onCancel = nil
        lock.unlock()
        token?.invalidate()
        onCancel?()
    }

    /// Hands kept values over while there is demand; a request made from
    /// inside `receive(_:)` is served by the running loop.
    private func drain() {
        while true {
            lock.lock()
            guard !draining, demand > 0, let value = pending, let live = downstream else {
                lock.unlock()
                return
            }
            pending = nil
            demand -= 1
            draining = true
            lock.unlock()
            let more = live.receive(output(value))
            lock.lock()
            demand += more
            draining = false
            lock.unlock()
        }
    }
}

/// A block sent to the queue its subscription delivers on, where it runs.
private final class Work: @unchecked Sendable {
    // Safe because: `block` is only run on the subscription's delivery
    // queue (or the main thread), where the subscription expects it.
    private let block: () -> Void
    init(_ block: @escaping () -> Void) { self.block = block }
    @Sendable func run() { block() }
}
