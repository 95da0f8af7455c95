import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// Results notifications: the first callback, Realm's index spaces
/// (deletions and modifications old, insertions new), sorted results,
/// silence when nothing relevant changed, and coalescing
/// (REALM-SEMANTICS §1, §4 and the decisions table).
@Suite struct ResultsChangesetTests {
    @Test("the first callback is .initial with the current contents, delivered at refresh(), never from observe()")
    func initialFirst() throws {
        let realm = try Fixture.dogs(1...3)
        let recorder = Recorder()
        let token = realm.objects(Dog.self).observe(recorder.handle)
        #expect(recorder.events == [])
        realm.refresh()
        #expect(recorder.take() == [.initial([1, 2, 3])])
        realm.refresh()
        #expect(recorder.events == [])
        token.invalidate()
    }

    @Test("an insertion is reported at its new index, a deletion at its old one")
    func insertAndDelete() throws {
        let realm = try Fixture.dogs(1...3)
        let recorder = Recorder()
        let token = realm.objects(Dog.self).observe(recorder.handle)
        realm.refresh()
        try realm.write { realm.create(Dog.self, value: ["id": 4]) }
        #expect(recorder.events == [.initial([1, 2, 3])])
        realm.refresh()
        try realm.write { realm.delete(Fixture.dog(realm, 2)) }
        realm.refresh()
        #expect(recorder.events == [
            .initial([1, 2, 3]),
            .update([1, 2, 3, 4], deletions: [], insertions: [3], modifications: []),
            .update([1, 3, 4], deletions: [1], insertions: [], modifications: []),
        ])
        token.invalidate()
    }

    @Test("testModifyObjectShiftedByDeletion: delete row 1 and modify row 2 gives deletions [1], modifications [2] (old index)")
    func modifyObjectShiftedByDeletion() throws {
        let realm = try Fixture.dogs(1...5)
        let recorder = Recorder()
        let token = realm.objects(Dog.self).observe(recorder.handle)
        realm.refresh()
        try realm.write {
            realm.delete(Fixture.dog(realm, 2))
            Fixture.dog(realm, 3).name = "changed"
        }
        realm.refresh()
        #expect(recorder.events == [
            .initial([1, 2, 3, 4, 5]),
            .update([1, 3, 4, 5], deletions: [1], insertions: [], modifications: [2]),
        ])
        token.invalidate()
    }

    @Test("delete, modify and insert in one transaction use old, old and new indices")
    func mixedTransaction() throws {
        let realm = try Fixture.dogs(1...5)
        let recorder = Recorder()
        let token = realm.objects(Dog.self).observe(recorder.handle)
        realm.refresh()
        try realm.write {
            realm.delete(Fixture.dog(realm, 1))
            Fixture.dog(realm, 4).age = 40
            realm.create(Dog.self, value: ["id": 6])
        }
        realm.refresh()
        #expect(recorder.take() == [
            .initial([1, 2, 3, 4, 5]),
            .update([2, 3, 4, 5, 6], deletions: [0], insertions: [4], modifications: [3]),
        ])
        token.invalidate()
    }

    @Test("an object entering a filter is an insertion, one leaving it a deletion")
    func filterMembership() throws {
        let realm = try Fixture.dogs(1...5)
        let recorder = Recorder()
        let token = realm.objects(Dog.self).filter("age >= 3").observe(recorder.handle)
        realm.refresh()
        try realm.write { Fixture.dog(realm, 1).age = 10 }
        realm.refresh()
        try realm.write { Fixture.dog(realm, 4).age = 0 }
        realm.refresh()
        #expect(recorder.events == [
            .initial([3, 4, 5]),
            .update([1, 3, 4, 5], deletions: [], insertions: [0], modifications: []),
            .update([1, 3, 5], deletions: [2], insertions: [], modifications: []),
        ])
        token.invalidate()
    }

    @Test("a sort key change that moves the object is a delete and an insert, never a modification; others are untouched")
    func sortedMove() throws {
        let realm = try Fixture.dogs(1...5) { $0 * 10 }
        let recorder = Recorder()
        let token = realm.objects(Dog.self).sorted(byKeyPath: "age").observe(recorder.handle)
        realm.refresh()
        try realm.write {
            Fixture.dog(realm, 1).age = 35
            Fixture.dog(realm, 4).name = "renamed"
        }
        realm.refresh()
        #expect(recorder.events == [
            .initial([1, 2, 3, 4, 5]),
            .update([2, 3, 1, 4, 5], deletions: [0], insertions: [2], modifications: [3]),
        ])
        token.invalidate()
    }

    @Test("descending sort: moving to the front is a delete at the old index and an insert at 0")
    func sortedDescendingMove() throws {
        let realm = try Fixture.dogs(1...5) { $0 * 10 }
        let recorder = Recorder()
        let token = realm.objects(Dog.self).sorted(byKeyPath: "age", ascending: false).observe(recorder.handle)
        realm.refresh()
        try realm.write { Fixture.dog(realm, 2).age = 99 }
        realm.refresh()
        #expect(recorder.events == [
            .initial([5, 4, 3, 2, 1]),
            .update([2, 5, 4, 3, 1], deletions: [3], insertions: [0], modifications: []),
        ])
        token.invalidate()
    }

    @Test("a sort key change that keeps the position is a modification")
    func sortedChangeInPlace() throws {
        let realm = try Fixture.dogs(1...5) { $0 * 10 }
        let recorder = Recorder()
        let token = realm.objects(Dog.self).sorted(byKeyPath: "age").observe(recorder.handle)
        realm.refresh()
        try realm.write { Fixture.dog(realm, 3).age = 31 }
        realm.refresh()
        #expect(recorder.events == [
            .initial([1, 2, 3, 4, 5]),
            .update([1, 2, 3, 4, 5], deletions: [], insertions: [], modifications: [2]),
        ])
        token.invalidate()
    }

    @Test("two objects swapping sort positions: only they appear, as delete + insert pairs")
    func sortedSwap() throws {
        let realm = try Fixture.dogs(1...5) { $0 * 10 }
        let recorder = Recorder()
        let token = realm.objects(Dog.self).sorted(byKeyPath: "age").observe(recorder.handle)
        realm.refresh()
        try realm.write {
            Fixture.dog(realm, 2).age = 41
            Fixture.dog(realm, 4).age = 21
        }
        realm.refresh()
        // Dogs 2 and 4 both change their order relative to the untouched dog 3,
        // so both move; dogs 1, 3 and 5 never appear.
        #expect(recorder.take() == [
            .initial([1, 2, 3, 4, 5]),
            .update([1, 4, 3, 2, 5], deletions: [1, 3], insertions: [1, 3], modifications: []),
        ])
        token.invalidate()
    }

    @Test("no callback for writes to unrelated tables, or objects that only link to the elements")
    func silentUnrelated() throws {
        let realm = try Fixture.dogs(1...3)
        let recorder = Recorder()
        let token = realm.objects(Dog.self).observe(recorder.handle)
        realm.refresh()
        try realm.write { realm.create(Kennel.self, value: ["name": "k"]) }
        realm.refresh()
        try realm.write { realm.create(Person.self, value: ["id": 1, "name": "unlinked"]) }
        realm.refresh()
        try realm.write { realm.objects(Kennel.self)[0].residents.append(Fixture.dog(realm, 1)) }
        realm.refresh()
        try realm.write { realm.objects(Kennel.self)[0].name = "renamed" }
        realm.refresh()
        #expect(recorder.take() == [.initial([1, 2, 3])])
        try realm.write { Fixture.dog(realm, 3).name = "alive" }
        realm.refresh()
        #expect(recorder.take() == [.update([1, 2, 3], deletions: [], insertions: [], modifications: [2])])
        token.invalidate()
    }

    @Test("no callback for objects that match neither before nor after")
    func silentNonMatching() throws {
        let realm = try Fixture.dogs(1...5)
        let recorder = Recorder()
        let token = realm.objects(Dog.self).filter("age >= 3").observe(recorder.handle)
        realm.refresh()
        try realm.write { Fixture.dog(realm, 1).age = 2 }
        realm.refresh()
        try realm.write { Fixture.dog(realm, 2).name = "still small" }
        realm.refresh()
        try realm.write { realm.create(Dog.self, value: ["id": 6, "age": 0]) }
        realm.refresh()
        try realm.write { realm.delete(Fixture.dog(realm, 6)) }
        realm.refresh()
        #expect(recorder.take() == [.initial([3, 4, 5])])
        try realm.write { Fixture.dog(realm, 2).age = 7 }
        realm.refresh()
        #expect(recorder.take() == [.update([2, 3, 4, 5], deletions: [], insertions: [0], modifications: [])])
        token.invalidate()
    }

    @Test("no callback for an empty write, a cancelled write, or writing a property's current value")
    func silentNoChange() throws {
        let realm = try Fixture.dogs(1...3)
        let recorder = Recorder()
        let token = realm.objects(Dog.self).observe(recorder.handle)
        realm.refresh()
        try realm.write {}
        realm.refresh()
        try realm.write {
            let dog = Fixture.dog(realm, 2)
            dog.name = dog.name
            dog.age = dog.age
        }
        realm.refresh()
        realm.beginWrite()
        Fixture.dog(realm, 3).name = "cancelled"
        realm.create(Dog.self, value: ["id": 9])
        realm.cancelWrite()
        realm.refresh()
        #expect(recorder.take() == [.initial([1, 2, 3])])
        try realm.write { Fixture.dog(realm, 1).name = "real" }
        realm.refresh()
        #expect(recorder.take() == [.update([1, 2, 3], deletions: [], insertions: [], modifications: [0])])
        token.invalidate()
    }

    @Test("a value changed and changed back in one transaction is no change (NOTIFICATIONS.md §2.5)")
    func silentChangedBack() throws {
        let realm = try Fixture.dogs(1...3)
        let recorder = Recorder()
        let token = realm.objects(Dog.self).observe(recorder.handle)
        realm.refresh()
        try realm.write {
            Fixture.dog(realm, 1).name = "changed and back"
            Fixture.dog(realm, 1).name = "d1"
        }
        realm.refresh()
        #expect(recorder.take() == [.initial([1, 2, 3])])
        token.invalidate()
    }

    @Test("insert then delete: no callback, in one transaction or across coalesced transactions")
    func silentInsertThenDelete() throws {
        let realm = try Fixture.dogs(1...3)
        let recorder = Recorder()
        let token = realm.objects(Dog.self).observe(recorder.handle)
        realm.refresh()
        try realm.write {
            let dog = realm.create(Dog.self, value: ["id": 4])
            realm.delete(dog)
        }
        realm.refresh()
        Fixture.writeElsewhere(realm) { $0.create(Dog.self, value: ["id": 5]) }
        Fixture.writeElsewhere(realm) { Fixture.dog($0, 5).name = "short-lived" }
        Fixture.writeElsewhere(realm) { $0.delete(Fixture.dog($0, 5)) }
        realm.refresh()
        #expect(recorder.take() == [.initial([1, 2, 3])])
        token.invalidate()
    }

    @Test("each write on the observing thread delivers the previous one first, at its beginWrite()")
    func ownWritesDoNotCoalesce() throws {
        let realm = try Fixture.dogs(1...2)
        let recorder = Recorder()
        let token = realm.objects(Dog.self).observe(recorder.handle)
        try realm.write { realm.create(Dog.self, value: ["id": 3]) }
        try realm.write { realm.delete(Fixture.dog(realm, 1)) }
        #expect(recorder.take() == [.initial([1, 2]), .update([1, 2, 3], deletions: [], insertions: [2], modifications: [])])
        realm.refresh()
        #expect(recorder.take() == [.update([2, 3], deletions: [0], insertions: [], modifications: [])])
        token.invalidate()
    }

    @Test("several commits before delivery coalesce into one update relative to the last delivered state")
    func coalescing() throws {
        let realm = try Fixture.dogs(1...5)
        let recorder = Recorder()
        let token = realm.objects(Dog.self).observe(recorder.handle)
        realm.refresh()
        Fixture.writeElsewhere(realm) { $0.create(Dog.self, value: ["id": 6]) }
        Fixture.writeElsewhere(realm) { Fixture.dog($0, 2).name = "changed" }
        Fixture.writeElsewhere(realm) { $0.delete(Fixture.dog($0, 1)) }
        realm.refresh()
        #expect(recorder.take() == [
            .initial([1, 2, 3, 4, 5]),
            .update([2, 3, 4, 5, 6], deletions: [0], insertions: [4], modifications: [1]),
        ])
        token.invalidate()
    }

    @Test("coalescing: insert then modify is an insertion only; modify then delete is a deletion only")
    func coalescingMergeRules() throws {
        let realm = try Fixture.dogs(1...3)
        let recorder = Recorder()
        let token = realm.objects(Dog.self).observe(recorder.handle)
        realm.refresh()
        Fixture.writeElsewhere(realm) { $0.create(Dog.self, value: ["id": 4]) }
        Fixture.writeElsewhere(realm) { Fixture.dog($0, 4).name = "new" }
        realm.refresh()
        Fixture.writeElsewhere(realm) { Fixture.dog($0, 2).name = "doomed" }
        Fixture.writeElsewhere(realm) { $0.delete(Fixture.dog($0, 2)) }
        realm.refresh()
        #expect(recorder.take() == [
            .initial([1, 2, 3]),
            .update([1, 2, 3, 4], deletions: [], insertions: [3], modifications: []),
            .update([1, 3, 4], deletions: [1], insertions: [], modifications: []),
        ])
        token.invalidate()
    }

    @Test("an object leaving a filter and coming back changed, across coalesced commits, is reported", arguments: [nil, "age"] as [String?])
    func leaveAndReenter(sort: String?) throws {
        let realm = try Fixture.dogs(1...3) { $0 + 1 }
        var results = realm.objects(Dog.self).filter("age >= 2 AND age <= 4")
        if let sort { results = results.sorted(byKeyPath: sort) }
        let recorder = Recorder()
        let token = results.observe(recorder.handle)
        realm.refresh()
        Fixture.writeElsewhere(realm) { Fixture.dog($0, 2).age = 1 }
        Fixture.writeElsewhere(realm) { Fixture.dog($0, 2).age = 4 }
        realm.refresh()
        // Dog 2 (age 3 → 1 → 4) is in the result before and after, changed:
        // a modification (Shoal's baseline) or a delete + insert (Realm's merge).
        let events = recorder.take()
        let asModification = CollectionEvent.update([1, 2, 3], deletions: [], insertions: [], modifications: [1])
        let asMove = CollectionEvent.update([1, 2, 3], deletions: [1], insertions: [1], modifications: [])
        #expect(events == [.initial([1, 2, 3]), asModification] || events == [.initial([1, 2, 3]), asMove], "\(events)")
        token.invalidate()
    }

    @Test("coalescing a sorted result: a move in one commit and a modification in the next")
    func coalescingSorted() throws {
        let realm = try Fixture.dogs(1...5) { $0 * 10 }
        let recorder = Recorder()
        let token = realm.objects(Dog.self).sorted(byKeyPath: "age").observe(recorder.handle)
        realm.refresh()
        Fixture.writeElsewhere(realm) { Fixture.dog($0, 5).age = 5 }
        Fixture.writeElsewhere(realm) { Fixture.dog($0, 3).name = "changed" }
        Fixture.writeElsewhere(realm) { $0.create(Dog.self, value: ["id": 6, "age": 25]) }
        realm.refresh()
        #expect(recorder.take() == [
            .initial([1, 2, 3, 4, 5]),
            .update([5, 1, 2, 6, 3, 4], deletions: [4], insertions: [0, 3], modifications: [2]),
        ])
        token.invalidate()
    }

    @Test("writes made before the first delivery are folded into the .initial callback")
    func initialCoalesced() throws {
        let realm = try Fixture.dogs(1...3)
        let recorder = Recorder()
        let token = realm.objects(Dog.self).observe(recorder.handle)
        Fixture.writeElsewhere(realm) { $0.create(Dog.self, value: ["id": 4]) }
        Fixture.writeElsewhere(realm) { $0.delete(Fixture.dog($0, 1)) }
        realm.refresh()
        #expect(recorder.take() == [.initial([2, 3, 4])])
        token.invalidate()
    }

    @Test("the collection handed to the callback is at the delivered version and reads like a fresh query")
    func deliveredCollectionIsCurrent() throws {
        let realm = try Fixture.dogs(1...4)
        var seen: [[String]] = []
        let token = realm.objects(Dog.self).filter("age > 1").sorted(byKeyPath: "name").observe { (change: RealmCollectionChange<Results<Dog>>) in
            switch change {
            case .initial(let dogs), .update(let dogs, _, _, _):
                seen.append(dogs.map(\.name))
                seen.append(Array(realm.objects(Dog.self).filter("age > 1").sorted(byKeyPath: "name").map(\.name)))
            case .error(let error): Issue.record("\(error)")
            }
        }
        realm.refresh()
        try realm.write { Fixture.dog(realm, 2).name = "zz" }
        realm.refresh()
        #expect(seen == [["d2", "d3", "d4"], ["d2", "d3", "d4"], ["d3", "d4", "zz"], ["d3", "d4", "zz"]])
        token.invalidate()
    }
}
