import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

@Suite struct ChangeRecordTests {
    @Test("the summary drops modifications of inserted objects and cancels insert-then-delete")
    func summaryRules() {
        let t = TableKey(0)
        var record = ChangeRecord(baseVersion: 0)
        record.ops = [
            .insert(t, ObjectKey(5), [.int(1)]),
            .set(t, ObjectKey(5), property: 0, .int(2)),
            .set(t, ObjectKey(1), property: 0, .int(3)),
            .listInsert(t, ObjectKey(2), property: 1, index: 0, .int(1)),
            .set(t, ObjectKey(3), property: 0, .int(3)),
            .delete(t, ObjectKey(3)),
            .insert(t, ObjectKey(6), [.int(1)]),
            .delete(t, ObjectKey(6)),
        ]
        let summary = record.summary[t]
        #expect(summary?.insertions == [ObjectKey(5)])
        #expect(summary?.deletions == [ObjectKey(3)])
        #expect(summary?.modifications == [ObjectKey(1): [0], ObjectKey(2): [1]])
    }

    @Test("applying each commit's record to the previous snapshot gives exactly the committed snapshot")
    func replayEqualsCommit() throws {
        var rng = SeededRandom(seed: 0x5EED_2026)
        let realm = try makeRealm()
        var committed = 0
        for round in 0..<120 {
            let base = realm.instance.coordinator.latest
            realm.beginWrite()
            RandomWorkload.step(realm, &rng, operations: 1 + Int(rng.next() % 12))
            let record = try #require(realm.instance.transaction).record
            try realm.commitWrite()
            let latest = realm.instance.coordinator.latest
            guard !record.isEmpty else { continue }
            committed += 1
            let replayed = base.applying(record)
            #expect(replayed.hasSameContents(as: latest), "round \(round), seed \(rng.seed)")
            #expect(latest.invariantViolation() == nil, "round \(round), seed \(rng.seed)")
        }
        #expect(committed > 100)
    }

    @Test("deleting an object records the removal of every link to it before the delete")
    func deleteRecordsUnlinks() throws {
        let realm = try makeRealm()
        try realm.write {
            let dog = realm.create(Dog.self, value: ["id": 1])
            let p = realm.create(Person.self, value: ["id": 1, "dogs": [dog, dog]])
            let k = realm.create(Kennel.self, value: ["residents": [dog], "byName": ["rex": dog]])
            _ = (p, k)
            realm.create(Dog.self, value: ["id": 2, "owner": p])
        }
        let base = realm.instance.coordinator.latest
        realm.beginWrite()
        realm.delete(realm.object(ofType: Dog.self, forPrimaryKey: 1)!)
        let ops = realm.instance.transaction!.record.ops
        try realm.commitWrite()
        #expect(ops.count == 5)
        if case .delete = ops.last {} else { Issue.record("last op is not the delete: \(ops)") }
        #expect(ops.dropLast().allSatisfy { if case .delete = $0 { false } else { true } })
        #expect(base.applying(ChangeRecord(baseVersion: base.version, ops: ops)).hasSameContents(as: realm.instance.coordinator.latest))
        #expect(realm.objects(Person.self)[0].dogs.isEmpty)
        #expect(realm.objects(Kennel.self)[0].byName.isEmpty)
    }

    @Test("a bulk add of objects linking to managed objects, or to nothing, records only inserts, and backlinks keep link order")
    func bulkAddRecordsOnlyInserts() throws {
        let realm = try makeRealm()
        try realm.write {
            for i in 0..<3 { realm.add(Person(value: ["id": i, "name": "P\(i)"])) }
        }
        let people = Array(realm.objects(Person.self))
        let base = realm.instance.coordinator.latest
        realm.beginWrite()
        for i in 0..<20 {
            let dog = Dog(value: ["id": i, "name": "D\(i)", "age": i % 4])
            dog.owner = i % 5 == 4 ? nil : people[i % 3]
            realm.add(dog)
        }
        let mixed = AllTypes()
        mixed.any = .int(7)
        mixed.link = realm.object(ofType: Dog.self, forPrimaryKey: 3)
        realm.add(mixed)
        let ops = try #require(realm.instance.transaction).record.ops
        try realm.commitWrite()

        #expect(ops.count == 21)
        #expect(ops.allSatisfy { if case .insert = $0 { true } else { false } }, "\(ops)")
        #expect(base.applying(ChangeRecord(baseVersion: base.version, ops: ops)).hasSameContents(as: realm.instance.coordinator.latest))
        for (p, person) in people.enumerated() {
            let expected = (0..<20).filter { $0 % 5 != 4 && $0 % 3 == p }
            #expect(person.ownedDogs.map(\.id) == expected)
        }
        #expect(realm.objects(AllTypes.self)[0].any == .int(7))
        #expect(realm.objects(AllTypes.self)[0].link?.id == 3)
    }

    @Test("a link after one that adds an object is still set after that add, so the target's backlinks keep the live order")
    func linkAfterAnAddStaysDeferred() throws {
        let realm = try makeRealm()
        try realm.write { realm.add(Dog(value: ["id": 1])) }
        let mother = try #require(realm.object(ofType: Dog.self, forPrimaryKey: 1))
        realm.beginWrite()
        let puppy = Puppy()
        puppy.mother = mother
        let object = AllTypes()
        // `any` comes before `link`: adding the puppy links to the mother first.
        object.any = .object(puppy)
        object.link = mother
        realm.add(object)
        let ops = try #require(realm.instance.transaction).record.ops
        try realm.commitWrite()

        let names = ops.map { "\($0)".prefix(while: { $0 != "(" }) }
        #expect(names == ["insert", "insert", "set", "set"], "\(ops)")
        let snapshot = realm.instance.coordinator.latest
        let dogs = try #require(snapshot.schema.tableByName["Dog"])
        let origins = snapshot.withTable(dogs) { $0.pointee.backlinks[mother.ref!.key.slot].map { snapshot.schema[$0.origin].className } }
        #expect(origins == ["Puppy", "AllTypes"])
    }

    @Test("an upsert of an existing object sets its links as before, after its other properties")
    func upsertSetsLinks() throws {
        let realm = try makeRealm()
        try realm.write {
            realm.add(Person(value: ["id": 1]))
            realm.add(Dog(value: ["id": 1, "name": "Old"]))
        }
        let owner = try #require(realm.object(ofType: Person.self, forPrimaryKey: 1))
        realm.beginWrite()
        let dog = Dog(value: ["id": 1, "name": "New"])
        dog.owner = owner
        realm.add(dog, update: .modified)
        let ops = try #require(realm.instance.transaction).record.ops
        try realm.commitWrite()

        let names = ops.map { "\($0)".prefix(while: { $0 != "(" }) }
        #expect(!names.contains("insert"), "\(ops)")
        #expect(names.last == "set")
        if case .set(_, _, let p, .link) = ops.last {
            #expect(realm.instance.schema[realm.instance.schema.tableByName["Dog"]!].properties[p].name == "owner")
        } else {
            Issue.record("the last op does not set the link: \(ops)")
        }
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 1)?.owner?.id == 1)
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 1)?.name == "New")
    }
}
