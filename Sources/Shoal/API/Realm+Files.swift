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
