// Realm's Migration example (examples/ios/swift/Migration in realm-swift) at
// schema version 3: Example_v3.swift is Realm's file with `import RealmSwift`
// changed to `import Shoal`, compiled with the condition the app's build for
// this version sets. This file only hands its declarations to the app
// delegate's logic (RealmExampleMigration), which names each version by module.

import RealmExampleMigrationSupport
import Shoal

/// Example_v3.swift's declarations, as the app built for schema version 3
/// uses them, and its classes.
public var version: MigrationExampleVersion {
    MigrationExampleVersion(
        schemaVersion: schemaVersion, objectTypes: [Person.self, Pet.self],
        migrationBlock: migrationBlock, exampleData: exampleData, migrationCheck: migrationCheck)
}
