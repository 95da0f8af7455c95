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
///
/// Without `objectTypes` the coordinator *discovers* its classes: a class
/// joins the schema the first time a Realm uses it (``join(_:holdingWriteLock:)``),
/// through a schema commit recorded in the log like any other.
final class RealmCoordinator: @unchecked Sendable {
    // Safe because: mutable state is in `state` (a lock); the rest is immutable.
    let identifier: String
    /// Whether classes join the schema when first used (the configuration
    /// gives no `objectTypes`); otherwise the declared classes are all there is.
    let discovers: Bool
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
        /// The Swift classes bound to tables so far.
        var catalog: Catalog
        /// Called after every published commit: the instances that refresh
        /// themselves on their queue or actor (autorefresh), by their handle.
        var commitListeners: [ObjectIdentifier: @Sendable () -> Void] = [:]
    }

    private static let registry = Locked<[String: WeakCoordinator]>([:])

    private init(identifier: String, snapshot: Snapshot, classes: [Object.Type], log: DatabaseLog?, configuration: Realm.Configuration,
                 logger: Logger) {
        self.identifier = identifier
        self.discovers = configuration.objectTypes == nil
        var bindings: [(Object.Type, TableKey)] = []
        for type in classes {
            if let table = snapshot.schema.tableByName[Object.className(of: type)] { bindings.append((type, table)) }
        }
        let catalog = Catalog.empty.binding(bindings, schema: snapshot.schema, at: 0)
        self.log = log
        self.configuration = configuration
        let state = Locked(State(published: snapshot, pending: snapshot, catalog: catalog))
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
    /// file, by recovering its log, through `io`). A second opener with
    /// `objectTypes` must declare the schema of a store opened with them;
    /// its classes join a store that discovers its classes; an opener
    /// without them takes the store as it is. Warnings go to `logger`.
    static func coordinator(for configuration: Realm.Configuration, io: any FileIO = PosixFileIO(),
                            logger: Logger = Compactor.defaultLogger) throws(ShoalError) -> RealmCoordinator {
        let classes = configuration.objectTypes ?? []
        let declared = Schema(classes.map { ClassRegistry.info(for: $0).schema })
        try declared.validate()
        // Without objectTypes, the stored schema is kept and classes join it when used.
        let given: Schema? = configuration.objectTypes == nil ? nil : declared
        let identifier = configuration.storeIdentifier
        let opened = try registry.withLock { (registry: inout [String: WeakCoordinator]) throws(ShoalError) -> RealmCoordinator in
            if let existing = registry[identifier]?.value {
                // A configuration without objectTypes takes the store as it is
                // open; one with objectTypes must match a store opened with
                // them, and the classes it lists join a store that discovers
                // its own (below, outside the registry's lock: a join waits
                // for the write lock).
                if given == nil || existing.discovers { return existing }
                let schema = existing.latest.schema
                guard schema.reordering(declared) != nil else {
                    let diffs = schema.differences(to: declared)
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
                    directory: directory, schema: given, schemaVersion: configuration.schemaVersion,
                    durability: configuration.durability.logDurability, io: io,
                    deleteIfSchemaDiffers: configuration.deleteRealmIfMigrationNeeded,
                    migrate: { (old: Snapshot) throws(ShoalError) -> Snapshot in
                        // Without objectTypes the block migrates the stored classes as they are.
                        try Migration.run(block, old: old, to: given ?? old.schema, schemaVersion: configuration.schemaVersion, classes: classes)
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
        if opened.discovers { for type in classes { try opened.join(type, holdingWriteLock: false) } }
        return opened
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
            receipt = try log.enqueue(transaction.record, version: next.version, schemaFingerprint: next.schema.fingerprint)
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
        // The dictionary itself (shared, not copied) leaves the lock.
        let listeners = state.withLock { $0.commitListeners }
        for listener in listeners.values { listener() }
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

    /// The Swift classes bound to tables so far.
    var catalog: Catalog { state.withLock { $0.catalog } }

    /// Binds `type`, and every class its properties name (links, lists,
    /// sets, maps, linking objects, embedded objects, transitively), to
    /// tables: a class the database stores is matched by name, a new one
    /// gets a table after the others. When that changes the schema (a new
    /// table, or properties a stored class gained), the change is committed
    /// first as a schema record of its own version, under the write lock,
    /// and published like any commit (fed to the notification engine as a
    /// commit that changes no object). Does nothing for a class bound already.
    ///
    /// - Parameter holdingWriteLock: whether the caller holds the write lock
    ///   (a Realm inside a write transaction, whose base is the pending
    ///   snapshot); otherwise it is taken and released here.
    /// - Returns: the snapshot the schema commit made, if one was needed.
    /// - Throws: `schemaMismatch` in Realm's words when a stored class cannot
    ///   be read as its Swift class without a migration, or two classes have
    ///   one name; `schemaInvalid` when the classes break the schema rules;
    ///   `commitFailed` when the schema record cannot be written.
    @discardableResult
    func join(_ type: Object.Type, holdingWriteLock: Bool) throws(ShoalError) -> Snapshot? {
        // Held until the schema commit is published with the catalog: a
        // joiner that takes the lock next finds the class bound and its
        // table published. (Every table in the pending snapshot is then in
        // the published one: only joins make tables.)
        if !holdingWriteLock { writeLock.wait() }
        defer { if !holdingWriteLock { writeLock.signal() } }
        let (pending, catalog) = state.withLock { ($0.pending, $0.catalog) }
        guard catalog.tableByType[ObjectIdentifier(type)] == nil else { return nil }

        // The class and what it names, not bound yet, in the order met.
        var joining: [Object.Type] = []
        var seen: Set<ObjectIdentifier> = []
        var queue: [Object.Type] = [type]
        while let next = queue.popLast() {
            let id = ObjectIdentifier(next)
            guard catalog.tableByType[id] == nil, seen.insert(id).inserted else { continue }
            joining.append(next)
            queue += ClassRegistry.info(for: next).linkedTypes.reversed()
        }
        var objectSchema = pending.schema.objectSchema
        var bindings: [(Object.Type, TableKey)] = []
        var changed = false
        var problems: [String] = []
        var names: [String: Object.Type] = [:]
        for next in joining {
            let os = ClassRegistry.info(for: next).schema
            if let other = names.updateValue(next, forKey: os.className) {
                throw Self.sameName(os.className, other, next, identifier)
            }
            guard let table = pending.schema.tableByName[os.className] else {
                objectSchema.append(os)
                bindings.append((next, TableKey(objectSchema.count - 1)))
                changed = true
                continue
            }
            if let other = catalog.type(of: table) { throw Self.sameName(os.className, other, next, identifier) }
            let stored = objectSchema[table.index]
            if stored != os {
                problems += os.additiveProblems(from: stored)
                objectSchema[table.index] = os
                changed = true
            }
            bindings.append((next, table))
        }
        if !problems.isEmpty {
            throw ShoalError(.schemaMismatch,
                "Migration is required due to the following errors:\n- " + problems.joined(separator: "\n- "),
                context: ["path": identifier, "class": Object.className(of: type), "differences": problems.joined(separator: "\n")])
        }
        guard changed else {
            state.withLock { $0.catalog = catalog.binding(bindings, schema: pending.schema, at: 0) }
            return nil
        }
        let schema = Schema(objectSchema)
        try schema.validate()
        let next = try pending.joining(schema)
        next._checkInvariants()
        let empty = ChangeRecord(baseVersion: pending.version)
        guard let log else {
            let tracker = state.withLock {
                $0.published = next
                $0.pending = next
                $0.tracker?.feed(empty, before: pending, after: next, skipping: [])
                $0.catalog = catalog.binding(bindings, schema: schema, at: next.version)
                return $0.tracker
            }
            tracker?.publish(upTo: next.version)
            return next
        }
        let receipt: LogWriter.Receipt
        do {
            if schema.objectSchema.contains(where: \.isEmbedded) {
                // An older segment's schema encoding has no embedded classes.
                try log.continueInFormat(LogFormat.embeddedObjectsVersion, schemaFingerprint: schema.fingerprint)
            }
            receipt = try log.enqueue(LogRecord(type: .schemaChange, version: next.version, timestampMicros: LogFormat.nowMicros(),
                payload: SchemaRecord.encode(schema, schemaVersion: next.schemaVersion)))
        } catch { throw commitFailed(error) }
        state.withLock {
            $0.pending = next
            $0.tracker?.feed(empty, before: pending, after: next, skipping: [])
        }
        do { try log.waitUntilDurable(receipt) } catch { throw commitFailed(error) }
        let tracker = state.withLock {
            if $0.published.version < next.version { $0.published = next }
            $0.catalog = catalog.binding(bindings, schema: schema, at: next.version)
            return $0.tracker
        }
        tracker?.publish(upTo: next.version)
        return next
    }

    private static func sameName(_ name: String, _ a: Object.Type, _ b: Object.Type, _ identifier: String) -> ShoalError {
        ShoalError(.schemaMismatch,
            "Object type '\(name)' is declared by two classes, '\(String(reflecting: a))' and '\(String(reflecting: b))': a Realm holds one class of each name.",
            context: ["path": identifier, "class": name])
    }
}

/// Which Swift class each table of a coordinator is bound to, and what is
/// worked out once for it; immutable, replaced whole when classes join.
///
/// A table of a stored class not used yet in this process has no class.
/// `boundAt` is the first version whose snapshots hold a table in the
/// layout its class was bound to: 0 for a table bound as it was stored,
/// the version of the schema commit that made or extended it otherwise
/// (older snapshots do not have it, or have it without the new properties).
final class Catalog: @unchecked Sendable {
    // Safe because: immutable; metatypes and plans are shared read-only.
    /// The Swift class of each table, by table index.
    let classes: [Object.Type?]
    /// What is worked out once for each class, by table index.
    let plans: [TablePlan?]
    /// See the type's comment, by table index.
    let boundAt: [UInt64]
    /// The table of each class, by the class's identity.
    let tableByType: [ObjectIdentifier: TableKey]

    static let empty = Catalog(classes: [], plans: [], boundAt: [], tableByType: [:])

    private init(classes: [Object.Type?], plans: [TablePlan?], boundAt: [UInt64], tableByType: [ObjectIdentifier: TableKey]) {
        self.classes = classes
        self.plans = plans
        self.boundAt = boundAt
        self.tableByType = tableByType
    }

    /// This catalog with `bindings` added, their plans made from `schema`,
    /// bound at `version`.
    func binding(_ bindings: [(Object.Type, TableKey)], schema: Schema, at version: UInt64) -> Catalog {
        var classes = self.classes
        var plans = self.plans
        var boundAt = self.boundAt
        var tableByType = self.tableByType
        let count = schema.objectSchema.count
        if classes.count < count {
            classes += [Object.Type?](repeating: nil, count: count - classes.count)
            plans += [TablePlan?](repeating: nil, count: count - plans.count)
            boundAt += [UInt64](repeating: 0, count: count - boundAt.count)
        }
        for (type, table) in bindings {
            classes[table.index] = type
            plans[table.index] = TablePlan(schema[table], info: ClassRegistry.info(for: type))
            boundAt[table.index] = version
            tableByType[ObjectIdentifier(type)] = table
        }
        return Catalog(classes: classes, plans: plans, boundAt: boundAt, tableByType: tableByType)
    }

    /// The class bound to `table`, if any.
    func type(of table: TableKey) -> Object.Type? {
        table.index < classes.count ? classes[table.index] : nil
    }

    /// Whether accessors of `table`'s class may be reused (``TablePlan/accessorsReusable``).
    func accessorsReusable(_ table: TableKey) -> Bool {
        table.index < plans.count && plans[table.index]?.accessorsReusable == true
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
