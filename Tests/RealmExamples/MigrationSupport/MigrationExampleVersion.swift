public import Shoal

/// What one of the Migration example's Example_vN.swift files declares, as
/// the app built for that schema version sees it: Realm builds the app once
/// per version (each file defines the same names under its own `#if`), here
/// each version is a module of its own and hands its declarations over in
/// this.
public struct MigrationExampleVersion {
    /// The file's `schemaVersion`.
    public let schemaVersion: Int
    /// The file's classes.
    public let objectTypes: [Object.Type]
    /// The file's `migrationBlock`: from any earlier version to this one.
    public let migrationBlock: MigrationBlock
    /// The file's `exampleData`: the objects a Realm at this version holds.
    public let exampleData: (Realm) -> Void
    /// The file's `migrationCheck`: asserts that a migrated Realm holds this
    /// version's example data.
    public let migrationCheck: (Realm) -> Void

    /// Hands over a file's declarations.
    public init(
        schemaVersion: Int, objectTypes: [Object.Type], migrationBlock: @escaping MigrationBlock,
        exampleData: @escaping (Realm) -> Void, migrationCheck: @escaping (Realm) -> Void
    ) {
        self.schemaVersion = schemaVersion
        self.objectTypes = objectTypes
        self.migrationBlock = migrationBlock
        self.exampleData = exampleData
        self.migrationCheck = migrationCheck
    }
}
