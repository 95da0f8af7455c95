import Foundation
import OpenCombine
import ShoalCombine
import ShoalTestSupport
import Testing
@testable import Shoal

/// Demand: a subscriber asking for one element at a time gets no more than
/// it asked for, and what it missed arrives merged into one correct change.
/// Cancellation: the token is invalidated and the engine does no more work.
@Suite struct DemandAndCancellationTests {
    @Test("a subscriber requesting .max(1) once gets one value; changes after it wait, merged, for its next request")
    func oneAtATime() throws {
        let realm = try Fixture.dogs(1...2)
        var counts: [Int] = []
        let probe = Probe<Results<Dog>, any Error>(initial: .max(1), perValue: .none) { counts.append($0.count) }
        realm.objects(Dog.self).collectionPublisher.subscribe(probe)
        realm.refresh()
        #expect(counts == [2])
        for id in 3...5 {
            try realm.write { realm.create(Dog.self, value: ["id": id]) }
            realm.refresh()
        }
        #expect(counts == [2])
        probe.request(.max(1))   // on the observing thread: handed over at once
        #expect(counts == [2, 5])
        try realm.write { realm.create(Dog.self, value: ["id": 6]) }
        realm.refresh()
        #expect(counts == [2, 5])
        probe.cancel()
    }

    @Test("a subscriber that asks for one more with each value gets every commit's change, one at a time")
    func demandFromReceive() throws {
        let realm = try Fixture.dogs(1...1)
        var events: [Event] = []
        let probe = Probe<RealmCollectionChange<Results<Dog>>, Never>(initial: .max(1), perValue: .max(1)) { events.append(Event($0)) }
        realm.objects(Dog.self).changesetPublisher.subscribe(probe)
        realm.refresh()
        for id in 2...3 {
            try realm.write { realm.create(Dog.self, value: ["id": id]) }
            realm.refresh()
        }
        #expect(events == [.initial([1]), .update([1, 2], deletions: [], insertions: [1], modifications: []),
            .update([1, 2, 3], deletions: [], insertions: [2], modifications: [])])
        probe.cancel()
    }

    @Test("changesets kept without demand merge into one that turns the last seen state into the current one",
        arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func mergedChangesetsAreCorrect(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let realm = try Fixture.dogs(1...8)
        let dogs = realm.objects(Dog.self).sorted(byKeyPath: "age")
        let probe = Probe<RealmCollectionChange<Results<Dog>>, Never>(initial: .max(1), perValue: .none)
        dogs.changesetPublisher.subscribe(probe)
        realm.refresh()
        guard case .initial(let first)? = probe.take().first else { throw ProbeError.missing }
        let before = first.map { ($0.id, $0.name, $0.age) }
        var nextID = 9
        for _ in 0..<(2 + Int(random.next() % 4)) {
            try realm.write {
                let ids = realm.objects(Dog.self).map(\.id)
                for _ in 0..<(1 + Int(random.next() % 3)) {
                    switch random.next() % 4 {
                    case 0:
                        realm.create(Dog.self, value: ["id": nextID, "age": Int(random.next() % 20)])
                        nextID += 1
                    case 1: if let id = ids.randomElement(using: &random), let dog = realm.object(ofType: Dog.self, forPrimaryKey: id) {
                        realm.delete(dog)
                    }
                    case 2: realm.object(ofType: Dog.self, forPrimaryKey: ids.randomElement(using: &random) ?? 0)?.age = Int(random.next() % 20)
                    default: realm.object(ofType: Dog.self, forPrimaryKey: ids.randomElement(using: &random) ?? 0)?.name = "n\(random.next() % 5)"
                    }
                }
            }
            realm.refresh()
        }
        probe.request(.max(1))
        let delivered = probe.take()
        #expect(delivered.count <= 1)
        guard case .update(let after, let deletions, let insertions, let modifications)? = delivered.first else {
            #expect(delivered.isEmpty)
            return
        }
        // Applying the merged change to the state last seen yields the current one.
        var ids = before.map(\.0)
        for index in deletions.reversed() { ids.remove(at: index) }
        for index in insertions { ids.insert(after[index].id, at: index) }
        #expect(ids == after.map(\.id))
        // Every surviving dog whose name or age changed is reported modified.
        for (oldIndex, (id, name, age)) in before.enumerated() where !deletions.contains(oldIndex) {
            let dog = Fixture.dog(realm, id)
            if dog.name != name || dog.age != age {
                #expect(modifications.contains(oldIndex), "dog \(id) changed but was not reported")
            }
        }
        probe.cancel()
    }

    @Test("map changes kept without demand merge by key: inserted then deleted is nothing, deleted then set is a modification")
    func mergedMapChanges() throws {
        let realm = try Fixture.dogs(1...1)
        let scores = Fixture.dog(realm, 1).scores
        try realm.write {
            scores["kept"] = 1
            scores["dropped"] = 2
            scores["replaced"] = 3
        }
        var seen: [String] = []
        let probe = Probe<RealmMapChange<Map<String, Double>>, Never>(initial: .max(1), perValue: .none) { change in
            if case .update(_, let d, let i, let m) = change { seen.append("\(d.sorted()) \(i.sorted()) \(m.sorted())") }
        }
        scores.changesetPublisher.subscribe(probe)
        realm.refresh()
        let steps: [(Map<String, Double>) -> Void] = [
            { $0["fleeting"] = 1; $0.removeObject(for: "dropped"); $0.removeObject(for: "replaced") },
            { $0.removeObject(for: "fleeting"); $0["replaced"] = 4; $0["new"] = 5 },
            { $0["kept"] = 1; $0["new"] = 6 },
        ]
        for step in steps {
            try realm.write { step(scores) }
            realm.refresh()
        }
        #expect(seen.isEmpty)
        probe.request(.max(1))
        #expect(seen == ["[\"dropped\"] [\"new\"] [\"replaced\"]"])
        probe.cancel()
    }

    @Test("object changes kept without demand merge per property: the first old value, the last new one")
    func mergedObjectChanges() throws {
        let realm = try Fixture.dogs(1...1)
        var seen: [[String]] = []
        let probe = Probe<ObjectChange<Dog>, Never>(initial: .none) { change in
            if case .change(_, let properties) = change {
                seen.append(properties.map { "\($0.name): \($0.oldValue ?? "nil") -> \($0.newValue ?? "nil")" })
            }
        }
        changesetPublisher(Fixture.dog(realm, 1)).subscribe(probe)
        try realm.write { Fixture.dog(realm, 1).name = "a" }
        realm.refresh()
        try realm.write {
            Fixture.dog(realm, 1).name = "b"
            Fixture.dog(realm, 1).age = 7
        }
        realm.refresh()
        #expect(seen.isEmpty)
        probe.request(.unlimited)
        #expect(seen == [["name: d1 -> b", "age: 1 -> 7"]])
        probe.cancel()
    }

    @Test("cancelling from another thread stops a subscription observed on this thread")
    func cancelFromAnotherThread() throws {
        let realm = try Fixture.dogs(1...1)
        let probe = Probe<Results<Dog>, any Error>()
        realm.objects(Dog.self).collectionPublisher.subscribe(probe)
        realm.refresh()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            probe.cancel()
            done.signal()
        }
        done.wait()
        try realm.write { realm.create(Dog.self, value: ["id": 2]) }
        realm.refresh()
        #expect(probe.values.count == 1)
        #expect(realm.instance.mailbox?.subscriptions.isEmpty == true)
    }

    @Test("cancelling stops values and unregisters the token: commits run no notifier for it")
    func cancellationStopsWork() throws {
        let realm = try Fixture.dogs(1...2)
        var values = 0
        let cancellable = realm.objects(Dog.self).where { $0.age > 0 }.collectionPublisher
            .sink(receiveCompletion: { _ in }, receiveValue: { _ in values += 1 })
        realm.refresh()
        let tracker = try #require(realm.instance.coordinator.tracker)
        #expect(realm.instance.mailbox?.subscriptions.count == 1)
        cancellable.cancel()
        realm.refresh()   // lets the worker take the removal in
        #expect(realm.instance.mailbox?.subscriptions.isEmpty == true)
        let before = tracker.statistics
        try realm.write { Fixture.dog(realm, 1).age = 10 }
        realm.refresh()
        #expect(tracker.statistics.notifierRuns == before.notifierRuns)
        #expect(values == 1)
    }

    @Test("completion on deletion invalidates the token as cancellation does")
    func completionUnregisters() throws {
        let realm = try Fixture.dogs(1...1)
        let probe = Probe<ObjectChange<Dog>, Never>()
        changesetPublisher(Fixture.dog(realm, 1)).subscribe(probe)
        realm.refresh()
        #expect(realm.instance.mailbox?.subscriptions.count == 1)
        try realm.write { realm.delete(Fixture.dog(realm, 1)) }
        realm.refresh()
        #expect(probe.isFinished)
        realm.refresh()
        #expect(realm.instance.mailbox?.subscriptions.isEmpty == true)
    }

    @Test("a subscriber that cancels inside receive(subscription:) leaves nothing registered")
    func cancelAtOnce() throws {
        let realm = try Fixture.dogs(1...1)
        let probe = Probe<Results<Dog>, any Error>(initial: .none)
        realm.objects(Dog.self).collectionPublisher.handleEvents(receiveSubscription: { $0.cancel() }).subscribe(probe)
        realm.refresh()
        #expect(probe.values.isEmpty)
        #expect(realm.instance.mailbox?.subscriptions.isEmpty == true)
    }

    enum ProbeError: Error { case missing }
}
