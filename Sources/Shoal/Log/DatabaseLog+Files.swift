internal import Glibc

/// Taking a database's directory for a process, and deleting its files.
extension DatabaseLog {
    /// How many times opening makes the directory again when the one it
    /// waited to lock was removed meanwhile (by ``deleteFiles(directory:io:)``).
    private static let lockAttempts = 3

    /// Creates `directory` if needed (durably, through the FileIO seam; the
    /// Realm API first checks that the parent exists, as Realm does) and takes
    /// its ``DatabaseLock``.
    ///
    /// A directory that holds other files and no segment or snapshot is
    /// refused before anything is written in it.
    ///
    /// - Throws: `notAShoalFile` for a file, or a directory of other files;
    ///   otherwise as ``ShoalError/databaseFiles(_:_:database:)``.
    static func lockCreating(_ directory: String, io: any FileIO) throws(ShoalError) -> DatabaseLock {
        var attempt = 1
        while true {
            do throws(FileIOError) { try io.createDirectory(at: directory) } catch {
                throw .databaseFiles(error, "create the database directory", database: directory)
            }
            let names: [String]
            do throws(FileIOError) { names = try io.listDirectory(at: directory) } catch {
                throw .databaseFiles(error, "list", database: directory)
            }
            let listing = LogDirectory(path: directory, names: names)
            if !listing.holdsDatabase, !listing.otherFiles.isEmpty {
                let shown = listing.otherFiles.prefix(3).map { "'\($0)'" }.joined(separator: ", ")
                    + (listing.otherFiles.count > 3 ? " and \(listing.otherFiles.count - 3) more" : "")
                throw ShoalError(
                    .notAShoalFile,
                    "'\(directory)' is not a Shoal database: the directory holds other files (\(shown)) and no log segment or snapshot. "
                        + "A database is a directory of its own: name one that does not exist yet or is empty.",
                    context: ["path": directory, "files": listing.otherFiles.joined(separator: "\n")])
            }
            do throws(FileIOError) { return try DatabaseLock.acquire(directory: directory, io: io) } catch {
                // Removed or replaced while its lock was awaited: make it again.
                if error.errno == ENOENT, error.path == directory, attempt < lockAttempts {
                    attempt += 1
                    continue
                }
                throw .databaseFiles(error, "lock", database: directory)
            }
        }
    }

    /// Deletes the files Shoal wrote in the database directory `directory`
    /// (``LogFormat/isShoalFileName(_:)``: segments, snapshots, temporary
    /// files, kept torn tails and `LOCK`), holding the database's lock
    /// while it does, and then the directory if nothing else is in it. Other
    /// files, and a directory that holds none of Shoal's, are left as they are.
    ///
    /// - Returns: whether anything was deleted.
    /// - Throws: `alreadyOpen` while any process holds the database open
    ///   (the lock a writer holds: ``DatabaseLock``), changing nothing;
    ///   otherwise as ``ShoalError/databaseFiles(_:_:database:)``.
    static func deleteFiles(directory: String, io: any FileIO) throws(ShoalError) -> Bool {
        func names() throws(ShoalError) -> [String]? {
            do throws(FileIOError) { return try io.listDirectory(at: directory) } catch {
                // Nothing there, or a file: no database, and nothing of Shoal's.
                if error.errno == ENOENT || error.errno == ENOTDIR { return nil }
                throw .databaseFiles(error, "list", database: directory)
            }
        }
        guard let before = try names(), before.contains(where: LogFormat.isShoalFileName) else { return false }
        let lock: DatabaseLock
        do throws(FileIOError) { lock = try DatabaseLock.acquire(directory: directory, io: io) } catch {
            if error.errno == EWOULDBLOCK {
                throw ShoalError(
                    .alreadyOpen,
                    "Cannot delete the files of the database at '\(directory)': it is open in another process, which holds its lock ('\(error.path)'). Close it there first.",
                    context: ["path": directory, "file": error.path])
            }
            if error.errno == ENOENT { return false }  // removed meanwhile
            throw .databaseFiles(error, "lock", database: directory)
        }
        defer { lock.release(io: io) }
        // Listed again under the lock: a holder may have written more before it closed.
        let listing = LogDirectory(path: directory, names: try names() ?? [])
        // The data first, so that an error part way leaves a database that
        // opens; then the other files of Shoal's; LOCK last.
        let data = listing.dataFilesInDeletionOrder
        let ordered = data + listing.shoalFiles.filter { !data.contains($0) && $0 != LogFormat.lockFileName } + [LogFormat.lockFileName]
        for name in ordered {
            do throws(FileIOError) { try io.unlink(at: joinPath(directory, name)) } catch {
                if error.errno == ENOENT { continue }
                throw .databaseFiles(error, "delete", database: directory)
            }
        }
        if listing.otherFiles.isEmpty {
            // Removed while still locked: an opener waiting for the lock then
            // finds the directory gone, and makes a new one.
            do throws(FileIOError) { try io.removeDirectory(at: directory) } catch {
                if error.errno != ENOTEMPTY && error.errno != EEXIST {
                    throw .databaseFiles(error, "remove the directory", database: directory)
                }
            }
            try? io.syncDirectory(at: parentDirectory(of: directory))
        } else {
            try? io.syncDirectory(at: directory)
        }
        return true
    }
}
