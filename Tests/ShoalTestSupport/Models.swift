public import Foundation
public import Shoal

/// The benchmark model's person (WORKLOADS.md).
public final class Person: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var name: String
    @Persisted public var city: String
    @Persisted public var dogs: List<Dog>
    @Persisted(originProperty: "owner") public var ownedDogs: LinkingObjects<Dog>
}

/// The benchmark model's dog, with every collection kind besides.
public final class Dog: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var name = ""
    @Persisted(indexed: true) public var age: Int
    @Persisted public var breed: String
    @Persisted public var tags: MutableSet<String>
    @Persisted public var scores: Map<String, Double>
    @Persisted public var owner: Person?
    @Persisted(originProperty: "dogs") public var owners: LinkingObjects<Person>
}

/// A class without a primary key, linking objects declared the older way.
public final class Kennel: Object {
    @Persisted public var name: String
    @Persisted public var residents: List<Dog>
    @Persisted public var puppies: List<Puppy>
    @Persisted public var neighbours: MutableSet<Kennel>
    @Persisted public var byName: Map<String, Dog?>
}

public final class Puppy: Object {
    @Persisted public var name: String
    @Persisted public var mother: Dog?
    public let kennels = LinkingObjects(fromType: Kennel.self, property: "puppies")
}

public enum Size: Int, PersistableEnum, Sendable {
    case small, medium, large
}

public enum Mood: String, PersistableEnum, Sendable {
    case calm, excited
}

/// One property of every supported type, optional and not.
public final class AllTypes: Object {
    @Persisted(primaryKey: true) public var id: ObjectId
    @Persisted public var bool: Bool
    @Persisted public var int: Int
    @Persisted public var int8: Int8
    @Persisted public var int16: Int16
    @Persisted public var int32: Int32
    @Persisted public var int64: Int64
    @Persisted public var float: Float
    @Persisted public var double: Double
    @Persisted public var string: String
    @Persisted public var data: Data
    @Persisted public var date: Date
    @Persisted public var uuid: UUID
    @Persisted public var decimal: Decimal128
    @Persisted public var objectId: ObjectId
    @Persisted public var any: AnyRealmValue
    @Persisted public var size: Size
    @Persisted public var mood: Mood
    @Persisted public var optBool: Bool?
    @Persisted public var optInt: Int?
    @Persisted public var optInt8: Int8?
    @Persisted public var optFloat: Float?
    @Persisted public var optDouble: Double?
    @Persisted public var optString: String?
    @Persisted public var optData: Data?
    @Persisted public var optDate: Date?
    @Persisted public var optUUID: UUID?
    @Persisted public var optDecimal: Decimal128?
    @Persisted public var optObjectId: ObjectId?
    @Persisted public var optSize: Size?
    @Persisted public var link: Dog?
    @Persisted public var ints: List<Int>
    @Persisted public var optStrings: List<String?>
    @Persisted public var dogs: List<Dog>
    @Persisted public var dates: MutableSet<Date>
    @Persisted public var dogSet: MutableSet<Dog>
    @Persisted public var doubles: Map<String, Double>
    @Persisted public var dogMap: Map<String, Dog?>
    @Persisted public var anys: List<AnyRealmValue>
}

/// One map of each kind the map query, aggregate and key-value tests need.
public final class Maps: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var ints: Map<String, Int>
    @Persisted public var optDoubles: Map<String, Double?>
    @Persisted public var dates: Map<String, Date>
    @Persisted public var strings: Map<String, String>
    @Persisted public var dogs: Map<String, Dog?>
}

/// An embedded class (format version 3): a contact's address.
public final class Address: EmbeddedObject {
    @Persisted public var street = ""
    @Persisted public var city = ""
    @Persisted public var position: Coordinates?
    @Persisted(originProperty: "home") public var residents: LinkingObjects<Contact>
}

/// An embedded class owned by another embedded class.
public final class Coordinates: EmbeddedObject {
    @Persisted public var latitude = 0.0
    @Persisted public var longitude = 0.0
}

/// The owner of embedded objects through a link, a `List` and a `Map`.
public final class Contact: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var name = ""
    @Persisted public var home: Address?
    @Persisted public var previous: List<Address>
    @Persisted public var byLabel: Map<String, Address?>
}

/// Opens a fresh in-memory Realm holding the test model, with a unique identifier.
public func makeRealm(_ name: String = UUID().uuidString, types: [Object.Type] = [Person.self, Dog.self, Kennel.self, Puppy.self, AllTypes.self, Note.self]) throws -> Realm {
    var config = Realm.Configuration(inMemoryIdentifier: name)
    config.objectTypes = types
    return try Realm(configuration: config)
}

/// A Codable model, to check that managed objects encode their stored values.
public final class Note: Object, Codable {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var title = "untitled"
    @Persisted public var tags: List<String>
}

/// A fresh directory under the system's temporary directory, for a file-backed Realm.
/// The directory is created (a Realm, as Realm does, refuses a file whose
/// parent directory does not exist).
public func temporaryDatabaseURL(_ name: String = "db") -> URL {
    let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("shoal-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent("\(name).realm")
}

/// A configuration for a file-backed Realm holding the test model.
public func fileConfiguration(_ url: URL, durability: Realm.Durability = .durable, types: [Object.Type] = [Person.self, Dog.self, Kennel.self, Puppy.self, AllTypes.self, Note.self]) -> Realm.Configuration {
    var config = Realm.Configuration(fileURL: url)
    config.objectTypes = types
    config.durability = durability
    return config
}

/// Version 1 of a stored class "Pet".
public final class PetV1: Object {
    override public class func className() -> String { "Pet" }
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var nickname: String
    @Persisted public var ageInMonths: Int
    @Persisted public var friend: PetV1?
    @Persisted public var toys: List<String>
}

/// Version 2: `nickname` renamed to `name`, `ageInMonths` replaced by `age`, a new `colour`.
public final class PetV2: Object {
    override public class func className() -> String { "Pet" }
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var name: String
    @Persisted public var age: Int
    @Persisted public var colour = "brown"
    @Persisted public var friend: PetV2?
    @Persisted public var toys: List<String>
}

/// The migration used by the tests and the `migration` fixture: renames
/// `nickname` to `name` and turns months into years.
public let petMigration: MigrationBlock = { migration, _ in
    migration.renameProperty(onType: "Pet", from: "nickname", to: "name")
    migration.enumerateObjects(ofType: "Pet") { old, new in
        new?["age"] = (old?["ageInMonths"] as? Int ?? 0) / 12
    }
}
/// Indexed properties of several kinds, for range queries over the ordered
/// indexes: a string primary key, an int, a string, a date, an optional date
/// (nulls), a mixed value (whose ranges scan) and an unindexed double.
public final class Reading: Object {
    @Persisted(primaryKey: true) public var code: String
    @Persisted(indexed: true) public var rank: Int
    @Persisted(indexed: true) public var label: String
    @Persisted(indexed: true) public var stamp: Date
    @Persisted(indexed: true) public var checked: Date?
    @Persisted(indexed: true) public var mixed: AnyRealmValue
    @Persisted public var weight: Double
}

/// An earlier version of ``Reading``, before `rank` was indexed.
public final class ReadingV1: Object {
    override public class func className() -> String { "Reading" }
    @Persisted(primaryKey: true) public var code: String
    @Persisted public var rank: Int
    @Persisted(indexed: true) public var label: String
    @Persisted(indexed: true) public var stamp: Date
    @Persisted(indexed: true) public var checked: Date?
    @Persisted(indexed: true) public var mixed: AnyRealmValue
    @Persisted public var weight: Double
}

/// A class that links to its own class: bulk adds of a chain make insert
/// runs whose links point into the same run. Not in ``makeRealm(_:types:)``'s
/// default types.
public final class Chain: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var label: String
    @Persisted public var next: Chain?
    @Persisted public var weight: Double?
}
