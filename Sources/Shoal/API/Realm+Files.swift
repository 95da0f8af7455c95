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
    /// - Returns: whether anything was deleted.
    /// - Throws: ``ShoalError`` `alreadyOpen` while a Realm for it is open in
    ///   this process; `fileAccess` when the files cannot be removed.
    @discardableResult
    public static func deleteFiles(for configuration: Configuration) throws -> Bool {
        guard configuration.inMemoryIdentifier == nil else { return false }
        if RealmCoordinator.isOpen(configuration.storeIdentifier) {
            throw ShoalError(.alreadyOpen, "Cannot delete the files of '\(configuration.storeIdentifier)' while a Realm for it is open.",
                context: ["path": configuration.storeIdentifier])
        }
        let path = (configuration.fileURL ?? Configuration.defaultFileURL).standardizedFileURL.path
        guard FileManager.default.fileExists(atPath: path) else { return false }
        do { try FileManager.default.removeItem(atPath: path) } catch {
            throw ShoalError(.fileAccess, "Cannot delete '\(path)': \(error.localizedDescription)", context: ["path": path])
        }
        return true
    }
}
