import Dispatch
import Foundation

/// The notification engine of one store: the entry point other layers call.
///
/// Commits are fed in version order (``feed(_:before:after:skipping:)``,
/// called under the coordinator's lock, O(1)), published when durable
/// (``publish(upTo:)``), and processed off the writer on one serial worker.
/// Published commits are merged into *runs* as they are published: a run
/// keeps the first commit's `before` snapshot, the last one's `after`, and
/// the records' ops one after the other (a record's list positions are
/// those after the ops before it, so the concatenation describes the run as
/// one transaction would). The worker takes every waiting run in one step:
/// for each it builds a ``ChangeDigest`` from the merged record and the two
/// snapshots, finds the affected notifiers through the routing index
/// (``TrackerRoutes``) without looking at the others, lets each update its
/// kept state, and merges what changed into its subscription. Targets are
/// then woken; a thread drains its mailbox at `refresh()` or `beginWrite()`,
/// a queue when woken, a stream or actor by taking its subscription.
///
/// So under sustained writes the worker does not fall behind: a step's work
/// grows with what the commits waiting for it changed, not with how many
/// there were, the intermediate snapshots are released as commits are
/// merged, and observers see fewer, larger changes (as Realm's notifiers,
/// which run on the latest version and report the change since their last
/// run). A run is cut where merging would change what someone sees: at a
/// registration (its notifier is built on the snapshot between the two
/// sides), at a schema change, and around a commit that skips observers
/// (`write(withoutNotifying:)`), unless ``maximumRuns`` runs are waiting,
/// when skipping commits merge too and skip only the observers every
/// merged commit skipped.
///
/// Two locks: `feed` (runs, registrations, horizon; held briefly by
/// writers) and `state` (notifiers and subscriptions; held by the worker
/// while it processes, and by deliveries while they take changes).
///
/// Backpressure: a writer never waits for the worker to reach its commit,
/// but one that publishes while the worker's step has already run longer
/// than ``stepAllowance`` waits for that step to end, for at most
/// ``writerPatience`` (``publish(upTo:)``). Merging keeps the worker's
/// work bounded by what changed; this keeps what changes while it works
/// bounded too, when writers and the worker share too few cores, so that
/// the delay from a commit to its callbacks does not grow with the write
/// rate. A step shorter than its allowance costs writers nothing.
final class DependencyTracker: @unchecked Sendable {
    // Safe because: mutable state is in `feed` and `state`, both locked.
    /// One commit, or a run of consecutive commits merged into one.
    private struct Entry {
        /// The version after the last commit of the run.
        var version: UInt64
        var record: ChangeRecord
        var before: Snapshot
        var after: Snapshot
        var skipping: Set<Int>
        /// How many commits the run holds.
        var commits = 1
        /// Made after a registration: it may not merge into the run before it.
        var afterRegistration = false
    }

    private struct Registration {
        var subscription: Subscription
        var snapshot: Snapshot
        var make: (Snapshot) throws(ShoalError) -> Notifier
    }

    private struct Feed {
        /// Published commits, merged into runs; the worker takes them all at once.
        var runs: [Entry] = []
        /// Fed commits not yet published (awaiting durability), in version order.
        var unpublished: [Entry] = []
        /// A registration came after the last fed commit.
        var registeredSinceFeed = false
        var registrations: [Registration] = []
        var removals: [Subscription] = []
        var horizon: UInt64
        var processed: UInt64
        var scheduled = false
        var active = false
        /// The worker took work it has not finished (processed and woken).
        var busy = false
        /// When the worker took the work it is doing (uptime, nanoseconds).
        var stepStarted: UInt64 = 0
        /// Steps the worker has finished.
        var steps: UInt64 = 0
        /// Called by the worker as it starts a step with commits (tests).
        var stepHook: (@Sendable () -> Void)?
    }

    private final class State {
        var subscriptions: [Int: Subscription] = [:]
        var routes = TrackerRoutes()
        var snapshot: Snapshot
        /// Registration snapshots not yet published.
        var early: [Snapshot] = []
        var statistics = Statistics()
        init(snapshot: Snapshot) { self.snapshot = snapshot }
    }

    private let feedLock = NSCondition()
    private var feedState: Feed
    private let state: Locked<State>
    private let worker: DispatchQueue
    private let nextID = Locked(0)
    /// How many registrations the worker builds before waking their targets.
    static let registrationSlice = 64
    /// How many runs may wait for the worker before commits that skip
    /// observers are merged with their neighbours too.
    static let maximumRuns = 16
    /// How long (nanoseconds) a step may run before writers that publish
    /// wait for it.
    static let stepAllowance: UInt64 = 20_000_000
    /// How long (nanoseconds) each of those writers waits at most.
    static let writerPatience: UInt64 = 10_000_000

    init(snapshot: Snapshot, label: String) {
        feedState = Feed(horizon: snapshot.version, processed: snapshot.version)
        state = Locked(State(snapshot: snapshot))
        worker = DispatchQueue(label: "shoal.notifications.\(label)")
    }

    // MARK: Writers (under the coordinator's lock)

    /// Whether commits must be fed: true from the first registration on.
    var isActive: Bool {
        feedLock.lock()
        defer { feedLock.unlock() }
        return feedState.active
    }

    /// Records a commit; called in version order, under the coordinator's
    /// lock, only while ``isActive``.
    func feed(_ record: ChangeRecord, before: Snapshot, after: Snapshot, skipping: Set<Int>) {
        feedLock.lock()
        feedState.unpublished.append(Entry(version: after.version, record: record, before: before, after: after, skipping: skipping,
            afterRegistration: feedState.registeredSinceFeed))
        feedState.registeredSinceFeed = false
        feedLock.unlock()
    }

    /// Lets the worker process commits up to `version` (now durable),
    /// merging them into the run that waits for it; called by the writer
    /// after its commit, outside the coordinator's locks.
    ///
    /// When the worker's step has run longer than ``stepAllowance``, the
    /// caller then waits for that step to end, for at most
    /// ``writerPatience`` (the type's comment: backpressure).
    func publish(upTo version: UInt64) {
        feedLock.lock()
        feedState.horizon = max(feedState.horizon, version)
        let published = feedState.unpublished.prefix { $0.version <= feedState.horizon }.count
        for entry in feedState.unpublished.prefix(published) { Self.append(entry, to: &feedState.runs) }
        feedState.unpublished.removeFirst(published)
        let kick = !feedState.scheduled && feedState.active
        if kick { feedState.scheduled = true }
        if !kick && feedState.busy {
            let now = DispatchTime.now().uptimeNanoseconds
            if now &- feedState.stepStarted > Self.stepAllowance {
                let step = feedState.steps
                let deadline = Date(timeIntervalSinceNow: Double(Self.writerPatience) / 1e9)
                while feedState.busy && feedState.steps == step && feedLock.wait(until: deadline) {}
            }
        }
        feedLock.unlock()
        if kick { worker.async { self.run() } }
    }

    /// Adds a published commit to the waiting runs: merged into the last
    /// one unless a cut falls between them (see the type's comment).
    private static func append(_ entry: Entry, to runs: inout [Entry]) {
        guard var last = runs.last, !entry.afterRegistration, last.after.version == entry.before.version,
            last.after.schema == entry.after.schema, last.before.schema == last.after.schema
        else {
            runs.append(entry)
            return
        }
        let skips = !last.skipping.isEmpty || !entry.skipping.isEmpty
        if skips && runs.count < maximumRuns {
            runs.append(entry)
            return
        }
        // The intermediate snapshot is released here: only the run's ends stay.
        runs.removeLast()
        last.record.ops.append(contentsOf: entry.record.ops)
        last.record.timestampMicros = entry.record.timestampMicros
        last.after = entry.after
        last.version = entry.version
        last.skipping.formIntersection(entry.skipping)
        last.commits += entry.commits
        runs.append(last)
    }

    // MARK: Registration

    /// A new subscription id.
    func makeID() -> Int { nextID.withLock { $0 += 1; return $0 } }

    /// Registers a subscription whose notifier `make` builds on the worker
    /// from `snapshot` (the state the next commit will build on). Call under
    /// the coordinator's lock, so that every later commit is fed.
    func register(_ subscription: Subscription, snapshot: Snapshot, make: @escaping (Snapshot) throws(ShoalError) -> Notifier) {
        feedLock.lock()
        feedState.active = true
        feedState.registeredSinceFeed = true
        feedState.registrations.append(Registration(subscription: subscription, snapshot: snapshot, make: make))
        let kick = !feedState.scheduled
        feedState.scheduled = true
        feedLock.unlock()
        if kick { worker.async { self.run() } }
    }

    /// Registers a subscription that fails at once: its only delivery is `error`.
    func registerFailed(_ subscription: Subscription, error: ShoalError) {
        state.withLock { _ in
            subscription.error = error
            subscription.readyVersion = 0
            if case .mailbox(let mailbox) = subscription.target {
                mailbox.subscriptions[subscription.id] = subscription
                mailbox.ready.insert(subscription.id)
            }
        }
        wake([subscription])
    }

    /// Forgets a subscription: no further work is done for it.
    func unregister(_ subscription: Subscription) {
        subscription.invalidate()
        feedLock.lock()
        feedState.removals.append(subscription)
        let kick = !feedState.scheduled && feedState.active
        if kick { feedState.scheduled = true }
        feedLock.unlock()
        if kick { worker.async { self.run() } }
    }

    // MARK: The worker

    private func run() {
        while true {
            feedLock.lock()
            let horizon = feedState.horizon
            let registrations = feedState.registrations
            let removals = feedState.removals
            let ready = feedState.runs
            feedState.registrations = []
            feedState.removals = []
            feedState.runs = []
            if registrations.isEmpty && removals.isEmpty && ready.isEmpty {
                feedState.processed = max(feedState.processed, horizon)
                feedState.scheduled = false
                feedLock.broadcast()
                feedLock.unlock()
                return
            }
            feedState.busy = true
            feedState.stepStarted = DispatchTime.now().uptimeNanoseconds
            let hook = ready.isEmpty ? nil : feedState.stepHook
            feedLock.unlock()
            hook?()
            // Registrations build their notifiers a slice at a time, each
            // slice's initial callbacks woken before the next is built, so
            // that many registrations do not hold everyone's deliveries back.
            var slices = stride(from: 0, to: registrations.count, by: Self.registrationSlice).map {
                Array(registrations[$0..<min($0 + Self.registrationSlice, registrations.count)])
            }
            if slices.isEmpty { slices = [[]] }
            for (index, slice) in slices.enumerated() {
                let last = index == slices.count - 1
                let woken = state.withLock { s in
                    process(s, registrations: slice, removals: index == 0 ? removals : [], entries: last ? Array(ready) : [],
                        horizon: horizon)
                }
                wake(woken)
            }
            feedLock.lock()
            feedState.processed = max(feedState.processed, horizon)
            feedState.busy = false
            feedState.steps &+= 1
            feedLock.broadcast()
            feedLock.unlock()
        }
    }

    private func process(_ s: State, registrations: [Registration], removals: [Subscription], entries: [Entry], horizon: UInt64)
        -> [Subscription]
    {
        var woken: [Int: Subscription] = [:]
        defer {
            // Marked ready under the lock deliveries take, before anyone can look.
            for sub in woken.values { if case .mailbox(let m) = sub.target { m.ready.insert(sub.id) } }
        }
        for sub in removals {
            if case .mailbox(let mailbox) = sub.target {
                mailbox.subscriptions[sub.id] = nil
                mailbox.subscriptions.releaseUnusedCapacity()
                mailbox.ready.remove(sub.id)
            }
            guard s.subscriptions.removeValue(forKey: sub.id) != nil, let notifier = sub.notifier else { continue }
            s.subscriptions.releaseUnusedCapacity()
            s.routes.remove(sub.id, notifier: notifier, schema: s.snapshot.schema)
        }
        for r in registrations where !r.subscription.isInvalidated {
            do {
                let notifier = try r.make(r.snapshot)
                r.subscription.notifier = notifier
                r.subscription.readyVersion = notifier.version
                s.subscriptions[r.subscription.id] = r.subscription
                s.routes.add(r.subscription.id, notifier: notifier, schema: r.snapshot.schema)
            } catch {
                r.subscription.error = error
                r.subscription.readyVersion = 0
            }
            if case .mailbox(let mailbox) = r.subscription.target { mailbox.subscriptions[r.subscription.id] = r.subscription }
            if r.snapshot.version > s.snapshot.version { s.early.append(r.snapshot) }
            woken[r.subscription.id] = r.subscription
        }
        for entry in entries {
            let digest = ChangeDigest(record: entry.record, before: entry.before, after: entry.after)
            s.statistics.commits += entry.commits
            s.statistics.steps += 1
            for (id, candidates) in s.routes.affected(by: digest) {
                guard let sub = s.subscriptions[id], let notifier = sub.notifier else { continue }
                s.statistics.notifierRuns += 1
                s.statistics.candidates += candidates.count
                // A notifier made from a later snapshot already shows this commit.
                // (Feeding and registering under the coordinator's lock leaves no gap.)
                guard notifier.version < entry.version else { continue }
                guard let output = notifier.process(digest, candidates: candidates),
                    // Sectioned observations keep sections from every change: never skipped.
                    !(entry.skipping.contains(id) && isNone(sub.pending) && sub.sectioning == nil),
                    sub.merge(output, digest: digest, filter: notifier.filter)
                else { continue }
                woken[id] = sub
            }
            if entry.after.version > s.snapshot.version { s.snapshot = entry.after }
        }
        s.early.removeAll { snapshot in
            if snapshot.version <= horizon && snapshot.version > s.snapshot.version { s.snapshot = snapshot }
            return snapshot.version <= horizon
        }
        return Array(woken.values)
    }

    private func isNone(_ pending: Subscription.Pending) -> Bool {
        if case .none = pending { return true }
        return false
    }

    private func wake(_ subscriptions: [Subscription]) {
        var mailboxes: [ObjectIdentifier: Mailbox] = [:]
        for sub in subscriptions {
            switch sub.target {
            case .mailbox(let m): mailboxes[ObjectIdentifier(m)] = m
            case .pull(let signal): signal()
            }
        }

        for mailbox in mailboxes.values {
            guard let wake = mailbox.wake else { continue }
            let go = state.withLock { _ in
                defer { mailbox.wakeScheduled = true }
                return !mailbox.wakeScheduled
            }
            if go { wake() }
        }
    }

    /// Counts of the work done, for tests and benchmarks.
    struct Statistics: Sendable, Equatable {
        /// Commits processed.
        var commits = 0
        /// Runs of commits processed (each run one step of every notifier it reaches).
        var steps = 0
        /// Notifiers run (routed to) over all commits.
        var notifierRuns = 0
        /// Objects handed to those runs to look at, summed over the runs.
        var candidates = 0
    }

    var statistics: Statistics { state.withLock { $0.statistics } }

    /// What waits for the worker: merged runs of published commits, and fed
    /// commits not yet published. Each holds two snapshots.
    var backlog: (runs: Int, unpublished: Int) {
        feedLock.lock()
        defer { feedLock.unlock() }
        return (feedState.runs.count, feedState.unpublished.count)
    }

    /// The slots the engine's tables hold for subscriptions, used or not
    /// (the subscriptions, the routing index and `mailbox`'s tables).
    func capacity(including mailbox: Mailbox?) -> Int {
        state.withLock { s in
            s.subscriptions.capacity + s.routes.capacity + (mailbox.map { $0.subscriptions.capacity + $0.ready.capacity } ?? 0)
        }
    }

    /// Holds the worker back (for tests that build a backlog): waits for
    /// the work it is doing to end, then nothing is processed until
    /// ``resumeWorker()``. Waiting for the engine meanwhile blocks.
    func suspendWorker() {
        worker.sync {}
        worker.suspend()
    }

    /// Lets the worker go on after ``suspendWorker()``.
    func resumeWorker() { worker.resume() }

    /// Calls `hook` on the worker at the start of each step that processes
    /// commits, before it processes them (for tests that hold a step).
    func setStepHook(_ hook: (@Sendable () -> Void)?) {
        feedLock.lock()
        feedState.stepHook = hook
        feedLock.unlock()
    }

    // MARK: Delivery

    /// Waits until every commit up to `version` is processed and, with
    /// `includingRegistrations`, until every registration is taken in and
    /// the worker is idle.
    func waitUntilProcessed(_ version: UInt64, includingRegistrations: Bool = true) {
        feedLock.lock()
        defer { feedLock.unlock() }
        guard feedState.active else { return }
        while feedState.processed < version
            || (includingRegistrations && (!feedState.registrations.isEmpty || !feedState.removals.isEmpty || feedState.busy))
        {
            if !feedState.scheduled {
                feedState.scheduled = true
                worker.async { self.run() }
            }
            feedLock.wait()
        }
    }

    /// The processed snapshot and the deliveries ready in a mailbox at it.
    func takeDeliveries(_ mailbox: Mailbox) -> (snapshot: Snapshot, deliveries: [(Subscription, Delivery)]) {
        state.withLock { s in
            mailbox.wakeScheduled = false
            var out: [(Subscription, Delivery)] = []
            var notYet = Set<Int>()
            for id in mailbox.ready.sorted() {
                guard let sub = mailbox.subscriptions[id] else { continue }
                guard sub.readyVersion <= s.snapshot.version else {
                    notYet.insert(id)
                    continue
                }
                if let delivery = take(sub, at: s.snapshot) { out.append((sub, delivery)) }
            }
            mailbox.ready = notYet
            return (s.snapshot, out)
        }
    }

    /// The processed snapshot and what one pulled subscription has pending.
    func takeDelivery(_ subscription: Subscription) -> (snapshot: Snapshot, delivery: Delivery)? {
        state.withLock { s in take(subscription, at: s.snapshot).map { (s.snapshot, $0) } }
    }

    /// What one pulled subscription has pending, only if the engine stands
    /// exactly at `version` and the subscription's state is not newer:
    /// `nil` otherwise (the caller recomputes instead).
    func takeDelivery(_ subscription: Subscription, at version: UInt64) -> Delivery?? {
        state.withLock { s in
            guard s.snapshot.version == version, subscription.readyVersion <= version else { return nil }
            return .some(take(subscription, at: s.snapshot))
        }
    }

    private func take(_ sub: Subscription, at snapshot: Snapshot) -> Delivery? {
        guard sub.readyVersion <= snapshot.version, !sub.isInvalidated else { return nil }
        if let error = sub.error {
            sub.error = nil
            sub.readyVersion = .max
            return .error(error)
        }
        if !sub.initialDelivered {
            sub.initialDelivered = true
            // Object observation has no initial callback: changes since it
            // began are its first delivery.
            guard sub.notifier is ObjectNotifier else {
                sub.pending = .none
                return .initial(sub.notifier?.deliveredElements(at: snapshot.version))
            }
        }
        return sub.takePending(at: snapshot)
    }
}
