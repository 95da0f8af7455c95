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
}
