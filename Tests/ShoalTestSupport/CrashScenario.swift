public import Foundation
public import Shoal

/// What one run of the crash worker does besides committing, and the schema it
/// opens with: the SIGKILL crash test's scenarios for compaction, segment
/// rolls and migrations (`ShoalCrashWorker PATH scenario KEY=VALUE…`).
///
/// The data is ``CrashItemA`` or ``CrashItemB`` objects (the shape alternates
/// with the schema version, so every migration renames a property and adds or
/// removes one) and one ``CrashCounter`` that each transaction keeps equal to
/// the number of items. Every item's `stamp` equals the stored schema version:
/// a migration restamps all of them, and the worker stamps new ones.
///
/// ```swift
/// let scenario = CrashScenario(durable: true, schemaVersion: 3, compactEvery: 4, autoCompactBytes: 0)
/// process.arguments = [path, "scenario"] + scenario.arguments
/// ```
public struct CrashScenario: Equatable, Sendable {
    /// `.durable` if `true`, else `.relaxed` with a short delay.
    public var durable: Bool
    /// The schema version the worker declares; above the stored one, it migrates on open.
    public var schemaVersion: UInt64
    /// Calls `Realm.compact()` after every this many commits (0: never).
    public var compactEvery: Int
    /// `compactionMinimumLogBytes`, with a growth factor of 0, so commits roll
    /// the log into a new segment and snapshot automatically (0: the defaults).
    public var autoCompactBytes: Int64
    /// Sets `shouldCompactOnLaunch` to always compact when opening, and
    /// compacts once more right after (with nothing new to compact).
    public var compactOnLaunch: Bool
    /// Each transaction also stores this many incompressible bytes in the
    /// counter's ``CrashCounter/padding`` (0: none), so that a record's write
    /// is long enough for the kill to tear it.
    public var bulkBytes: Int
    /// Threads committing at once, each with its own Realm (group commit).
    public var writers: Int

    /// The line the worker prints just before it opens the database.
    public static let openingLine = "opening"
    /// The line the worker prints from its migration block, when the migration's write begins.
    public static let migratingLine = "migrating"
    /// The line the worker prints once the database is open.
    public static let openedLine = "opened"

    public init(
        durable: Bool, schemaVersion: UInt64, compactEvery: Int, autoCompactBytes: Int64, compactOnLaunch: Bool = false,
        bulkBytes: Int = 0, writers: Int = 1
    ) {
        self.durable = durable
        self.schemaVersion = schemaVersion
        self.compactEvery = compactEvery
        self.autoCompactBytes = autoCompactBytes
        self.compactOnLaunch = compactOnLaunch
        self.bulkBytes = bulkBytes
        self.writers = writers
    }

    /// The worker's arguments after `PATH scenario`.
    public var arguments: [String] {
        ["durable=\(durable)", "schemaVersion=\(schemaVersion)", "compactEvery=\(compactEvery)", "autoCompactBytes=\(autoCompactBytes)",
            "compactOnLaunch=\(compactOnLaunch)", "bulkBytes=\(bulkBytes)", "writers=\(writers)"]
    }

    /// Parses ``arguments``; `nil` if one is missing or malformed.
    public init?(arguments: [String]) {
        var values: [String: String] = [:]
        for argument in arguments {
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return nil }
            values[parts[0]] = parts[1]
        }
        guard let durable = values["durable"].flatMap(Bool.init), let version = values["schemaVersion"].flatMap(UInt64.init),
            let every = values["compactEvery"].flatMap(Int.init), let bytes = values["autoCompactBytes"].flatMap(Int64.init),
            let onLaunch = values["compactOnLaunch"].flatMap(Bool.init), let bulk = values["bulkBytes"].flatMap(Int.init),
            let writers = values["writers"].flatMap(Int.init)
        else { return nil }
        self.init(
            durable: durable, schemaVersion: version, compactEvery: every, autoCompactBytes: bytes, compactOnLaunch: onLaunch,
            bulkBytes: bulk, writers: writers)
    }

    /// The item class of a schema version: ``CrashItemA`` for even ones, ``CrashItemB`` for odd ones.
    public static func itemType(schemaVersion: UInt64) -> Object.Type {
        schemaVersion % 2 == 0 ? CrashItemA.self : CrashItemB.self
    }

    /// The note every item holds, whatever the property is called at its schema version.
    public static func note(id: Int) -> String { "item \(id)" }

    /// A padding of `bytes` pseudo-random letters (LZ4 barely shrinks them) that starts with the count of
    /// items it was written with, so a reader can tell it belongs to the count.
    public static func padding(count: Int, bytes: Int) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/".utf8)
        var random = SeededRandom(seed: UInt64(count) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes))
        var letters: [UInt8] = []
        letters.reserveCapacity(bytes + 10)
        while letters.count < bytes {
            var bits = random.next()
            for _ in 0..<10 {
                letters.append(alphabet[Int(bits & 63)])
                bits >>= 6
            }
        }
        letters.removeLast(letters.count - bytes)
        return "\(count):" + String(decoding: letters, as: UTF8.self)
    }

    /// The label a ``CrashItemB`` holds at a schema version.
    public static func label(schemaVersion: UInt64) -> String { "v\(schemaVersion)" }

    /// The configuration of the database at `url` under `schemaVersion`, with
    /// the migration from the version before it.
    public static func configuration(_ url: URL, schemaVersion: UInt64, durable: Bool = true) -> Realm.Configuration {
        var config = fileConfiguration(url, durability: durable ? .durable : .relaxed(maxDelay: .milliseconds(20)),
            types: [itemType(schemaVersion: schemaVersion), CrashCounter.self])
        config.schemaVersion = schemaVersion
        config.migrationBlock = { migration, _ in
            let (from, to) = schemaVersion % 2 == 0 ? ("text", "note") : ("note", "text")
            migration.renameProperty(onType: "CrashItem", from: from, to: to)
            migration.enumerateObjects(ofType: "CrashItem") { _, new in
                new?["stamp"] = Int(schemaVersion)
                if schemaVersion % 2 == 1 { new?["label"] = label(schemaVersion: schemaVersion) }
            }
        }
        return config
    }
}

/// The crash scenarios' item at even schema versions.
public final class CrashItemA: Object {
    override public class func className() -> String { "CrashItem" }
    @Persisted(primaryKey: true) public var id: Int
    /// The schema version the item was written or last migrated at.
    @Persisted public var stamp: Int
    @Persisted public var note: String
}

/// The crash scenarios' item at odd schema versions: `note` renamed to `text`, and a `label`.
public final class CrashItemB: Object {
    override public class func className() -> String { "CrashItem" }
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var stamp: Int
    @Persisted public var text: String
    @Persisted public var label: String
}

/// The number of crash items, kept in the same transaction as each insert.
public final class CrashCounter: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var count: Int
    /// Empty, or ``CrashScenario/padding(count:bytes:)`` for ``count``.
    @Persisted public var padding: String
}
