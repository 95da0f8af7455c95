import Foundation

extension Realm {
    /// Writes a snapshot of the current version and drops the log before it,
    /// so the next open reads the snapshot instead of replaying history.
    ///
    /// Crash-safe: the old snapshot and log stay until the new snapshot is on
    /// disk. Does nothing for an in-memory Realm.
    /// - Throws: ``ShoalError`` `fileAccess` or a log error when writing fails.
    public func compact() throws {
        instance.verifyThread()
        if instance.isFrozen || instance.transaction != nil {
            throw ShoalError(.unsupported, "Compact a live Realm outside a write transaction.", context: ["path": instance.coordinator.identifier])
        }
        try instance.coordinator.compact()
    }

    /// Why the most recent compaction of this Realm's file failed, or `nil`
    /// if it succeeded (or none has run).
    ///
    /// Automatic compaction (see ``Configuration/compactionLogGrowthFactor``)
    /// runs in the background, so no call of yours can throw its error:
    /// read it here. A failed compaction changes nothing on disk (every
    /// commit stays in the log), is logged as a warning through swift-log
    /// (label `shoal`), and is not tried again automatically until the log
    /// has grown by the growth factor again, at least doubled, since the
    /// failed attempt. A failed ``compact()`` throws, and is recorded here
    /// as well. The next compaction that succeeds sets this back to `nil`.
    /// Always `nil` for an in-memory Realm.
    ///
    /// ```swift
    /// if let error = realm.lastCompactionError, error.context["errno"] == String(ENOSPC) {
    ///     print("The disk is too full to compact '\(error.context["path"] ?? "")'")
    /// }
    /// ```
    ///
    /// - Note: Differs from Realm, which compacts only when asked
    ///   (``compact()``, ``Configuration/shouldCompactOnLaunch``) and so has
    ///   no background failure to report.
    public var lastCompactionError: ShoalError? {
        instance.coordinator.lastCompactionError
    }

    /// Forces every commit so far onto stable storage (for the relaxed and
    /// none durability policies).
    public func sync() throws {
        try instance.coordinator.log?.sync()
    }

    /// Deletes the files of the database a configuration names.
    ///
    /// Deletes only what Shoal wrote in the database's directory (its log
    /// segments, snapshots, `LOCK`, temporary files and kept torn tails),
    /// then the directory itself if nothing else is left in it. Files that
    /// are not Shoal's stay, and so does a directory that holds none of
    /// Shoal's files. As in Realm, it refuses while the database is open,
    /// in this process or any other: it takes the lock a Realm holding the
    /// database keeps, for as long as it deletes.
    ///
    /// ```swift
    /// if try Realm.deleteFiles(for: config) { print("started afresh") }
    /// ```
    ///
    /// - Returns: whether anything was deleted (`false` for an in-memory
    ///   configuration, or when there was no database).
    /// - Throws: ``ShoalError`` `alreadyOpen` while a Realm for the database
    ///   is open in this process or another, deleting nothing;
    ///   `filePermissionDenied`, `fileAccess` when a file cannot be removed.
    @discardableResult
    public static func deleteFiles(for configuration: Configuration) throws -> Bool {
        guard configuration.inMemoryIdentifier == nil else { return false }
        let path = configuration.databasePath
        if RealmCoordinator.isOpen(configuration.storeIdentifier) {
            throw ShoalError(.alreadyOpen, "Cannot delete the files of the database at '\(path)': a Realm for it is open in this process.",
                context: ["path": path])
        }
        return try DatabaseLog.deleteFiles(directory: path, io: PosixFileIO())
    }
}
