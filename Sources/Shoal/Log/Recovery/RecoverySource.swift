internal import Glibc

/// A database directory as the recovery tool reads it: every file listed,
/// every snapshot and segment read and verified, every segment scanned to its
/// end (records after damage included). Nothing is modified, and nothing
/// depends on the application's model types: the schema comes from the files.
///
/// Reading order and rules follow the open path (PERSISTENCE.md §8.5) so that
/// the tool and the library agree on what "healthy" means; the difference is
/// that a scan does not stop at the first problem.
struct RecoverySource: Sendable {
    /// One file of the directory, as `check` and `stats` list it.
    struct FileEntry: Sendable {
        enum Kind: String, Sendable { case log, snapshot, lock, quarantine, temporary, other }
        let name: String
        let kind: Kind
        let byteCount: Int64
    }

    /// What a segment scan found, in file order.
    enum Event: Sendable {
        case record(LogRecord, offset: Int64, byteCount: Int64)
        case damage(LogDamage)
    }

    /// One `log-<base>.wal` file.
    struct Segment: Sendable {
        let name: String
        let base: UInt64
        let byteCount: Int64
        /// `nil` when the header does not verify; ``headerError`` says why.
        let header: FileHeader?
        let headerError: ShoalError?
        let events: [Event]
    }

    /// One `snapshot-<V>.snap` file.
    struct SnapshotEntry: Sendable {
        let name: String
        let version: UInt64
        let byteCount: Int64
        let snapshot: Snapshot?
        let error: ShoalError?
    }

    /// The path as given.
    let path: String
    /// The directory's last path component: what reports name, so they do not depend on where it lies.
    let name: String
    let files: [FileEntry]
    /// Snapshot files, newest first.
    let snapshots: [SnapshotEntry]
    /// Segments, by ascending base.
    let segments: [Segment]

    /// The newest snapshot that verifies and decodes.
    var baseSnapshot: SnapshotEntry? { snapshots.first { $0.snapshot != nil } }

    /// Bytes of all log and snapshot files.
    var databaseByteCount: Int64 {
        files.filter { $0.kind == .log || $0.kind == .snapshot }.reduce(0) { $0 + $1.byteCount }
    }

    /// Reads the database directory at `path`.
    ///
    /// - Parameters:
    ///   - ignoringLock: read even while another process holds the database open.
    ///   - progress: called after each file with the bytes read so far and the total.
    /// - Throws: `ShoalError.fileAccess` (missing or unreadable path, not a
    ///   directory), `.notAShoalFile` (a directory or file that is not a Shoal
    ///   database), `.unsupportedFormat` (a file of a newer format version),
    ///   `.alreadyOpen` (another process holds the database's lock, unless `ignoringLock`).
    static func load(
        path: String, ignoringLock: Bool = false, io: any FileIO = PosixFileIO(),
        progress: ((_ bytesRead: Int64, _ bytesTotal: Int64) -> Void)? = nil
    ) throws(ShoalError) -> RecoverySource {
        try checkIsDatabaseDirectory(path)
        let names: [String]
        do { names = try io.listDirectory(at: path).sorted() } catch { throw .logFileAccess(error, "list") }
        let listing = try LogDirectory.list(at: path, io: io)
        guard !listing.segmentBases.isEmpty || !listing.snapshotVersions.isEmpty else {
            throw ShoalError(
                .notAShoalFile,
                "\(path) is not a Shoal database: the directory holds no log segment (log-<version>.wal) and no snapshot (snapshot-<version>.snap)",
                context: ["path": path])
        }
        let locks = try lockShared(directory: path, ignoringLock: ignoringLock)
        defer { for fd in locks { _ = Glibc.close(fd) } }

        var files: [FileEntry] = []
        for name in names {
            let kind: FileEntry.Kind =
                LogFormat.baseVersion(ofSegmentFileName: name) != nil ? .log
                : LogFormat.version(ofSnapshotFileName: name) != nil ? .snapshot
                : name == "LOCK" ? .lock
                : name.hasSuffix(".corrupt") ? .quarantine
                : name.hasSuffix(LogFormat.temporarySuffix) ? .temporary : .other
            files.append(FileEntry(name: name, kind: kind, byteCount: fileSize(joinPath(path, name))))
        }
        let total = files.filter { $0.kind == .log || $0.kind == .snapshot }.reduce(Int64(0)) { $0 + $1.byteCount }
        var done: Int64 = 0

        var snapshots: [SnapshotEntry] = []
        for version in listing.snapshotVersions.reversed() {
            let name = LogFormat.snapshotFileName(version: version)
            let filePath = joinPath(path, name)
            var snapshot: Snapshot?
            var failure: ShoalError?
            do throws(ShoalError) {
                let file = try SnapshotFile.read(at: filePath, io: io)
                do { snapshot = try file.decodedSnapshot() } catch {
                    throw .corruptSnapshot(
                        path: filePath, offset: Int64(error.offset), reason: "contents do not decode: \(error)")
                }
            } catch {
                if error.code == .unsupportedFormat || error.code == .fileAccess { throw error }
                failure = error
            }
            let size = fileSize(filePath)
            snapshots.append(
                SnapshotEntry(name: name, version: version, byteCount: size, snapshot: snapshot, error: failure))
            done += size
            progress?(done, total)
        }

        var segments: [Segment] = []
        for base in listing.segmentBases {
            let name = LogFormat.segmentFileName(baseVersion: base)
            let segmentPath = joinPath(path, name)
            let contents: [UInt8]
            do { contents = try io.readWholeFile(at: segmentPath) } catch { throw .logFileAccess(error, "read") }
            let segment: Segment
            do {
                let reader = try LogReader(path: segmentPath, contents: contents)
                var collector = EventCollector()
                _ = reader.scan(into: &collector)
                segment = Segment(
                    name: name, base: base, byteCount: Int64(contents.count), header: reader.header, headerError: nil,
                    events: collector.events)
            } catch {
                if error.code == .unsupportedFormat { throw error }
                segment = Segment(
                    name: name, base: base, byteCount: Int64(contents.count), header: nil, headerError: error,
                    events: [])
            }
            segments.append(segment)
            done += Int64(contents.count)
            progress?(done, total)
        }
        if snapshots.allSatisfy({ $0.snapshot == nil }), !segments.isEmpty,
            segments.allSatisfy({ $0.headerError?.code == .notAShoalFile })
        {
            // No file starts like a Shoal file: say so, rather than report
            // header fields of a database that is not there.
            let prefix = joinPath(path, segments[0].name) + ": "
            let message = segments[0].headerError?.message ?? ""
            let reason = message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message
            throw ShoalError(
                .notAShoalFile,
                "\(path) is not a Shoal database: \(segments[0].name) is \(reason)",
                context: ["path": path, "file": segments[0].name])
        }
        let name = fileName(of: path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path)
        return RecoverySource(path: path, name: name, files: files, snapshots: snapshots, segments: segments)
    }

    private struct EventCollector: LogScanReporter {
        var events: [Event] = []
        mutating func record(_ record: LogRecord, offset: Int64, byteCount: Int64) {
            events.append(.record(record, offset: offset, byteCount: byteCount))
        }
        mutating func damage(_ damage: LogDamage) { events.append(.damage(damage)) }
    }

    /// Fails with a clear message unless `path` is a directory that can be listed.
    static func checkIsDatabaseDirectory(_ path: String) throws(ShoalError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            let what = code == ENOENT ? "no such file or directory" : String(cString: strerror(code))
            throw ShoalError(.fileAccess, "\(path): \(what)", context: ["path": path, "errno": String(code)])
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            let magic = readPrefix(path, count: 8)
            let isShoalFile = magic == LogFormat.logMagic || magic == LogFormat.snapshotMagic
            throw ShoalError(
                .notAShoalFile,
                isShoalFile
                    ? "\(path) is a single Shoal file; pass the database directory that holds it (\(parentDirectory(of: path)))"
                    : "\(path) is not a Shoal database: it is a file, and it does not start with a Shoal log or snapshot header",
                context: ["path": path])
        }
    }

    /// Takes shared locks on the two a live database holds exclusively
    /// (``DatabaseLock``): the directory itself, then `LOCK` if the file
    /// exists; returns the descriptors to close. A busy lock is waited for
    /// briefly, as ``PosixFileIO/lockExclusive(at:)`` does. The directory's
    /// lock keeps a process that holds the database out even when its `LOCK`
    /// file was deleted.
    private static func lockShared(directory: String, ignoringLock: Bool) throws(ShoalError) -> [Int32] {
        // (Ignoring the lock, one try tells all there is to know.)
        let patience = ignoringLock ? 0 : PosixFileIO.lockPatience
        func busy(_ held: String) -> ShoalError {
            ShoalError(
                .alreadyOpen,
                "\(directory) is open in a running process, which holds its lock (\(held)) and may be writing to it",
                context: ["path": directory])
        }
        var fds: [Int32] = []
        do throws(FileIOError) {
            fds.append(try PosixFileIO.lockDirectory(at: directory, operation: LOCK_SH, patience: patience).descriptor)
        } catch {
            if !ignoringLock { throw error.errno == EWOULDBLOCK ? busy(directory) : .databaseFiles(error, "lock", database: directory) }
        }
        let lockPath = joinPath(directory, LogFormat.lockFileName)
        let fd = Glibc.open(lockPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return fds }
        if PosixFileIO.flockPatiently(fd, LOCK_SH, patience: patience) != 0 {
            _ = Glibc.close(fd)
            if ignoringLock { return fds }
            for held in fds { _ = Glibc.close(held) }
            throw busy(lockPath)
        }
        return fds + [fd]
    }

    static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    private static func readPrefix(_ path: String, count: Int) -> [UInt8] {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { _ = Glibc.close(fd) }
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, count) }
        return Array(bytes.prefix(max(n, 0)))
    }
}
