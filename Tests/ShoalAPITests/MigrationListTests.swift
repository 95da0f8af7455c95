import Foundation
import Shoal
import ShoalTestSupport
import Testing

// The models of Realm's Migration example (examples/ios/swift/Migration),
// versions 0, 2 and 3, each under the class names the example stores.

final class MLPersonV0: Object {
    override class func className() -> String { "Person" }
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    @Persisted var age = 0
}

final class MLDogV2: Object {
    override class func className() -> String { "Dog" }
    @Persisted var name = ""
}

final class MLPersonV2: Object {
    override class func className() -> String { "Person" }
    @Persisted var fullName = ""
    @Persisted var age = 0
    @Persisted var dogs: List<MLDogV2>
}

final class MLPetV3: Object {
    enum Kind: Int, PersistableEnum {
        case unspecified
        case dog
        case chicken
        case cow
    }

    override class func className() -> String { "Pet" }
    @Persisted var name = ""
    @Persisted var kind = Kind.unspecified
}

final class MLPersonV3: Object {
    override class func className() -> String { "Person" }
    @Persisted var fullName = ""
    @Persisted var age = 0
    @Persisted var pets: List<MLPetV3>
}

/// Counts the migration block's runs (it is `@Sendable`).
final class MLRuns: @unchecked Sendable {
    private let lock = NSLock()
    private var runs: [UInt64] = []
    func record(_ version: UInt64) { lock.withLock { runs.append(version) } }
    var versions: [UInt64] { lock.withLock { runs } }
}

/// Realm's Migration example: `List<MigrationObject>` properties built and
/// read during a migration, and `Realm.performMigration(for:)`.
@Suite struct MigrationListTests {
    /// The example's migration block for version 3, word for word but for
    /// the class names (`MLPetV3` is its `Pet`).
    static func migrationBlock(_ runs: MLRuns) -> MigrationBlock {
        { migration, oldSchemaVersion in
            runs.record(oldSchemaVersion)
            if oldSchemaVersion < 1 {
                migration.enumerateObjects(ofType: MLPersonV3.className()) { oldObject, newObject in
                    let firstName = oldObject!["firstName"] as! String
                    let lastName = oldObject!["lastName"] as! String
                    newObject!["fullName"] = "\(firstName) \(lastName)"
                }
            }
            if oldSchemaVersion < 2 {
                migration.enumerateObjects(ofType: MLPersonV3.className()) { _, newObject in
                    if newObject!["fullName"] as! String == "John Doe" {
                        let dogs = newObject!["pets"] as! List<MigrationObject>
                        let marley = migration.create(MLPetV3.className(), value: ["Marley", MLPetV3.Kind.dog.rawValue])
                        let lassie = migration.create(MLPetV3.className(), value: ["Lassie", MLPetV3.Kind.dog.rawValue])
                        dogs.append(marley)
                        dogs.append(lassie)
                    } else if newObject!["fullName"] as! String == "Jane Doe" {
                        let dogs = newObject!["pets"] as! List<MigrationObject>
                        let toto = migration.create(MLPetV3.className(), value: ["Toto", MLPetV3.Kind.dog.rawValue])
                        dogs.append(toto)
                    }
                }
                migration.create(MLPetV3.className(), value: ["Slinkey", MLPetV3.Kind.dog.rawValue])
            }
            if oldSchemaVersion == 2 {
                migration.enumerateObjects(ofType: MLPersonV3.className()) { oldObject, newObject in
                    let pets = newObject!["pets"] as! List<MigrationObject>
                    for dog in oldObject!["dogs"] as! List<DynamicObject> {
                        let pet = migration.create(MLPetV3.className(), value: [dog["name"], MLPetV3.Kind.dog.rawValue])
                        pets.append(pet)
                    }
                }
                migration.enumerateObjects(ofType: "Dog") { oldDogObject, _ in
                    var dogFound = false
                    migration.enumerateObjects(ofType: MLPersonV3.className()) { _, newObject in
                        for pet in newObject!["pets"] as! List<DynamicObject> where pet["name"] as! String == oldDogObject!["name"] as! String {
                            dogFound = true
                            break
                        }
                    }
                    if !dogFound {
                        migration.create(MLPetV3.className(), value: [oldDogObject!["name"], MLPetV3.Kind.dog.rawValue])
                    }
                }
            }
        }
    }

    static func configuration(_ url: URL, version: UInt64, types: [Object.Type], block: MigrationBlock? = nil) -> Realm.Configuration {
        Realm.Configuration(fileURL: url, schemaVersion: version, migrationBlock: block, objectTypes: types)
    }

    /// The example's `migrationCheck` for version 3.
    static func checkVersion3(_ realm: Realm) {
        let persons = realm.objects(MLPersonV3.self)
        #expect(persons.count == 3)
        #expect(persons.map(\.fullName) == ["John Doe", "Jane Doe", "John Smith"])
        #expect(persons.map(\.age) == [42, 43, 44])
        #expect(persons[0].pets.map(\.name) == ["Marley", "Lassie"])
        #expect(persons[0].pets.allSatisfy { $0.kind == .dog })
        #expect(persons[1].pets.map(\.name) == ["Toto"])
        #expect(persons[1].pets[0].kind == .dog)
        #expect(persons[2].pets.isEmpty)
        let pets = realm.objects(MLPetV3.self)
        #expect(pets.count == 4)
        #expect(pets.contains { $0.name == "Slinkey" && $0.kind == .dog })
    }

    @Test("version 0 to 3: pets appended to a List<MigrationObject> during the migration are there after reopening")
    func fromVersion0() throws {
        let url = temporaryDatabaseURL()
        do {
            let realm = try Realm(configuration: Self.configuration(url, version: 0, types: [MLPersonV0.self]))
            try realm.write {
                realm.create(MLPersonV0.self, value: ["John", "Doe", 42])
                realm.create(MLPersonV0.self, value: ["Jane", "Doe", 43])
                realm.create(MLPersonV0.self, value: ["John", "Smith", 44])
            }
        }
        let runs = MLRuns()
        let config = Self.configuration(url, version: 3, types: [MLPersonV3.self, MLPetV3.self], block: Self.migrationBlock(runs))
        try Realm.performMigration(for: config)
        #expect(runs.versions == [0])
        #expect(try schemaVersionAtURL(url) == 3)
        let realm = try Realm(configuration: config)
        #expect(runs.versions == [0])
        Self.checkVersion3(realm)
    }

    @Test("version 2 to 3: an old object's list reads as a List<DynamicObject>, a new one's as a live list")
    func fromVersion2() throws {
        let url = temporaryDatabaseURL()
        do {
            let realm = try Realm(configuration: Self.configuration(url, version: 2, types: [MLPersonV2.self, MLDogV2.self]))
            try realm.write {
                let john = realm.create(MLPersonV2.self, value: ["fullName": "John Doe", "age": 42])
                let jane = realm.create(MLPersonV2.self, value: ["fullName": "Jane Doe", "age": 43])
                realm.create(MLPersonV2.self, value: ["fullName": "John Smith", "age": 44])
                realm.add(MLDogV2(value: ["Slinkey"]))
                john.dogs.append(MLDogV2(value: ["Marley"]))
                john.dogs.append(MLDogV2(value: ["Lassie"]))
                jane.dogs.append(MLDogV2(value: ["Toto"]))
            }
        }
        let runs = MLRuns()
        let config = Self.configuration(url, version: 3, types: [MLPersonV3.self, MLPetV3.self], block: Self.migrationBlock(runs))
        let realm = try Realm(configuration: config)
        #expect(runs.versions == [2])
        Self.checkVersion3(realm)
    }

    @Test("a list read twice in a migration is the same list; assigning the property refills it; removals are kept")
    func listIdentityAndAssignment() throws {
        let url = temporaryDatabaseURL()
        do {
            let realm = try Realm(configuration: Self.configuration(url, version: 2, types: [MLPersonV2.self, MLDogV2.self]))
            try realm.write {
                let john = realm.create(MLPersonV2.self, value: ["fullName": "John Doe", "age": 42])
                john.dogs.append(MLDogV2(value: ["Marley"]))
                john.dogs.append(MLDogV2(value: ["Lassie"]))
            }
        }
        let config = Self.configuration(url, version: 3, types: [MLPersonV2.self, MLDogV2.self]) { migration, _ in
            migration.enumerateObjects(ofType: "Person") { _, newObject in
                let dogs = newObject!["dogs"] as! List<MigrationObject>
                #expect(dogs.map { $0["name"] as? String } == ["Marley", "Lassie"])
                #expect(newObject!["dogs"] as! List<MigrationObject> === dogs)
                dogs.remove(at: 0)
                dogs.append(migration.create("Dog", value: ["name": "Rex"]))
                #expect((newObject!["dogs"] as! List<MigrationObject>).count == 2)
                newObject!["dogs"] = [migration.create("Dog", value: ["Toto"])] + Array(dogs)
                #expect(dogs.map { $0["name"] as? String } == ["Toto", "Lassie", "Rex"])
            }
        }
        let realm = try Realm(configuration: config)
        #expect(realm.objects(MLPersonV2.self)[0].dogs.map(\.name) == ["Toto", "Lassie", "Rex"])
        #expect(realm.objects(MLDogV2.self).count == 4)
    }

    @Test("performMigration refuses a database that is open, as Realm does")
    func performMigrationWhileOpen() throws {
        let url = temporaryDatabaseURL()
        let config = Self.configuration(url, version: 1, types: [MLPersonV0.self])
        let realm = try Realm(configuration: config)
        #expect(realm.isEmpty)
        #expect {
            try Realm.performMigration(for: config)
        } throws: { error in
            (error as? ShoalError)?.code == .alreadyOpen && (error as? ShoalError)?.message == "Cannot migrate Realms that are already open."
        }
    }
}
