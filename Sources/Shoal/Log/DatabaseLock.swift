internal import Glibc

/// What keeps a second process out of a database: an exclusive `flock` on
/// the database directory itself and one on its `LOCK` file, held for as
/// long as the database is open (or its files are being deleted, or the
/// recovery tool rewrites them).
///
/// The directory's lock is the one no file operation can take away:
/// deleting `LOCK` by hand leaves it in place, so a second opener, which
/// would create and lock a new `LOCK`, is still refused. `LOCK` is locked
/// as well, so that this build and a build of Shoal that locks only `LOCK`
/// keep each other out. The directory is locked first, always, so two
/// openers never hold one lock each.
final class DatabaseLock: Sendable {
    /// The directory, opened read-only and locked.
    let directoryFile: OpenFile
    /// `LOCK`, created if needed and locked.
    let lockFile: OpenFile
    private let released = Locked(false)

    private init(directoryFile: OpenFile, lockFile: OpenFile) {
        self.directoryFile = directoryFile
        self.lockFile = lockFile
    }

    /// Takes both locks of the database at `directory`, waiting briefly
    /// while another holder keeps them (see ``PosixFileIO/lockExclusive(at:)``).
    ///
    /// - Throws: the failing call's ``FileIOError``: `EWOULDBLOCK` when
    ///   another holder keeps a lock; `ENOENT` when the directory was removed
    ///   or replaced while its lock was awaited; anything else the system
    ///   reports (`EACCES`, `EROFS` for `LOCK` on a read-only file system, …).
    static func acquire(directory: String, io: any FileIO) throws(FileIOError) -> DatabaseLock {
        let directoryFile = try io.lockDirectory(at: directory)
        do {
            return DatabaseLock(directoryFile: directoryFile,
                lockFile: try io.lockExclusive(at: joinPath(directory, LogFormat.lockFileName)))
        } catch {
            io.close(directoryFile)
            throw error
        }
    }

    /// Releases both locks: `LOCK` first, then the directory. Idempotent
    /// (a descriptor closed twice could close another file that took its
    /// number meanwhile).
    func release(io: any FileIO) {
        guard released.withLock({ was in
            defer { was = true }
            return !was
        }) else { return }
        io.close(lockFile)
        io.close(directoryFile)
    }
}
