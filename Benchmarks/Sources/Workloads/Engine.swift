import Foundation

/// Where a store lives and when its commits reach the disk.
///
/// | storage | Shoal | GRDB (SQLite) |
/// |---|---|---|
/// | `memory` | `inMemoryIdentifier` | `DatabaseQueue()` (`:memory:`) |
/// | `durable` | `fileURL`, `.durable` (fdatasync per commit) | file, WAL, `synchronous = FULL` |
/// | `relaxed` | `fileURL`, `.relaxed(maxDelay: 1 s)` | file, WAL, `synchronous = NORMAL` |
public enum Storage: String, Sendable, CaseIterable {
    case memory, durable, relaxed
}

/// One engine's implementation of the workloads of `shared/WORKLOADS.md`.
/// Shoal and GRDB implement it with the same data and the same semantics,
/// so that the benchmark executables and the side-by-side `compare` runner
/// measure exactly the same work.
public protocol Engine {
    static var name: String { get }

    /// W1: opens a fresh store at `path` (ignored for `.memory`), inserts
    /// every person and dog of `data` in one write transaction, closes the
    /// store and returns its bytes on disk (0 in memory).
    static func insertAll(_ data: Dataset, storage: Storage, path: String) throws -> Int64

    /// W2: a store at `path` seeded with `data` (seeding is not measured),
    /// ready for single-object write transactions.
    static func makeCommitter(_ data: Dataset, storage: Storage, path: String) throws -> any Committer

    /// W3: an in-memory store seeded with `data`.
    static func makeQueries(_ data: Dataset) throws -> any Queries

    /// W6 / W10: writes `data` to a fresh durable store at `path`, in one
    /// transaction, then closes it. With `compact`, Shoal compacts it into a
    /// snapshot before closing (SQLite checkpoints on close in any case).
    static func populate(_ data: Dataset, path: String, compact: Bool) throws

    /// W6: opens the store at `path` and runs one query (count of one breed);
    /// the store is closed after the clock stops.
    static func reopenAndCount(path: String, breed: String) throws -> Reopened

    /// W4 / W5 / W8: an in-memory store seeded with `data` (seeding is not
    /// measured), for observers delivering on one serial queue.
    static func makeObserved(_ data: Dataset) throws -> any ObservedStore

    /// W12: a durable store at `path` seeded with `data` (seeding is not
    /// measured), for writers on several threads and observers of several
    /// kinds.
    static func makeSustained(_ data: Dataset, path: String) throws -> any SustainedStore
}

extension Engine {
    /// W6 with a history: the data in one transaction, then `commits`
    /// single-dog transactions (W2's, under the relaxed policy, which writes
    /// what the durable one writes without waiting for each sync).
    public static func populate(_ data: Dataset, path: String, thenCommits commits: Int) throws {
        let committer = try makeCommitter(data, storage: .relaxed, path: path)
        for i in 0..<commits { try committer.commit(i &* 7919) }
        try committer.close()
    }
}

/// W6: one reopen's result and the time from starting to open to holding it.
/// Closing the store (for Shoal, freeing the objects) comes after, and is
/// timed by the caller as the whole call minus this.
public struct Reopened: Sendable {
    public let count: Int
    public let firstResultNs: UInt64

    public init(count: Int, since start: UInt64) {
        self.count = count
        firstResultNs = Measure.now() - start
    }
}

/// W2: single-object write transactions against one open store.
public protocol Committer: AnyObject {
    /// One write transaction setting the age of dog `i % count`.
    func commit(_ i: Int) throws
    func close() throws
}

/// W3: read-only queries against one open store.
public protocol Queries: AnyObject {
    /// Dogs with `age BETWEEN 3 AND 5` sorted by name, reading every name;
    /// returns the sum of the names' UTF-8 lengths.
    func rangeSorted() throws -> Int
    /// Looks every key up by primary key and reads the dog's name; returns
    /// the sum of the names' UTF-8 lengths.
    func lookup(_ keys: [Int]) throws -> Int
    /// Dogs with `id BETWEEN low AND high`, reading every name; returns the
    /// sum of the names' UTF-8 lengths.
    func pkRange(_ low: Int, _ high: Int) throws -> Int
    /// The number of dogs of one breed.
    func countBreed(_ breed: String) throws -> Int
}

/// Files and sizes.
public enum Disk {
    /// A fresh, empty scratch directory path under the temporary directory
    /// (or `$SHOAL_BENCH_DIR`); nothing exists at the returned path.
    public static func scratch(_ label: String) -> String {
        let base = ProcessInfo.processInfo.environment["SHOAL_BENCH_DIR"] ?? NSTemporaryDirectory()
        let dir = (base as NSString).appendingPathComponent("shoal-bench-\(getpid())")
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = (dir as NSString).appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))")
        remove(path)
        return path
    }

    /// Removes a file or directory and SQLite's side files.
    public static func remove(_ path: String) {
        for p in [path, path + "-wal", path + "-shm", path + "-journal"] {
            try? FileManager.default.removeItem(atPath: p)
        }
    }

    /// Bytes on disk of a file or of every file in a directory, plus
    /// SQLite's `-wal` and `-shm` files beside it.
    public static func bytes(_ path: String) -> Int64 {
        var total: Int64 = 0
        for p in [path, path + "-wal", path + "-shm"] {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: p, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                let files = FileManager.default.enumerator(atPath: p)?.allObjects as? [String] ?? []
                for f in files { total += size((p as NSString).appendingPathComponent(f)) }
            } else {
                total += size(p)
            }
        }
        return total
    }

    private static func size(_ path: String) -> Int64 {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
    }
}
