/// The files of a database directory as the Log layer names them
/// (PERSISTENCE.md §8.1), and the coverage check of §8.5 step 3.
///
/// ```swift
/// let directory = try LogDirectory.list(at: path, io: io)
/// let segments = try directory.segmentsToReplay(afterSnapshot: snapshotVersion)
/// ```
struct LogDirectory: Equatable, Sendable {
    let path: String
    /// Base versions of the `log-<B>.wal` segments, ascending.
    let segmentBases: [UInt64]
    /// Versions of the `snapshot-<V>.snap` files, ascending.
    let snapshotVersions: [UInt64]
    /// A segment's or snapshot's name followed by `.tmp`: files whose
    /// writing never finished; open deletes them.
    let temporaryFiles: [String]
    /// Every name in the directory that Shoal writes
    /// (``LogFormat/isShoalFileName(_:)``), sorted.
    let shoalFiles: [String]
    /// Every other name, sorted: files Shoal never touches.
    let otherFiles: [String]

    /// Whether the directory holds a database: a segment or a snapshot.
    var holdsDatabase: Bool { !segmentBases.isEmpty || !snapshotVersions.isEmpty }

    /// Lists `path` and sorts its files by kind.
    ///
    /// - Throws: `ShoalError.fileAccess`.
    static func list(at path: String, io: any FileIO) throws(ShoalError) -> LogDirectory {
        let names: [String]
        do { names = try io.listDirectory(at: path) } catch { throw .logFileAccess(error, "list") }
        return LogDirectory(path: path, names: names)
    }

    /// Sorts `names`, the contents of the directory at `path`, by kind.
    init(path: String, names: [String]) {
        self.path = path
        segmentBases = names.compactMap(LogFormat.baseVersion(ofSegmentFileName:)).sorted()
        snapshotVersions = names.compactMap(LogFormat.version(ofSnapshotFileName:)).sorted()
        temporaryFiles = names.filter(LogFormat.isTemporaryFileName).sorted()
        shoalFiles = names.filter(LogFormat.isShoalFileName).sorted()
        otherFiles = names.filter { !LogFormat.isShoalFileName($0) }.sorted()
    }

    /// The names of the segments and snapshots in the order that deleting
    /// them keeps a database that opens if it stops part way: the newest
    /// segment first (what is left is a shorter, whole history), then the
    /// snapshots, newest first.
    var dataFilesInDeletionOrder: [String] {
        segmentBases.reversed().map { LogFormat.segmentFileName(baseVersion: $0) }
            + snapshotVersions.reversed().map { LogFormat.snapshotFileName(version: $0) }
    }

    /// The path of the segment with base `base`.
    func segmentPath(base: UInt64) -> String { joinPath(path, LogFormat.segmentFileName(baseVersion: base)) }

    /// The segments holding versions after `snapshotVersion` (0 without a
    /// snapshot), in order: the last one whose base is ≤ `snapshotVersion`, and
    /// every later one. Replay skips records ≤ `snapshotVersion`.
    ///
    /// Each segment's last version must then equal the next one's base; check
    /// that with ``checkContiguous(lastVersion:nextBase:)`` while replaying.
    /// - Throws: `ShoalError.missingVersions` if the first segment starts after
    ///   `snapshotVersion` (a missing snapshot or segment).
    func segmentsToReplay(afterSnapshot snapshotVersion: UInt64) throws(ShoalError) -> [UInt64] {
        guard let first = segmentBases.lastIndex(where: { $0 <= snapshotVersion }) else {
            if let base = segmentBases.first {
                throw missingVersions(from: snapshotVersion + 1, through: base)
            }
            return []
        }
        return Array(segmentBases[first...])
    }

    /// Fails unless a segment whose last version is `lastVersion` is followed by
    /// one based at that version.
    ///
    /// - Throws: `ShoalError.missingVersions` naming the missing range.
    func checkContiguous(lastVersion: UInt64, nextBase: UInt64) throws(ShoalError) {
        guard lastVersion == nextBase else {
            throw lastVersion < nextBase
                ? missingVersions(from: lastVersion + 1, through: nextBase)
                : ShoalError(
                    .missingVersions,
                    "\(path): the segment based at \(nextBase) overlaps the previous one, which ends at version \(lastVersion)",
                    context: ["path": path, "from": String(nextBase + 1), "to": String(lastVersion)])
        }
    }

    private func missingVersions(from: UInt64, through: UInt64) -> ShoalError {
        ShoalError(
            .missingVersions, "\(path): versions \(from) through \(through) are in no snapshot or log segment",
            context: ["path": path, "from": String(from), "to": String(through)])
    }
}
