import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// The routing index reaches the notifiers a commit may affect and no others.
@Suite struct RoutingTests {
    static func people(_ realm: Realm, _ n: Int) throws {
        try realm.write {
            for p in 0..<n {
                let person = realm.create(Person.self, value: ["id": p, "name": "p\(p)"])
                for d in 0..<3 { realm.create(Dog.self, value: ["id": p * 3 + d, "owner": person]) }
            }
        }
    }

    @Test("with 500 observers of `owner.id == k`, a commit changing one dog runs only its owner's notifier")
    func anchoredRouting() throws {
        let realm = try makeRealm()
        try Self.people(realm, 500)
        var calls = [Int](repeating: 0, count: 500)
        let tokens = (0..<500).map { k in
            realm.objects(Dog.self).filter("owner.id == %@", k).observe { _ in calls[k] += 1 }
        }
        realm.refresh()
        let tracker = try #require(realm.instance.coordinator.tracker)
        let before = tracker.statistics
        try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 4)!.age = 9 }   // owner 1
        try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 7)!.owner = realm.object(ofType: Person.self, forPrimaryKey: 0) }
        realm.refresh()
        let after = tracker.statistics
        #expect(after.commits - before.commits == 2)
        // Dog 4's owner's notifier; dog 7's old owner (2) and new one (0).
        #expect(after.notifierRuns - before.notifierRuns == 3)
        #expect(calls[1] == 2 && calls[0] == 2 && calls[2] == 2)
        #expect(calls.enumerated().filter { ![0, 1, 2].contains($0.offset) }.allSatisfy { $0.element == 1 })
        withExtendedLifetime(tokens) {}
    }

    @Test("with 200 observers filtered to `name`, commits changing `age` run none and call none")
    func filteredRouting() throws {
        let realm = try makeRealm()
        try Self.people(realm, 50)
        var calls = 0
        let tokens = (0..<200).map { _ in realm.objects(Dog.self).observe(keyPaths: ["name"]) { _ in calls += 1 } }
        realm.refresh()
        let tracker = try #require(realm.instance.coordinator.tracker)
        let before = tracker.statistics
        for id in 0..<20 { try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: id)!.age += 1 } }
        realm.refresh()
        #expect(tracker.statistics.notifierRuns == before.notifierRuns)
        #expect(calls == 200)   // the initial callbacks only
        try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 3)!.name = "x" }
        realm.refresh()
        #expect(calls == 400)
        withExtendedLifetime(tokens) {}
    }

    @Test("with 10 observers of disjoint `owner.id` ranges, a commit reaches only the notifiers whose range holds the dog's owner, before or after")
    func rangeRouting() throws {
        let realm = try makeRealm()
        try Self.people(realm, 100)
        let recorders = (0..<10).map { _ in Recorder() }
        let tokens = (0..<10).map { k in
            realm.objects(Dog.self).filter("owner.id >= %@ AND owner.id < %@", 10 * k, 10 * k + 10).observe(recorders[k].handle)
        }
        realm.refresh()
        for recorder in recorders { _ = recorder.take() }
        let tracker = try #require(realm.instance.coordinator.tracker)
        var before = tracker.statistics
        // Five dogs of owners 0...4 in one commit: range 0's notifier, with those five only.
        try realm.write { for id in [0, 3, 6, 9, 12] { realm.object(ofType: Dog.self, forPrimaryKey: id)!.age = 9 } }
        realm.refresh()
        var after = tracker.statistics
        #expect(after.notifierRuns - before.notifierRuns == 1)
        #expect(after.candidates - before.candidates == 5)
        #expect(recorders[0].take() == [.update(Array(0..<30), deletions: [], insertions: [], modifications: [0, 3, 6, 9, 12])])
        // Dog 7 (owner 2) moves to owner 55: range 0 loses it (its value
        // before), range 5 gains it (its value after).
        before = after
        try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 7)!.owner = realm.object(ofType: Person.self, forPrimaryKey: 55) }
        realm.refresh()
        after = tracker.statistics
        #expect(after.notifierRuns - before.notifierRuns == 2)
        #expect(recorders[0].take() == [.update(Array(0..<30).filter { $0 != 7 }, deletions: [7], insertions: [], modifications: [])])
        #expect(recorders[5].take() == [.update([7] + Array(150..<180), deletions: [], insertions: [0], modifications: [])])
        // Deleting owner 55 nulls dog 7's link: range 5's notifier finds
        // it through the owner's reverse edge and its value before.
        before = after
        try realm.write { realm.delete(realm.object(ofType: Person.self, forPrimaryKey: 55)!) }
        realm.refresh()
        after = tracker.statistics
        #expect(after.notifierRuns - before.notifierRuns == 1)
        #expect(recorders[5].take() == [.update(Array(150..<165) + Array(168..<180), deletions: [0, 16, 17, 18], insertions: [], modifications: [])])
        #expect(recorders.indices.filter { ![0, 5].contains($0) }.allSatisfy { recorders[$0].take().isEmpty })
        withExtendedLifetime(tokens) {}
    }

    @Test("range-anchored results over links and columns, one-sided, BETWEEN and strings, stay equal to a fresh query under random commits")
    func rangeRoutingMatchesQueries() throws {
        let realm = try makeRealm()
        var random = SeededRandom(seed: 0x5EC7_10ED)
        let names = ["ann", "bob", "cy", "dee", "eve", "fay", "gus"]
        try realm.write {
            for p in 0..<30 { realm.create(Person.self, value: ["id": p, "name": names[p % names.count]]) }
            for d in 0..<120 {
                let dog = realm.create(Dog.self, value: ["id": d, "age": d % 9, "name": names[d % 5]])
                if d % 11 != 0 { dog.owner = realm.object(ofType: Person.self, forPrimaryKey: d % 30) }
            }
        }
        let queries = [
            "owner.id >= 5 AND owner.id < 12",
            "owner.id > 25",
            "owner.id <= 3",
            "owner.id BETWEEN {10, 14}",
            "age >= 2 AND age <= 4 AND name != 'cy'",
            "owner.name >= 'bob' AND owner.name < 'eve'",
            "owner.id >= 0 AND owner.id < 30 AND age > 3",
            "owner.id > 20 AND owner.id < 10",
        ]
        let recorders = queries.map { _ in Recorder() }
        let results = queries.map { realm.objects(Dog.self).filter($0).sorted(byKeyPath: "name") }
        let tokens = results.indices.map { results[$0].observe(recorders[$0].handle) }
        realm.refresh()
        var shown = results.map { $0.map(\.id) }
        for recorder in recorders { _ = recorder.take() }
        var nextDog = 1000
        for _ in 0..<60 {
            try realm.write {
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let dogs = realm.objects(Dog.self), people = realm.objects(Person.self)
                    switch Int.random(in: 0..<6, using: &random) {
                    case 0: dogs[Int.random(in: 0..<dogs.count, using: &random)].age = Int.random(in: 0..<9, using: &random)
                    case 1: dogs[Int.random(in: 0..<dogs.count, using: &random)].owner = people.isEmpty ? nil : people[Int.random(in: 0..<people.count, using: &random)]
                    case 2: dogs[Int.random(in: 0..<dogs.count, using: &random)].owner = nil
                    case 3:
                        nextDog += 1
                        let dog = realm.create(Dog.self, value: ["id": nextDog, "age": nextDog % 9, "name": names[nextDog % 5]])
                        if !people.isEmpty { dog.owner = people[nextDog % people.count] }
                    case 4: if dogs.count > 20 { realm.delete(dogs[Int.random(in: 0..<dogs.count, using: &random)]) }
                    default:
                        if people.count > 5 { realm.delete(people[Int.random(in: 0..<people.count, using: &random)]) }
                        else { realm.create(Person.self, value: ["id": 100 + nextDog, "name": names[nextDog % names.count]]) }
                    }
                }
            }
            realm.refresh()
            for (i, recorder) in recorders.enumerated() {
                let fresh = realm.objects(Dog.self).filter(queries[i]).sorted(byKeyPath: "name").map(\.id)
                for event in recorder.take() {
                    guard case let .update(ids, deletions, insertions, _) = event else {
                        Issue.record("\(queries[i]): \(event)")
                        continue
                    }
                    let kept = shown[i].indices.filter { !deletions.contains($0) }.map { shown[i][$0] }
                    #expect(kept == ids.indices.filter { !insertions.contains($0) }.map { ids[$0] }, "\(queries[i])")
                    shown[i] = ids
                }
                #expect(shown[i] == fresh, "\(queries[i]), seed \(random.seed)")
            }
        }
        withExtendedLifetime(tokens) {}
    }

    @Test("the range anchor takes a to-one path's bounds of the column's kind, and nothing else")
    func rangeAnchorKinds() throws {
        let realm = try makeRealm()
        let schema = realm.instance.schema
        func anchor(_ format: String) -> RangeAnchor? {
            let results = realm.objects(Dog.self).filter(format)
            guard case .query(_, let descriptor) = results.source, let predicate = descriptor.predicate else { return nil }
            return RangeAnchor.of(predicate, schema: schema)
        }
        let owner = anchor("owner.id >= 1 AND owner.id < 5 AND age == 3")
        #expect(owner?.lower == .int(1) && owner?.upper == .int(5) && owner?.matchers.count == 2)
        #expect(anchor("age BETWEEN {1, 5}")?.upper == .int(5))
        #expect(anchor("owner.name < 'm'").map { $0.lower == nil && $0.upper == .string("m") } == true)
        #expect(anchor("ANY tags > 'a'") == nil)
        #expect(anchor("age > 3 OR age < 1") == nil)
    }
}
