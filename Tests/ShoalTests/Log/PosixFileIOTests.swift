import Dispatch
import Foundation
import Glibc
import Testing

@testable import Shoal

/// The real file system, in a fresh temporary directory per test.
@Suite struct PosixFileIOTests {
    let io = PosixFileIO()

    static func withTemporaryDirectory(_ body: (String) throws -> Void) throws {
        var template = Array("/tmp/shoal-log-test-XXXXXX".utf8CString)
        let directory = try #require(
            template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
        defer {
            for name in (try? PosixFileIO().listDirectory(at: directory)) ?? [] { unlink(joinPath(directory, name)) }
            rmdir(directory)
        }
        try body(directory)
    }

    @Test("create is exclusive, and written bytes read back at their offsets")
    func createWriteRead() throws {
        try Self.withTemporaryDirectory { directory in
            let path = joinPath(directory, "f")
            let file = try io.createExclusive(at: path)
            defer { io.close(file) }
            #expect(throws: FileIOError.self) { try io.createExclusive(at: path) }
            try io.write(file, Array("hello world".utf8), at: 0)
            try io.write(file, Array("W".utf8), at: 6)
            try io.syncData(file)
            #expect(try io.read(file, count: 100, at: 0) == Array("hello World".utf8))
            #expect(try io.size(of: file) == 11)
            try io.truncate(file, to: 5)
            #expect(try io.readWholeFile(at: path) == Array("hello".utf8))
        }
    }

    @Test("rename, directory sync, listing and unlink work on real files")
    func directoryOperations() throws {
        try Self.withTemporaryDirectory { directory in
            let file = try io.createExclusive(at: joinPath(directory, "a.tmp"))
            io.close(file)
            try io.rename(joinPath(directory, "a.tmp"), to: joinPath(directory, "a"))
            try io.syncDirectory(at: directory)
            #expect(try io.listDirectory(at: directory) == ["a"])
            try io.unlink(at: joinPath(directory, "a"))
            #expect(try io.listDirectory(at: directory).isEmpty)
            let error = #expect(throws: FileIOError.self) { try io.open(at: joinPath(directory, "a"), mode: .readOnly) }
            #expect(error?.errno == ENOENT)
        }
    }

    @Test("a second exclusive lock on the same file fails with EWOULDBLOCK until the first is closed")
    func lock() throws {
        try Self.withTemporaryDirectory { directory in
            let path = joinPath(directory, "LOCK")
            let first = try io.lockExclusive(at: path)
            let error = #expect(throws: FileIOError.self) { try io.lockExclusive(at: path) }
            #expect(error?.errno == EWOULDBLOCK)
            io.close(first)
            io.close(try io.lockExclusive(at: path))
        }
    }

    @Test("a busy lock is waited for briefly (a spawning child holds it until exec), then refused")
    func lockPatience() throws {
        try Self.withTemporaryDirectory { directory in
            let path = joinPath(directory, "LOCK")
            // Released 100 ms later, within the patience: taken.
            let first = try io.lockExclusive(at: path)
            let start = DispatchTime.now().uptimeNanoseconds
            let releaser = Thread {
                usleep(100_000)
                PosixFileIO().close(first)
            }
            releaser.start()
            let second = try io.lockExclusive(at: path)
            #expect(DispatchTime.now().uptimeNanoseconds - start >= 90_000_000)
            // Kept: refused after the patience, not at once.
            let refusedAt = DispatchTime.now().uptimeNanoseconds
            let error = #expect(throws: FileIOError.self) { try io.lockExclusive(at: path) }
            #expect(error?.errno == EWOULDBLOCK)
            #expect(DispatchTime.now().uptimeNanoseconds - refusedAt >= PosixFileIO.lockPatience)
            io.close(second)
        }
    }

    @Test("a log written and a snapshot saved on disk read back through the real file system")
    func endToEnd() throws {
        try Self.withTemporaryDirectory { directory in
            let writer = try LogWriter.create(directory: directory, baseVersion: 0, schemaFingerprint: 1, io: io)
            let records = (1...3).map { LogFixture.record($0, $0 == 2 ? .incompressible : .compressible) }
            for record in records { try writer.append(record) }
            try writer.close()
            let reader = try LogReader(path: writer.path, io: io)
            var replayed: [LogRecord] = []
            let result = reader.replay { replayed.append($0) }
            #expect(replayed == records && result.ending == .clean)
            let snapshot = try SnapshotFile.write(
                Array(repeating: 7, count: 3000), version: 3, schemaFingerprint: 1, directory: directory, io: io)
            #expect(try SnapshotFile.read(at: snapshot, io: io).payload == Array(repeating: 7, count: 3000))
            #expect(Set(try io.listDirectory(at: directory)) == [fileName(of: writer.path), fileName(of: snapshot)])
        }
    }
}

extension PosixFileIOTests {
    @Test("a directory's lock is exclusive, survives the removal of every file in it, and fails with ENOENT once the directory is replaced")
    func directoryLock() throws {
        try Self.withTemporaryDirectory { directory in
            let database = joinPath(directory, "db")
            try io.createDirectory(at: database)
            let first = try io.lockDirectory(at: database)
            let busy = #expect(throws: FileIOError.self) {
                try PosixFileIO.lockDirectory(at: database, operation: LOCK_EX, patience: 0)
            }
            #expect(busy?.errno == EWOULDBLOCK)
            #expect((#expect(throws: FileIOError.self) {
                try PosixFileIO.lockDirectory(at: database, operation: LOCK_SH, patience: 0)
            })?.errno == EWOULDBLOCK)
            // A file of it deleted: still locked.
            io.close(try io.lockExclusive(at: joinPath(database, "LOCK")))
            try io.unlink(at: joinPath(database, "LOCK"))
            #expect((#expect(throws: FileIOError.self) {
                try PosixFileIO.lockDirectory(at: database, operation: LOCK_EX, patience: 0)
            })?.errno == EWOULDBLOCK)
            // Removed while a second locker waits: that one gets ENOENT, not
            // a lock on a directory that is gone.
            let waited = Locked<FileIOError?>(nil)
            let done = DispatchSemaphore(value: 0)
            Thread {
                do throws(FileIOError) { PosixFileIO().close(try PosixFileIO().lockDirectory(at: database)) } catch {
                    waited.withLock { $0 = error }
                }
                done.signal()
            }.start()
            usleep(50_000)
            try io.removeDirectory(at: database)
            io.close(first)
            done.wait()
            #expect(waited.withLock { $0?.errno } == ENOENT)
            // Made again: another directory, with a lock of its own.
            try io.createDirectory(at: database)
            io.close(try io.lockDirectory(at: database))
            try io.removeDirectory(at: database)
        }
    }

    @Test("createDirectory refuses a name that is a file (EEXIST) or a symbolic-link loop (ELOOP); removeDirectory refuses a non-empty one")
    func createDirectoryOverSomethingElse() throws {
        try Self.withTemporaryDirectory { directory in
            let file = joinPath(directory, "file")
            io.close(try io.createExclusive(at: file))
            #expect((#expect(throws: FileIOError.self) { try io.createDirectory(at: file) })?.errno == EEXIST)
            #expect((#expect(throws: FileIOError.self) { try io.createDirectory(at: joinPath(file, "db")) })?.errno == EEXIST)
            let loop = joinPath(directory, "loop")
            #expect(symlink(loop, loop) == 0)
            #expect((#expect(throws: FileIOError.self) { try io.createDirectory(at: loop) })?.errno == ELOOP)
            let full = joinPath(directory, "full")
            try io.createDirectory(at: full)
            io.close(try io.createExclusive(at: joinPath(full, "x")))
            #expect((#expect(throws: FileIOError.self) { try io.removeDirectory(at: full) })?.errno == ENOTEMPTY)
            try io.unlink(at: joinPath(full, "x"))
            try io.removeDirectory(at: full)
            try io.unlink(at: loop)
        }
    }
}
