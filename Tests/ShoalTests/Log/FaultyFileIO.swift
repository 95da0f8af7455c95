import Glibc

@testable import Shoal

/// An in-memory ``FileIO`` that injects faults and produces crash images, after
/// SQLite's `test_vfs`/`test6.c`, LevelDB's `memenv` + `fault_injection_test` and
/// the ALICE abstract persistence model (PERSISTENCE.md §9).
///
/// - Every file keeps its durable bytes plus the writes and truncations made
///   since its last `syncData`, in order.
/// - Directory entries (create, rename, unlink, a new directory) stay pending
///   until `syncDirectory` of their directory; a crash image keeps no name
///   under a directory whose creation is not durable.
/// - ``inject(_:onCall:errno:persistent:shortWriteBytes:)`` fails the k-th call
///   of an operation, once or from then on; a short write keeps its prefix.
/// - With `captureSyncPoints`, the whole state is recorded before every
///   `syncData`, `syncDirectory` and `rename` (CrashMonkey's persistence points),
///   tagged with the current ``mark(_:)``; ``crashImage(of:fates:keepDirectoryChanges:)``
///   turns a state into what a reboot could find.
final class FaultyFileIO: FileIO {
    /// What becomes of one unsynced write in a crash image.
    enum Fate: Equatable, Sendable {
        case persisted
        case dropped
        /// The file grew but the region reads as zeros.
        case zeroed
        /// The file grew but the region holds garbage.
        case garbage
        /// Only the first `keptBytes` bytes reached the disk.
        case torn(keptBytes: Int)
    }

    struct Fault: Sendable {
        var operation: FileIOError.Operation
        var onCall: Int
        var errno: Int32
        var persistent: Bool
        var shortWriteBytes: Int?
        /// Only calls on paths with this suffix fail (and count towards `onCall`).
        var pathSuffix: String?
    }

    struct Pending: Sendable {
        enum Kind: Sendable {
            case write(offset: Int, bytes: [UInt8])
            case truncate(size: Int)
        }

        let sequence: Int
        let kind: Kind
    }

    struct Inode: Sendable {
        var current: [UInt8] = []
        var durable: [UInt8] = []
        var pending: [Pending] = []
    }

    struct Handle: Sendable {
        let inode: Int
        let writable: Bool
        let lockPath: String?
    }

    /// Everything the file system holds; a value, so a capture is a copy.
    struct Model: Sendable {
        var inodes: [Int: Inode] = [:]
        var names: [String: Int] = [:]
        var durableNames: [String: Int] = [:]
        /// Directories made by ``createDirectory(at:)``, and those of them whose
        /// entry in their parent is durable. Other directories are taken to exist.
        var directories: Set<String> = []
        var durableDirectories: Set<String> = []
        var handles: [Int32: Handle] = [:]
        var nextInode = 1
        var nextDescriptor: Int32 = 3
        var nextSequence = 0
        var calls: [FileIOError.Operation: Int] = [:]
        /// Calls by operation and path (failed calls included).
        var callsByPath: [FileIOError.Operation: [String: Int]] = [:]

        func callCount(_ operation: FileIOError.Operation, onPathsEndingWith suffix: String) -> Int {
            (callsByPath[operation] ?? [:]).reduce(0) { $0 + ($1.key.hasSuffix(suffix) ? $1.value : 0) }
        }
        var faults: [Fault] = []
        var marker = 0
        var captures: [Capture] = []
        var captureSyncPoints = false
        /// Bytes the failing write in progress keeps (a short write).
        var shortWriteScratch: Int?

        /// Unsynced writes and truncations over all files, oldest first.
        var pendingOperations: [Pending] {
            inodes.values.flatMap(\.pending).sorted { $0.sequence < $1.sequence }
        }
    }

    /// The state just before a persistence point.
    struct Capture: Sendable {
        let label: String
        let marker: Int
        let model: Model
    }

    let model: Locked<Model>
    /// Called at the start of every `syncData`, outside the lock (to stall a sync).
    let onSync: Locked<(@Sendable () -> Void)?> = Locked(nil)

    init(captureSyncPoints: Bool = false) {
        var model = Model()
        model.captureSyncPoints = captureSyncPoints
        self.model = Locked(model)
    }

    init(model: Model) { self.model = Locked(model) }

    // MARK: Test controls

    /// Fails the `onCall`-th call (1-based) of `operation`, and every later one if `persistent`.
    /// A write fault with `shortWriteBytes` first writes that many bytes.
    func inject(
        _ operation: FileIOError.Operation, onCall: Int, errno: Int32 = EIO, persistent: Bool = false,
        shortWriteBytes: Int? = nil
    ) {
        model.withLock {
            $0.faults.append(
                Fault(
                    operation: operation, onCall: onCall, errno: errno, persistent: persistent,
                    shortWriteBytes: shortWriteBytes))
        }
    }

    /// Fails every later call of `operation` on a path ending with `suffix`
    /// (a disk too full for snapshots: `inject(.write, onPathsEndingWith: ".snap.tmp", errno: ENOSPC)`).
    func inject(_ operation: FileIOError.Operation, onPathsEndingWith suffix: String, errno: Int32) {
        model.withLock {
            $0.faults.append(
                Fault(operation: operation, onCall: 1, errno: errno, persistent: true, shortWriteBytes: nil, pathSuffix: suffix))
        }
    }

    /// How many times `operation` has been called on a path ending with `suffix`, failed calls included.
    func callCount(_ operation: FileIOError.Operation, onPathsEndingWith suffix: String) -> Int {
        model.withLock { $0.callCount(operation, onPathsEndingWith: suffix) }
    }

    /// Removes every injected fault (space returns, the disk recovers).
    func clearFaults() { model.withLock { $0.faults = [] } }

    /// How many times `operation` has been called, failed calls included.
    func callCount(_ operation: FileIOError.Operation) -> Int { model.withLock { $0.calls[operation] ?? 0 } }

    /// Tags later captures, typically with the number of acknowledged commits.
    func mark(_ marker: Int) { model.withLock { $0.marker = marker } }

    /// Records the current state as a capture.
    func capture(_ label: String) {
        model.withLock { model in
            var state = model
            state.captures = []
            model.captures.append(Capture(label: label, marker: model.marker, model: state))
        }
    }

    var captures: [Capture] { model.withLock { $0.captures } }

    /// The bytes a reader sees now, or `nil` if no such name exists.
    func contents(of path: String) -> [UInt8]? {
        model.withLock { model in model.names[path].map { model.inodes[$0]!.current } }
    }

    /// Replaces a file's contents, durably (to plant damage).
    func setContents(of path: String, _ bytes: [UInt8]) {
        model.withLock { model in
            let inode = model.names[path] ?? model.newInode()
            model.names[path] = inode
            model.durableNames[path] = inode
            model.inodes[inode] = Inode(current: bytes, durable: bytes, pending: [])
        }
    }

    /// Every name, sorted.
    var allPaths: [String] { model.withLock { $0.names.keys.sorted() } }

    // MARK: FileIO

    func createExclusive(at path: String) throws(FileIOError) -> OpenFile {
        try model.withLock { model throws(FileIOError) in
            try model.begin(.create, path)
            guard model.names[path] == nil else { throw FileIOError(operation: .create, path: path, errno: EEXIST) }
            let inode = model.newInode()
            model.names[path] = inode
            return model.newHandle(path, Handle(inode: inode, writable: true, lockPath: nil))
        }
    }

    func open(at path: String, mode: OpenFile.Mode) throws(FileIOError) -> OpenFile {
        try model.withLock { model throws(FileIOError) in
            try model.begin(.open, path)
            guard let inode = model.names[path] else { throw FileIOError(operation: .open, path: path, errno: ENOENT) }
            return model.newHandle(path, Handle(inode: inode, writable: mode == .readWrite, lockPath: nil))
        }
    }

    func close(_ file: OpenFile) {
        model.withLock { _ = $0.handles.removeValue(forKey: file.descriptor) }
    }

    func read(_ file: OpenFile, count: Int, at offset: Int64) throws(FileIOError) -> [UInt8] {
        try model.withLock { model throws(FileIOError) in
            try model.begin(.read, file.path)
            let bytes = model.inodes[try model.handle(file, .read).inode]!.current
            let start = min(Int(offset), bytes.count)
            return Array(bytes[start..<min(start + count, bytes.count)])
        }
    }

    func write(_ file: OpenFile, _ bytes: [UInt8], at offset: Int64) throws(FileIOError) {
        try model.withLock { model throws(FileIOError) in
            let handle = try model.handle(file, .write)
            guard handle.writable else { throw FileIOError(operation: .write, path: file.path, errno: EBADF) }
            var written = bytes.count
            var failure: FileIOError?
            do throws(FileIOError) { try model.begin(.write, file.path) } catch {
                written = min(model.shortWriteScratch ?? 0, bytes.count)
                failure = FileIOError(operation: .write, path: file.path, errno: error.errno, bytesTransferred: written)
            }
            if written > 0 {
                model.apply(.write(offset: Int(offset), bytes: Array(bytes.prefix(written))), to: handle.inode)
            }
            if let failure { throw failure }
        }
    }

    func syncData(_ file: OpenFile) throws(FileIOError) {
        if let hook = onSync.withLock({ $0 }) { hook() }
        try model.withLock { model throws(FileIOError) in
            model.captureIfEnabled("syncData \(file.path)")
            let inode = try model.handle(file, .sync).inode
            try model.begin(.sync, file.path)
            // A failed sync leaves the writes pending: they may be lost (fsyncgate).
            model.inodes[inode]!.durable = model.inodes[inode]!.current
            model.inodes[inode]!.pending = []
        }
    }

    func truncate(_ file: OpenFile, to size: Int64) throws(FileIOError) {
        try model.withLock { model throws(FileIOError) in
            let handle = try model.handle(file, .truncate)
            try model.begin(.truncate, file.path)
            model.apply(.truncate(size: Int(size)), to: handle.inode)
        }
    }

    func size(of file: OpenFile) throws(FileIOError) -> Int64 {
        try model.withLock { model throws(FileIOError) in
            try model.begin(.size, file.path)
            return Int64(model.inodes[try model.handle(file, .size).inode]!.current.count)
        }
    }

    func rename(_ source: String, to destination: String) throws(FileIOError) {
        try model.withLock { model throws(FileIOError) in
            model.captureIfEnabled("rename \(source)")
            try model.begin(.rename, source)
            guard let inode = model.names.removeValue(forKey: source) else {
                throw FileIOError(operation: .rename, path: source, errno: ENOENT)
            }
            model.names[destination] = inode
        }
    }

    func syncDirectory(at path: String) throws(FileIOError) {
        try model.withLock { model throws(FileIOError) in
            model.captureIfEnabled("syncDirectory \(path)")
            try model.begin(.syncDirectory, path)
            for name in model.durableNames.keys where parentDirectory(of: name) == path {
                model.durableNames[name] = nil
            }
            for (name, inode) in model.names where parentDirectory(of: name) == path {
                model.durableNames[name] = inode
            }
            for directory in model.directories where parentDirectory(of: directory) == path {
                model.durableDirectories.insert(directory)
            }
        }
    }

    /// Creates the missing directories of `path`; as the contract says, each is
    /// durable when the call returns (the POSIX implementation syncs its parent).
    func createDirectory(at path: String) throws(FileIOError) {
        try model.withLock { model throws(FileIOError) in
            model.captureIfEnabled("createDirectory \(path)")
            try model.begin(.createDirectory, path)
            if model.names[path] != nil { throw FileIOError(operation: .createDirectory, path: path, errno: EEXIST) }
            var current = path
            while current != "/" && current != "." && !model.directories.contains(current) {
                model.directories.insert(current)
                model.durableDirectories.insert(current)
                current = parentDirectory(of: current)
            }
        }
    }

    func removeDirectory(at path: String) throws(FileIOError) {
        try model.withLock { model throws(FileIOError) in
            try model.begin(.removeDirectory, path)
            guard !model.names.keys.contains(where: { parentDirectory(of: $0) == path }),
                !model.directories.contains(where: { parentDirectory(of: $0) == path })
            else { throw FileIOError(operation: .removeDirectory, path: path, errno: ENOTEMPTY) }
            model.directories.remove(path)
            model.durableDirectories.remove(path)
        }
    }

    func unlink(at path: String) throws(FileIOError) {
        try model.withLock { model throws(FileIOError) in
            try model.begin(.unlink, path)
            guard model.names.removeValue(forKey: path) != nil else {
                throw FileIOError(operation: .unlink, path: path, errno: ENOENT)
            }
        }
    }

    func listDirectory(at path: String) throws(FileIOError) -> [String] {
        try model.withLock { model throws(FileIOError) in
            try model.begin(.listDirectory, path)
            return model.names.keys.filter { parentDirectory(of: $0) == path }.map { fileName(of: $0) }
        }
    }

    func lockExclusive(at path: String) throws(FileIOError) -> OpenFile {
        try model.withLock { model throws(FileIOError) in
            try model.begin(.lock, path)
            guard !model.handles.values.contains(where: { $0.lockPath == path }) else {
                throw FileIOError(operation: .lock, path: path, errno: EWOULDBLOCK)
            }
            let inode = model.names[path] ?? model.newInode()
            model.names[path] = inode
            return model.newHandle(path, Handle(inode: inode, writable: true, lockPath: path))
        }
    }

    /// Locks the directory's name (the model's directories have no inode of
    /// their own); a fault injected on `.lock` counts this call too.
    func lockDirectory(at path: String) throws(FileIOError) -> OpenFile {
        try model.withLock { model throws(FileIOError) in
            try model.begin(.lock, path)
            guard !model.handles.values.contains(where: { $0.lockPath == path }) else {
                throw FileIOError(operation: .lock, path: path, errno: EWOULDBLOCK)
            }
            return model.newHandle(path, Handle(inode: Self.directoryInode, writable: false, lockPath: path))
        }
    }

    /// The inode of a handle on a directory, which no file has.
    static let directoryInode = 0
}

extension FaultyFileIO.Model {
    fileprivate mutating func begin(_ operation: FileIOError.Operation, _ path: String) throws(FileIOError) {
        let call = (calls[operation] ?? 0) + 1
        calls[operation] = call
        callsByPath[operation, default: [:]][path, default: 0] += 1
        shortWriteScratch = nil
        for fault in faults where fault.operation == operation {
            if let suffix = fault.pathSuffix {
                guard path.hasSuffix(suffix) else { continue }
                let matching = callCount(operation, onPathsEndingWith: suffix)
                guard matching == fault.onCall || (fault.persistent && matching > fault.onCall) else { continue }
                throw FileIOError(operation: operation, path: path, errno: fault.errno)
            }
            if call == fault.onCall || (fault.persistent && call > fault.onCall) {
                shortWriteScratch = call == fault.onCall ? fault.shortWriteBytes : nil
                throw FileIOError(operation: operation, path: path, errno: fault.errno)
            }
        }
    }

    fileprivate mutating func newInode() -> Int {
        defer { nextInode += 1 }
        inodes[nextInode] = FaultyFileIO.Inode()
        return nextInode
    }

    fileprivate mutating func newHandle(_ path: String, _ handle: FaultyFileIO.Handle) -> OpenFile {
        defer { nextDescriptor += 1 }
        handles[nextDescriptor] = handle
        return OpenFile(descriptor: nextDescriptor, path: path)
    }

    fileprivate func handle(
        _ file: OpenFile, _ operation: FileIOError.Operation
    ) throws(FileIOError) -> FaultyFileIO.Handle {
        guard let handle = handles[file.descriptor] else {
            throw FileIOError(operation: operation, path: file.path, errno: EBADF)
        }
        return handle
    }

    fileprivate mutating func apply(_ kind: FaultyFileIO.Pending.Kind, to inode: Int) {
        var bytes = inodes[inode]!.current
        switch kind {
        case .write(let offset, let data):
            if bytes.count < offset + data.count {
                bytes += [UInt8](repeating: 0, count: offset + data.count - bytes.count)
            }
            bytes.replaceSubrange(offset..<(offset + data.count), with: data)
        case .truncate(let size):
            bytes =
                size <= bytes.count
                ? Array(bytes.prefix(size)) : bytes + [UInt8](repeating: 0, count: size - bytes.count)
        }
        inodes[inode]!.current = bytes
        inodes[inode]!.pending.append(FaultyFileIO.Pending(sequence: nextSequence, kind: kind))
        nextSequence += 1
    }

    fileprivate mutating func captureIfEnabled(_ label: String) {
        guard captureSyncPoints else { return }
        var state = self
        state.captures = []
        captures.append(FaultyFileIO.Capture(label: label, marker: marker, model: state))
    }
}
