import Foundation
import Glibc
import ShoalTestSupport
import Testing
@testable import Shoal

/// What Shoal does with the files and the directory of a database: which
/// it deletes, where it refuses to open, how it keeps a second process out,
/// and what its file errors say.
@Suite struct DatabaseFilesTests {
    static func names(_ url: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }

    static func dogCount(_ config: Realm.Configuration) throws -> Int {
        try Realm(configuration: config).objects(Dog.self).count
    }

    // MARK: Another process holding the database

    @Test("deleteFiles refuses with alreadyOpen while another process holds the database, and every commit it acknowledged stays")
    func deleteFilesWhileAnotherProcessHoldsIt() throws {
        let url = temporaryDatabaseURL()
        let config = fileConfiguration(url)
        let worker = try RunningWorker(path: url.path)
        let error = #expect(throws: ShoalError.self) { try Realm.deleteFiles(for: config) }
        #expect(error?.code == .alreadyOpen)
        #expect(error?.message.contains(url.path) == true)
        let acknowledged = worker.stop()
        #expect(acknowledged >= 1)
        #expect(try Self.dogCount(config) >= acknowledged)
    }

    @Test("with its LOCK file deleted, a database held by another process still refuses a second writer and the recovery tool's read")
    func lockSurvivesTheLockFilesDeletion() throws {
        let url = temporaryDatabaseURL()
        let config = fileConfiguration(url)
        let worker = try RunningWorker(path: url.path)
        try FileManager.default.removeItem(at: url.appendingPathComponent("LOCK"))
        let error = #expect(throws: ShoalError.self) { _ = try Realm(configuration: config) }
        #expect(error?.code == .alreadyOpen)
        let inspect = #expect(throws: ShoalError.self) { _ = try LogInspector(path: url.path) }
        #expect(inspect?.code == .alreadyOpen)
        let delete = #expect(throws: ShoalError.self) { try Realm.deleteFiles(for: config) }
        #expect(delete?.code == .alreadyOpen)
        let acknowledged = worker.stop()
        let realm = try Realm(configuration: config)
        #expect(realm.objects(Dog.self).count >= acknowledged)
        #expect(realm.instance.coordinator.latest.invariantViolation() == nil)
    }

    @Test("two opens through the log layer in one process: the second is refused after LOCK is deleted, and once the first closes it opens")
    func logLayerLockWithoutLockFile() throws {
        let directory = temporaryDatabaseURL().path
        let schema = Schema([ClassRegistry.info(for: Note.self).schema])
        let first = try DatabaseLog.open(directory: directory, schema: schema, durability: .none, io: PosixFileIO())
        try FileManager.default.removeItem(atPath: joinPath(directory, "LOCK"))
        let error = #expect(throws: ShoalError.self) {
            _ = try DatabaseLog.open(directory: directory, schema: schema, durability: .none, io: PosixFileIO())
        }
        #expect(error?.code == .alreadyOpen)
        first.log.close()
        let second = try DatabaseLog.open(directory: directory, schema: schema, durability: .none, io: PosixFileIO())
        second.log.close()
    }

    // MARK: What deleteFiles deletes

    @Test("deleteFiles deletes Shoal's files and keeps the others and their directory; the directory goes only when empty")
    func deleteFilesKeepsOtherFiles() throws {
        let url = temporaryDatabaseURL()
        let config = fileConfiguration(url)
        try PersistenceTests.withRealm(config) { realm in
            try realm.write { realm.create(Dog.self, value: ["id": 1]) }
            try realm.compact()
            try realm.write { realm.create(Dog.self, value: ["id": 2]) }
        }
        try Data("mine".utf8).write(to: url.appendingPathComponent("notes.txt"))
        try Data("mine too".utf8).write(to: url.appendingPathComponent("draft.tmp"))
        try FileManager.default.createDirectory(at: url.appendingPathComponent("attachments"), withIntermediateDirectories: false)
        #expect(Self.names(url).contains { $0.hasSuffix(".snap") } && Self.names(url).contains { $0.hasSuffix(".wal") })

        #expect(try Realm.deleteFiles(for: config))
        #expect(Self.names(url) == ["attachments", "draft.tmp", "notes.txt"])
        #expect(try Data(contentsOf: url.appendingPathComponent("notes.txt")) == Data("mine".utf8))
        // Nothing of Shoal's is left: nothing to delete, and the directory stays.
        #expect(try !Realm.deleteFiles(for: config))
        #expect(Self.names(url) == ["attachments", "draft.tmp", "notes.txt"])

        // A database alone in its directory goes with it.
        let alone = temporaryDatabaseURL()
        try PersistenceTests.withRealm(fileConfiguration(alone)) { realm in try realm.write { realm.create(Dog.self, value: ["id": 1]) } }
        #expect(try Realm.deleteFiles(for: fileConfiguration(alone)))
        #expect(!FileManager.default.fileExists(atPath: alone.path))
        #expect(try !Realm.deleteFiles(for: fileConfiguration(alone)))
    }

    @Test("deleteFiles on a directory that never held a database, or on a file, deletes nothing and returns false")
    func deleteFilesOfSomethingElse() throws {
        let url = temporaryDatabaseURL()
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: url.appendingPathComponent("notes.txt"))
        #expect(try !Realm.deleteFiles(for: fileConfiguration(url)))
        #expect(Self.names(url) == ["notes.txt"])

        let file = temporaryDatabaseURL()
        try Data("a file".utf8).write(to: file)
        #expect(try !Realm.deleteFiles(for: fileConfiguration(file)))
        #expect(try Data(contentsOf: file) == Data("a file".utf8))
    }

    @Test("opening a database in a directory of other files is refused with notAShoalFile, writing nothing there; an empty directory opens")
    func openingInADirectoryOfOtherFiles() throws {
        let url = temporaryDatabaseURL()
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: url.appendingPathComponent("notes.txt"))
        let error = #expect(throws: ShoalError.self) { _ = try Realm(configuration: fileConfiguration(url)) }
        #expect(error?.code == .notAShoalFile)
        #expect(error?.message.contains(url.path) == true && error?.message.contains("'notes.txt'") == true)
        #expect(Self.names(url) == ["notes.txt"])

        let empty = temporaryDatabaseURL()
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: false)
        try PersistenceTests.withRealm(fileConfiguration(empty)) { realm in try realm.write { realm.create(Dog.self, value: ["id": 1]) } }
        // A database with files of someone else's beside it still opens, and
        // keeps them (a `.tmp` file included: only Shoal's own are cleared).
        try Data("mine".utf8).write(to: empty.appendingPathComponent("notes.txt"))
        try Data("mine".utf8).write(to: empty.appendingPathComponent("draft.tmp"))
        #expect(try Self.dogCount(fileConfiguration(empty)) == 1)
        #expect(Self.names(empty).contains("notes.txt") && Self.names(empty).contains("draft.tmp"))
    }

    // MARK: Path errors

    @Test("a path that is a file is notAShoalFile, naming it and EEXIST, not alreadyOpen")
    func pathIsAFile() throws {
        let url = temporaryDatabaseURL()
        try Data("a file".utf8).write(to: url)
        let error = #expect(throws: ShoalError.self) { _ = try Realm(configuration: fileConfiguration(url)) }
        #expect(error?.code == .notAShoalFile)
        #expect(error?.message.contains(url.path) == true && error?.message.contains("EEXIST (File exists)") == true)
        #expect(try Data(contentsOf: url) == Data("a file".utf8))
        // A file on the way to it: the path's directory does not exist.
        let below = url.appendingPathComponent("db.realm")
        #expect((#expect(throws: ShoalError.self) { _ = try Realm(configuration: fileConfiguration(below)) })?.code == .fileNotFound)
    }

    @Test("a symbolic-link loop is fileAccess naming the path and ELOOP, not alreadyOpen")
    func symbolicLinkLoop() throws {
        let url = temporaryDatabaseURL()
        let other = url.deletingLastPathComponent().appendingPathComponent("other.realm")
        try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: other.path)
        try FileManager.default.createSymbolicLink(atPath: other.path, withDestinationPath: url.path)
        let error = #expect(throws: ShoalError.self) { _ = try Realm(configuration: fileConfiguration(url)) }
        #expect(error?.code == .fileAccess)
        #expect(error?.message.contains(url.path) == true)
        #expect(error?.message.contains("ELOOP (Too many levels of symbolic links)") == true)
    }

    @Test("permission denied and a read-only file system are filePermissionDenied, naming the file and the errno")
    func permissionErrors() throws {
        let schema = Schema([ClassRegistry.info(for: Note.self).schema])
        for (call, code, name) in [(1, EACCES, "EACCES (Permission denied)"), (2, EROFS, "EROFS (Read-only file system)")] {
            let io = FaultyFileIO()
            io.inject(.lock, onCall: call, errno: code)
            let error = #expect(throws: ShoalError.self) { _ = try DatabaseLog.open(directory: "/db", schema: schema, durability: .none, io: io) }
            #expect(error?.code == .filePermissionDenied)
            #expect(error?.message.contains(call == 1 ? "'/db'" : "'/db/LOCK'") == true)
            #expect(error?.message.contains(name) == true, "\(error?.message ?? "")")
            #expect(error?.context["errno"] == String(code))
        }
    }

    @Test("one database through a symbolic link, a/../b and its real path is one store in this process")
    func symlinkedPathIsTheSameDatabase() throws {
        let url = temporaryDatabaseURL()
        let parent = url.deletingLastPathComponent()
        let realm = try Realm(configuration: fileConfiguration(url))
        try realm.write { realm.create(Dog.self, value: ["id": 1]) }
        let link = parent.appendingPathComponent("link.realm")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: url.path)
        let linkedParent = parent.deletingLastPathComponent().appendingPathComponent(parent.lastPathComponent + "-link")
        try FileManager.default.createSymbolicLink(atPath: linkedParent.path, withDestinationPath: parent.path)
        defer { try? FileManager.default.removeItem(at: linkedParent) }
        // Through a linked parent, `..` names the real parent's parent; spelled out, not standardized away.
        let dotDot = URL(fileURLWithPath: linkedParent.path + "/sub/../" + url.lastPathComponent)
        try FileManager.default.createDirectory(at: parent.appendingPathComponent("sub"), withIntermediateDirectories: false)
        for alias in [link, dotDot, URL(fileURLWithPath: linkedParent.path).appendingPathComponent(url.lastPathComponent)] {
            let other = try Realm(configuration: fileConfiguration(alias))
            #expect(other.instance.coordinator === realm.instance.coordinator, "\(alias.path)")
            #expect(other.objects(Dog.self).count == 1)
            #expect((#expect(throws: ShoalError.self) { try Realm.deleteFiles(for: fileConfiguration(alias)) })?.code == .alreadyOpen)
        }
    }
}
