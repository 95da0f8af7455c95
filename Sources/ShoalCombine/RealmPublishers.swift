public import Dispatch
public import OpenCombine
public import OpenCombineDispatch
import Shoal

/// Combine publishers for Realm types, built on Shoal's change notifications.
///
/// Create them with the extension members, not directly:
///
/// ```swift
/// let cancellable = realm.objects(Dog.self).where { $0.age > 3 }
///     .collectionPublisher
///     .subscribe(on: DispatchQueue(label: "background"))
///     .freeze()
///     .sink(receiveCompletion: { _ in }, receiveValue: { dogs in print(dogs.count) })
/// ```
///
/// Each subscription holds one `NotificationToken`, invalidated when
/// it is cancelled. Values are delivered as the token's callbacks are: on
/// the observing thread at its next `refresh()` or `beginWrite()`, or on the
/// queue given to `subscribe(on:)`.
///
/// - Note: Differs from Realm: demand is respected (Realm's publishers
///   ignore it). A change that arrives while the subscriber has no demand is
///   kept, merged with later ones into one change, and delivered when demand
///   arrives.
public enum RealmPublishers {
    /// The serial queue a scheduler stands for; stops for other schedulers,
    /// as Realm does.
    static func queue<S: Scheduler>(of scheduler: S) -> DispatchQueue {
        if let queue = scheduler as? DispatchQueue.OCombine { return queue.queue }
        fatalError("Cannot subscribe on scheduler \(scheduler): only serial dispatch queues are currently implemented.")
    }

    /// A publisher that emits an object or collection each time it changes.
    ///
    /// A collection is emitted at first and after each change; an object
    /// after each change. Observing a deleted object finishes the stream;
    /// an invalid key path fails it.
    public struct Value<Subscribable: RealmSubscribable>: Publisher {
        /// Fails when observation cannot start (an invalid key path).
        public typealias Failure = any Error
        /// The object or collection, live on the delivering thread or queue.
        public typealias Output = Subscribable

        private let subscribable: Subscribable
        private let keyPaths: [String]?
        private let queue: DispatchQueue?

        init(_ subscribable: Subscribable, keyPaths: [String]? = nil, queue: DispatchQueue? = nil) {
            precondition(subscribable.realm != nil, "Only managed objects can be published")
            self.subscribable = subscribable
            self.keyPaths = keyPaths
            self.queue = queue
        }

        /// Attaches a subscriber (`sink`, `assign` or `subscribe(_:)` call this).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let subscription = ObservationSubscription<S, Subscribable>(subscriber, context: DeliveryContext(queue),
                merge: { _, newer in newer }, output: { $0 })
            let token = subscribable._observe(keyPaths, on: queue,
                Forwarder(value: subscription.send, completion: subscription.finish))
            subscription.start(token: token)
        }

        /// Observes on a serial queue: notifications, and so values, arrive
        /// there, the object or collection live on that queue.
        ///
        /// - Parameter scheduler: a serial queue (`queue.ocombine`); other
        ///   schedulers stop the program, as in Realm.
        public func subscribe<S: Scheduler>(on scheduler: S) -> Value<Subscribable> {
            Value(subscribable, keyPaths: keyPaths, queue: RealmPublishers.queue(of: scheduler))
        }

        /// Observes on a serial queue; as ``subscribe(on:)-(S)``.
        public func subscribe(on queue: DispatchQueue) -> Value<Subscribable> {
            Value(subscribable, keyPaths: keyPaths, queue: queue)
        }

        /// Delivers values on another scheduler, each handed over to that
        /// scheduler's Realm (live there).
        ///
        /// Unlike ``subscribe(on:)-(S)``, which observes on the queue, this
        /// observes here and hands each value over, so it may arrive a
        /// little after the change. When in doubt, use `subscribe(on:)`.
        public func receive<S: Scheduler>(on scheduler: S) -> DeferredHandover<Self, S> {
            DeferredHandover(self, scheduler)
        }

        /// Delivers on a serial queue; as ``receive(on:)-(S)``, for code
        /// written for Apple's Combine, where queues are schedulers.
        public func receive(on queue: DispatchQueue) -> DeferredHandover<Self, DispatchQueue.OCombine> {
            DeferredHandover(self, queue.ocombine)
        }
    }

    /// A publisher that emits `Void` each time an object or collection is
    /// about to change on the observing thread.
    ///
    /// It fires at the observing thread's `refresh()` or `beginWrite()` (or
    /// the main queue's drain), just before the Realm advances to the
    /// version with the change: reading the object or collection from the
    /// sink still shows the state before it. Changes made on the observing
    /// thread itself are visible there at once; they are announced at its
    /// next refresh, as its notifications are.
    ///
    /// - Note: Differs from Realm: Realm's `objectWillChange` emits after
    ///   the change is visible, despite its name, and also once when the
    ///   observation starts. Shoal's emits only before changes, as
    ///   `ObservableObject` asks.
    public struct WillChange<Subscribable: RealmSubscribable>: Publisher {
        /// This publisher cannot fail.
        public typealias Failure = Never
        /// This publisher emits `Void`.
        public typealias Output = Void

        private let subscribable: Subscribable

        init(_ subscribable: Subscribable) {
            self.subscribable = subscribable
        }

        /// Attaches a subscriber (`sink`, `assign` or `subscribe(_:)` call this).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Void, S.Failure == Never {
            guard let realm = subscribable.realm else {
                preconditionFailure("Only managed objects can be published")
            }
            let subscription = ObservationSubscription<S, Void>(subscriber, context: DeliveryContext(nil),
                merge: { _, _ in () }, output: { $0 })
            let token = subscribable._observe(nil, on: nil, Forwarder(value: { _ in }, completion: { _ in }))
            realm.onWillDeliver(token) { subscription.send(()) }
            subscription.start(token: token) { realm.removeWillDeliver(token) }
        }
    }

    /// A publisher that emits `Void` each time the Realm moves to a new
    /// version: its own commits, and others' at `refresh()` or `beginWrite()`.
    ///
    /// Despite the name it emits after the change, as Realm's does (it is
    /// `Realm.observe(_:)`).
    public struct RealmWillChange: Publisher {
        /// This publisher cannot fail.
        public typealias Failure = Never
        /// This publisher emits `Void`.
        public typealias Output = Void

        private let realm: Realm

        init(_ realm: Realm) {
            self.realm = realm
        }

        /// Attaches a subscriber (`sink`, `assign` or `subscribe(_:)` call this).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Void, S.Failure == Never {
            let subscription = ObservationSubscription<S, Void>(subscriber, context: DeliveryContext(nil),
                merge: { _, _ in () }, output: { $0 })
            let token = realm.observe { _, _ in subscription.send(()) }
            subscription.start(token: token)
        }
    }
}
