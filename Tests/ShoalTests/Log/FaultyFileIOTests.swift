import Glibc
import Testing

@testable import Shoal

/// The fault double itself: the tests above rely on these semantics.
@Suite struct FaultyFileIOTests {
    @Test("a crash image drops unsynced writes and keeps synced ones")
    func unsyncedWritesDropped() throws {
        let io = FaultyFileIO()
        let file = try io.createExclusive(at: "/d/f")
        try io.write(file, [1, 2, 3], at: 0)
        try io.syncData(file)
        try io.syncDirectory(at: "/d")
        try io.write(file, [4, 5], at: 3)
        io.capture("now")
        let model = try #require(io.captures.last).model
        #expect(FaultyFileIO.crashImage(of: model, fates: { _ in .dropped }).contents(of: "/d/f") == [1, 2, 3])
        #expect(FaultyFileIO.crashImage(of: model, fates: { _ in .zeroed }).contents(of: "/d/f") == [1, 2, 3, 0, 0])
        #expect(
            FaultyFileIO.crashImage(of: model, fates: { _ in .torn(keptBytes: 1) }).contents(of: "/d/f") == [
                1, 2, 3, 4,
            ])
        #expect(FaultyFileIO.crashImage(of: model, fates: { _ in .persisted }).contents(of: "/d/f") == [1, 2, 3, 4, 5])
        let garbage = try #require(FaultyFileIO.crashImage(of: model, fates: { _ in .garbage }).contents(of: "/d/f"))
        #expect(garbage.count == 5 && Array(garbage.prefix(3)) == [1, 2, 3])
    }

    @Test("a rename is lost in a crash unless the directory was synced")
    func renameNeedsDirectorySync() throws {
        let io = FaultyFileIO()
        let file = try io.createExclusive(at: "/d/a")
        try io.syncData(file)
        try io.syncDirectory(at: "/d")
        try io.rename("/d/a", to: "/d/b")
        io.capture("renamed")
        try io.syncDirectory(at: "/d")
        io.capture("synced")
        let (renamed, synced) = (io.captures[0].model, io.captures[1].model)
        #expect(FaultyFileIO.crashImage(of: renamed, fates: { _ in .persisted }).allPaths == ["/d/a"])
        #expect(
            FaultyFileIO.crashImage(of: renamed, fates: { _ in .persisted }, keepDirectoryChanges: true).allPaths == [
                "/d/b"
            ])
        #expect(FaultyFileIO.crashImage(of: synced, fates: { _ in .persisted }).allPaths == ["/d/b"])
    }

    @Test("an injected short write keeps its prefix and reports the bytes written")
    func shortWrite() throws {
        let io = FaultyFileIO()
        let file = try io.createExclusive(at: "/d/f")
        io.inject(.write, onCall: 1, errno: ENOSPC, shortWriteBytes: 2)
        let error = #expect(throws: FileIOError.self) { try io.write(file, [1, 2, 3, 4], at: 0) }
        #expect(error?.errno == ENOSPC && error?.bytesTransferred == 2)
        #expect(io.contents(of: "/d/f") == [1, 2])
        try io.write(file, [9], at: 2)  // transient: the next call succeeds
        #expect(io.contents(of: "/d/f") == [1, 2, 9])
    }

    @Test("a failed sync leaves the writes unsynced")
    func failedSync() throws {
        let io = FaultyFileIO()
        let file = try io.createExclusive(at: "/d/f")
        try io.syncDirectory(at: "/d")
        try io.write(file, [1], at: 0)
        io.inject(.sync, onCall: 1)
        #expect(throws: FileIOError.self) { try io.syncData(file) }
        io.capture("after failed sync")
        #expect(FaultyFileIO.crashImage(of: io.captures[0].model, fates: { _ in .dropped }).contents(of: "/d/f") == [])
    }
}
