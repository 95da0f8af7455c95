import Foundation

/// What a subscription's callback receives, before the API layer wraps it
/// in Realm's change types.
enum Delivery {
    /// The first delivery of a collection, with its elements.
    case initial(DeliveredElements?)
    /// A collection's changes since the last delivery, with its elements now.
    case collection(IndexChanges, DeliveredElements?)
    case object(deleted: Bool, properties: [(property: Int, old: Value?, new: Value?)])
    case map(deletions: [String], insertions: [String], modifications: [String])
    case error(ShoalError)
}

/// Where a subscription's changes go.
enum DeliveryTarget {
    /// A Realm instance's mailbox: delivered when the instance drains it
    /// (its thread's `refresh()` or `beginWrite()`, or its queue).
    case mailbox(Mailbox)
    /// Taken by a consumer (an async sequence or an actor's task), which the
    /// signal wakes; changes pile up, merged, until taken.
    case pull(@Sendable () -> Void)
}

/// One observation (one token): its notifier, filter, delivery target and
/// the changes not yet delivered, merged.
///
/// Everything but `handler` and the call lock is guarded by the tracker's
/// state lock.
final class Subscription: @unchecked Sendable {
    // Safe because: mutable state is guarded by the tracker's state lock,
    // `invalidated` by `callLock`; `handler` runs only on the target.
    let id: Int
    let target: DeliveryTarget
    let handler: ((Delivery) -> Void)?
    var notifier: Notifier?
    var error: ShoalError?
    var pending: Pending = .none
    var initialDelivered = false
    /// The version the initial state was computed at.
    var readyVersion: UInt64 = .max
    /// For a sectioned observation: the observer's own filter, and what the
    /// section key reads (elements changed there are re-keyed). The notifier
    /// serves the union of both.
    var sectioning: (observed: ModificationFilter, key: ModificationFilter)?
    /// Elements changed in what the section key reads, since the last delivery.
    private var rekeyed: Set<ElementID> = []
    private let callLock = NSRecursiveLock()
    private var invalidated = false

    init(id: Int, target: DeliveryTarget, handler: ((Delivery) -> Void)?) {
        self.id = id
        self.target = target
        self.handler = handler
    }

    /// Whether ``invalidate()`` was called.
    var isInvalidated: Bool {
        callLock.lock()
        defer { callLock.unlock() }
        return invalidated
    }

    /// Stops further callbacks: waits for a running one on another thread,
    /// returns at once from inside one.
    func invalidate() {
        callLock.lock()
        invalidated = true
        callLock.unlock()
    }

    /// Runs the handler unless invalidated, holding the call lock so that an
    /// invalidation from another thread waits for it.
    func invoke(_ delivery: Delivery) {
        callLock.lock()
        defer { callLock.unlock() }
        guard !invalidated else { return }
        handler?(delivery)
    }

    enum Pending {
        case none
        /// One commit's change, still relative to the delivered order.
        case order(OrderChange, modified: Set<ElementID>, rootDeleted: Bool)
        /// Several commits: the delivered order and what touched it since.
        case coalesced(baseline: ContiguousArray<ElementID>, touched: Set<ElementID>, modified: Set<ElementID>,
            replaced: Set<ElementID>, rootDeleted: Bool)
        case object(deleted: Bool, properties: [Int], old: [Int: Value])
        case map(baseline: [String: Value], modified: Set<String>, rootDeleted: Bool)
    }

    // MARK: Merging (worker, under the state lock)

    /// Merges one commit's output into the pending changes; returns whether
    /// anything became pending (a change outside the filter leaves nothing).
    @discardableResult
    func merge(_ output: NotifierOutput, digest: ChangeDigest, filter: ModificationFilter) -> Bool {
        switch output {
        case .order(let change, let objects, let rootDeleted):
            let modified = Set(objects.filter { digest.isModified($0.value, by: sectioning?.observed ?? filter) }.keys)
            var rekey = Set<ElementID>()
            if let sectioning { rekey = Set(objects.filter { digest.isModified($0.value, by: sectioning.key) }.keys) }
            var change = change
            change.kept = change.kept.filter { modified.contains($0.key) || rekey.contains($0.key) || change.replaced.contains($0.key) }
            guard !change.isEmpty || rootDeleted else { return false }
            guard let notifier = notifier as? OrderNotifier else { return false }
            rekeyed.formUnion(rekey)
            switch pending {
            case .none:
                pending = .order(change, modified: modified, rootDeleted: rootDeleted)
            case .order(let first, let firstModified, let firstRoot):
                // Coalescing: only now is the whole order read (O(n)).
                let order = notifier.order
                let afterFirst = OrderDiff.baseline(before: change, from: order)
                let baseline = OrderDiff.baseline(before: first, from: afterFirst)
                pending = .coalesced(baseline: baseline, touched: first.touchedIDs.union(change.touchedIDs),
                    modified: firstModified.union(modified), replaced: first.replaced.union(change.replaced),
                    rootDeleted: firstRoot || rootDeleted)
            case .coalesced(let baseline, let touched, let m, let r, let root):
                pending = .coalesced(baseline: baseline, touched: touched.union(change.touchedIDs), modified: m.union(modified),
                    replaced: r.union(change.replaced), rootDeleted: root || rootDeleted)
            default: return false
            }
            return true
        case .object(let deleted):
            guard let link = (notifier as? ObjectNotifier)?.object else { return false }
            if deleted {
                pending = .object(deleted: true, properties: [], old: [:])
                return true
            }
            let changed = digest.changedRootProperties(link, by: filter)
            var (properties, old): ([Int], [Int: Value]) = ([], [:])
            if case .object(let d, let p, let o) = pending {
                if d { return false }
                (properties, old) = (p, o)
            }
            let schema = digest.before.schema[link.table]
            for property in changed where !properties.contains(property) {
                properties.append(property)
                if schema.properties[property].collection == .none, schema.properties[property].isStored {
                    old[property] = digest.before.value(link.table, link.key, property)
                }
            }
            pending = .object(deleted: false, properties: properties.sorted(), old: old)
            return !changed.isEmpty
        case .map(let before, let modified, let rootDeleted):
            if case .map(let baseline, let m, let root) = pending {
                pending = .map(baseline: baseline, modified: m.union(modified), rootDeleted: root || rootDeleted)
            } else {
                pending = .map(baseline: before, modified: modified, rootDeleted: rootDeleted)
            }
            return true
        }
    }

    /// Takes the pending changes as a delivery, or `nil` when they net out
    /// to nothing (insert-then-delete, a list emptied while already empty).
    func takePending(at snapshot: Snapshot) -> Delivery? {
        defer {
            pending = .none
            rekeyed = []
        }
        switch pending {
        case .none: return nil
        case .order(let change, let modified, _):
            var changes = OrderDiff.changes(change, modified: modified)
            if sectioning != nil { addSectioning(to: &changes, rekeyed: OrderDiff.changes(change, modified: rekeyed)) }
            return changes.isEmpty ? nil : .collection(changes, notifier?.deliveredElements(at: snapshot.version))
        case .coalesced(let baseline, let touched, let modified, let replaced, _):
            guard let order = (notifier as? OrderNotifier)?.order else { return nil }
            // One pass over both orders serves the observer's modifications and the re-keying.
            let change = OrderDiff.change(from: baseline, to: order, touched: touched,
                watched: modified.union(replaced).union(rekeyed), replaced: replaced)
            var changes = OrderDiff.changes(change, modified: modified)
            if sectioning != nil { addSectioning(to: &changes, rekeyed: OrderDiff.changes(change, modified: rekeyed)) }
            return changes.isEmpty ? nil : .collection(changes, notifier?.deliveredElements(at: snapshot.version))
        case .object(let deleted, let properties, let old):
            if deleted { return .object(deleted: true, properties: []) }
            guard let link = (notifier as? ObjectNotifier)?.object, snapshot.isAlive(link.table, link.key) else { return nil }
            let schema = snapshot.schema[link.table]
            return .object(deleted: false, properties: properties.map { p in
                let isValue = schema.properties[p].collection == .none && schema.properties[p].isStored
                return (p, old[p], isValue ? snapshot.value(link.table, link.key, p) : nil)
            })
        case .map(let baseline, let modified, _):
            guard let current = (notifier as? MapNotifier)?.entries else { return nil }
            let deletions = baseline.keys.filter { current[$0] == nil }.sorted()
            let insertions = current.keys.filter { baseline[$0] == nil }.sorted()
            let modifications = current.keys.filter { key in
                guard let old = baseline[key], let new = current[key] else { return false }
                return !old.isIdentical(to: new) || modified.contains(key)
            }.sorted()
            if deletions.isEmpty && insertions.isEmpty && modifications.isEmpty { return nil }
            return .map(deletions: deletions, insertions: insertions, modifications: modifications)
        }
    }
}

extension Subscription {
    /// Adds what a sectioned observation needs to keep its sections: the
    /// inserted elements, and the elements to re-key that stayed in place
    /// (the unmoved elements keep their relative order, so the sorted old
    /// and new indices pair up).
    fileprivate func addSectioning(to changes: inout IndexChanges, rekeyed: IndexChanges) {
        guard let notifier = notifier as? OrderNotifier else { return }
        changes.insertedValues = changes.insertions.map { notifier.element(at: $0) }
        changes.rekeyed = zip(rekeyed.modifications, rekeyed.modificationsNew).map { IndexChanges.Move(from: $0, to: $1) }
    }
}

extension OrderChange {
    /// The elements whose position may have changed.
    var touchedIDs: Set<ElementID> { Set(removed.map(\.id)).union(inserted.map(\.id)) }
}

/// A Realm instance's deliveries: the subscriptions delivered by draining
/// it, and how to wake the instance's thread or queue when changes arrive.
final class Mailbox: @unchecked Sendable {
    // Safe because: `subscriptions`, `ready` and `wakeScheduled` are guarded by the
    // tracker's state lock; `wake` is immutable.
    var subscriptions: [Int: Subscription] = [:]
    /// The subscriptions that may have something to deliver: a delivery
    /// visits only these, not every subscription of the mailbox.
    var ready: Set<Int> = []
    var wakeScheduled = false
    /// Schedules a drain on the instance's queue or run loop; `nil` for a
    /// thread that drains only on `refresh()` and `beginWrite()`.
    let wake: (@Sendable () -> Void)?

    init(wake: (@Sendable () -> Void)?) { self.wake = wake }
}
