public import Foundation

extension Realm {
    /// How a ``Realm`` is opened: where it lives, which classes it holds,
    /// whether it may be written.
    ///
    /// ```swift
    /// let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "demo"))
    /// try realm.write { realm.add(dog) }   // Dog (and what it links to) joins the schema
    /// ```
    ///
    /// - Note: Differs from Realm: Linux has no Objective-C runtime to list
    ///   every `Object` subclass, so without ``objectTypes`` a class joins
    ///   the schema when a Realm first uses it (with the classes its
    ///   properties name), as a schema change recorded in the log; the
    ///   schema holds the classes stored or used so far. See
    ///   <doc:PortingFromRealm>.
    public struct Configuration: Sendable {
        private var storedFileURL: URL?
        private var storedInMemoryIdentifier: String?

        /// The database's location on disk. Setting it clears ``inMemoryIdentifier``.
        public var fileURL: URL? {
            get { storedFileURL }
            set {
                storedFileURL = newValue
                if newValue != nil { storedInMemoryIdentifier = nil }
            }
        }

        /// A name for a database held only in memory, shared by every Realm
        /// opened with it in this process until the last one is released.
        /// Setting it clears ``fileURL``.
        public var inMemoryIdentifier: String? {
            get { storedInMemoryIdentifier }
            set {
                storedInMemoryIdentifier = newValue
                if newValue != nil { storedFileURL = nil }
            }
        }

        /// Whether the Realm refuses writes.
        public var readOnly: Bool
        /// The version of the declared schema, compared with the stored one on open.
        public var schemaVersion: UInt64
        /// The object classes the Realm holds: exactly these when set, and
        /// using another class stops naming it. When `nil`, a class joins
        /// the schema the first time it is used, with the classes its
        /// properties name (a stored class is matched by name; properties
        /// it gained are added to its stored objects).
        public var objectTypes: [Object.Type]?
        /// Whether to delete the stored data when the schema needs a migration.
        public var deleteRealmIfMigrationNeeded: Bool

        /// Run on open when the stored `schemaVersion` is lower than ``schemaVersion``.
        public var migrationBlock: MigrationBlock?

        /// When a commit to a file-backed Realm reaches stable storage.
        public var durability: Durability = .durable

        /// How many forward-link hops beyond an element unfiltered collection
        /// observation follows: a change that far away reports the element
        /// as modified. Realm fixes it at 3; key-path filters follow their
        /// paths exactly whatever this is.
        public var collectionNotificationDepth: Int = 3

        /// Asked on open with the bytes on disk and the bytes of live data
        /// (the last snapshot); returning `true` compacts before the open returns.
        public var shouldCompactOnLaunch: (@Sendable (_ totalBytes: Int, _ usedBytes: Int) -> Bool)?

        /// Compact automatically when the log written since the last snapshot
        /// exceeds this multiple of the snapshot's size (and
        /// ``compactionMinimumLogBytes``).
        ///
        /// The commit that finds the log past it returns at once; the
        /// compaction runs on a background thread, holding the write lock
        /// (other writers wait for it). After a failure it waits until the
        /// log has grown by this factor again (at least doubled), and
        /// reports the failure in ``Realm/lastCompactionError``.
        public var compactionLogGrowthFactor: Double = 2

        /// The log never compacts automatically below this size.
        public var compactionMinimumLogBytes: Int64 = 64 << 20

        /// Called during a long replay on open, from the opening thread.
        public var replayProgress: (@Sendable (ReplayProgress) -> Void)?

        /// A database to copy to ``fileURL`` when nothing is there yet, on the
        /// first open (a database bundled with the application, say).
        public var seedFilePath: URL?

        /// Creates a configuration, with Realm's parameters in Realm's order.
        ///
        /// ```swift
        /// let config = Realm.Configuration(
        ///     fileURL: dir.appendingPathComponent("app.realm"), schemaVersion: 2,
        ///     migrationBlock: { migration, oldVersion in … },
        ///     objectTypes: [Person.self, Dog.self])
        /// ```
        /// - Parameters:
        ///   - fileURL: where the database lives; ignored when `inMemoryIdentifier` is set.
        ///   - inMemoryIdentifier: a name for an in-memory database.
        ///   - readOnly: whether writes are refused.
        ///   - schemaVersion: the declared schema's version.
        ///   - migrationBlock: run on open when the stored schema version is lower.
        ///   - deleteRealmIfMigrationNeeded: whether to discard data on a schema change.
        ///   - shouldCompactOnLaunch: asked on open with the total and used bytes; `true` compacts.
        ///   - objectTypes: the classes the Realm holds.
        ///   - seedFilePath: a database copied to `fileURL` when nothing is there yet.
        ///
        /// - Note: Differs from Realm: there is no `encryptionKey` (Shoal does not
        ///   encrypt) and no `syncConfiguration` (Shoal does not sync).
        public init(
            fileURL: URL? = Configuration.defaultFileURL, inMemoryIdentifier: String? = nil, readOnly: Bool = false,
            schemaVersion: UInt64 = 0, migrationBlock: MigrationBlock? = nil, deleteRealmIfMigrationNeeded: Bool = false,
            shouldCompactOnLaunch: (@Sendable (_ totalBytes: Int, _ usedBytes: Int) -> Bool)? = nil,
            objectTypes: [Object.Type]? = nil, seedFilePath: URL? = nil
        ) {
            self.storedFileURL = inMemoryIdentifier == nil ? fileURL : nil
            self.storedInMemoryIdentifier = inMemoryIdentifier
            self.readOnly = readOnly
            self.schemaVersion = schemaVersion
            self.migrationBlock = migrationBlock
            self.deleteRealmIfMigrationNeeded = deleteRealmIfMigrationNeeded
            self.shouldCompactOnLaunch = shouldCompactOnLaunch
            self.objectTypes = objectTypes
            self.seedFilePath = seedFilePath
        }

        /// Copies ``seedFilePath`` to ``fileURL`` when set and nothing is at `fileURL` yet.
        ///
        /// - Throws: ``ShoalError`` `fileNotFound` when the seed does not exist,
        ///   `fileAccess` when it cannot be copied.
        func copySeedIfNeeded() throws(ShoalError) {
            guard inMemoryIdentifier == nil, let seed = seedFilePath else { return }
            let destination = (fileURL ?? Self.defaultFileURL).standardizedFileURL
            guard !FileManager.default.fileExists(atPath: destination.path) else { return }
            guard FileManager.default.fileExists(atPath: seed.path) else {
                throw ShoalError(.fileNotFound, "The seed database '\(seed.path)' does not exist.", context: ["path": seed.path])
            }
            do { try FileManager.default.copyItem(at: seed, to: destination) } catch {
                throw ShoalError(.fileAccess, "Cannot copy the seed database '\(seed.path)' to '\(destination.path)': \(error.localizedDescription)",
                    context: ["path": destination.path])
            }
            // A lock copied from a seed that was open is not this database's.
            try? FileManager.default.removeItem(at: destination.appendingPathComponent("LOCK"))
        }

        /// `default.realm` in the current directory.
        public static var defaultFileURL: URL {
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("default.realm")
        }

        private static let defaultStorage = Locked(Configuration())

        /// The configuration `Realm()` uses.
        public static var defaultConfiguration: Configuration {
            get { defaultStorage.withLock { $0 } }
            set { defaultStorage.withLock { $0 = newValue } }
        }

        /// The key under which Realms with this configuration share one store:
        /// for a file, its ``databasePath``, so that paths through a symbolic
        /// link or `..` to one database name one store.
        var storeIdentifier: String {
            if let id = inMemoryIdentifier { return "memory:\(id)" }
            return "file:" + databasePath
        }

        /// The path of the database directory with symbolic links, `.` and
        /// `..` resolved (`realpath`): of the directory when it exists,
        /// otherwise of its parent, followed by its name; the standardized
        /// path when neither resolves.
        var databasePath: String {
            let path = (fileURL ?? Self.defaultFileURL).path
            if let real = Self.realPath(path) { return real }
            let name = (path as NSString).lastPathComponent
            if !name.isEmpty, name != ".", name != "..", let parent = Self.realPath((path as NSString).deletingLastPathComponent) {
                return (parent as NSString).appendingPathComponent(name)
            }
            return URL(fileURLWithPath: path).standardizedFileURL.path
        }

        private static func realPath(_ path: String) -> String? {
            guard let resolved = realpath(path, nil) else { return nil }
            defer { free(resolved) }
            return String(cString: resolved)
        }
    }

    /// When a commit to a file-backed Realm reaches stable storage.
    ///
    /// - `durable`: `write` returns only after the record is on disk
    ///   (`fdatasync`); nothing acknowledged is lost. Gives up nothing.
    /// - `relaxed(maxDelay:)`: `write` returns after the record is handed to
    ///   the operating system; a background sync runs every `maxDelay`. A
    ///   process crash loses nothing; a power loss may lose the last
    ///   `maxDelay` of commits, never corrupts, never leaves a hole. Gives up
    ///   the D of ACID for that window.
    /// - `none`: the operating system decides when to write back, and the log
    ///   is synced when the last Realm closes. For tests and bulk loads.
    public enum Durability: Sendable, Equatable {
        /// `write` returns after the record is on disk: nothing acknowledged is
        /// lost. The default.
        case durable
        /// `write` returns after the record is handed to the operating system,
        /// synced in the background every `maxDelay`: a power loss may lose the
        /// last `maxDelay` of commits.
        case relaxed(maxDelay: Duration = .seconds(1))
        /// The operating system decides when to write back; the log is synced
        /// when the last Realm closes. For tests and bulk loads.
        case none

        var logDurability: LogWriter.Durability {
            switch self {
            case .durable: .durable
            case .relaxed(let maxDelay): .relaxed(maxDelay: maxDelay)
            case .none: .none
            }
        }
    }

    /// How far a replay on open has got.
    public struct ReplayProgress: Sendable {
        /// Bytes of log read so far.
        public var bytesRead: Int64
        /// Bytes of log to read in all.
        public var bytesTotal: Int64
        /// Transactions replayed so far.
        public var transactions: Int
    }

    /// What `add` and `create` do when an object with the same primary key exists.
    public enum UpdatePolicy: Int, Sendable {
        /// Stop with a duplicate primary key error.
        case error = 1
        /// Update the properties whose values differ.
        case modified = 3
        /// Update every property given.
        /// - Note: Differs from Realm: writing a property's current value is
        ///   not a change in Shoal, so `.all` and `.modified` record the same changes.
        case all = 2
    }
}
