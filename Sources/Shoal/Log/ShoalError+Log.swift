/// Constructors for the errors the Log layer throws, so that every site fills
/// the same context keys: `path`, `offset`, `version`, `errno`, `reason`.
extension ShoalError {
    static func logFileAccess(_ error: FileIOError, _ action: String) -> ShoalError {
        ShoalError(
            .fileAccess, "Could not \(action) \(error.path): \(error.errnoDescription)",
            context: ["path": error.path, "operation": error.operation.rawValue, "errno": String(error.errno)],
            underlying: error)
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
