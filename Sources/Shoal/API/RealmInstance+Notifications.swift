import Dispatch
import Foundation

/// The identity of a serial queue that Realm instances are confined to,
/// kept as the queue's specific value so that `verifyThread` can check it.
final class QueueToken: Sendable {
    static let key = DispatchSpecificKey<QueueToken>()
    /// Held while a queue's token is looked up and set, so that two first
    /// uses of a queue agree on one.
    private static let assigning = RegionLock()

    /// The queue's token, set on first use.
    static func of(_ queue: DispatchQueue) -> QueueToken {
        assigning.withLock {
            if let token = queue.getSpecific(key: key) { return token }
            let token = QueueToken()
            queue.setSpecific(key: key, value: token)
            return token
        }
    }
}

extension RealmInstance {
    // MARK: Delivery

    /// The instance's mailbox, made at the first observation. The main
    /// instance's changes are also delivered on the main queue (run by
    /// `RunLoop.main` and `dispatchMain()`), a queue-confined instance's on
    /// its queue and an actor-confined one's on its actor, as soon as the
    /// engine has them; other threads deliver at `refresh()` and `beginWrite()`.
    func ensureMailbox() -> Mailbox {
        if let mailbox { return mailbox }
        let box = InstanceBox(self)
        var wake: (@Sendable () -> Void)?
        if let scheduler {
            wake = { scheduler.run { _ = box.value?.deliverNotifications(waitingForLatest: false) } }
        }
        let mailbox = Mailbox(wake: wake)
        self.mailbox = mailbox
        return mailbox
    }

    /// Moves to the version the notification engine has processed and runs
    /// the pending callbacks there. Does nothing inside a write transaction
    /// or inside a callback being delivered. Returns whether the version
    /// changed.
    ///
    /// - Parameter waitingForLatest: whether to wait first for the engine
    ///   to process every published commit (`refresh()` and `beginWrite()`,
    ///   which move to the latest version). A drain the engine woke does
    ///   not: like Realm's notifiers, it delivers at the version the engine
    ///   ran at, so that commits arriving meanwhile do not hold it back
    ///   (under sustained writes the engine is always busy with the next
    ///   ones). It waits only while the engine is behind this instance.
    @discardableResult
    func deliverNotifications(waitingForLatest: Bool = true) -> Bool {
        guard !isFrozen, transaction == nil, !isDelivering, let mailbox, let tracker = coordinator.tracker else {
            return transaction == nil && !isFrozen ? advance(to: coordinator.latest) : false
        }
        if waitingForLatest {
            tracker.waitUntilProcessed(coordinator.latest.version)
        } else {
            tracker.waitUntilProcessed(snapshotVersion, includingRegistrations: false)
        }
        let (processed, deliveries) = tracker.takeDeliveries(mailbox)
        runWillDeliverHooks(deliveries)
        let advanced = advance(to: processed)
        isDelivering = true
        defer { isDelivering = false }
        for (subscription, delivery) in deliveries { subscription.invoke(delivery) }
        return advanced
    }

    func notifyRealmObservers(_ notification: Realm.Notification) {
        guard !realmObservers.isEmpty else { return }
        let realm = Realm(instance: self)
        // Ids grow with registration: in the order they were registered.
        for id in realmObservers.keys.sorted() { realmObservers[id]?(notification, realm) }
    }

    // MARK: Queue-confined instances

    private static let queueInstances = Locked<[String: InstanceBox]>([:])

    /// The instance confined to `queue` for a store, made on first use; the
    /// main queue's is the main instance.
    static func confined(to queue: DispatchQueue, configuration: Realm.Configuration, coordinator: RealmCoordinator) -> RealmInstance {
        if MainConfinement.isMain(queue) { return main(configuration: configuration, coordinator: coordinator) }
        let key = "\(coordinator.identifier)\u{0}\(ObjectIdentifier(QueueToken.of(queue)))"
        return queueInstances.withLock { instances in
            if let existing = instances[key]?.value { return existing }
            let instance = RealmInstance(configuration: configuration, coordinator: coordinator, snapshot: coordinator.latest,
                frozen: false, confinement: .queue(queue))
            instances[key] = InstanceBox(instance)
            return instance
        }
    }
}

/// A weak reference to an instance, sendable to the queue that drains it.
final class InstanceBox: @unchecked Sendable {
    // Safe because: the instance is only used on its own queue or thread
    // (by the drain it schedules); the handle's load is atomic.
    private let handle: InstanceHandle
    var value: RealmInstance? { handle.load() }
    init(_ value: RealmInstance) { self.handle = value.handle }
}
