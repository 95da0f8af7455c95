// Generates the fixtures of the current format version, Fixtures/v5, from scratch:
//
//   swift run ShoalFixtureGenerator            (or: bash Fixtures/generate.sh)
//
// Each fixture is a database directory. Tests copy them before opening,
// since opening repairs a torn tail in place.
import Foundation
import Shoal
import ShoalTestSupport

// The format version this build writes. Fixtures of earlier versions
// (Fixtures/v1 to Fixtures/v4) were written by earlier builds and are kept as
// they are, forever: a build must open every version up to its own.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("v5")
let types: [Object.Type] = [Person.self, Dog.self, Kennel.self, Puppy.self, AllTypes.self, Note.self]

func fixture(_ name: String) -> URL { root.appendingPathComponent("\(name).shoal") }

func segment(of url: URL) throws -> URL {
    let name = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".wal") }.sorted().last!
    return url.appendingPathComponent(name)
}

func tidy(_ url: URL) throws {
    for name in try FileManager.default.contentsOfDirectory(atPath: url.path) where name == "LOCK" || name.hasSuffix(".corrupt") {
        try FileManager.default.removeItem(at: url.appendingPathComponent(name))
    }
}

/// Writes the standard content: every class and property type, updates,
/// deletes and collection edits, over several transactions.
func writeStandard(_ realm: Realm) throws {
    let date = Date(timeIntervalSince1970: 1_700_000_000)
    try realm.write {
        let ann = realm.create(Person.self, value: ["id": 1, "name": "Ann", "city": "Oslo"])
        let bob = realm.create(Person.self, value: ["id": 2, "name": "Bob", "city": "Lima"])
        for i in 0..<6 {
            let dog = realm.create(Dog.self, value: ["id": i, "name": "dog \(i)", "age": i * 2, "breed": "breed \(i % 3)",
                "tags": ["t\(i % 2)"], "scores": ["fetch": Double(i) / 2], "owner": i % 2 == 0 ? ann : bob])
            (i % 2 == 0 ? ann : bob).dogs.append(dog)
        }
    }
    try realm.write {
        realm.create(AllTypes.self, value: [
            "id": try! ObjectId(string: "65f0a1b2c3d4e5f601234567"), "bool": true, "int": 42, "int8": Int8(-8), "int16": Int16(16),
            "int32": Int32(32), "int64": Int64.max, "float": Float(1.5), "double": 2.25, "string": "héllo", "data": Data([1, 2, 3]),
            "date": date, "uuid": UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!, "decimal": Decimal128(stringLiteral: "12.345"),
            "objectId": try! ObjectId(string: "65f0a1b2c3d4e5f601234568"), "any": AnyRealmValue.string("mixed"), "size": Size.large,
            "mood": Mood.excited, "optInt": 7, "optString": "opt", "optDate": date, "link": ["id": 100, "name": "linked"],
            "ints": [1, 2, 3], "optStrings": ["a", nil], "dates": [date], "doubles": ["pi": 3.14], "anys": [AnyRealmValue.int(1), AnyRealmValue.none],
        ])
        realm.create(Kennel.self, value: ["name": "North", "residents": [realm.object(ofType: Dog.self, forPrimaryKey: 1)!], "puppies": [["name": "Bit"]]])
        realm.create(Note.self, value: ["id": 1, "title": "first", "tags": ["x"]])
    }
    try realm.write {
        realm.object(ofType: Dog.self, forPrimaryKey: 3)!.name = "renamed"
        realm.objects(Person.self)[0].dogs.move(from: 0, to: 2)
        realm.delete(realm.object(ofType: Dog.self, forPrimaryKey: 4)!)
    }
    for i in 0..<5 {
        try realm.write { realm.create(Note.self, value: ["id": 10 + i, "title": "note \(i)"]) }
    }
}

func generate(_ name: String, durability: Realm.Durability = .durable, types: [Object.Type] = types, _ body: (Realm) throws -> Void) throws -> URL {
    let url = fixture(name)
    try? FileManager.default.removeItem(at: url)
    var config = Realm.Configuration(fileURL: url)
    config.objectTypes = types
    config.durability = durability
    try body(try Realm(configuration: config))
    try tidy(url)
    return url
}

try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)

// 1. A healthy log with several classes and every property type.
_ = try generate("valid") { try writeStandard($0) }

// 2. The same, with its last record cut in the middle (what a crash leaves).
let torn = try generate("torn-tail") { try writeStandard($0) }
let tornSegment = try segment(of: torn)
let tornData = try Data(contentsOf: tornSegment)
try tornData.prefix(tornData.count - 20).write(to: tornSegment)

// 3. The same, followed by 4 KiB of zeros (a preallocated or size-first tail).
let zero = try generate("zero-tail") { try writeStandard($0) }
let zeroSegment = try segment(of: zero)
try (try Data(contentsOf: zeroSegment) + Data(count: 4096)).write(to: zeroSegment)

// 4. The same, with one bit flipped in a record in the middle of the log.
let flipped = try generate("flipped-bit") { try writeStandard($0) }
let flippedSegment = try segment(of: flipped)
var flippedData = try Data(contentsOf: flippedSegment)
flippedData[flippedData.count / 2] ^= 0x10
try flippedData.write(to: flippedSegment)

// 5. A compacted database whose snapshot is gone: the segment after it starts past version 0.
let missing = try generate("missing-snapshot") { realm in
    try writeStandard(realm)
    try realm.compact()
    try realm.write { realm.create(Note.self, value: ["id": 99, "title": "after compaction"]) }
}
for name in try FileManager.default.contentsOfDirectory(atPath: missing.path) where name.hasSuffix(".snap") {
    try FileManager.default.removeItem(at: missing.appendingPathComponent(name))
}

// 6. A log whose schema changed while it was empty, then gained data: two schema records.
_ = try generate("schema-change") { _ in }
_ = try {
    var config = Realm.Configuration(fileURL: fixture("schema-change"))
    config.objectTypes = [Person.self, Dog.self]
    let realm = try Realm(configuration: config)
    try realm.write { realm.create(Person.self, value: ["id": 1, "name": "Ann", "dogs": [["id": 1, "name": "Rex"]]]) }
    try tidy(fixture("schema-change"))
}()

// 7. A database written with schema version 1 (PetV1), then opened with
// version 2 (PetV2) and a migration, then written to again.
let migrationURL = fixture("migration")
try? FileManager.default.removeItem(at: migrationURL)
_ = try {
    var v1 = Realm.Configuration(fileURL: migrationURL)
    v1.objectTypes = [PetV1.self]
    v1.schemaVersion = 1
    let realm = try Realm(configuration: v1)
    try realm.write {
        let rex = realm.create(PetV1.self, value: ["id": 1, "nickname": "Rex", "ageInMonths": 30, "toys": ["ball"]])
        realm.create(PetV1.self, value: ["id": 2, "nickname": "Kit", "ageInMonths": 14, "friend": rex])
    }
}()
_ = try {
    var v2 = Realm.Configuration(fileURL: migrationURL)
    v2.objectTypes = [PetV2.self]
    v2.schemaVersion = 2
    v2.migrationBlock = petMigration
    let realm = try Realm(configuration: v2)
    try realm.write { realm.create(PetV2.self, value: ["id": 3, "name": "Pip", "age": 1, "colour": "white"]) }
    try tidy(migrationURL)
}()

// 8. A bulk insert, as one transaction (its inserts stored as columnar
// runs), compacted into a snapshot, then one more bulk transaction in the log.
_ = try generate("bulk") { realm in
    func add(people range: Range<Int>, dogsEach: Int) throws {
        try realm.write {
            for p in range {
                let person = realm.create(Person.self, value: ["id": p, "name": "person \(p)", "city": p % 2 == 0 ? "Oslo" : "Zürich"])
                for d in 0..<dogsEach {
                    let id = p * dogsEach + d
                    let dog = Dog()
                    dog.id = id
                    dog.name = "dog \(id)"
                    dog.age = id % 16
                    dog.breed = "breed \(id % 5)"
                    dog.owner = person
                    realm.add(dog)
                }
            }
        }
    }
    try add(people: 0..<50, dogsEach: 10)
    try realm.compact()
    try add(people: 50..<100, dogsEach: 10)
}

// 9. Embedded objects (format version 3) in a link, a List and a Map, two
// levels deep: reassigned, removed and deleted with their owner (each cascade
// a delete op), compacted into a snapshot, then more changes in the log.
_ = try generate("embedded", types: [Contact.self, Address.self, Coordinates.self]) { realm in
    try realm.write {
        realm.create(Contact.self, value: [
            "id": 1, "name": "Ann", "home": ["street": "Main 1", "city": "Oslo", "position": [59.91, 10.75]] as [String: Any],
            "previous": [["city": "Bergen"], ["city": "Lima"]], "byLabel": ["work": ["city": "Rome"]],
        ] as [String: Any])
        realm.create(Contact.self, value: ["id": 2, "name": "Bob", "home": ["city": "Lima"]] as [String: Any])
        realm.create(Contact.self, value: ["id": 3, "name": "Cy", "home": ["city": "Quito"], "previous": [["city": "Cusco"]]] as [String: Any])
    }
    let ann = realm.object(ofType: Contact.self, forPrimaryKey: 1)!
    try realm.write { ann.previous.remove(at: 0) }
    try realm.compact()
    try realm.write { ann.home = Address(value: ["street": "Main 2", "city": "Oslo", "position": [59.92, 10.76]]) }
    try realm.write { realm.delete(realm.object(ofType: Contact.self, forPrimaryKey: 3)!) }
}

print("Fixtures written to \(root.path)")

// What `shoal check --json` prints for each fixture, beside it (STYLE.md 21).
// The recovery API is what the tool prints, so the generator asks it directly.
for name in ["valid", "torn-tail", "zero-tail", "flipped-bit", "missing-snapshot", "schema-change", "migration", "bulk", "embedded"] {
    let report = try LogInspector(path: fixture(name).path).check()
    try (report.json() + "\n").write(to: root.appendingPathComponent("\(name).expected.json"), atomically: true, encoding: .utf8)
}
