import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// Each fixture of each format version (Fixtures/v1 to Fixtures/v4, written
/// by earlier builds and kept; Fixtures/v5, made by `bash Fixtures/generate.sh`) opens
/// the way its scenario says. Fixtures are copied first: opening repairs a
/// torn tail in place.
@Suite struct FixtureTests {
    static let versions = ["v1", "v2", "v3", "v4", "v5"]

    static func fixtures(_ version: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/\(version)")
    }

    static func openCopy(_ name: String, _ version: String, types: [Object.Type] = [Person.self, Dog.self, Kennel.self, Puppy.self, AllTypes.self, Note.self]) throws -> Realm {
        let copy = temporaryDatabaseURL(name)
        try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: fixtures(version).appendingPathComponent("\(name).shoal"), to: copy)
        return try Realm(configuration: fileConfiguration(copy, types: types))
    }

    @Test("the valid fixture holds every class and property type", arguments: versions)
    func valid(version: String) throws {
        let realm = try Self.openCopy("valid", version)
        #expect(realm.objects(Dog.self).count == 6)
        #expect(realm.objects(Note.self).count == 6)
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 3)?.name == "renamed")
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 4) == nil)
        let all = try #require(realm.objects(AllTypes.self).first)
        #expect(all.string == "héllo" && all.int64 == .max && all.size == .large && all.decimal == Decimal128(stringLiteral: "12.345"))
        #expect(all.link?.name == "linked" && Array(all.ints) == [1, 2, 3] && all.doubles["pi"] == 3.14)
        #expect(realm.objects(Puppy.self).first?.kennels.first?.name == "North")
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 1)?.owners.first?.name == "Bob")
    }

    @Test("the torn-tail fixture opens with every complete transaction: the last one is gone", arguments: versions)
    func tornTail(version: String) throws {
        let realm = try Self.openCopy("torn-tail", version)
        #expect(realm.objects(Note.self).count == 5)
        #expect(realm.objects(Dog.self).count == 6)
    }

    @Test("the zero-tail fixture opens with every transaction", arguments: versions)
    func zeroTail(version: String) throws {
        let realm = try Self.openCopy("zero-tail", version)
        #expect(realm.objects(Note.self).count == 6)
    }

    @Test("the flipped-bit fixture refuses to open, naming the file, offset and version, and the recovery tool", arguments: versions)
    func flippedBit(version: String) throws {
        let error = #expect(throws: ShoalError.self) { _ = try Self.openCopy("flipped-bit", version) }
        #expect(error?.code == .corruptRecord)
        #expect(error?.context["offset"] != nil && error?.context["version"] != nil)
        #expect(error?.context["path"]?.hasSuffix("log-0000000000000000.wal") == true)
        #expect(error?.message.contains("shoal") == true)
    }

    @Test("the missing-snapshot fixture refuses to open, naming the missing versions", arguments: versions)
    func missingSnapshot(version: String) throws {
        let error = #expect(throws: ShoalError.self) { _ = try Self.openCopy("missing-snapshot", version) }
        #expect(error?.code == .missingVersions)
        #expect(error?.context["from"] == "1")
    }

    @Test("the migration fixture holds the migrated data and the commit after it; opening with the old schema is refused", arguments: versions)
    func migration(version: String) throws {
        var config = fileConfiguration(temporaryDatabaseURL("migration"), types: [PetV2.self])
        try FileManager.default.createDirectory(at: config.fileURL!.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.fixtures(version).appendingPathComponent("migration.shoal"), to: config.fileURL!)
        config.schemaVersion = 2
        let realm = try Realm(configuration: config)
        #expect(realm.objects(PetV2.self).map(\.name) == ["Rex", "Kit", "Pip"])
        #expect(realm.object(ofType: PetV2.self, forPrimaryKey: 1)?.age == 2)
        #expect(realm.object(ofType: PetV2.self, forPrimaryKey: 2)?.friend?.name == "Rex")
        let error = #expect(throws: ShoalError.self) { _ = try Self.openCopy("migration", version, types: [PetV1.self]) }
        #expect(error?.code == .schemaMismatch)
    }

    @Test("a version 1 snapshot (the migration fixture's) loads; compacting it writes a current-version snapshot that reopens to the same state")
    func snapshotUpgrade() throws {
        var config = fileConfiguration(temporaryDatabaseURL("migration"), types: [PetV2.self])
        let url = try #require(config.fileURL)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.fixtures("v1").appendingPathComponent("migration.shoal"), to: url)
        config.schemaVersion = 2
        func snapshotFormatVersions() throws -> [UInt16] {
            try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".snap") }
                .map { try SnapshotFile.read(at: url.appendingPathComponent($0).path, io: PosixFileIO()).header.formatVersion }
        }
        #expect(try snapshotFormatVersions() == [1])
        let before: Snapshot = try {
            let realm = try Realm(configuration: config)
            try realm.compact()
            return realm.instance.coordinator.latest
        }()
        #expect(try snapshotFormatVersions() == [LogFormat.version])
        let realm = try Realm(configuration: config)
        #expect(realm.instance.coordinator.latest.hasSameContents(as: before))
        #expect(realm.objects(PetV2.self).map(\.name) == ["Rex", "Kit", "Pip"])
    }

    @Test("the schema-change fixture replays its schema records and opens with the later schema", arguments: versions)
    func schemaChange(version: String) throws {
        let realm = try Self.openCopy("schema-change", version, types: [Person.self, Dog.self])
        #expect(realm.objects(Person.self).first?.dogs.first?.name == "Rex")
        let error = #expect(throws: ShoalError.self) { _ = try Self.openCopy("schema-change", version) }
        #expect(error?.code == .schemaMismatch)
    }

    @Test("the bulk fixture (versions 2 to 5): a compacted bulk insert and one more in the log open with every object, link and index",
        arguments: ["v2", "v3", "v4", "v5"])
    func bulk(version: String) throws {
        let realm = try Self.openCopy("bulk", version)
        #expect(realm.objects(Person.self).count == 100)
        #expect(realm.objects(Dog.self).count == 1_000)
        #expect(realm.object(ofType: Person.self, forPrimaryKey: 73)?.ownedDogs.map(\.id) == Array(730..<740))
        #expect(realm.objects(Dog.self).filter("age == 3").count == 1_000 / 16 + 1)
        #expect(realm.objects(Dog.self).filter("id BETWEEN {495, 504}").map(\.owner?.id) == [49, 49, 49, 49, 49, 50, 50, 50, 50, 50])
        #expect(realm.instance.current.invariantViolation() == nil)
        // Version 5's snapshot keeps the names dictionary-encoded, and the
        // log's runs after it are coded into the same dictionary.
        let dogs = try #require(realm.instance.current.schema.tableByName["Dog"])
        let name = try #require(realm.instance.current.schema[dogs].indexByName["name"])
        #expect((realm.instance.current.tables[dogs.index].scalars[name].kind == .codedString) == (version == "v5"))
        // Both halves hold insert runs: the compacted snapshot and the log after it.
        let url = Self.fixtures(version).appendingPathComponent("bulk.shoal")
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        #expect(names.contains { $0.hasSuffix(".snap") } && names.contains { $0.hasSuffix(".wal") })
        let source = try RecoverySource.load(path: url.path, ignoringLock: true)
        let schema = realm.instance.current.schema
        var runs = 0
        for case .record(let record, _, _) in source.segments.flatMap(\.events) where record.type == .transaction {
            try ChangeRecordCodec.forEachChange(in: record.payload, schema: schema, op: { _ in true }) { _ in
                runs += 1
                return true
            }
        }
        #expect(runs >= 2)
    }

    @Test("the embedded fixture (versions 3 to 5): embedded objects in a link, a List and a Map, compacted and changed after, open as written",
        arguments: ["v3", "v4", "v5"])
    func embedded(version: String) throws {
        let realm = try Self.openCopy("embedded", version, types: [Contact.self, Address.self, Coordinates.self])
        #expect(realm.schema["Address"]?.isEmbedded == true && realm.schema["Coordinates"]?.isEmbedded == true)
        #expect(realm.objects(Contact.self).map(\.id) == [1, 2])
        let ann = try #require(realm.object(ofType: Contact.self, forPrimaryKey: 1))
        #expect(ann.home?.street == "Main 2" && ann.home?.position?.latitude == 59.92)
        #expect(ann.previous.map(\.city) == ["Lima"] && ann.byLabel["work"]??.city == "Rome")
        #expect(ann.home?.residents.map(\.id) == [1])
        // The replaced address, its coordinates and the deleted contact's two addresses are gone.
        let snapshot = realm.instance.current
        #expect(snapshot.tables[snapshot.schema.tableByName["Address"]!.index].count == 4)
        #expect(snapshot.tables[snapshot.schema.tableByName["Coordinates"]!.index].count == 1)
        #expect(snapshot.invariantViolation() == nil)
        #expect(realm.objects(Contact.self).filter("home.city == 'Oslo' AND ANY previous.city == 'Lima'").map(\.id) == [1])
    }
}
