import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

@Suite struct MigrationTests {
    static func config(_ url: URL, _ type: Object.Type, version: UInt64, block: MigrationBlock? = nil) -> Realm.Configuration {
        var config = Realm.Configuration(fileURL: url)
        config.objectTypes = [type]
        config.schemaVersion = version
        config.migrationBlock = block
        return config
    }

    static func seed(_ url: URL) throws {
        let realm = try Realm(configuration: config(url, PetV1.self, version: 1))
        try realm.write {
            let a = realm.create(PetV1.self, value: ["id": 1, "nickname": "Rex", "ageInMonths": 30, "toys": ["ball"]])
            realm.create(PetV1.self, value: ["id": 2, "nickname": "Kit", "ageInMonths": 14, "friend": a])
            realm.create(PetV1.self, value: ["id": 3, "nickname": "Gone", "ageInMonths": 1])
        }
        try realm.write { realm.delete(realm.object(ofType: PetV1.self, forPrimaryKey: 3)!) }
    }

    @Test("a migration block renames, computes and defaults properties; links, lists and keys survive; the result is durable")
    func migrate() throws {
        let url = temporaryDatabaseURL()
        try Self.seed(url)
        let seen = Locked<[UInt64]>([])
        let config = Self.config(url, PetV2.self, version: 2) { migration, oldVersion in
            seen.withLock { $0.append(oldVersion) }
            migration.renameProperty(onType: "Pet", from: "nickname", to: "name")
            migration.enumerateObjects(ofType: "Pet") { old, new in
                new?["age"] = (old?["ageInMonths"] as? Int ?? 0) / 12
            }
            let pup = migration.create("Pet", value: ["id": 9, "name": "Pup"])
            migration.enumerateObjects(ofType: "Pet") { old, new in
                if old?["id"] as? Int == 1 { new?["friend"] = pup }
            }
        }
        for _ in 0..<2 {
            let realm = try Realm(configuration: config)
            let rex = try #require(realm.object(ofType: PetV2.self, forPrimaryKey: 1))
            #expect(rex.name == "Rex" && rex.age == 2 && rex.colour == "brown" && Array(rex.toys) == ["ball"])
            #expect(rex.friend?.name == "Pup")
            let kit = try #require(realm.object(ofType: PetV2.self, forPrimaryKey: 2))
            #expect(kit.name == "Kit" && kit.age == 1 && kit.friend?.id == 1)
            #expect(realm.objects(PetV2.self).count == 3)
            #expect(realm.instance.coordinator.latest.invariantViolation() == nil)
        }
        #expect(seen.withLock { $0 } == [1])
        let files = try FileManager.default.contentsOfDirectory(atPath: url.path)
        #expect(files.filter { $0.hasSuffix(".snap") }.count == 1)
    }

    @Test("without a higher schemaVersion a changed schema is refused, naming the differences and the way out")
    func mismatchWithoutVersionBump() throws {
        let url = temporaryDatabaseURL()
        try Self.seed(url)
        let error = #expect(throws: ShoalError.self) { _ = try Realm(configuration: Self.config(url, PetV2.self, version: 1)) }
        #expect(error?.code == .schemaMismatch)
        #expect(error?.message.contains("Property 'Pet.colour' was added.") == true)
        #expect(error?.message.contains("schemaVersion") == true)
        let lower = #expect(throws: ShoalError.self) { _ = try Realm(configuration: Self.config(url, PetV1.self, version: 0)) }
        #expect(lower?.message.contains("less than last set version 1") == true)
    }

    @Test("a version bump without a block migrates by name with defaults, and deleteData drops a class's objects")
    func automaticMigration() throws {
        let url = temporaryDatabaseURL()
        try Self.seed(url)
        let realm = try Realm(configuration: Self.config(url, PetV2.self, version: 2))
        #expect(realm.objects(PetV2.self).map(\.name) == ["", ""])
        #expect(realm.objects(PetV2.self).map(\.colour) == ["brown", "brown"])
        let url2 = temporaryDatabaseURL()
        try Self.seed(url2)
        let emptied = try Realm(configuration: Self.config(url2, PetV2.self, version: 3) { migration, _ in
            #expect(migration.deleteData(forType: "Pet"))
        })
        #expect(emptied.objects(PetV2.self).isEmpty)
    }
}
