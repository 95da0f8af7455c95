extension LogWriter {
    /// Creates the segment `log-<base:016x>.wal` in `directory` and returns a writer for it.
    ///
    /// Follows PERSISTENCE.md §5 protocol 1: create `log-B.wal.tmp` exclusively,
    /// write the header, `fdatasync`, rename to the final name, `fsync` the
    /// directory. Only after this returns may a commit in the segment be
    /// acknowledged. When rolling from another segment, sync that one first (see
    /// ``roll(schemaFingerprint:salt:)``), so power loss never leaves a version gap.
    ///
    /// - Parameters:
    ///   - baseVersion: the version before the segment's first record.
    ///   - salt: seeds every record checksum; random unless a test fixes it.
    /// - Throws: `ShoalError.fileAccess` (including when the segment exists),
    ///   `.logWriteFailed`, `.logSyncFailed`.
    static func create(
        directory: String, baseVersion: UInt64, schemaFingerprint: UInt64, durability: Durability = .durable,
        io: any FileIO, salt: UInt64 = .random(in: .min ... .max),
        createdAtMicros: UInt64 = LogFormat.nowMicros()
    ) throws(ShoalError) -> LogWriter {
        let path = joinPath(directory, LogFormat.segmentFileName(baseVersion: baseVersion))
        let temporary = path + LogFormat.temporarySuffix
        if io.fileExists(at: path) {
            throw ShoalError(.fileAccess, "The log segment \(path) already exists", context: ["path": path])
        }
        let header = FileHeader(
            kind: .log, salt: salt, baseVersion: baseVersion, schemaFingerprint: schemaFingerprint,
            createdAtMicros: createdAtMicros)
        let file: OpenFile
        do { file = try io.createExclusive(at: temporary) } catch { throw .segmentCreationFailed(path: path, error) }
        func abandon() {
            io.close(file)
            try? io.unlink(at: temporary)
        }
        do { try io.write(file, header.encoded(), at: 0) } catch {
            abandon()
            throw .segmentCreationFailed(path: path, error)
        }
        do { try io.syncData(file) } catch {
            abandon()
            throw .segmentCreationFailed(path: path, error)
        }
        do { try io.rename(temporary, to: path) } catch {
            abandon()
            throw .segmentCreationFailed(path: path, error)
        }
        do { try io.syncDirectory(at: directory) } catch {
            // The segment may or may not survive a crash under its final name; it
            // holds no record either way, which open tolerates.
            io.close(file)
            throw .logSyncFailed(path: directory, error)
        }
        return LogWriter(
            path: path, header: header, durability: durability, io: io, file: file,
            tail: Int64(LogFormat.fileHeaderSize), lastVersion: baseVersion)
    }

    /// Continues appending to the segment that `result` describes, which must be
    /// the last one, after ``LogReader/replay(_:)`` accepted it.
    ///
    /// If the segment has a torn or zero-filled tail, it is cut at
    /// ``LogReader/ReplayResult/validEnd`` and synced; with `quarantine`, the cut
    /// bytes of a torn tail are first saved to `log-<base>.tail-<offset>.corrupt`.
    ///
    /// - Throws: the result's own error if it is not truncatable
    ///   (`.corruptRecord`, `.nonMonotonicVersion`, `.requiresNewerShoal`);
    ///   `.fileAccess` if the file changed since it was read, or on I/O errors.
    static func resume(
        after result: LogReader.ReplayResult, durability: Durability = .durable, io: any FileIO,
        quarantine: Bool = true
    ) throws(ShoalError) -> LogWriter {
        if let error = result.error() { throw error }
        let file: OpenFile
        do { file = try io.open(at: result.path, mode: .readWrite) } catch { throw .logFileAccess(error, "open") }
        let size: Int64
        do { size = try io.size(of: file) } catch {
            io.close(file)
            throw .logFileAccess(error, "stat")
        }
        guard size == result.fileSize else {
            io.close(file)
            throw ShoalError(
                .fileAccess, "\(result.path) changed size since it was read (\(result.fileSize) → \(size))",
                context: ["path": result.path])
        }
        if size > result.validEnd {
            do throws(FileIOError) {
                if quarantine, case .tornTail = result.ending {
                    let bytes = try io.read(file, count: Int(size - result.validEnd), at: result.validEnd)
                    try saveQuarantine(bytes, result: result, io: io)
                }
                try io.truncate(file, to: result.validEnd)
                try io.syncData(file)
            } catch {
                io.close(file)
                throw .logFileAccess(error, "cut the tail of")
            }
        }
        return LogWriter(
            path: result.path, header: result.header, durability: durability, io: io, file: file,
            tail: result.validEnd, lastVersion: result.lastVersion)
    }

    /// Syncs this segment, creates the next one with base ``lastVersion``, closes
    /// this writer and returns the new one (the step of compaction after its
    /// snapshot is on disk: ``DatabaseLog/compact(_:)``).
    ///
    /// - Throws: as ``sync()`` and ``create(directory:baseVersion:schemaFingerprint:durability:io:salt:createdAtMicros:)``.
    func roll(schemaFingerprint: UInt64, salt: UInt64 = .random(in: .min ... .max)) throws(ShoalError) -> LogWriter {
        try sync()
        let next = try LogWriter.create(
            directory: directory, baseVersion: lastVersion, schemaFingerprint: schemaFingerprint,
            durability: durability, io: io, salt: salt)
        try close()
        return next
    }

    private static func saveQuarantine(
        _ bytes: [UInt8], result: LogReader.ReplayResult, io: any FileIO
    ) throws(FileIOError) {
        let directory = parentDirectory(of: result.path)
        let path = joinPath(
            directory, LogFormat.quarantineFileName(baseVersion: result.header.baseVersion, offset: result.validEnd))
        if io.fileExists(at: path) { return }  // saved by an earlier open that crashed before truncating
        let file = try io.createExclusive(at: path)
        defer { io.close(file) }
        try io.write(file, bytes, at: 0)
        try io.syncData(file)
        try io.syncDirectory(at: directory)
    }
}
