import Foundation
import ShoalTestSupport

@testable import Shoal

/// Small databases for the recovery API tests, written through the public API.
enum RecoveryFixture {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/v1")

    /// A database of notes: version 1 the schema, 2 creates notes 1–3, then
    /// 3: note 1 retitled, 4: note 4 created, 5: note 4 retitled, 6: note 2 retitled.
    static func notes() throws -> URL {
        let url = temporaryDatabaseURL("notes")
        let realm = try Realm(configuration: fileConfiguration(url, types: [Note.self]))
        try realm.write { for id in 1...3 { realm.create(Note.self, value: ["id": id, "title": "note \(id)"]) } }
        try realm.write { realm.object(ofType: Note.self, forPrimaryKey: 1)!.title = "one" }
        try realm.write { realm.create(Note.self, value: ["id": 4, "title": "note 4"]) }
        try realm.write { realm.object(ofType: Note.self, forPrimaryKey: 4)!.title = "four" }
        try realm.write { realm.object(ofType: Note.self, forPrimaryKey: 2)!.title = "two" }
        return url
    }

    /// Flips a payload bit of the record of `version` in the database's only segment.
    static func damage(version: UInt64, in url: URL) throws {
        let source = try RecoverySource.load(path: url.path, ignoringLock: true)
        let segment = try require(source.segments.first)
        let offset = try require(segment.events.lazy.compactMap { event -> Int64? in
            if case .record(let record, let offset, _) = event, record.version == version { return offset }
            return nil
        }.first)
        let file = url.appendingPathComponent(segment.name)
        var bytes = try Data(contentsOf: file)
        bytes[Int(offset) + 38] ^= 0x04
        try bytes.write(to: file)
    }

    static func copy(_ scenario: String) throws -> URL {
        let copy = temporaryDatabaseURL(scenario)
        try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("\(scenario).shoal"), to: copy)
        return copy
    }

    static func titles(_ url: URL) throws -> [Int: String] {
        let realm = try Realm(configuration: fileConfiguration(url, types: [Note.self]))
        return Dictionary(uniqueKeysWithValues: realm.objects(Note.self).map { ($0.id, $0.title) })
    }
}

private struct Missing: Error {}

private func require<T>(_ value: T?) throws -> T {
    guard let value else { throw Missing() }
    return value
}
