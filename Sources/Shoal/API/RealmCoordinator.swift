import Dispatch
import Foundation
import Logging

/// The one shared store behind every `Realm` opened on the same in-memory
/// identifier or file in this process: it owns the latest snapshot, the log
/// of a file-backed database, and serialises writers.
///
/// Readers take the published snapshot under a short lock and then read it
/// without any lock. A writer holds the write semaphore from `beginWrite`
/// until its record is in the log (not until it is durable), building on the
/// *pending* snapshot, which includes commits still waiting for their fsync;
/// a commit is *published* to readers only once durable under the policy.
/// So concurrent writers share fsyncs (group commit) while nobody ever sees a
/// version that a crash could take back.
final class RealmCoordinator: @unchecked Sendable {
    // Safe because: mutable state is in `state` (a lock); the rest is immutable.
    let identifier: String
    let schema: Schema
    /// The Swift class for each table, by table index.
    let classes: [Object.Type]
    /// What is worked out once for each class, by table index.
    let plans: [TablePlan]
    /// The table of each class, by the class's identity.
    private let tableByType: [ObjectIdentifier: TableKey]
    private let state: Locked<State>
    /// The writer lock: held from `beginWrite` to the log append (or cancel).
    private let writeLock: DispatchSemaphore
    /// The durable log of a file-backed database.
    let log: DatabaseLog?
    /// Compaction of ``log``, explicit and automatic (background).
    let compactor: Compactor?
    let configuration: Realm.Configuration

    private struct State {
        /// What readers see: committed and durable under the policy.
        var published: Snapshot
        /// What the next writer builds on: published plus commits awaiting their fsync.
        var pending: Snapshot
        /// The notification engine, made at the first observation: from
        /// then on every commit is fed to it, in version order.
        var tracker: DependencyTracker?
        /// Called after every published commit: the instances that refresh
        /// themselves on their queue or actor (autorefresh), by their handle.
        var commitListeners: [ObjectIdentifier: @Sendable () -> Void] = [:]
    }

    private static let registry = Locked<[String: WeakCoordinator]>([:])

    private init(identifier: String, snapshot: Snapshot, classes: [Object.Type], log: DatabaseLog?, configuration: Realm.Configuration,
                 logger: Logger) {
        self.identifier = identifier
        self.schema = snapshot.schema
        var tables: [ObjectIdentifier: TableKey] = [:]
        var ordered: [Object.Type] = []
        for os in snapshot.schema.objectSchema {
            let type = classes.first { Object.className(of: $0) == os.className }!
            tables[ObjectIdentifier(type)] = snapshot.schema.tableByName[os.className]
            ordered.append(type)
        }
        self.classes = ordered
        self.plans = zip(snapshot.schema.objectSchema, ordered).map { TablePlan($0, info: ClassRegistry.info(for: $1)) }
        self.tableByType = tables
        self.log = log
        self.configuration = configuration
        let state = Locked(State(published: snapshot, pending: snapshot))
        self.state = state
        let writeLock = DispatchSemaphore(value: 1)
        self.writeLock = writeLock
        self.compactor = log.map { log in
            Compactor(log: log, writeLock: writeLock, growthFactor: configuration.compactionLogGrowthFactor,
                minimumLogBytes: configuration.compactionMinimumLogBytes, logger: logger,
                pendingSnapshot: { state.withLock { $0.pending } })
        }
    }

    deinit {
        // A running automatic compaction finishes before the log closes.
        compactor?.close()
        log?.close()
    }

    /// The coordinator for a configuration's store, opened on first use (for a
    /// file, by recovering its log, through `io`). A second opener must
    /// declare the same schema. Warnings go to `logger`.
    static func coordinator(for configuration: Realm.Configuration, io: any FileIO = PosixFileIO(),
                            logger: Logger = Compactor.defaultLogger) throws(ShoalError) -> RealmCoordinator {
        let classes = configuration.objectTypes ?? []
        let declared = Schema(classes.map { ClassRegistry.info(for: $0).schema })
        try declared.validate()
        let identifier = configuration.storeIdentifier
        return try registry.withLock { (registry: inout [String: WeakCoordinator]) throws(ShoalError) -> RealmCoordinator in
            if let existing = registry[identifier]?.value {
                guard existing.schema.reordering(declared) != nil else {
                    let diffs = existing.schema.differences(to: declared)
                    throw ShoalError(.schemaMismatch,
                        "The schema declared for '\(identifier)' differs from the schema it is open with in this process: \(diffs.joined(separator: " "))",
                        context: ["path": identifier, "differences": diffs.joined(separator: "\n")])
                }
                return existing
            }
            let created: RealmCoordinator
            if configuration.inMemoryIdentifier == nil {
                let directory = configuration.databasePath
                // As Realm: the file's directory must exist; only the database's own directory is created.
                let parent = (directory as NSString).deletingLastPathComponent
                var isDirectory: ObjCBool = false
                if !parent.isEmpty, !FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory) || !isDirectory.boolValue {
                    throw ShoalError(.fileNotFound, "Failed to open file at path '\(directory)': parent directory does not exist",
                        context: ["path": directory])
                }
                try configuration.copySeedIfNeeded()
                let block = configuration.migrationBlock
                let opened = try DatabaseLog.open(
                    directory: directory, schema: declared, schemaVersion: configuration.schemaVersion,
                    durability: configuration.durability.logDurability, io: io,
                    deleteIfSchemaDiffers: configuration.deleteRealmIfMigrationNeeded,
                    migrate: { (old: Snapshot) throws(ShoalError) -> Snapshot in
                        try Migration.run(block, old: old, to: declared, schemaVersion: configuration.schemaVersion, classes: classes)
                    },
                    progress: configuration.replayProgress.map { callback in
                        { callback(Realm.ReplayProgress(bytesRead: $0.bytesRead, bytesTotal: $0.bytesTotal, transactions: $0.records)) }
                    })
                created = RealmCoordinator(identifier: identifier, snapshot: opened.snapshot, classes: classes, log: opened.log,
                    configuration: configuration, logger: logger)
                if let should = configuration.shouldCompactOnLaunch {
                    let sizes = opened.log.sizes
                    let total = sizes.snapshotBytes + Int(sizes.logBytes)
                    // A store too full of deleted objects for a snapshot
                    // keeps its log, and opens as it is.
                    if should(total, sizes.snapshotBytes), SnapshotCodec.unloadableProblem(opened.snapshot) == nil { try created.compact() }
                }
            } else {
                created = RealmCoordinator(identifier: identifier, snapshot: Snapshot(schema: declared), classes: classes, log: nil,
                    configuration: configuration, logger: logger)
            }
            registry[identifier] = WeakCoordinator(value: created)
            return created
        }
    }

    /// Whether a store with this identifier is open in this process.
    static func isOpen(_ identifier: String) -> Bool {
        registry.withLock { $0[identifier]?.value != nil }
    }

    /// The latest published snapshot.
    var latest: Snapshot { state.withLock { $0.published } }

    /// Waits for the write lock, then returns the snapshot to build on.
    func beginWrite() -> Snapshot {
        writeLock.wait()
        return state.withLock { $0.pending }
    }

    /// Commits a transaction: appends its record to the log, releases the
    /// write lock, waits until the record is durable as the policy requires,
    /// and publishes the new version. An empty transaction commits nothing.
    ///
    /// - Throws: `commitFailed` (with the log error underneath) when the
    ///   record cannot be written or synced; nothing is published then.
    ///
    /// Observers whose subscription ids are in `skipping` are not told of
    /// this commit (`write(withoutNotifying:)`).
    func commit(_ transaction: WriteTransaction, skipping: Set<Int> = []) throws(ShoalError) -> Snapshot {
        guard !transaction.record.isEmpty else {
            writeLock.signal()
            return transaction.base
        }
        var next = transaction.working
        next.version = transaction.base.version + 1
        next._checkInvariants()
        let feed = { (tracker: DependencyTracker?) in
            tracker?.feed(transaction.record, before: transaction.base, after: next, skipping: skipping)
        }
        guard let log else {
            let tracker = state.withLock {
                $0.published = next
                $0.pending = next
                feed($0.tracker)
                return $0.tracker
            }
            writeLock.signal()
            tracker?.publish(upTo: next.version)
            tellCommitListeners()
            return next
        }
        let receipt: LogWriter.Receipt
        do {
            receipt = try log.enqueue(transaction.record, version: next.version)
        } catch {
            writeLock.signal()
            throw commitFailed(error)
        }
        state.withLock {
            $0.pending = next
            feed($0.tracker)
        }
        writeLock.signal()
        do { try log.waitUntilDurable(receipt) } catch { throw commitFailed(error) }
        let tracker = state.withLock {
            if $0.published.version < next.version { $0.published = next }
            return $0.tracker
        }
        tracker?.publish(upTo: next.version)
        tellCommitListeners()
        compactor?.commitDidFinish()
        return next
    }

    private func commitFailed(_ error: ShoalError) -> ShoalError {
        ShoalError(.commitFailed, "The transaction could not be committed to '\(identifier)': \(error.message)",
            context: error.context, underlying: error)
    }

    /// Calls the commit listeners, outside the state lock.
    private func tellCommitListeners() {
        let listeners = state.withLock { $0.commitListeners.isEmpty ? [] : Array($0.commitListeners.values) }
        for listener in listeners { listener() }
    }

    /// Has `listener` called after every commit published from now on, until
    /// ``removeCommitListener(_:)`` with the same `id`.
    func addCommitListener(_ id: ObjectIdentifier, _ listener: @escaping @Sendable () -> Void) {
        state.withLock { $0.commitListeners[id] = listener }
    }

    /// Stops calling the listener added under `id`.
    func removeCommitListener(_ id: ObjectIdentifier) {
        state.withLock { _ = $0.commitListeners.removeValue(forKey: id) }
    }

    /// Releases the write lock without publishing anything.
    func cancelWrite() {
        writeLock.signal()
    }

    /// Writes a snapshot of the latest version and drops the log before it,
    /// on the calling thread; does nothing in memory.
    func compact() throws(ShoalError) {
        try compactor?.compact()
    }

    /// Why the most recent compaction of the log failed; `nil` once one succeeds.
    var lastCompactionError: ShoalError? { compactor?.lastError }

    /// Registers an observation with the notification engine (made on first
    /// use), under the state lock so that every later commit reaches it.
    /// The notifier is built on the engine's worker from the snapshot the
    /// next commit builds on.
    @discardableResult
    func register(_ subscription: Subscription, make: @escaping (Snapshot) throws(ShoalError) -> Notifier) -> DependencyTracker {
        state.withLock { s in
            let tracker = Self.tracker(&s, identifier)
            tracker.register(subscription, snapshot: s.pending, make: make)
            return tracker
        }
    }

    /// The notification engine, made if needed.
    func ensureTracker() -> DependencyTracker {
        state.withLock { Self.tracker(&$0, identifier) }
    }

    private static func tracker(_ s: inout State, _ identifier: String) -> DependencyTracker {
        if let tracker = s.tracker { return tracker }
        let tracker = DependencyTracker(snapshot: s.published, label: identifier)
        s.tracker = tracker
        return tracker
    }

    /// The notification engine, once something was observed.
    var tracker: DependencyTracker? { state.withLock { $0.tracker } }

    func tableKey(for type: Object.Type) -> TableKey? {
        tableByType[ObjectIdentifier(type)]
    }
}

private struct WeakCoordinator {
    weak var value: RealmCoordinator?
}

/// What is worked out once per table from its class and schema, rather
/// than read from a copy of the schema on every use: how
/// ``RealmInstance/add(_:update:into:)`` fills an object, what a look-up by
/// primary key coerces its key to, and how accessors are made.
final class TablePlan: Sendable {
    /// The number of stored properties (they come first in a schema).
    let storedCount: Int
    /// Whether each stored property is set apart from the plain values:
    /// links, mixed values and collections.
    let deferred: [Bool]
    /// The deferred single-valued properties (links, mixed values), in order.
    let links: [Int]
    /// The collection properties.
    let collections: [Int]
    /// The primary key's property, if any.
    let primaryKey: Int?
    /// The primary key's description, if any (what a look-up by primary
    /// key coerces its key to, read here rather than from a copy of the schema).
    let primaryKeyProperty: Property?
    /// The class's name, for messages.
    let className: String
    /// The class's wrapper offsets, where reflection confirmed them
    /// (``ClassInfo/confirmedOffsets``), to read an object's boxes at and to
    /// tell an accessor's wrappers their properties.
    let boxOffsets: [Int]?
    /// Whether the class's accessors may be reused (``ClassInfo/accessorsReusable``).
    let accessorsReusable: Bool
    /// Whether the class declares linking objects in the legacy form,
    /// which accessors bind after construction.
    let hasLegacyLinkingObjects: Bool

    init(_ schema: ObjectSchema, info: ClassInfo) {
        boxOffsets = info.confirmedOffsets
        accessorsReusable = info.accessorsReusable
        hasLegacyLinkingObjects = !info.legacyLinkingObjects.isEmpty
        let stored = 0..<schema.storedCount
        let deferred = stored.map { i in
            schema.properties[i].collection != .none || schema.properties[i].type == .object || schema.properties[i].type == .any
        }
        storedCount = schema.storedCount
        self.deferred = deferred
        links = stored.filter { deferred[$0] && schema.properties[$0].collection == .none }
        collections = stored.filter { schema.properties[$0].collection != .none }
        primaryKey = schema.primaryKeyIndex
        primaryKeyProperty = schema.primaryKeyProperty
        className = schema.className
    }
}
