public import Foundation

extension Realm {
    /// Writes a compacted copy of the Realm's current data to a new database at `fileURL`.
    ///
    /// The copy holds one snapshot of the data as this Realm sees it (inside a
    /// write transaction, the uncommitted changes too) and opens like any
    /// other database, with the same classes.
    ///
    /// ```swift
    /// try realm.writeCopy(toFile: backups.appendingPathComponent("2024-05-01.realm"))
    /// ```
    /// - Throws: ``ShoalError`` `fileAccess` when something is already at
    ///   `fileURL` (as in Realm, the destination must not exist) or it cannot
    ///   be written; `fileNotFound` when its parent directory does not exist.
    /// - Note: Differs from Realm: there is no `encryptionKey` parameter.
    public func writeCopy(toFile fileURL: URL) throws {
        try writeCopy(toFile: fileURL, io: PosixFileIO())
    }

    /// ``writeCopy(toFile:)`` through a file system seam (tests pass a
    /// fault-injecting one). The directory is made through `io`, which makes
    /// its entry durable before the snapshot is synced into it.
    func writeCopy(toFile fileURL: URL, io: some FileIO) throws {
        instance.verifyThread()
        let destination = fileURL.standardizedFileURL.path
        if FileManager.default.fileExists(atPath: destination) {
            throw ShoalError(.fileAccess, "Failed to write a copy to '\(destination)': a file or directory is already there.",
                context: ["path": destination])
        }
        let parent = fileURL.standardizedFileURL.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ShoalError(.fileNotFound, "Failed to open file at path '\(destination)': parent directory does not exist",
                context: ["path": destination])
        }
        let state = instance.current
        do {
            try io.createDirectory(at: destination)
            try SnapshotFile.write(try SnapshotCodec.encodeLoadable(state, what: "writeCopy", path: destination), version: state.version,
                schemaFingerprint: state.schema.fingerprint, directory: destination, io: io)
        } catch {
            try? FileManager.default.removeItem(atPath: destination)
            if let error = error as? ShoalError { throw error }
            throw ShoalError(.fileAccess, "Failed to write a copy to '\(destination)': \(error.localizedDescription)",
                context: ["path": destination])
        }
    }
}

extension Realm {
    /// Writes a compacted copy of the Realm's data to the file a configuration names.
    ///
    /// ```swift
    /// try realm.writeCopy(configuration: Realm.Configuration(fileURL: backupURL))
    /// ```
    /// - Throws: ``ShoalError`` `unsupported` for an in-memory configuration;
    ///   otherwise as ``writeCopy(toFile:)``.
    public func writeCopy(configuration: Configuration) throws {
        guard configuration.inMemoryIdentifier == nil else {
            throw ShoalError(.unsupported, "Cannot write a copy to an in-memory configuration; give it a fileURL.")
        }
        try writeCopy(toFile: configuration.fileURL ?? Configuration.defaultFileURL)
    }

    /// Whether the database a configuration names exists on disk (`false` for an in-memory one).
    ///
    /// ```swift
    /// if !Realm.fileExists(for: config) { showOnboarding() }
    /// ```
    public static func fileExists(for configuration: Configuration) -> Bool {
        guard configuration.inMemoryIdentifier == nil else { return false }
        return FileManager.default.fileExists(atPath: (configuration.fileURL ?? Configuration.defaultFileURL).standardizedFileURL.path)
    }
}

/// The schema version stored in the database at `fileURL`, without opening it
/// (and without the application's classes).
///
/// ```swift
/// if try schemaVersionAtURL(config.fileURL!) < 3 { showMigrationNotice() }
/// ```
/// - Throws: ``ShoalError`` `fileAccess` when nothing is at `fileURL`,
///   `notAShoalFile` when it is not a Shoal database.
/// - Note: Differs from Realm: there is no `encryptionKey` parameter.
public func schemaVersionAtURL(_ fileURL: URL) throws -> UInt64 {
    try LogInspector(path: fileURL.standardizedFileURL.path, ignoringLock: true).check().schema.version
}
