internal import Dispatch
internal import Glibc

/// ``FileIO`` on the real file system through POSIX calls.
///
/// Interrupted calls (`EINTR`) are retried, except `fdatasync` and `fsync`, which
/// are never retried (a retried sync can report success after the kernel dropped
/// the dirty pages: fsyncgate, PERSISTENCE.md §5).
struct PosixFileIO: FileIO {
    init() {}

    func createExclusive(at path: String) throws(FileIOError) -> OpenFile {
        let fd = try retryingEINTR(.create, path) { Glibc.open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0o644) }
        return OpenFile(descriptor: fd, path: path)
    }

    func open(at path: String, mode: OpenFile.Mode) throws(FileIOError) -> OpenFile {
        let flags = (mode == .readOnly ? O_RDONLY : O_RDWR) | O_CLOEXEC
        let fd = try retryingEINTR(.open, path) { Glibc.open(path, flags) }
        return OpenFile(descriptor: fd, path: path)
    }

    func close(_ file: OpenFile) {
        // Not retried on EINTR: on Linux the descriptor is released regardless.
        _ = Glibc.close(file.descriptor)
    }

    func read(_ file: OpenFile, count: Int, at offset: Int64) throws(FileIOError) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = result.withUnsafeMutableBytes { buffer in
                pread(file.descriptor, buffer.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileIOError(operation: .read, path: file.path, errno: errno, bytesTransferred: done)
            }
            if n == 0 { break }
            done += n
        }
        result.removeLast(count - done)
        return result
    }

    func write(_ file: OpenFile, _ bytes: [UInt8], at offset: Int64) throws(FileIOError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { buffer in
                pwrite(file.descriptor, buffer.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileIOError(operation: .write, path: file.path, errno: errno, bytesTransferred: done)
            }
            // pwrite returning 0 for a non-empty buffer makes no progress; report it as out of space.
            if n == 0 { throw FileIOError(operation: .write, path: file.path, errno: ENOSPC, bytesTransferred: done) }
            done += n
        }
    }

    func syncData(_ file: OpenFile) throws(FileIOError) {
        guard fdatasync(file.descriptor) == 0 else {
            throw FileIOError(operation: .sync, path: file.path, errno: errno)
        }
    }

    func truncate(_ file: OpenFile, to size: Int64) throws(FileIOError) {
        _ = try retryingEINTR(.truncate, file.path) { ftruncate(file.descriptor, off_t(size)) }
    }

    func size(of file: OpenFile) throws(FileIOError) -> Int64 {
        var info = stat()
        guard fstat(file.descriptor, &info) == 0 else {
            throw FileIOError(operation: .size, path: file.path, errno: errno)
        }
        return Int64(info.st_size)
    }

    func rename(_ source: String, to destination: String) throws(FileIOError) {
        guard Glibc.rename(source, destination) == 0 else {
            throw FileIOError(operation: .rename, path: source, errno: errno)
        }
    }

    func syncDirectory(at path: String) throws(FileIOError) {
        let fd = try retryingEINTR(.syncDirectory, path) { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { _ = Glibc.close(fd) }
        guard fsync(fd) == 0 else { throw FileIOError(operation: .syncDirectory, path: path, errno: errno) }
    }

    func createDirectory(at path: String) throws(FileIOError) {
        var missing: [String] = []
        var current = path
        while !Self.isDirectory(current) {
            missing.append(current)
            let parent = parentDirectory(of: current)
            if parent == current { break }
            current = parent
        }
        for directory in missing.reversed() {
            if mkdir(directory, 0o755) != 0 {
                let code = errno
                // Made by someone else meanwhile, or a name that is not a
                // directory (a file, a dangling or looping symbolic link).
                guard code == EEXIST else { throw FileIOError(operation: .createDirectory, path: directory, errno: code) }
                var info = stat()
                guard stat(directory, &info) == 0 else {
                    throw FileIOError(operation: .createDirectory, path: directory, errno: errno)
                }
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    throw FileIOError(operation: .createDirectory, path: directory, errno: EEXIST)
                }
                continue
            }
            try syncDirectory(at: parentDirectory(of: directory))
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    func removeDirectory(at path: String) throws(FileIOError) {
        guard rmdir(path) == 0 else { throw FileIOError(operation: .removeDirectory, path: path, errno: errno) }
    }

    func unlink(at path: String) throws(FileIOError) {
        guard Glibc.unlink(path) == 0 else { throw FileIOError(operation: .unlink, path: path, errno: errno) }
    }

    func listDirectory(at path: String) throws(FileIOError) -> [String] {
        guard let dir = opendir(path) else { throw FileIOError(operation: .listDirectory, path: path, errno: errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: pointer.pointee)) {
                    String(cString: $0)
                }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Takes the lock, waiting up to ``lockPatience`` while it is held.
    ///
    /// A `flock` lock belongs to the open file, and a process this one is
    /// spawning shares this process's open files from `fork` until `exec`
    /// closes them (`O_CLOEXEC`): for that moment the child holds every lock
    /// the parent holds, even one the parent has just released. So a lock
    /// that is busy is tried again for a short while before the error that
    /// another process holds it.
    func lockExclusive(at path: String) throws(FileIOError) -> OpenFile {
        let fd = try retryingEINTR(.lock, path) { Glibc.open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o644) }
        let code = Self.flockPatiently(fd, LOCK_EX)
        guard code == 0 else {
            _ = Glibc.close(fd)
            throw FileIOError(operation: .lock, path: path, errno: code)
        }
        return OpenFile(descriptor: fd, path: path)
    }

    /// Takes the lock on the directory itself, waiting as ``lockExclusive(at:)``
    /// does; see ``lockDirectory(at:operation:)``.
    func lockDirectory(at path: String) throws(FileIOError) -> OpenFile {
        try Self.lockDirectory(at: path, operation: LOCK_EX)
    }

    /// Takes a `flock` lock (`LOCK_EX` or `LOCK_SH`) on the directory at
    /// `path` itself, waiting up to `patience` while it is busy, and checks
    /// that the directory locked is still the one at `path` (device and
    /// inode): a directory removed or replaced while the lock was awaited
    /// fails with `ENOENT`.
    ///
    /// A lock on the directory survives the removal of any file in it (a
    /// `LOCK` file deleted by hand lets a second holder lock a new one).
    static func lockDirectory(
        at path: String, operation: Int32, patience: UInt64 = lockPatience
    ) throws(FileIOError) -> OpenFile {
        var fd: Int32
        repeat { fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw FileIOError(operation: .lock, path: path, errno: errno) }
        let code = flockPatiently(fd, operation, patience: patience)
        guard code == 0 else {
            _ = Glibc.close(fd)
            throw FileIOError(operation: .lock, path: path, errno: code)
        }
        var held = stat()
        var named = stat()
        guard fstat(fd, &held) == 0, stat(path, &named) == 0, held.st_dev == named.st_dev, held.st_ino == named.st_ino else {
            _ = Glibc.close(fd)
            throw FileIOError(operation: .lock, path: path, errno: ENOENT)
        }
        return OpenFile(descriptor: fd, path: path)
    }

    /// Takes a `flock` lock (`LOCK_EX` or `LOCK_SH`) on `fd`, trying again
    /// for up to `patience` nanoseconds while it is busy (see ``lockExclusive(at:)``).
    ///
    /// - Returns: 0, or the `errno` of the last try.
    static func flockPatiently(_ fd: Int32, _ operation: Int32, patience: UInt64 = lockPatience) -> Int32 {
        let deadline = DispatchTime.now().uptimeNanoseconds + patience
        while flock(fd, operation | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            guard code == EWOULDBLOCK && DispatchTime.now().uptimeNanoseconds < deadline else { return code }
            usleep(2_000)
        }
        return 0
    }

    /// How long a busy lock is waited for, in nanoseconds: far longer than a
    /// spawn takes from `fork` to `exec`, even on a loaded machine.
    static let lockPatience: UInt64 = 1_000_000_000

    private func retryingEINTR(
        _ operation: FileIOError.Operation, _ path: String, _ call: () -> Int32
    ) throws(FileIOError) -> Int32 {
        while true {
            let result = call()
            if result >= 0 { return result }
            if errno != EINTR { throw FileIOError(operation: operation, path: path, errno: errno) }
        }
    }
}
