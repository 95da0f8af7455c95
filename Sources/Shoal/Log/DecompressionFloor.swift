/// The floor under opening a database: reading its newest snapshot and its
/// log segments, verifying every checksum and LZ4-decompressing every
/// payload, without decoding or applying anything.
///
/// The benchmarks time this beside opening the same database, so that
/// replay speed is quoted against decompression measured in the same run on
/// the same files (the scope of the persistence issue asks replay to run
/// close to LZ4 decompression speed). It is not API: it reads the files
/// without the lock and without the recovery rules of opening.
@_spi(Benchmarks)
public enum DecompressionFloor {
    /// What one pass read.
    public struct Pass: Sendable, Equatable {
        /// Log records verified and decompressed.
        public let records: Int
        /// Bytes of snapshot and log files read.
        public let fileBytes: Int64
        /// Bytes of decompressed payload (snapshot chunks and records).
        public let payloadBytes: Int64
    }

    /// Reads, verifies and decompresses what opening the database directory
    /// at `path` reads: its newest snapshot and the log segments after it.
    ///
    /// - Throws: ``ShoalError`` when a file cannot be read or its header is
    ///   not a Shoal header. Damage in a record ends that segment's pass
    ///   without an error; a damaged snapshot throws `corruptSnapshot`.
    public static func run(databasePath path: String) throws -> Pass {
        let io = PosixFileIO()
        let directory = try LogDirectory.list(at: path, io: io)
        var records = 0
        var fileBytes: Int64 = 0
        var payloadBytes: Int64 = 0
        if let newest = directory.snapshotVersions.last {
            let snapshotPath = joinPath(path, LogFormat.snapshotFileName(version: newest))
            let snapshot = try SnapshotFile.read(at: snapshotPath, io: io)
            do {
                let file = try io.open(at: snapshotPath, mode: .readOnly)
                defer { io.close(file) }
                fileBytes += try io.size(of: file)
            } catch { throw ShoalError.logFileAccess(error, "stat") }
            payloadBytes += Int64(snapshot.payload.count)
        }
        for base in try directory.segmentsToReplay(afterSnapshot: directory.snapshotVersions.last ?? 0) {
            let reader = try LogReader(path: directory.segmentPath(base: base), io: io)
            fileBytes += reader.fileSize
            _ = reader.replay { record in
                records += 1
                payloadBytes += Int64(record.payload.count)
            }
        }
        return Pass(records: records, fileBytes: fileBytes, payloadBytes: payloadBytes)
    }
}
