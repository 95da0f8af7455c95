import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

// A person's address as a top-level class (version 0) and as an embedded one
// (version 1), under the class names they are stored as.

final class MEAddressV0: Object {
    override class func className() -> String { "MEAddress" }
    @Persisted var street = ""
    @Persisted var city = ""
}

final class MEPersonV0: Object {
    override class func className() -> String { "MEPerson" }
    @Persisted var name = ""
    @Persisted var address: MEAddressV0?
    @Persisted var previous: List<MEAddressV0>
}

final class MEAddressV1: EmbeddedObject {
    override class func className() -> String { "MEAddress" }
    @Persisted var street = ""
    @Persisted var city = ""
}

final class MEPersonV1: Object {
    override class func className() -> String { "MEPerson" }
    @Persisted var name = ""
    @Persisted var address: MEAddressV1?
    @Persisted var previous: List<MEAddressV1>
}

final class MEPersonV2: Object {
    override class func className() -> String { "MEPerson" }
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var address: MEAddressV1?
    @Persisted var previous: List<MEAddressV1>
}

/// Migrations of stores holding embedded objects, and of a class that
/// becomes embedded (Realm's Migration example, version 5).
@Suite struct MigrationEmbeddedTests {
    static func configuration(_ url: URL, version: UInt64, types: [Object.Type], block: MigrationBlock? = nil) -> Realm.Configuration {
        Realm.Configuration(fileURL: url, schemaVersion: version, migrationBlock: block, objectTypes: types)
    }

    /// The live objects of class `name`, read from the Realm's state.
    static func count(_ realm: Realm, _ name: String) throws -> Int {
        let table = try #require(realm.instance.current.schema.tableByName[name])
        return realm.instance.current.tables[table.index].liveKeys.count
    }

    @Test("a class that becomes embedded keeps its owned objects, deletes those nothing links to and copies those linked twice, as Realm")
    func classBecomesEmbedded() throws {
        let url = temporaryDatabaseURL()
        do {
            let realm = try Realm(configuration: Self.configuration(url, version: 0, types: [MEPersonV0.self, MEAddressV0.self]))
            try realm.write {
                let home = realm.create(MEAddressV0.self, value: ["Broadway", "New York"])
                realm.create(MEAddressV0.self, value: ["Nowhere", "Lost"])
                let shared = realm.create(MEAddressV0.self, value: ["Main Street", "Springfield"])
                realm.create(MEPersonV0.self, value: ["name": "John", "address": home])
                realm.create(MEPersonV0.self, value: ["name": "Jane", "address": shared, "previous": [shared]])
                realm.create(MEPersonV0.self, value: ["name": "Bart", "address": shared])
            }
        }
        let realm = try Realm(configuration: Self.configuration(url, version: 1, types: [MEPersonV1.self, MEAddressV1.self]))
        #expect(realm.schema["MEAddress"]?.isEmbedded == true)
        let persons = realm.objects(MEPersonV1.self).sorted(byKeyPath: "name")
        #expect(persons.map { $0.address?.street } == ["Main Street", "Main Street", "Broadway"])
        #expect(persons[1].previous.map(\.city) == ["Springfield"])
        // The orphan is gone; the address linked three times is three objects.
        #expect(try Self.count(realm, "MEAddress") == 4)
        #expect(realm.instance.current.invariantViolation() == nil)
        try realm.write { persons[0].address?.street = "Evergreen Terrace" }
        #expect(persons.map { $0.address?.street } == ["Evergreen Terrace", "Main Street", "Broadway"])
        #expect(persons[1].previous[0].street == "Main Street")
    }

    @Test("a migration of a store holding embedded objects keeps them with their owners")
    func embeddedObjectsSurviveAMigration() throws {
        let url = temporaryDatabaseURL()
        do {
            let realm = try Realm(configuration: Self.configuration(url, version: 1, types: [MEPersonV1.self, MEAddressV1.self]))
            try realm.write {
                realm.create(MEPersonV1.self, value: ["name": "John", "address": ["Broadway", "New York"], "previous": [["Elm Street", "Springwood"]]])
            }
        }
        let realm = try Realm(configuration: Self.configuration(url, version: 2, types: [MEPersonV2.self, MEAddressV1.self]) { migration, _ in
            migration.enumerateObjects(ofType: "MEPerson") { _, newObject in newObject?["age"] = 42 }
        })
        let person = try #require(realm.objects(MEPersonV2.self).first)
        #expect(person.age == 42)
        #expect(person.address?.street == "Broadway")
        #expect(person.previous.map(\.street) == ["Elm Street"])
        #expect(realm.instance.current.invariantViolation() == nil)
    }

    @Test("an unmanaged object, a dictionary or an array set on a migration object's link makes a new object, embedded or not",
          arguments: [false, true])
    func linkSetFromValues(embedded: Bool) throws {
        let url = temporaryDatabaseURL()
        do {
            let realm = try Realm(configuration: Self.configuration(url, version: 0, types: [MEPersonV0.self, MEAddressV0.self]))
            try realm.write {
                realm.create(MEPersonV0.self, value: ["name": "John"])
                realm.create(MEPersonV0.self, value: ["name": "Jane"])
            }
        }
        let types: [Object.Type] = embedded ? [MEPersonV1.self, MEAddressV1.self] : [MEPersonV0.self, MEAddressV0.self]
        let realm = try Realm(configuration: Self.configuration(url, version: 1, types: types) { migration, _ in
            migration.enumerateObjects(ofType: "MEPerson") { _, newObject in
                if newObject?["name"] as? String == "John" {
                    // As Realm's Migration example (version 5) sets an embedded address.
                    let address: Object = embedded
                        ? MEAddressV1(value: ["Broadway", "New York"]) : MEAddressV0(value: ["Broadway", "New York"])
                    newObject?["address"] = address
                } else {
                    newObject?["address"] = ["street": "Main Street", "city": "Springfield"]
                    newObject?["previous"] = [["Elm Street", "Springwood"]]
                }
            }
            migration.create("MEPerson", value: ["Bart", ["Evergreen Terrace", "Springfield"]])
        })
        let persons = realm.dynamicObjects("MEPerson").sorted(byKeyPath: "name")
        #expect(persons.map { ($0["address"] as? DynamicObject)?["street"] as? String } == ["Evergreen Terrace", "Main Street", "Broadway"])
        #expect(persons[1].dynamicList("previous").map { $0["city"] as? String } == ["Springwood"])
        #expect(try Self.count(realm, "MEAddress") == 4)
        #expect(realm.instance.current.invariantViolation() == nil)
    }
}
