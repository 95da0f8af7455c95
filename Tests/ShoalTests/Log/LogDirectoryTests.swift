import Testing

@testable import Shoal

@Suite struct LogDirectoryTests {
    static func directory(_ names: [String]) throws -> LogDirectory {
        let io = FaultyFileIO()
        for name in names { io.setContents(of: joinPath("/db", name), []) }
        return try LogDirectory.list(at: "/db", io: io)
    }

    @Test("listing sorts segments and snapshots by version and finds temporary files")
    func listing() throws {
        let directory = try Self.directory([
            "log-0000000000000010.wal", "log-0000000000000000.wal", "snapshot-0000000000000010.snap",
            "log-0000000000000020.wal.tmp", "LOCK", "log-0000000000000000.tail-40.corrupt",
        ])
        #expect(directory.segmentBases == [0, 0x10])
        #expect(directory.snapshotVersions == [0x10])
        #expect(directory.temporaryFiles == ["log-0000000000000020.wal.tmp"])
    }

    @Test("replay starts at the last segment at or below the snapshot version")
    func segmentsToReplay() throws {
        let directory = try Self.directory([
            "log-0000000000000000.wal", "log-0000000000000010.wal", "log-0000000000000020.wal",
        ])
        #expect(try directory.segmentsToReplay(afterSnapshot: 0) == [0, 0x10, 0x20])
        #expect(try directory.segmentsToReplay(afterSnapshot: 0x15) == [0x10, 0x20])
        #expect(try directory.segmentsToReplay(afterSnapshot: 0x20) == [0x20])
        #expect(try Self.directory([]).segmentsToReplay(afterSnapshot: 0).isEmpty)
    }

    @Test("segments starting after the snapshot, or not following each other, are missing versions")
    func missingVersions() throws {
        let directory = try Self.directory(["log-0000000000000010.wal"])
        let error = #expect(throws: ShoalError.self) { try directory.segmentsToReplay(afterSnapshot: 0) }
        #expect(error?.code == .missingVersions && error?.context["from"] == "1" && error?.context["to"] == "16")
        try directory.checkContiguous(lastVersion: 16, nextBase: 16)
        #expect(
            (#expect(throws: ShoalError.self) { try directory.checkContiguous(lastVersion: 12, nextBase: 16) })?.code
                == .missingVersions)
        #expect(
            (#expect(throws: ShoalError.self) { try directory.checkContiguous(lastVersion: 20, nextBase: 16) })?.code
                == .missingVersions)
    }
}
