import Dispatch
import Foundation
import Synchronization

/// Where a live instance runs work later, where it may be used: the main
/// queue for the main instance, its serial queue, or its actor. A
/// thread-confined instance off the main thread has none: it delivers and
/// runs queued writes at `refresh()` and `beginWrite()`.
enum InstanceScheduler: Sendable {
    case main
    case queue(DispatchQueue)
    case actor(any Actor)

    /// Runs `work` later on the main queue, the queue, or isolated to the actor.
    func run(_ work: @escaping @Sendable () -> Void) {
        switch self {
        case .main: DispatchQueue.main.async(execute: work)
        case .queue(let queue): queue.async(execute: work)
        case .actor(let actor): Task { await actor.shoalRun(work) }
        }
    }
}

extension Actor {
    /// Runs `work` on this actor's executor, where an instance confined to
    /// the actor passes its isolation check.
    fileprivate func shoalRun(_ work: @Sendable () -> Void) {
        work()
    }
}

/// The main thread and the main queue, which a main instance is confined to.
///
/// The main actor runs on the main queue. A program that runs the main run
/// loop drains that queue on the main thread; after `dispatchMain()` (the
/// way an `async` main function waits on Linux) worker threads drain it one
/// block at a time. Either way, code on the main thread outside a block and
/// code in a main-queue block never run at once.
enum MainConfinement {
    /// The main queue's token (see ``QueueToken``).
    static let token = QueueToken.of(.main)

    /// Whether the caller is on the main thread or in a block of the main queue.
    static var isCurrent: Bool {
        // The token first: reading it sets the main queue's specific, which
        // must be in place before the queue is asked for it.
        let token = token
        return Thread.isMainThread || DispatchQueue.getSpecific(key: QueueToken.key) === token
    }

    /// Whether `queue` is the main queue.
    static func isMain(_ queue: DispatchQueue) -> Bool {
        QueueToken.of(queue) === token
    }

    /// Whether `actor` is the main actor.
    static func isMain(_ actor: any Actor) -> Bool {
        (actor as AnyObject) === (MainActor.shared as AnyObject)
    }
}

/// An instance's automatic refresh: after a commit (by any thread), the
/// instance refreshes on its scheduler, once for every burst of commits.
final class AutorefreshWake: Sendable {
    private let scheduled = Atomic<Bool>(false)
    private let box: InstanceBox
    private let scheduler: InstanceScheduler

    init(_ instance: RealmInstance, scheduler: InstanceScheduler) {
        self.box = InstanceBox(instance)
        self.scheduler = scheduler
    }

    /// Called after a commit: schedules a refresh unless one is already waiting.
    func fire() {
        guard !scheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        scheduler.run { [self] in
            scheduled.store(false, ordering: .releasing)
            box.value?.refreshAutomatically()
        }
    }
}

extension RealmInstance {
    /// Runs on the scheduler after commits: when ``autorefresh`` is on, an
    /// instance without observations moves to the latest version, and one
    /// with observations delivers what the notification engine has processed
    /// (without waiting for it: the engine wakes the instance again when it
    /// catches up, so a busy engine never holds the queue or actor). When it
    /// is off, `Realm.observe` blocks are told `.refreshRequired` if the
    /// instance is behind. Nothing happens inside a write or a callback
    /// being delivered: they end at the latest version or refresh themselves.
    func refreshAutomatically() {
        guard !isFrozen, transaction == nil, !isDelivering else { return }
        if autorefresh {
            if mailbox != nil {
                _ = deliverNotifications(waitingForLatest: false)
            } else {
                _ = advance(to: coordinator.latest)
            }
        } else if coordinator.latest.version > snapshot.version {
            notifyRealmObservers(.refreshRequired)
        }
    }

    // MARK: Main and actor instances

    private static let mainInstances = Locked<[String: InstanceBox]>([:])
    private static let actorInstances = Locked<[String: InstanceBox]>([:])

    /// The instance confined to the main thread and the main queue for a
    /// store, made on first use; shared by the main thread, main-queue
    /// blocks and main-actor code on whatever thread runs them.
    static func main(configuration: Realm.Configuration, coordinator: RealmCoordinator) -> RealmInstance {
        mainInstances.withLock { instances in
            if let existing = instances[coordinator.identifier]?.value { return existing }
            // Stores come and go: entries of closed instances go when another opens.
            instances = instances.filter { $0.value.value != nil }
            let instance = RealmInstance(configuration: configuration, coordinator: coordinator, snapshot: coordinator.latest,
                frozen: false, confinement: .main)
            instances[coordinator.identifier] = InstanceBox(instance)
            return instance
        }
    }

    /// The instance confined to `actor` for a store, made on first use, as
    /// Realm caches one per actor; the main actor's is the main instance.
    static func confined(to actor: any Actor, configuration: Realm.Configuration, coordinator: RealmCoordinator) -> RealmInstance {
        if MainConfinement.isMain(actor) { return main(configuration: configuration, coordinator: coordinator) }
        // A live instance holds its actor, so the actor's identifier is not reused while the entry can load.
        let key = "\(coordinator.identifier)\u{0}\(ObjectIdentifier(actor as AnyObject))"
        return actorInstances.withLock { instances in
            if let existing = instances[key]?.value { return existing }
            // Actors come and go: entries of closed instances go when another opens.
            instances = instances.filter { $0.value.value != nil }
            let instance = RealmInstance(configuration: configuration, coordinator: coordinator, snapshot: coordinator.latest,
                frozen: false, confinement: .actor(actor))
            instances[key] = InstanceBox(instance)
            return instance
        }
    }
}
