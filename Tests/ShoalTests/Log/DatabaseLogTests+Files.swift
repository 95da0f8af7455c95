import Foundation
import Glibc
import ShoalTestSupport
import Testing

@testable import Shoal

/// The names Shoal owns in a database directory, the directory lock, and
/// what a failure to create a database or a segment says.
@Suite struct DatabaseLogFilesTests {
    static let schema = Schema([ClassRegistry.info(for: Note.self).schema])

    @Test("Shoal's file names are its segments, snapshots, their temporaries, kept tails and LOCK; nothing else")
    func shoalFileNames() throws {
        let ours = [
            "log-0000000000000000.wal", "snapshot-000000000000002a.snap", "log-0000000000000010.wal.tmp",
            "snapshot-0000000000000010.snap.tmp", "log-0000000000000000.tail-40.corrupt", "LOCK",
        ]
        let others = [
            "notes.txt", "draft.tmp", "log-0000000000000000.wal.bak", "lock", "log-0000000000000000.tail-.corrupt",
            "log-00000000000000.tail-40.corrupt", "x.corrupt", "log-0000000000000000.tail-4G.corrupt",
        ]
        for name in ours { #expect(LogFormat.isShoalFileName(name), "\(name)") }
        for name in others { #expect(!LogFormat.isShoalFileName(name), "\(name)") }
        let listing = LogDirectory(path: "/db", names: ours + others)
        #expect(listing.temporaryFiles == ["log-0000000000000010.wal.tmp", "snapshot-0000000000000010.snap.tmp"])
        #expect(listing.otherFiles == others.sorted())
        #expect(listing.shoalFiles == ours.sorted())
        #expect(listing.holdsDatabase && !LogDirectory(path: "/db", names: ["LOCK", "notes.txt"]).holdsDatabase)
    }

    @Test("an ENOSPC while creating a database says it could not be created and names the segment, not its temporary name")
    func noSpaceWhileCreating() throws {
        let io = FaultyFileIO()
        io.inject(.write, onCall: 1, errno: ENOSPC)
        let error = #expect(throws: ShoalError.self) {
            _ = try DatabaseLog.open(directory: "/db", schema: Self.schema, durability: .durable, io: io)
        }
        let message = error?.message ?? ""
        #expect(error?.code == .logWriteFailed)
        #expect(message.contains("The database at '/db' could not be created"), "\(message)")
        #expect(message.contains("/db/log-0000000000000000.wal: ENOSPC (No space left on device)"), "\(message)")
        #expect(!message.contains(".tmp") && !message.contains("transaction"), "\(message)")
        #expect(error?.context["reason"] == "noSpace")
        // The schema record's append is part of creating the database too.
        let later = FaultyFileIO()
        later.inject(.write, onCall: 2, errno: ENOSPC)
        let appendError = #expect(throws: ShoalError.self) {
            _ = try DatabaseLog.open(directory: "/db", schema: Self.schema, durability: .durable, io: later)
        }
        #expect(appendError?.message.contains("could not be created") == true)
        #expect(appendError?.message.contains("transaction") == false, "\(appendError?.message ?? "")")
        // Space back: it opens.
        later.clearFaults()
        try DatabaseLog.open(directory: "/db", schema: Self.schema, durability: .durable, io: later).log.close()
    }

    @Test("an ENOSPC making a new segment (a roll) names the segment by its real name")
    func noSpaceWhileRolling() throws {
        let io = FaultyFileIO()
        let opened = try DatabaseLog.open(directory: "/db", schema: Self.schema, durability: .durable, io: io)
        defer { opened.log.close() }
        io.inject(.write, onCall: io.callCount(.write) + 1, errno: ENOSPC)
        let error = #expect(throws: ShoalError.self) {
            _ = try LogWriter.create(directory: "/db", baseVersion: 7, schemaFingerprint: 1, io: io)
        }
        #expect(error?.code == .logWriteFailed && error?.context["path"] == "/db/log-0000000000000007.wal")
        #expect(error?.message.contains("/db/log-0000000000000007.wal:") == true && error?.message.contains(".tmp") == false)
        #expect(io.allPaths.allSatisfy { !$0.hasSuffix(".tmp") })
    }

    @Test("deleteFiles through the log layer: refused while the lock is held, then only Shoal's files go")
    func deleteFilesThroughTheSeam() throws {
        let io = FaultyFileIO()
        let opened = try DatabaseLog.open(directory: "/db", schema: Self.schema, durability: .durable, io: io)
        io.setContents(of: "/db/notes.txt", Array("mine".utf8))
        let error = #expect(throws: ShoalError.self) { _ = try DatabaseLog.deleteFiles(directory: "/db", io: io) }
        #expect(error?.code == .alreadyOpen)
        #expect(io.allPaths.contains("/db/log-0000000000000000.wal"))
        opened.log.close()
        #expect(try DatabaseLog.deleteFiles(directory: "/db", io: io))
        #expect(io.allPaths == ["/db/notes.txt"])
        #expect(try !DatabaseLog.deleteFiles(directory: "/db", io: io))
    }
}
