// Realm's Migration example (examples/ios/swift/Migration in realm-swift) at
// schema version 2: Example_v2.swift is Realm's file with `import RealmSwift`
// changed to `import Shoal`, compiled with the condition the app's build for
// this version sets. This file only hands its declarations to the app
// delegate's logic (RealmExampleMigration), which names each version by module.

import RealmExampleMigrationSupport
import Shoal

/// Example_v2.swift's declarations, as the app built for schema version 2
/// uses them, and its classes.
public var version: MigrationExampleVersion {
    MigrationExampleVersion(
        schemaVersion: schemaVersion, objectTypes: [Person.self, Dog.self],
        migrationBlock: migrationBlock, exampleData: exampleData, migrationCheck: migrationCheck)
}
