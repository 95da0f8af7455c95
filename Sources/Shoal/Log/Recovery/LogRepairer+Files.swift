internal import Glibc
import Foundation

extension LogRepairer {
    /// Writes a complete database into the new directory `directory`: the
    /// snapshot of `base` (when its version is not 0), then one segment based
    /// at it holding `records`, re-framed under a new salt. Every file is
    /// synced, and so is the directory, before this returns.
    static func writeDatabase(base: Snapshot, records: [LogRecord], into directory: String, io: any FileIO) throws(ShoalError) {
        let payload = base.version > 0 ? try SnapshotCodec.encodeLoadable(base, what: "Repair", path: directory) : []
        guard mkdir(directory, 0o755) == 0 else {
            let code = errno
            throw ShoalError(
                .fileAccess, "Could not create \(directory): \(String(cString: strerror(code)))",
                context: ["path": directory, "errno": String(code)])
        }
        if base.version > 0 {
            try SnapshotFile.write(
                payload, version: base.version, schemaFingerprint: base.schema.fingerprint,
                directory: directory, io: io)
        }
        let writer = try LogWriter.create(
            directory: directory, baseVersion: base.version, schemaFingerprint: base.schema.fingerprint,
            durability: .none, io: io)
        for record in records { _ = try writer.enqueue(record) }
        try writer.sync()
        try writer.close()
        do { try io.syncDirectory(at: directory) } catch { throw .logFileAccess(error, "sync the directory") }
    }

    /// The records of a rewritten log: the kept ones, and a no-op record for
    /// each lost version, so that versions keep their numbers.
    static func rewrittenRecords(kept: [LogRecord], lost: [LostVersion]) -> [LogRecord] {
        var out = kept
        for version in lost.map(\.version) {
            let time = kept.last { $0.version < version }?.timestampMicros ?? 0
            out.append(LogRecord(type: .noOp, version: version, timestampMicros: time, payload: []))
        }
        return out.sorted { $0.version < $1.version }
    }

    /// Puts the database written in `replacement` at `path` and keeps the
    /// original as `backup`, crash-safely.
    ///
    /// Crash safety: `replacement` is complete and synced (files and
    /// directory) before anything at `path` changes. The swap is one
    /// `renameat2(RENAME_EXCHANGE)`, atomic on Linux file systems: at every
    /// instant `path` names either the whole original or the whole
    /// replacement, never a mix. The original, now under the temporary name,
    /// is then renamed to `backup`, and the parent directory is synced, which
    /// makes both renames durable. A crash before the exchange leaves the
    /// original in place (and a temporary directory beside it, which may be
    /// deleted); after it, the repaired database in place and the original
    /// under the temporary or the backup name.
    ///
    /// Where the exchange is unsupported (an old kernel or a file system
    /// without it), two renames are used instead: `path` → `backup`, then
    /// `replacement` → `path`. A crash between them leaves no database at
    /// `path`, but both complete directories beside it; the message printed
    /// before the swap names them.
    static func swap(_ replacement: String, into path: String, backup: String, io: any FileIO) throws(ShoalError) {
        let parent = parentDirectory(of: path)
        if exchange(replacement, path) {
            try rename(replacement, to: backup, io: io)
        } else {
            try rename(path, to: backup, io: io)
            try rename(replacement, to: path, io: io)
        }
        do { try io.syncDirectory(at: parent) } catch { throw .logFileAccess(error, "sync the directory") }
    }

    private static func rename(_ source: String, to destination: String, io: any FileIO) throws(ShoalError) {
        do { try io.rename(source, to: destination) } catch { throw .logFileAccess(error, "rename") }
    }

    private typealias RenameAt2 = @convention(c) (
        Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32
    ) -> Int32

    /// Swaps two names atomically with `renameat2(RENAME_EXCHANGE)`; `false` if unsupported.
    private static func exchange(_ a: String, _ b: String) -> Bool {
        // Glibc's module map does not export renameat2 (it needs _GNU_SOURCE); look it up instead.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return false }
        let renameat2 = unsafeBitCast(symbol, to: RenameAt2.self)
        let renameExchange: UInt32 = 1 << 1
        return renameat2(AT_FDCWD, a, AT_FDCWD, b, renameExchange) == 0
    }

    /// `<path>.backup-<UTC time>`, with a counter if that exists.
    static func defaultBackupPath(for path: String) -> String {
        let stamp = Date().formatted(
            Date.VerbatimFormatStyle(
                format: "\(year: .defaultDigits)\(month: .twoDigits)\(day: .twoDigits)-\(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased))\(minute: .twoDigits)\(second: .twoDigits)",
                timeZone: .gmt, calendar: Calendar(identifier: .gregorian)))
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        var candidate = "\(trimmed).backup-\(stamp)"
        var n = 2
        while FileManager.default.fileExists(atPath: candidate) {
            candidate = "\(trimmed).backup-\(stamp)-\(n)"
            n += 1
        }
        return candidate
    }

    /// Removes a directory the tool created and did not finish.
    static func removeTemporary(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Takes the database's lock for writing (``DatabaseLock``), creating `LOCK` if needed.
    /// Returns the lock and whether `LOCK` was created (to remove it if nothing is written).
    static func lockForWriting(_ path: String, io: any FileIO) throws(ShoalError) -> (DatabaseLock, created: Bool) {
        let lockPath = joinPath(path, LogFormat.lockFileName)
        let existed = io.fileExists(at: lockPath)
        do { return (try DatabaseLock.acquire(directory: path, io: io), !existed) } catch {
            if error.errno == EWOULDBLOCK {
                throw ShoalError(
                    .alreadyOpen,
                    "\(path) is open in a running process, which holds its lock (\(error.path)); close it before repairing",
                    context: ["path": path])
            }
            throw .databaseFiles(error, "lock", database: path)
        }
    }
}
