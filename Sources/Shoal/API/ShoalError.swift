/// The one error type Shoal throws.
///
/// Each error has a ``code`` (stable, matchable with `catch ShoalError.schemaMismatch`),
/// a ``message`` saying what was wrong, and a ``context`` saying where: the class,
/// property, key path, file path, byte offset or version involved.
///
/// ```swift
/// do {
///     try realm.write { realm.add(dog) }
/// } catch ShoalError.writeOnFrozenRealm {
///     print("thaw first")
/// }
/// ```
///
/// `Realm.Error` is the same type, so code written against RealmSwift's name compiles.
public struct ShoalError: Error, Sendable, CustomStringConvertible {
    /// A stable error code. Codes are grouped by layer: 1xx values and schema,
    /// 2xx storage and transactions, 3xx the log, 4xx queries, 5xx notifications,
    /// 6xx API misuse.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: Int, Sendable {
            case invalidValue = 100
            case schemaInvalid = 110
            case schemaMismatch = 111
            case unknownObjectType = 112
            case unknownProperty = 113
            case typeMismatch = 114
            case duplicatePrimaryKey = 200
            case missingPrimaryKey = 201
            case primaryKeyChange = 202
            case notInWriteTransaction = 210
            case alreadyInWriteTransaction = 211
            case writeOnFrozenRealm = 212
            case writeOnReadOnlyRealm = 213
            case objectInvalidated = 220
            case wrongThread = 221
            case wrongRealm = 222
            case indexOutOfBounds = 223
            case commitFailed = 230
            case fileAccess = 300
            case corruptLog = 301
            case alreadyOpen = 302
            case logWriteFailed = 303
            case logSyncFailed = 304
            case logPoisoned = 305
            case unsupportedFormat = 306
            case notAShoalFile = 307
            case corruptHeader = 308
            case corruptRecord = 309
            case tornTail = 310
            case nonMonotonicVersion = 311
            case requiresNewerShoal = 312
            case corruptSnapshot = 313
            case missingVersions = 314
            case fileNotFound = 315
            case filePermissionDenied = 316
            case invalidQuery = 400
            case invalidKeyPath = 401
            case notificationsUnavailable = 500
            case unsupported = 600
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// The code's stable number.
        public var rawValue: Int { kind.rawValue }
        public var description: String { "\(kind)(\(kind.rawValue))" }

        /// A value is not valid for its type (an `ObjectId` string, an enum's raw value).
        public static let invalidValue = Code(.invalidValue)
        /// The declared object classes do not form a valid schema.
        public static let schemaInvalid = Code(.schemaInvalid)
        /// The declared schema differs from the stored one and no migration was given.
        public static let schemaMismatch = Code(.schemaMismatch)
        /// A class is not part of the Realm's schema.
        public static let unknownObjectType = Code(.unknownObjectType)
        /// A property name does not exist on the class.
        public static let unknownProperty = Code(.unknownProperty)
        /// A value's type does not match the property's type.
        public static let typeMismatch = Code(.typeMismatch)
        /// An object with the same primary key already exists.
        public static let duplicatePrimaryKey = Code(.duplicatePrimaryKey)
        /// An object of a class with a primary key was created without one.
        public static let missingPrimaryKey = Code(.missingPrimaryKey)
        /// A managed object's primary key was changed.
        public static let primaryKeyChange = Code(.primaryKeyChange)
        /// A mutation was attempted outside a write transaction.
        public static let notInWriteTransaction = Code(.notInWriteTransaction)
        /// `beginWrite()` was called inside a write transaction.
        public static let alreadyInWriteTransaction = Code(.alreadyInWriteTransaction)
        /// A write was attempted on a frozen Realm.
        public static let writeOnFrozenRealm = Code(.writeOnFrozenRealm)
        /// A write was attempted on a read-only Realm.
        public static let writeOnReadOnlyRealm = Code(.writeOnReadOnlyRealm)
        /// A deleted or invalidated object or collection was used.
        public static let objectInvalidated = Code(.objectInvalidated)
        /// A live Realm was used from a thread other than the one that opened it.
        public static let wrongThread = Code(.wrongThread)
        /// An object managed by one Realm was used with another.
        public static let wrongRealm = Code(.wrongRealm)
        /// An index was outside a collection's bounds.
        public static let indexOutOfBounds = Code(.indexOutOfBounds)
        /// A commit could not be completed.
        public static let commitFailed = Code(.commitFailed)
        /// A file could not be read, written, created or locked.
        public static let fileAccess = Code(.fileAccess)
        /// A log or snapshot file is damaged.
        public static let corruptLog = Code(.corruptLog)
        /// Another process holds the database open (or, for `Realm.deleteFiles(for:)`, any Realm does).
        public static let alreadyOpen = Code(.alreadyOpen)
        /// Appending to the log failed (for example, the disk is full); the transaction
        /// was not applied and the log was cut back, so the database stays usable.
        public static let logWriteFailed = Code(.logWriteFailed)
        /// `fdatasync` failed; whether the transaction is durable is unknown, and the log is poisoned.
        public static let logSyncFailed = Code(.logSyncFailed)
        /// An earlier sync or truncate failure poisoned the log; writes fail until the database is reopened.
        public static let logPoisoned = Code(.logPoisoned)
        /// A file was written by a newer Shoal (format version or flags this build does not know).
        public static let unsupportedFormat = Code(.unsupportedFormat)
        /// A file does not start with the magic of a Shoal log segment or snapshot, or
        /// the database's path names a file or a directory of other files, not a Shoal database.
        public static let notAShoalFile = Code(.notAShoalFile)
        /// A log or snapshot file header is damaged or truncated.
        public static let corruptHeader = Code(.corruptHeader)
        /// A log record before the tail is damaged; the context names path, offset and version.
        public static let corruptRecord = Code(.corruptRecord)
        /// The last record of the log is incomplete (reported only in strict recovery).
        public static let tornTail = Code(.tornTail)
        /// A valid log record carries a version other than the previous one plus 1.
        public static let nonMonotonicVersion = Code(.nonMonotonicVersion)
        /// A log record has a type this Shoal does not know and must not skip.
        public static let requiresNewerShoal = Code(.requiresNewerShoal)
        /// A snapshot file's chunk or trailer is damaged.
        public static let corruptSnapshot = Code(.corruptSnapshot)
        /// The snapshot and log segments do not cover every version contiguously.
        public static let missingVersions = Code(.missingVersions)
        /// A file or its parent directory does not exist (Realm's `fileNotFound`).
        public static let fileNotFound = Code(.fileNotFound)
        /// The system refused access to a file or directory of the database:
        /// permission denied (`EACCES`, `EPERM`) or a read-only file system
        /// (`EROFS`) (Realm's `filePermissionDenied`).
        public static let filePermissionDenied = Code(.filePermissionDenied)
        /// A query could not be parsed or does not fit the class.
        public static let invalidQuery = Code(.invalidQuery)
        /// A key path names no property, or passes through a property that is not a link.
        public static let invalidKeyPath = Code(.invalidKeyPath)
        /// Notifications were requested where none can be delivered (frozen, read-only, unmanaged).
        public static let notificationsUnavailable = Code(.notificationsUnavailable)
        /// The operation is not supported by Shoal.
        public static let unsupported = Code(.unsupported)

        /// Lets `catch ShoalError.duplicatePrimaryKey` match errors by code.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? ShoalError)?.code == code
        }
    }

    /// What kind of error this is.
    public let code: Code
    /// What was wrong, in a sentence.
    public let message: String
    /// Where it happened: keys such as `class`, `property`, `path`, `offset`, `version`.
    public let context: [String: String]
    /// The error that caused this one, if any.
    public let underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, context: [String: String] = [:], underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.context = context
        self.underlying = underlying
    }

    public var description: String { message }

    /// The message followed by the code, the context and the underlying error.
    public func detailedDescription() -> String {
        var out = "\(message) [\(code)]"
        for key in context.keys.sorted() { out += "\n  \(key): \(context[key]!)" }
        if let underlying { out += "\n  caused by: \(underlying)" }
        return out
    }


    /// The code ``Code/invalidValue``, which `catch ShoalError.invalidValue` matches: a value is not
    /// valid for its type (an `ObjectId` string, an enum's raw value).
    public static let invalidValue = Code.invalidValue
    /// The code ``Code/schemaInvalid``, which `catch ShoalError.schemaInvalid` matches: the declared
    /// object classes do not form a valid schema.
    public static let schemaInvalid = Code.schemaInvalid
    /// The code ``Code/schemaMismatch``, which `catch ShoalError.schemaMismatch` matches: the declared
    /// schema differs from the stored one and no migration was given.
    public static let schemaMismatch = Code.schemaMismatch
    /// The code ``Code/unknownObjectType``, which `catch ShoalError.unknownObjectType` matches: a class
    /// is not part of the Realm's schema.
    public static let unknownObjectType = Code.unknownObjectType
    /// The code ``Code/unknownProperty``, which `catch ShoalError.unknownProperty` matches: a property
    /// name does not exist on the class.
    public static let unknownProperty = Code.unknownProperty
    /// The code ``Code/typeMismatch``, which `catch ShoalError.typeMismatch` matches: a value's type
    /// does not match the property's type.
    public static let typeMismatch = Code.typeMismatch
    /// The code ``Code/duplicatePrimaryKey``, which `catch ShoalError.duplicatePrimaryKey` matches: an
    /// object with the same primary key already exists.
    public static let duplicatePrimaryKey = Code.duplicatePrimaryKey
    /// The code ``Code/missingPrimaryKey``, which `catch ShoalError.missingPrimaryKey` matches: an
    /// object of a class with a primary key was created without one.
    public static let missingPrimaryKey = Code.missingPrimaryKey
    /// The code ``Code/primaryKeyChange``, which `catch ShoalError.primaryKeyChange` matches: a managed
    /// object's primary key was changed.
    public static let primaryKeyChange = Code.primaryKeyChange
    /// The code ``Code/notInWriteTransaction``, which `catch ShoalError.notInWriteTransaction` matches:
    /// a mutation was attempted outside a write transaction.
    public static let notInWriteTransaction = Code.notInWriteTransaction
    /// The code ``Code/alreadyInWriteTransaction``, which `catch ShoalError.alreadyInWriteTransaction`
    /// matches: `beginWrite()` was called inside a write transaction.
    public static let alreadyInWriteTransaction = Code.alreadyInWriteTransaction
    /// The code ``Code/writeOnFrozenRealm``, which `catch ShoalError.writeOnFrozenRealm` matches: a
    /// write was attempted on a frozen Realm.
    public static let writeOnFrozenRealm = Code.writeOnFrozenRealm
    /// The code ``Code/writeOnReadOnlyRealm``, which `catch ShoalError.writeOnReadOnlyRealm` matches: a
    /// write was attempted on a read-only Realm.
    public static let writeOnReadOnlyRealm = Code.writeOnReadOnlyRealm
    /// The code ``Code/objectInvalidated``, which `catch ShoalError.objectInvalidated` matches: a
    /// deleted or invalidated object or collection was used.
    public static let objectInvalidated = Code.objectInvalidated
    /// The code ``Code/wrongThread``, which `catch ShoalError.wrongThread` matches: a live Realm was
    /// used from a thread other than the one that opened it.
    public static let wrongThread = Code.wrongThread
    /// The code ``Code/wrongRealm``, which `catch ShoalError.wrongRealm` matches: an object managed by
    /// one Realm was used with another.
    public static let wrongRealm = Code.wrongRealm
    /// The code ``Code/indexOutOfBounds``, which `catch ShoalError.indexOutOfBounds` matches: an index
    /// was outside a collection's bounds.
    public static let indexOutOfBounds = Code.indexOutOfBounds
    /// The code ``Code/commitFailed``, which `catch ShoalError.commitFailed` matches: a commit could
    /// not be completed.
    public static let commitFailed = Code.commitFailed
    /// The code ``Code/fileAccess``, which `catch ShoalError.fileAccess` matches: a file could not be
    /// read, written, created or locked.
    public static let fileAccess = Code.fileAccess
    /// The code ``Code/corruptLog``, which `catch ShoalError.corruptLog` matches: a log or snapshot
    /// file is damaged.
    public static let corruptLog = Code.corruptLog
    /// The code ``Code/alreadyOpen``, which `catch ShoalError.alreadyOpen` matches: another process
    /// holds the database open.
    public static let alreadyOpen = Code.alreadyOpen
    /// The code ``Code/logWriteFailed``, which `catch ShoalError.logWriteFailed` matches: appending to
    /// the log failed (for example, the disk is full); the transaction was not applied and the log was
    /// cut back, so the database stays usable.
    public static let logWriteFailed = Code.logWriteFailed
    /// The code ``Code/logSyncFailed``, which `catch ShoalError.logSyncFailed` matches: `fdatasync`
    /// failed; whether the transaction is durable is unknown, and the log is poisoned.
    public static let logSyncFailed = Code.logSyncFailed
    /// The code ``Code/logPoisoned``, which `catch ShoalError.logPoisoned` matches: an earlier sync or
    /// truncate failure poisoned the log; writes fail until the database is reopened.
    public static let logPoisoned = Code.logPoisoned
    /// The code ``Code/unsupportedFormat``, which `catch ShoalError.unsupportedFormat` matches: a file
    /// was written by a newer Shoal (format version or flags this build does not know).
    public static let unsupportedFormat = Code.unsupportedFormat
    /// The code ``Code/notAShoalFile``, which `catch ShoalError.notAShoalFile` matches: a file does not
    /// start with the magic of a Shoal log segment or snapshot, or the database's path names a file or a
    /// directory of other files, not a Shoal database.
    public static let notAShoalFile = Code.notAShoalFile
    /// The code ``Code/corruptHeader``, which `catch ShoalError.corruptHeader` matches: a log or
    /// snapshot file header is damaged or truncated.
    public static let corruptHeader = Code.corruptHeader
    /// The code ``Code/corruptRecord``, which `catch ShoalError.corruptRecord` matches: a log record
    /// before the tail is damaged; the context names path, offset and version.
    public static let corruptRecord = Code.corruptRecord
    /// The code ``Code/tornTail``, which `catch ShoalError.tornTail` matches: the last record of the
    /// log is incomplete (reported only in strict recovery).
    public static let tornTail = Code.tornTail
    /// The code ``Code/nonMonotonicVersion``, which `catch ShoalError.nonMonotonicVersion` matches: a
    /// valid log record carries a version other than the previous one plus 1.
    public static let nonMonotonicVersion = Code.nonMonotonicVersion
    /// The code ``Code/requiresNewerShoal``, which `catch ShoalError.requiresNewerShoal` matches: a log
    /// record has a type this Shoal does not know and must not skip.
    public static let requiresNewerShoal = Code.requiresNewerShoal
    /// The code ``Code/corruptSnapshot``, which `catch ShoalError.corruptSnapshot` matches: a snapshot
    /// file's chunk or trailer is damaged.
    public static let corruptSnapshot = Code.corruptSnapshot
    /// The code ``Code/missingVersions``, which `catch ShoalError.missingVersions` matches: the
    /// snapshot and log segments do not cover every version contiguously.
    public static let missingVersions = Code.missingVersions
    /// The code ``Code/fileNotFound``, which `catch ShoalError.fileNotFound` matches: a file or its
    /// parent directory does not exist (Realm's `fileNotFound`).
    public static let fileNotFound = Code.fileNotFound
    /// The code ``Code/filePermissionDenied``, which `catch ShoalError.filePermissionDenied` matches:
    /// the system refused access to a file or directory of the database (permission denied, or a
    /// read-only file system).
    public static let filePermissionDenied = Code.filePermissionDenied
    /// The code ``Code/invalidQuery``, which `catch ShoalError.invalidQuery` matches: a query could not
    /// be parsed or does not fit the class.
    public static let invalidQuery = Code.invalidQuery
    /// The code ``Code/invalidKeyPath``, which `catch ShoalError.invalidKeyPath` matches: a key path
    /// names no property, or passes through a property that is not a link.
    public static let invalidKeyPath = Code.invalidKeyPath
    /// The code ``Code/notificationsUnavailable``, which `catch ShoalError.notificationsUnavailable`
    /// matches: notifications were requested where none can be delivered (frozen, read-only,
    /// unmanaged).
    public static let notificationsUnavailable = Code.notificationsUnavailable
    /// The code ``Code/unsupported``, which `catch ShoalError.unsupported` matches: the operation is
    /// not supported by Shoal.
    public static let unsupported = Code.unsupported
}

/// Stops the program for a programmer error with Realm's kind of message, as
/// Realm does for misuse through its non-throwing API.
func shoalPrecondition(_ error: ShoalError, file: StaticString = #file, line: UInt = #line) -> Never {
    preconditionFailure(error.detailedDescription(), file: file, line: line)
}

/// Stops the program for any error, with a `ShoalError`'s detailed description when it is one.
func shoalPrecondition(_ error: any Error, file: StaticString = #file, line: UInt = #line) -> Never {
    if let error = error as? ShoalError { shoalPrecondition(error, file: file, line: line) }
    preconditionFailure("\(error)", file: file, line: line)
}
