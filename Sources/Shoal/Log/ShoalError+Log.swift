internal import Glibc

/// Constructors for the errors the Log layer throws, so that every site fills
/// the same context keys: `path`, `offset`, `version`, `errno`, `reason`.
extension ShoalError {
    static func logFileAccess(_ error: FileIOError, _ action: String) -> ShoalError {
        ShoalError(
            .fileAccess, "Could not \(action) \(error.path): \(error.errnoDescription)",
            context: ["path": error.path, "operation": error.operation.rawValue, "errno": String(error.errno)],
            underlying: error)
    }

    /// A failure to create, lock, list or delete the files of the database
    /// at `directory`, under the code its `errno` means: `alreadyOpen` only
    /// for a lock another holder keeps (`EWOULDBLOCK`),
    /// `filePermissionDenied` for `EACCES`, `EPERM` and `EROFS`,
    /// `fileNotFound` for `ENOENT` and `ENOTDIR` (and for a file where a
    /// directory on the way to the database must be), `notAShoalFile` when
    /// the database's own path names something other than a directory
    /// (`EEXIST`), and `fileAccess` for anything else (`ELOOP`, `EIO`, …).
    /// The message names the database, the file and the system error.
    static func databaseFiles(_ error: FileIOError, _ action: String, database directory: String) -> ShoalError {
        let context = [
            "path": directory, "file": error.path, "operation": error.operation.rawValue, "errno": String(error.errno),
        ]
        let failure = "Cannot \(action) '\(error.path)'"
            + (error.path == directory ? "" : " of the database at '\(directory)'") + ": \(error.errnoDescription)"
        switch error.errno {
        case EWOULDBLOCK:
            return ShoalError(
                .alreadyOpen,
                "The database at '\(directory)' is open in another process (it holds the lock on '\(error.path)'); close it there first.",
                context: context, underlying: error)
        case EACCES, EPERM, EROFS:
            return ShoalError(.filePermissionDenied, failure + ".", context: context, underlying: error)
        case EEXIST where error.operation == .createDirectory && error.path == directory:
            return ShoalError(
                .notAShoalFile,
                "'\(error.path)' is not a Shoal database: something other than a directory has that name, and a database is a directory (\(error.errnoDescription)).",
                context: context, underlying: error)
        case ENOENT, ENOTDIR:
            return ShoalError(.fileNotFound, failure + ": a directory on the path does not exist.", context: context, underlying: error)
        case EEXIST where error.operation == .createDirectory:
            return ShoalError(.fileNotFound, failure + ": it is on the path to the database and is not a directory.", context: context, underlying: error)
        default:
            return ShoalError(.fileAccess, failure + ".", context: context, underlying: error)
        }
    }

    static func logWriteFailed(path: String, offset: Int64, _ error: FileIOError) -> ShoalError {
        ShoalError(
            .logWriteFailed,
            "Could not append to \(path) at offset \(offset): \(error.errnoDescription); the transaction was not written",
            context: [
                "path": path, "offset": String(offset), "errno": String(error.errno),
                "reason": error.isNoSpace ? "noSpace" : "ioError",
            ],
            underlying: error)
    }

    /// A failure while making the new segment `path` (written as
    /// `path.tmp`, synced, then renamed), named by the segment's own name:
    /// `logWriteFailed` for its header, `logSyncFailed` for a sync,
    /// `fileAccess` otherwise. No record was in it.
    static func segmentCreationFailed(path: String, _ error: FileIOError) -> ShoalError {
        let named = error.named(path)
        let code: Code =
            switch error.operation {
            case .write: .logWriteFailed
            case .sync, .syncDirectory: .logSyncFailed
            default: .fileAccess
            }
        return ShoalError(
            code, "Could not create the log segment \(path): \(error.operation) failed with \(error.errnoDescription); no record was written to it",
            context: [
                "path": path, "operation": error.operation.rawValue, "errno": String(error.errno),
                "reason": error.isNoSpace ? "noSpace" : "ioError",
            ],
            underlying: named)
    }

    static func logSyncFailed(path: String, _ error: FileIOError) -> ShoalError {
        ShoalError(
            .logSyncFailed,
            "fdatasync of \(path) failed: \(error.errnoDescription); durability of recent writes is unknown and the log is poisoned",
            context: ["path": path, "errno": String(error.errno)], underlying: error)
    }

    static func logPoisoned(path: String, cause: ShoalError) -> ShoalError {
        ShoalError(
            .logPoisoned, "The log \(path) is poisoned by an earlier failure (\(cause.message)); reopen the database",
            context: ["path": path], underlying: cause)
    }

    static func corruptRecord(path: String, _ damage: LogDamage) -> ShoalError {
        ShoalError(
            .corruptRecord,
            "\(path): record at offset \(damage.offset) (version \(damage.expectedVersion)) is damaged: \(damage.reason); a valid record follows, so nothing was modified",
            context: [
                "path": path, "offset": String(damage.offset), "version": String(damage.expectedVersion),
                "byteCount": String(damage.byteCount), "reason": damage.reason.description,
            ])
    }

    static func tornTail(path: String, _ damage: LogDamage) -> ShoalError {
        ShoalError(
            .tornTail,
            "\(path): the last record, at offset \(damage.offset) (version \(damage.expectedVersion)), is incomplete: \(damage.reason)",
            context: [
                "path": path, "offset": String(damage.offset), "version": String(damage.expectedVersion),
                "byteCount": String(damage.byteCount), "reason": damage.reason.description,
            ])
    }

    static func nonMonotonicVersion(path: String, offset: Int64, expected: UInt64, found: UInt64) -> ShoalError {
        ShoalError(
            .nonMonotonicVersion, "\(path): record at offset \(offset) has version \(found), expected \(expected)",
            context: ["path": path, "offset": String(offset), "expected": String(expected), "found": String(found)])
    }

    static func requiresNewerShoal(
        path: String, offset: Int64, version: UInt64, type: LogFormat.RecordType
    ) -> ShoalError {
        ShoalError(
            .requiresNewerShoal,
            "\(path): record at offset \(offset) (version \(version)) has type 0x\(String(type.rawValue, radix: 16)), which this Shoal does not know; open it with a newer Shoal",
            context: [
                "path": path, "offset": String(offset), "version": String(version), "type": String(type.rawValue),
            ])
    }

    static func corruptSnapshot(path: String, offset: Int64, reason: String) -> ShoalError {
        ShoalError(
            .corruptSnapshot, "\(path): snapshot damaged at offset \(offset): \(reason)",
            context: ["path": path, "offset": String(offset), "reason": reason])
    }
}
