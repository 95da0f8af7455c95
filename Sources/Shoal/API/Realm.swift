import Foundation

/// A database: the entry point for reading and writing objects.
///
/// ```swift
/// let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "demo"))
/// try realm.write {
///     realm.create(Dog.self, value: ["id": 1, "name": "Rex", "age": 3])
/// }
/// let dogs = realm.objects(Dog.self)
/// ```
///
/// A live `Realm` belongs to the thread that opened it; ``freeze()`` gives
/// an immutable one usable from any thread.
///
/// ## Topics
/// ### Opening
/// - ``init()``
/// - ``init(configuration:)``
/// - ``Configuration``
/// ### Writing
/// - ``write(_:)``
/// - ``beginWrite()``
/// - ``commitWrite()``
/// - ``cancelWrite()``
/// - ``create(_:value:update:)``
/// ### Reading
/// - ``objects(_:)-7rrk9``
/// - ``objects(_:)-2shuk``
/// - ``object(ofType:forPrimaryKey:)->Element?``
/// - ``object(ofType:forPrimaryKey:)->P?``
public struct Realm: @unchecked Sendable {
    // Safe because: live instances check their thread on every use
    // (`verifyThread`), and frozen instances are immutable.
    let instance: RealmInstance

    /// Realm's name for ``ShoalError``.
    public typealias Error = ShoalError

    init(instance: RealmInstance) { self.instance = instance }

    /// Opens the Realm of ``Configuration/defaultConfiguration``.
    /// - Throws: ``ShoalError`` `schemaInvalid` or `schemaMismatch`.
    public init() throws { try self.init(configuration: .defaultConfiguration) }

    /// Opens (or returns this thread's already-open) Realm for a configuration.
    ///
    /// - Parameter configuration: where the Realm lives and which classes it holds.
    /// - Throws: ``ShoalError`` `schemaInvalid` when the classes do not form a
    ///   valid schema, `schemaMismatch` when another Realm for the same store
    ///   is open with a different schema.
    public init(configuration: Configuration) throws {
        let coordinator = try RealmCoordinator.coordinator(for: configuration)
        self.instance = RealmInstance.live(configuration: configuration, coordinator: coordinator)
    }

    /// The configuration the Realm was opened with.
    public var configuration: Configuration { instance.configuration }
    /// The classes and properties the Realm holds at its version.
    ///
    /// - Note: Differs from Realm: without `Configuration.objectTypes`, these
    ///   are the classes the database stored when opened and those used since
    ///   (classes join the schema when first used), not every `Object`
    ///   subclass of the program.
    public var schema: Schema { instance.schema }
    /// Whether a write transaction is open.
    public var isInWriteTransaction: Bool { instance.transaction != nil }
    /// Whether this Realm is pinned to one version (see ``freeze()``).
    public var isFrozen: Bool { instance.isFrozen }
    /// Whether the Realm holds no objects.
    public var isEmpty: Bool {
        instance.verifyThread()
        return instance.current.tables.allSatisfy { $0.count == 0 }
    }

    /// Whether to advance to the latest version automatically after other
    /// threads commit; `true` by default (`false` for a frozen Realm).
    ///
    /// ```swift
    /// let realm = try Realm()          // on the main thread
    /// realm.autorefresh = false        // keep showing this version until refresh()
    /// ```
    ///
    /// A Realm that has somewhere to run later advances there soon after
    /// each commit: the main thread's Realm on the main queue (when the
    /// program runs `RunLoop.main` or `dispatchMain()`, as an app or an
    /// `async` main does), a Realm opened with ``init(configuration:queue:)``
    /// on its queue, and an actor's Realm on its actor. A Realm of another
    /// thread advances at ``refresh()`` and ``beginWrite()``, as in Realm,
    /// where such a thread has no run loop. With `autorefresh` off the Realm
    /// stays where it is (its `observe` blocks are told `.refreshRequired`)
    /// until ``refresh()``, a write, or the delivery of a notification,
    /// which moves it to the version the notification describes. A Realm
    /// always shows its own commits at once.
    public var autorefresh: Bool {
        get { !instance.isFrozen && instance.autorefresh }
        nonmutating set {
            if newValue && instance.isFrozen { shoalPrecondition(ShoalError(.writeOnFrozenRealm, "Auto-refresh cannot be enabled for frozen Realms.")) }
            if instance.isFrozen { return }
            instance.verifyThread()
            instance.autorefresh = newValue
        }
    }

    // MARK: Transactions

    /// Runs `block` in a write transaction and commits it, returning the block's value.
    ///
    /// If the block throws, the transaction is cancelled and the error rethrown.
    /// - Throws: the block's error, or ``ShoalError`` `writeOnFrozenRealm`,
    ///   `writeOnReadOnlyRealm`, `alreadyInWriteTransaction`, `commitFailed`.
    @discardableResult
    public func write<Result>(_ block: () throws -> Result) throws -> Result {
        try write(withoutNotifying: [], block)
    }

    /// Begins a write transaction, first moving to the latest version.
    ///
    /// Stops the program on a frozen or read-only Realm, or when a write is
    /// already open, as Realm does; ``write(_:)`` throws instead.
    public func beginWrite() {
        do { try instance.beginWrite() } catch { shoalPrecondition(error) }
    }

    /// Commits the open write transaction.
    /// - Throws: ``ShoalError`` `notInWriteTransaction`, `commitFailed`.
    public func commitWrite() throws {
        try instance.commitWrite()
    }

    /// Discards every change of the open write transaction. Objects created
    /// in it become invalidated.
    public func cancelWrite() { instance.cancelWrite() }

    /// Moves to the latest committed version; returns whether anything changed.
    @discardableResult
    public func refresh() -> Bool {
        instance.verifyThread()
        defer { instance.runAsyncWrites() }
        return instance.refresh()
    }

    /// Ends the current read: objects and collections read so far become
    /// invalidated, and the next read sees the latest version. Inside a write
    /// transaction, the write is cancelled first.
    public func invalidate() {
        instance.verifyThread()
        instance.invalidate()
    }

    // MARK: Freezing

    /// An immutable Realm pinned at this Realm's current version, usable from
    /// any thread. Inside a write it is the version the write started from.
    public func freeze() -> Realm {
        if instance.isFrozen { return self }
        instance.verifyThread()
        let pinned = instance.transaction?.base ?? instance.snapshot
        return Realm(instance: RealmInstance(configuration: instance.configuration, coordinator: instance.coordinator, snapshot: pinned, frozen: true))
    }

    /// The live Realm for the calling thread and this Realm's store.
    public func thaw() -> Realm {
        if !instance.isFrozen { return self }
        return Realm(instance: RealmInstance.live(configuration: instance.configuration, coordinator: instance.coordinator))
    }
}

extension Realm: Equatable {
    /// Two Realms are equal when they are the same instance (same store,
    /// same thread, or the same frozen version).
    public static func == (lhs: Realm, rhs: Realm) -> Bool {
        lhs.instance === rhs.instance
            || (lhs.isFrozen && rhs.isFrozen && lhs.instance.coordinator === rhs.instance.coordinator
                && lhs.instance.snapshot.version == rhs.instance.snapshot.version)
    }
}
