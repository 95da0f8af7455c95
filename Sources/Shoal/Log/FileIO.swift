internal import Glibc

/// The file operations the Log layer needs, as a seam for fault injection
/// (PERSISTENCE.md §9, STYLE.md point 20).
///
/// ``PosixFileIO`` is the real implementation; the tests use an in-memory double
/// that fails chosen calls and produces crash images. Every method reports
/// failure as a ``FileIOError`` carrying the `errno`.
///
/// Contract, which the double follows too:
/// - ``write(_:_:at:)`` writes every byte or throws; after a short write it throws
///   with ``FileIOError/bytesTransferred`` set and the written prefix left in place.
/// - ``syncData(_:)`` is never retried by callers after a failure (fsyncgate).
/// - Directory changes (create, rename, unlink) are durable only after ``syncDirectory(at:)``.
protocol FileIO: Sendable {
    /// Creates a new file, failing with `EEXIST` if the name exists (`O_CREAT|O_EXCL`), opened read-write.
    func createExclusive(at path: String) throws(FileIOError) -> OpenFile
    /// Opens an existing file.
    func open(at path: String, mode: OpenFile.Mode) throws(FileIOError) -> OpenFile
    /// Closes a file; errors are ignored, as nothing useful can follow them.
    func close(_ file: OpenFile)
    /// Reads up to `count` bytes at `offset` (`pread`); fewer only at end of file.
    func read(_ file: OpenFile, count: Int, at offset: Int64) throws(FileIOError) -> [UInt8]
    /// Writes all of `bytes` at `offset` (`pwrite`, looping on short writes).
    func write(_ file: OpenFile, _ bytes: [UInt8], at offset: Int64) throws(FileIOError)
    /// Flushes the file's data to stable storage (`fdatasync`).
    func syncData(_ file: OpenFile) throws(FileIOError)
    /// Sets the file's size (`ftruncate`).
    func truncate(_ file: OpenFile, to size: Int64) throws(FileIOError)
    /// The file's size in bytes.
    func size(of file: OpenFile) throws(FileIOError) -> Int64
    /// Renames a file, replacing `destination` if it exists.
    func rename(_ source: String, to destination: String) throws(FileIOError)
    /// Makes the directory's entries durable (`fsync` of the directory).
    func syncDirectory(at path: String) throws(FileIOError)
    /// Creates the directory at `path` and any missing parents (`mkdir -p`),
    /// making each new entry durable (`fsync` of its parent) before returning,
    /// so that a crash never loses a directory that files were then synced into.
    /// Nothing happens when the directory exists; when something else has
    /// the name, fails with `EEXIST` (or the `errno` of looking it up, such
    /// as `ELOOP`).
    func createDirectory(at path: String) throws(FileIOError)
    /// Removes an empty directory (`rmdir`); fails with `ENOTEMPTY` when it holds anything.
    func removeDirectory(at path: String) throws(FileIOError)
    /// Removes a name.
    func unlink(at path: String) throws(FileIOError)
    /// The names in a directory, without `.` and `..`, in no particular order.
    func listDirectory(at path: String) throws(FileIOError) -> [String]
    /// Creates if needed and exclusively locks `path` (`flock(LOCK_EX|LOCK_NB)`);
    /// fails with `EWOULDBLOCK` if another holder keeps it (the POSIX
    /// implementation waits a second first). Closing the file unlocks it.
    func lockExclusive(at path: String) throws(FileIOError) -> OpenFile
    /// Exclusively locks the directory at `path` itself (`flock(LOCK_EX|LOCK_NB)`
    /// on a descriptor opened `O_RDONLY|O_DIRECTORY`), a lock no change to the
    /// directory's entries can take away; fails with `EWOULDBLOCK` as
    /// ``lockExclusive(at:)`` does, and with `ENOENT` when the directory
    /// locked is no longer the one at `path` (it was removed or replaced
    /// while the lock was awaited). Closing the file unlocks it.
    func lockDirectory(at path: String) throws(FileIOError) -> OpenFile
}

extension FileIO {
    /// Reads the whole file at `path`.
    func readWholeFile(at path: String) throws(FileIOError) -> [UInt8] {
        let file = try open(at: path, mode: .readOnly)
        defer { close(file) }
        let size = try self.size(of: file)
        return try read(file, count: Int(size), at: 0)
    }

    /// Whether a name exists in its directory.
    func fileExists(at path: String) -> Bool {
        guard let file = try? open(at: path, mode: .readOnly) else { return false }
        close(file)
        return true
    }
}

/// An open file: a descriptor (real or simulated) and the path it was opened with.
struct OpenFile: Hashable, Sendable {
    enum Mode: Sendable { case readOnly, readWrite }

    let descriptor: Int32
    let path: String
}

/// A failed file operation.
struct FileIOError: Error, Equatable, Sendable, CustomStringConvertible {
    enum Operation: String, Sendable, CaseIterable {
        case create, open, read, write, sync, truncate, size, rename, syncDirectory, unlink, listDirectory, lock,
            createDirectory, removeDirectory
    }

    let operation: Operation
    let path: String
    let errno: Int32
    /// For a short write, how many bytes were written before the error.
    var bytesTransferred: Int = 0

    /// Whether the error means the device is full.
    var isNoSpace: Bool { errno == ENOSPC || errno == EDQUOT }

    /// The symbolic and readable name of `errno`, for example `ENOSPC (No space left on device)`.
    var errnoDescription: String {
        let name = Self.errnoNames[errno] ?? "errno \(errno)"
        return "\(name) (\(String(cString: strerror(errno))))"
    }

    /// The same failure told of `path`: a file written under a temporary
    /// name is reported by the name it was being written for.
    func named(_ path: String) -> FileIOError {
        FileIOError(operation: operation, path: path, errno: errno, bytesTransferred: bytesTransferred)
    }

    var description: String {
        var text = "\(operation) \(path): \(errnoDescription)"
        if bytesTransferred > 0 { text += " after \(bytesTransferred) bytes" }
        return text
    }

    private static let errnoNames: [Int32: String] = [
        ENOSPC: "ENOSPC", EDQUOT: "EDQUOT", EIO: "EIO", EEXIST: "EEXIST", ENOENT: "ENOENT",
        EACCES: "EACCES", EWOULDBLOCK: "EWOULDBLOCK", EINTR: "EINTR", EROFS: "EROFS", EBADF: "EBADF",
        EINVAL: "EINVAL", EFBIG: "EFBIG", ENOTDIR: "ENOTDIR", EISDIR: "EISDIR", EPERM: "EPERM", ELOOP: "ELOOP",
        ENAMETOOLONG: "ENAMETOOLONG", ENOTEMPTY: "ENOTEMPTY", ETXTBSY: "ETXTBSY", EMFILE: "EMFILE", ENFILE: "ENFILE",
    ]
}

/// Joins a directory and a file name.
func joinPath(_ directory: String, _ name: String) -> String {
    directory.hasSuffix("/") ? directory + name : directory + "/" + name
}

/// The directory part of a path (`.` for a bare name).
func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// The last component of a path.
func fileName(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return path }
    return String(path[path.index(after: slash)...])
}
