import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The per-thread (or frozen) state behind a ``Realm`` value: which version it
/// reads, and its write transaction if one is open.
///
/// Live instances are confined to the thread that opened them and cached per
/// thread, so two `Realm(configuration:)` calls on one thread share one
/// instance, as in Realm; the main thread and the main queue share one
/// (the main actor runs there, on whatever thread drains the queue), and
/// queue- and actor-confined instances are cached per queue or actor. Frozen instances pin one immutable snapshot and may
/// be used from any thread.
final class RealmInstance {
    let configuration: Realm.Configuration
    let coordinator: RealmCoordinator
    let isFrozen: Bool
    private let thread: pthread_t
    /// Whether the calling thread being ``thread`` is enough to use this
    /// instance (thread-confined, or the main instance opened on the main
    /// thread): the check every read makes first.
    private let isThreadConfined: Bool
    /// Where this instance may be used besides ``thread``.
    private let confinement: Confinement
    /// Where this instance runs work later (deliveries, `writeAsync`,
    /// autorefresh); `nil` for a thread-confined or frozen instance.
    let scheduler: InstanceScheduler?
    private let queueToken: QueueToken?
    /// Whether to move to the latest version after others' commits, on
    /// ``scheduler`` (`Realm.autorefresh`).
    var autorefresh = true

    /// Where a live instance may be used.
    enum Confinement {
        /// The thread that opened it (or any thread, for a frozen instance).
        case thread
        /// The main thread and main-queue blocks (see ``MainConfinement``).
        case main
        /// Blocks of a serial queue (`Realm(configuration:queue:)`, `observe(on:)`).
        case queue(DispatchQueue)
        /// Code isolated to an actor, on whatever thread it runs (`Realm(configuration:actor:)`).
        case actor(any Actor)
    }
    /// Deliveries for observations made through this instance (made at the first one).
    var mailbox: Mailbox?
    /// `Realm.observe` blocks, by id.
    var realmObservers: [Int: (Realm.Notification, Realm) -> Void] = [:]
    /// Tokens to skip at the next commit (`write(withoutNotifying:)`).
    var skipping: Set<Int> = []
    /// Whether callbacks are being delivered (refresh inside one does not redeliver them).
    var isDelivering = false
    /// Async writes waiting to begin and commit callbacks waiting to run (`writeAsync`).
    var asyncWrites = AsyncWriteQueue()
    /// Blocks run before this instance advances to a version a subscription
    /// is about to be told of, by subscription id (ShoalCombine's `objectWillChange`).
    let willDeliverHooks = Locked<[Int: () -> Void]>([:])
    /// The version this Realm reads outside a write transaction.
    private(set) var snapshot: Snapshot {
        get { visible.pointee }
        set { visible.pointee = newValue }
    }
    /// The version of ``snapshot``, read in place.
    var snapshotVersion: UInt64 { reading.pointee.version }
    private(set) var transaction: WriteTransaction? {
        didSet { readState.pointee.inWrite = transaction != nil }
    }
    /// Bumped by `invalidate()`: accessors from an earlier generation are invalid.
    private(set) var generation: Int {
        get { readState.pointee.generation }
        set { readState.pointee.generation = newValue }
    }

    /// What every property read looks at, held behind pointers that this
    /// instance owns: a read of a class's stored property is checked for
    /// exclusive access at run time (thread-local look-ups, and a tracked
    /// access for `withUnsafePointer(to: &property)`), which was a tenth of
    /// the time of reading a property. The instance is confined to one
    /// thread, or frozen and never changed.
    private let visible: UnsafeMutablePointer<Snapshot>
    private let readState: UnsafeMutablePointer<ReadState>

    /// ``visible``, to read in place through `Snapshot`'s reads through a
    /// pointer (a method called on `pointee` copies the snapshot first).
    private var reading: UnsafePointer<Snapshot> { UnsafePointer(visible) }

    /// See ``readState``.
    private struct ReadState {
        /// Whether a write transaction is open.
        var inWrite = false
        var generation = 0
        /// See ``stateStamp``; starts at 1 so that 0 never matches it.
        var stamp: UInt64 = 1
    }
    /// Bumped whenever the snapshot outside a write may have changed, and
    /// when a write begins or ends (refresh, invalidate, begin, commit,
    /// cancel); within a write, ``WriteTransaction/changeCount`` counts the
    /// ops. Collections cache per ``stateVersion``.
    private var stateStamp: UInt64 {
        get { readState.pointee.stamp }
        set { readState.pointee.stamp = newValue }
    }

    /// A stamp under which every object a collection read now holds is
    /// live, for ``ObjectRef/liveAt``: the state stamp outside a write,
    /// 0 (never current) inside one, where each op may delete.
    var liveStamp: UInt64 {
        readState.pointee.inWrite ? 0 : readState.pointee.stamp
    }

    /// Whether an object known live under `liveAt` (a ``liveStamp``) is
    /// still live: no write is open and the state has not changed since.
    @inline(__always)
    func isKnownLive(_ liveAt: UInt64) -> Bool {
        liveAt == readState.pointee.stamp && !readState.pointee.inWrite
    }

    init(configuration: Realm.Configuration, coordinator: RealmCoordinator, snapshot: Snapshot, frozen: Bool,
        confinement: Confinement = .thread)
    {
        self.configuration = configuration
        self.coordinator = coordinator
        self.visible = .allocate(capacity: 1)
        visible.initialize(to: snapshot)
        self.readState = .allocate(capacity: 1)
        readState.initialize(to: ReadState())
        self.isFrozen = frozen
        self.thread = pthread_self()
        self.confinement = frozen ? .thread : confinement
        switch self.confinement {
        case .thread:
            scheduler = nil
            queueToken = nil
            isThreadConfined = !frozen
        case .main:
            scheduler = .main
            queueToken = MainConfinement.token
            isThreadConfined = Thread.isMainThread
        case .queue(let queue):
            scheduler = .queue(queue)
            queueToken = QueueToken.of(queue)
            isThreadConfined = false
        case .actor(let actor):
            scheduler = .actor(actor)
            queueToken = nil
            isThreadConfined = false
        }
        self.catalog = coordinator.catalog
        handle.attach(self)
        if let scheduler {
            let wake = AutorefreshWake(self, scheduler: scheduler)
            coordinator.addCommitListener(ObjectIdentifier(handle)) { wake.fire() }
        }
    }

    deinit {
        // A write left open is cancelled, as Realm does when its last
        // reference goes: otherwise the store's write lock stays held.
        if transaction != nil { coordinator.cancelWrite() }
        if scheduler != nil { coordinator.removeCommitListener(ObjectIdentifier(handle)) }
        handle.detach()
        visible.deinitialize(count: 1)
        visible.deallocate()
        readState.deallocate()
    }

    /// How others refer to this instance without keeping it alive (see
    /// ``InstanceHandle``).
    let handle = InstanceHandle()

    /// An identifier of the visible state: changes whenever what this Realm
    /// shows may have changed.
    var stateVersion: (UInt64, Int) { (stateStamp, transaction?.changeCount ?? -1) }

    /// The snapshot reads see: the write transaction's working state inside a
    /// write, the read version otherwise.
    var current: Snapshot {
        if let transaction { return transaction.working }
        return snapshot
    }

    /// The schema of the visible state: the classes the database stored
    /// when it was opened or declared, and those that joined it since.
    var schema: Schema {
        if readState.pointee.inWrite { return transaction!.working.schema }
        return visible.pointee.schema
    }

    /// The version whose schema reads see: the write's base inside a write
    /// (a class joining inside it moves the base on), the read version otherwise.
    var schemaVersionVisible: UInt64 {
        if readState.pointee.inWrite { return transaction!.base.version }
        return visible.pointee.version
    }

    /// The Swift classes bound to tables, as this instance last took them
    /// from the coordinator (``tableKey(for:)`` and ``accessor(_:)`` take
    /// them again when they miss).
    var catalog: Catalog

    /// Whether an object is live in the visible state; reads the stored
    /// snapshot in place (``current`` returns a copy, which retains every table).
    func isAlive(_ table: TableKey, _ key: ObjectKey) -> Bool {
        if readState.pointee.inWrite { return transaction!.working.isAlive(table, key) }
        return Snapshot.isAlive(reading, table, key)
    }

    /// The object with primary key `value` in the visible state, looked up
    /// in place (``current`` would copy the snapshot: a retain and release
    /// of every table's storage per look-up).
    func object(_ table: TableKey, primaryKey value: Value) -> ObjectKey? {
        if readState.pointee.inWrite { return transaction!.working.object(table, primaryKey: value) }
        return Snapshot.object(reading, table, primaryKey: value)
    }

    /// A single-valued property in the visible state, read in place.
    func value(_ table: TableKey, _ key: ObjectKey, _ property: Int) -> Value {
        if readState.pointee.inWrite { return transaction!.working.value(table, key, property) }
        return Column.value(Snapshot.unsafeColumn(reading, table, property), key.slot)
    }

    /// A string property in the visible state, read in place (`""` for a
    /// value that is not a string).
    ///
    /// The commonest case, a coded string outside a write, is inline in the
    /// caller; the rest is ``stringOtherwise(_:_:_:)``.
    @inline(__always)
    func string(_ table: TableKey, _ key: ObjectKey, _ property: Int) -> String {
        if !readState.pointee.inWrite,
            let string = Column.codedString(Snapshot.unsafeColumn(reading, table, property), key.slot)
        {
            return string
        }
        return stringOtherwise(table, key, property)
    }

    /// ``string(_:_:_:)`` when the string is not coded, or a write is open.
    @inline(never)
    private func stringOtherwise(_ table: TableKey, _ key: ObjectKey, _ property: Int) -> String {
        if readState.pointee.inWrite {
            if case .string(let s) = transaction!.working.value(table, key, property) { return s }
            return ""
        }
        let column = Snapshot.unsafeColumn(reading, table, property)
        if let bytes = Column.unsafeStringBytes(column, key.slot) {
            return StringCopy.string(utf8: bytes, makesSmall: column.pointee.bytes.makesSmall)
        }
        // A null (of a coded column too), or a column that holds tagged values.
        if case .string(let s) = Column.value(column, key.slot) { return s }
        return ""
    }

    /// Stops with Realm's message when this instance is used from the wrong
    /// thread (or queue, or actor).
    @inline(__always)
    func verifyThread() {
        // The common case inline: one comparison with the current thread.
        #if os(Linux)
            if isThreadConfined && thread == pthread_self() { return }
        #else
            if isThreadConfined && pthread_equal(thread, pthread_self()) != 0 { return }
        #endif
        verifyThreadOtherwise()
    }

    /// ``verifyThread()`` for frozen, queue- and actor-confined instances,
    /// and for a thread-confined instance used from another thread.
    @inline(never)
    private func verifyThreadOtherwise() {
        switch confinement {
        case .thread:
            // Frozen, or thread-confined and on another thread: the inline
            // check already compared the threads.
            if isFrozen { return }
            shoalPrecondition(ShoalError(.wrongThread, "Realm accessed from incorrect thread.",
                context: ["path": coordinator.identifier]))
        case .main:
            if Thread.isMainThread || DispatchQueue.getSpecific(key: QueueToken.key) === queueToken { return }
            shoalPrecondition(ShoalError(.wrongThread,
                "Realm accessed from incorrect thread: it was opened on the main thread or main actor.",
                context: ["path": coordinator.identifier]))
        case .actor(let actor):
            actor.preconditionIsolated("Realm accessed from incorrect thread: it is confined to an actor.")
        case .queue(let queue):
            if DispatchQueue.getSpecific(key: QueueToken.key) !== queueToken {
                shoalPrecondition(ShoalError(.wrongThread, "Realm accessed from incorrect thread.",
                    context: ["path": coordinator.identifier, "queue": queue.label]))
            }
        }
    }

    // MARK: Versions

    /// Moves to the latest committed version. Returns whether the version changed.
    ///
    /// With observations made through this instance, it first waits for the
    /// notification engine to process every published commit, moves to the
    /// version it processed, and delivers the pending callbacks there.
    @discardableResult
    func refresh() -> Bool {
        guard !isFrozen, transaction == nil else { return false }
        if mailbox != nil { return deliverNotifications() }
        return advance(to: coordinator.latest)
    }

    /// Moves to `latest` if it is newer; tells `Realm.observe` blocks.
    @discardableResult
    func advance(to latest: Snapshot) -> Bool {
        guard latest.version > snapshot.version else { return false }
        snapshot = latest
        stateStamp &+= 1
        notifyRealmObservers(.didChange)
        return true
    }

    func invalidate() {
        if transaction != nil { cancelWrite() }
        generation += 1
        stateStamp &+= 1
        if !isFrozen { snapshot = coordinator.latest }
    }

    // MARK: Writes

    func beginWrite() throws(ShoalError) {
        verifyThread()
        if isFrozen { throw ShoalError(.writeOnFrozenRealm, "Can't perform transactions on a frozen Realm", context: ["path": coordinator.identifier]) }
        if configuration.readOnly {
            throw ShoalError(.writeOnReadOnlyRealm, "Can't perform transactions on a read-only Realm.", context: ["path": coordinator.identifier])
        }
        if transaction != nil {
            throw ShoalError(.alreadyInWriteTransaction, "The Realm is already in a write transaction", context: ["path": coordinator.identifier])
        }
        // Pending callbacks run before the write begins, so they may observe and write.
        if mailbox != nil { deliverNotifications() }
        let base = coordinator.beginWrite()
        let advanced = base.version > snapshot.version
        snapshot = base
        transaction = WriteTransaction(base: base)
        stateStamp &+= 1
        if advanced { notifyRealmObservers(.didChange) }
    }

    func commitWrite() throws(ShoalError) {
        verifyThread()
        guard let transaction else {
            throw ShoalError(.notInWriteTransaction, "Can't commit a non-existing write transaction", context: ["path": coordinator.identifier])
        }
        let skipping = self.skipping
        defer {
            // A `Realm.observe` block told of the commit may have begun the
            // next write: that one stays open (dropping it would keep the
            // store's write lock held).
            if self.transaction === transaction {
                self.transaction = nil
                self.skipping = []
            }
            stateStamp &+= 1
        }
        let before = snapshot.version
        snapshot = try coordinator.commit(transaction, skipping: skipping)
        if snapshot.version > before {
            stateStamp &+= 1
            self.transaction = nil
            self.skipping = []
            notifyRealmObservers(.didChange)
        }
    }

    /// Moves this instance on past a schema commit that let a class join
    /// (``RealmCoordinator/join(_:holdingWriteLock:)``). Inside a write the
    /// transaction is rebased onto it; outside one the instance moves to
    /// the latest version, delivering pending callbacks first, as
    /// ``beginWrite()`` does.
    func didJoin(_ joined: Snapshot?) {
        if let transaction {
            if let joined { transaction.rebase(onto: joined) }
        } else if !isFrozen {
            if mailbox != nil { deliverNotifications() }
            advance(to: coordinator.latest)
        }
        catalog = coordinator.catalog
        stateStamp &+= 1
    }

    func cancelWrite() {
        verifyThread()
        guard transaction != nil else {
            shoalPrecondition(ShoalError(.notInWriteTransaction, "Can't cancel a non-existing write transaction"))
        }
        coordinator.cancelWrite()
        transaction = nil
        skipping = []
        stateStamp &+= 1
    }

    /// The open write transaction, or a stop with Realm's message naming what was attempted.
    func requireWrite(_ what: @autoclosure () -> String = "") -> WriteTransaction {
        verifyThread()
        guard let transaction else {
            if isFrozen {
                shoalPrecondition(ShoalError(.writeOnFrozenRealm, "Attempting to modify a frozen object - call thaw on the Object instance first."))
            }
            let detail = what()
            shoalPrecondition(ShoalError(.notInWriteTransaction,
                "Can only add, remove, or create objects in a Realm in a write transaction - call beginWriteTransaction on an RLMRealm instance first."
                    + (detail.isEmpty ? "" : " (\(detail))")))
        }
        return transaction
    }

    // MARK: Per-thread cache

    private final class Cache {
        var instances: [String: WeakInstance] = [:]
    }

    private struct WeakInstance {
        let handle: InstanceHandle
        var value: RealmInstance? { handle.load() }
    }

    private static let cacheKey = "io.shoal.realm-instances"

    /// The live instance for `coordinator` on the calling thread, created if
    /// needed: the main instance on the main thread or main queue.
    static func live(configuration: Realm.Configuration, coordinator: RealmCoordinator) -> RealmInstance {
        if MainConfinement.isCurrent { return main(configuration: configuration, coordinator: coordinator) }
        let dictionary = Thread.current.threadDictionary
        let cache: Cache
        if let existing = dictionary[cacheKey] as? Cache {
            cache = existing
        } else {
            cache = Cache()
            dictionary[cacheKey] = cache
        }
        if let instance = cache.instances[coordinator.identifier]?.value { return instance }
        let instance = RealmInstance(configuration: configuration, coordinator: coordinator, snapshot: coordinator.latest, frozen: false)
        cache.instances[coordinator.identifier] = WeakInstance(handle: instance.handle)
        return instance
    }
}
