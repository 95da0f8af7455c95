// Realm's "Migration" example app (examples/ios/swift/Migration in realm-swift)
// as a command-line program. Realm builds the app once per schema version,
// each build compiling one of Examples/Example_vN.swift; here each version is
// the module RealmExampleMigrationVN, compiled with the same condition, and
// this program is the app delegate's logic for the current version (5).
//
// Realm ships default-vN.realm templates, made by running each version's
// build with CREATE_EXAMPLES. Shoal cannot read Realm files, so this program
// first makes each template from version N's `exampleData`, as that build
// does (addExampleDataToRealm), in the directory `Templates` that stands for
// the app's bundle; then, as the app does (performMigration), it migrates a
// copy of each older version's template to version 5 and runs version 5's
// `migrationCheck`. It prints what each migrated Realm holds, so that a check
// is also seen when assertions are compiled out.
//
// One change to the app's logic: the migrating configuration lists version
// 5's classes in `objectTypes`. Without them Shoal runs a migration block
// against the stored classes as they are (it finds classes as they are used,
// see PortingFromRealm), so the block could not set `fullName`; and one
// program holding every version's `Person` could not leave the choice to
// discovery in Realm either, which refuses two classes of one name.

import Foundation
import RealmExampleMigrationSupport
import RealmExampleMigrationV0
import RealmExampleMigrationV1
import RealmExampleMigrationV2
import RealmExampleMigrationV3
import RealmExampleMigrationV4
import RealmExampleMigrationV5
import Shoal

/// Every version's build, by schema version.
let builds: [MigrationExampleVersion] = [
    RealmExampleMigrationV0.version, RealmExampleMigrationV1.version, RealmExampleMigrationV2.version,
    RealmExampleMigrationV3.version, RealmExampleMigrationV4.version, RealmExampleMigrationV5.version,
]
/// The directory standing for the app's bundle, holding the templates.
let bundleURL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Templates")

// The build of the current version, whose names the app delegate uses.
let schemaVersion = RealmExampleMigrationV5.version.schemaVersion
let migrationBlock = RealmExampleMigrationV5.version.migrationBlock
let migrationCheck = RealmExampleMigrationV5.version.migrationCheck
let objectTypes = RealmExampleMigrationV5.version.objectTypes

// What running each older version's build with CREATE_EXAMPLES leaves in its
// bundle: its example data in default-vN.realm.
try! FileManager.default.createDirectory(at: bundleURL, withIntermediateDirectories: true)
for build in builds.prefix(schemaVersion) {
    let url = bundleURL.appendingPathComponent("default-v\(build.schemaVersion).realm")
    let configuration = Realm.Configuration(fileURL: url, schemaVersion: UInt64(build.schemaVersion))
    let realm = try! Realm(configuration: configuration)

    try! realm.write {
        build.exampleData(realm)
    }
}

// Any version before the current versions will be migrated to check if all version combinations work.
func performMigration() {
    for oldSchemaVersion in 0..<schemaVersion {
        let url = realmUrl(for: oldSchemaVersion, usingTemplate: true)
        let realmConfiguration = Realm.Configuration(fileURL: url, schemaVersion: UInt64(schemaVersion), migrationBlock: migrationBlock,
            objectTypes: objectTypes)
        try! Realm.performMigration(for: realmConfiguration)
        let realm = try! Realm(configuration: realmConfiguration)
        migrationCheck(realm)
        print("v\(oldSchemaVersion) -> v\(schemaVersion): \(contents(of: realm))")
    }
}

func realmUrl(for schemaVersion: Int, usingTemplate: Bool) -> URL {
    let defaultURL = Realm.Configuration.defaultConfiguration.fileURL!
    let defaultParentURL = defaultURL.deletingLastPathComponent()
    let fileName = "default-v\(schemaVersion)"
    let destinationUrl = defaultParentURL.appendingPathComponent(fileName + ".realm")
    if FileManager.default.fileExists(atPath: destinationUrl.path) {
        try! FileManager.default.removeItem(at: destinationUrl)
    }
    if usingTemplate {
        let bundleUrl = bundleURL.appendingPathComponent(fileName + ".realm")
        try! FileManager.default.copyItem(at: bundleUrl, to: destinationUrl)
    }

    return destinationUrl
}

/// The persons of a migrated Realm with their addresses and pets, then all
/// pets by name: what `migrationCheck` asserts.
func contents(of realm: Realm) -> String {
    let persons = realm.dynamicObjects("Person").map { person in
        let address = (person["address"] as? DynamicObject).map { "\($0["street"] as! String), \($0["city"] as! String)" }
        let pets = person.dynamicList("pets").map { "\($0["name"] as! String) (kind \($0["kind"] as! Int))" }
        return "\(person["fullName"] as! String), \(person["age"] as! Int), \(address ?? "no address"), pets [\(pets.joined(separator: ", "))]"
    }
    let pets = realm.dynamicObjects("Pet").map { "\($0["name"] as! String) (kind \($0["kind"] as! Int))" }.sorted()
    return "\(persons.joined(separator: "; ")); all pets [\(pets.joined(separator: ", "))]"
}

performMigration()
