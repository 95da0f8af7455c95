import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// The snapshot payload forms: columnar (format version 2, written now) and
/// rows (version 1, still read).
enum SnapshotForm: String, CaseIterable, CustomTestStringConvertible {
    case columnar, rows

    var testDescription: String { rawValue }

    /// A format version whose snapshots have this form.
    var formatVersion: UInt16 { self == .columnar ? LogFormat.version : 1 }

    func encode(_ snapshot: Snapshot) -> [UInt8] {
        self == .columnar ? SnapshotCodec.encode(snapshot) : SnapshotCodec.encodeRows(snapshot)
    }

    func roundTrip(_ snapshot: Snapshot) throws(DecodingFailure) -> Snapshot {
        try SnapshotCodec.decode(encode(snapshot), formatVersion: formatVersion)
    }
}

@Suite struct SnapshotCodecTests {
    @Test("a snapshot written and read back has the same contents, including deleted slots, links in any direction, and collections", arguments: SnapshotForm.allCases)
    func roundTrip(form: SnapshotForm) throws {
        let (realm, _) = try ChangeRecordCodecTests.recordedWorkload(seed: 11, rounds: 120)
        try realm.write {
            let dog = realm.create(Dog.self, value: ["id": 999_999, "name": "Last"])
            realm.objects(Person.self).first?.dogs.append(dog)
            realm.create(AllTypes.self, value: ["id": ObjectId.generate(), "link": dog, "any": AnyRealmValue.object(dog)])
        }
        let snapshot = realm.instance.coordinator.latest
        #expect(snapshot.tables.contains { $0.alive.count > $0.count })
        let restored = try form.roundTrip(snapshot)
        #expect(restored.hasSameContents(as: snapshot))
        #expect(restored.invariantViolation() == nil)
    }

    @Test("tables that link ahead load after their targets; links that still point ahead (to later objects, in cycles) are set last", arguments: SnapshotForm.allCases)
    func linksAhead(form: SnapshotForm) throws {
        // Reversed, so that every to-one link points at a table read later.
        // Reading, last and linking nowhere by type, loads while the tables
        // before it are held: its mixed links to them must wait.
        let realm = try makeRealm(types: [Note.self, AllTypes.self, Puppy.self, Kennel.self, Dog.self, Person.self, Reading.self])
        try realm.write {
            let people = (0..<5).map { realm.create(Person.self, value: ["id": $0, "name": "p\($0)"]) }
            let dogs = (0..<40).map { realm.create(Dog.self, value: ["id": $0, "owner": people[$0 % 5]]) }
            for (i, dog) in dogs.enumerated() where i % 3 == 0 { realm.create(Puppy.self, value: ["name": "pup\(i)", "mother": dog]) }
            var previous: AllTypes?
            for i in 0..<6 {
                let row = realm.create(AllTypes.self, value: ["id": ObjectId.generate(), "link": dogs[i]])
                // Mixed values linking back, and to a person.
                row.any = i % 2 == 0 ? AnyRealmValue.object(people[i % 5]) : previous.map { AnyRealmValue.object($0) } ?? .none
                previous = row
            }
            // A mixed link to a later object of the same table: set ahead.
            realm.objects(AllTypes.self).first!.any = .object(realm.objects(AllTypes.self).last!)
            for (i, row) in realm.objects(AllTypes.self).enumerated() {
                realm.create(Reading.self, value: ["code": "r\(i)", "mixed": AnyRealmValue.object(row)])
            }
            for dog in dogs where dog.id % 7 == 3 { realm.delete(dog) }
        }
        let snapshot = realm.instance.coordinator.latest
        let dogs = try #require(snapshot.schema.tableByName["Dog"])
        let people = try #require(snapshot.schema.tableByName["Person"])
        #expect(dogs.index < people.index)
        #expect(snapshot.tables[dogs.index].alive.count > snapshot.tables[dogs.index].count)
        let restored = try form.roundTrip(snapshot)
        #expect(restored.hasSameContents(as: snapshot))
        #expect(restored.invariantViolation() == nil)
    }

    @Test("a snapshot whose objects share a primary key is rejected when its indexes are built", arguments: SnapshotForm.allCases)
    func duplicatePrimaryKey(form: SnapshotForm) throws {
        let schema = try makeRealm().instance.schema
        var snapshot = Snapshot(schema: schema)
        let dogs = schema.tableByName["Dog"]!
        let values = ClassRegistry.info(for: Dog.self).defaults
        snapshot.apply(.insert(dogs, ObjectKey(0), values), indexing: false)
        snapshot.apply(.insert(dogs, ObjectKey(1), values), indexing: false)
        let error = #expect(throws: DecodingFailure.self) { _ = try form.roundTrip(snapshot) }
        #expect(error?.reason.contains("share the primary key") == true)
    }

    @Test("stored backlinks must hold exactly the links that point at each object; their stored order wins", arguments: SnapshotForm.allCases)
    func storedBacklinks(form: SnapshotForm) throws {
        let realm = try makeRealm()
        try realm.write {
            let ann = realm.create(Person.self, value: ["id": 1, "name": "Ann"])
            let bob = realm.create(Person.self, value: ["id": 2, "name": "Bob"])
            for id in 0..<3 { realm.create(Dog.self, value: ["id": id, "owner": id == 2 ? bob : ann]) }
        }
        let snapshot = realm.instance.coordinator.latest
        let people = try #require(snapshot.schema.tableByName["Person"])
        let ann = try #require(snapshot.object(people, primaryKey: .int(1)))
        let bob = try #require(snapshot.object(people, primaryKey: .int(2)))
        let annLinks = snapshot.tables[people.index].backlinks[ann.slot]
        #expect(annLinks.count == 2)

        // Reordered: accepted, in the stored order.
        var reordered = snapshot
        reordered.tables[people.index].backlinks[ann.slot] = Backlinks(annLinks.reversed())
        let restored = try form.roundTrip(reordered)
        #expect(restored.tables[people.index].backlinks[ann.slot] == Backlinks(annLinks.reversed()))

        // The columnar form stores only lists out of load order, so these
        // inconsistent states cannot be written in it; its damaged lists
        // are checked byte by byte in SnapshotColumnarTests.
        guard form == .rows else { return }
        // One missing from an object that has others, or all of an object's missing.
        for damage in [(ann, Array(annLinks.prefix(1))), (bob, [])] {
            var damaged = snapshot
            damaged.tables[people.index].backlinks[damage.0.slot] = Backlinks(damage.1)
            let error = #expect(throws: DecodingFailure.self) { _ = try form.roundTrip(damaged) }
            #expect(error?.reason.contains("backlinks") == true, "\(String(describing: error))")
        }
        // One stored on an object that no link points at.
        var extra = snapshot
        let dogs = try #require(snapshot.schema.tableByName["Dog"])
        extra.tables[dogs.index].backlinks[0] = [annLinks[0]]
        let error = #expect(throws: DecodingFailure.self) { _ = try form.roundTrip(extra) }
        #expect(error?.reason.contains("backlinks") == true, "\(String(describing: error))")
    }

    @Test("the schema round-trips and a damaged schema is rejected")
    func schema() throws {
        let schema = try makeRealm().instance.schema
        let bytes = SchemaCodec.encode(schema)
        #expect(try SchemaCodec.decode(bytes) == schema)
        var damaged = bytes
        damaged[damaged.count / 2] ^= 0xFF
        #expect(throws: DecodingFailure.self) { _ = try SchemaCodec.decode(Array(damaged.prefix(damaged.count - 3))) }
    }
}
