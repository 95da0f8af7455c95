import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// When and where callbacks run (REALM-SEMANTICS §8, §7.2, decisions
/// table): never synchronously, at `refresh()`, at `beginWrite()` before the
/// write begins, on a queue; tokens added or invalidated during delivery.
@Suite struct DeliveryTests {
    @Test("commitWrite never delivers collection or object callbacks; refresh() does")
    func notFromCommit() throws {
        let realm = try Fixture.dogs(1...2)
        let recorder = Recorder(), objectRecorder = ObjectRecorder<Dog>()
        let tokens = [realm.objects(Dog.self).observe(recorder.handle), Fixture.dog(realm, 1).observe(objectRecorder.handle)]
        realm.refresh()
        _ = recorder.take()
        realm.beginWrite()
        Fixture.dog(realm, 1).name = "changed"
        try realm.commitWrite()
        #expect(recorder.events == [])
        #expect(objectRecorder.events == [])
        realm.refresh()
        #expect(recorder.take() == [.update([1, 2], deletions: [], insertions: [], modifications: [0])])
        #expect(objectRecorder.take() == [.change(["name: d1 -> changed"])])
        tokens.forEach { $0.invalidate() }
    }

    @Test("beginWrite() delivers pending changes before the write begins: not in a write inside the callback")
    func deliveredBeforeWrite() throws {
        let realm = try Fixture.dogs(1...2)
        var seen: [(ids: [Int], inWrite: Bool)] = []
        let token = realm.objects(Dog.self).observe { (change: RealmCollectionChange<Results<Dog>>) in
            if case .update(let dogs, _, _, _) = change { seen.append((dogs.map(\.id), realm.isInWriteTransaction)) }
            if case .initial(let dogs) = change { seen.append((dogs.map(\.id), realm.isInWriteTransaction)) }
        }
        realm.beginWrite()
        #expect(seen.map(\.ids) == [[1, 2]])
        #expect(seen.map(\.inWrite) == [false])
        realm.create(Dog.self, value: ["id": 3])
        try realm.commitWrite()
        #expect(seen.count == 1)
        try realm.write { realm.create(Dog.self, value: ["id": 4]) }
        #expect(seen.map(\.ids) == [[1, 2], [1, 2, 3]])
        #expect(seen.map(\.inWrite) == [false, false])
        token.invalidate()
    }

    @Test("a callback delivered by beginWrite() may observe and write before the caller's write begins")
    func callbackMayWrite() throws {
        let realm = try Fixture.dogs(1...2)
        let inner = Recorder()
        var innerToken: NotificationToken?
        var wrote = false
        let token = realm.objects(Dog.self).observe { (change: RealmCollectionChange<Results<Dog>>) in
            guard case .update = change, !wrote else { return }
            wrote = true
            innerToken = realm.objects(Dog.self).observe(inner.handle)
            try! realm.write { realm.create(Dog.self, value: ["id": 10]) }
        }
        realm.refresh()
        try realm.write { realm.create(Dog.self, value: ["id": 3]) }
        realm.beginWrite()
        #expect(wrote)
        #expect(realm.isInWriteTransaction)
        #expect(realm.objects(Dog.self).map(\.id) == [1, 2, 3, 10])
        realm.cancelWrite()
        realm.refresh()
        #expect(inner.take() == [.initial([1, 2, 3, 10])])
        token.invalidate()
        innerToken?.invalidate()
    }

    @Test("a token added inside a callback first fires on the next delivery")
    func addedDuringDelivery() throws {
        let realm = try Fixture.dogs(1...2)
        let inner = Recorder()
        var innerToken: NotificationToken?
        let token = realm.objects(Dog.self).observe { (change: RealmCollectionChange<Results<Dog>>) in
            if case .update = change, innerToken == nil {
                innerToken = realm.objects(Dog.self).observe(inner.handle)
            }
        }
        realm.refresh()
        try realm.write { realm.create(Dog.self, value: ["id": 3]) }
        realm.refresh()
        #expect(innerToken != nil)
        #expect(inner.events == [])
        // The next delivery is the write's beginWrite(), before dog 4 exists.
        try realm.write { realm.create(Dog.self, value: ["id": 4]) }
        realm.refresh()
        #expect(inner.take() == [.initial([1, 2, 3]), .update([1, 2, 3, 4], deletions: [], insertions: [3], modifications: [])])
        token.invalidate()
        innerToken?.invalidate()
    }

    @Test("a token invalidated inside its own callback, or another's, gets no further callbacks")
    func invalidatedDuringDelivery() throws {
        let realm = try Fixture.dogs(1...2)
        let results = realm.objects(Dog.self)
        let victim = Recorder()
        var selfCalls = 0
        var selfToken: NotificationToken?
        let victimToken = results.observe(victim.handle)
        selfToken = results.observe { (change: RealmCollectionChange<Results<Dog>>) in
            selfCalls += 1
            if case .update = change {
                selfToken?.invalidate()
                victimToken.invalidate()
            }
        }
        realm.refresh()
        try realm.write { realm.create(Dog.self, value: ["id": 3]) }
        realm.refresh()
        let victimEventsAfterFirstUpdate = victim.take()
        try realm.write { realm.create(Dog.self, value: ["id": 4]) }
        realm.refresh()
        try realm.write { realm.create(Dog.self, value: ["id": 5]) }
        realm.refresh()
        #expect(selfCalls == 2)
        #expect(victimEventsAfterFirstUpdate.count <= 2)
        #expect(victim.events == [])
    }

    @Test("invalidate() and releasing the token both stop callbacks")
    func invalidateAndRelease() throws {
        let realm = try Fixture.dogs(1...2)
        let invalidated = Recorder(), released = Recorder()
        let token = realm.objects(Dog.self).observe(invalidated.handle)
        var releasedToken: NotificationToken? = realm.objects(Dog.self).observe(released.handle)
        realm.refresh()
        token.invalidate()
        token.invalidate()
        releasedToken = nil
        try realm.write { realm.create(Dog.self, value: ["id": 3]) }
        realm.refresh()
        #expect(invalidated.events == [.initial([1, 2])])
        #expect(released.events == [.initial([1, 2])])
        #expect(releasedToken == nil)
    }

    @Test("observe inside a write before its first change is allowed; the callback starts after the commit")
    func observeInsideWrite() throws {
        let realm = try Fixture.dogs(1...2)
        let recorder = Recorder()
        realm.beginWrite()
        let token = realm.objects(Dog.self).observe(recorder.handle)
        realm.create(Dog.self, value: ["id": 3])
        try realm.commitWrite()
        #expect(recorder.events == [])
        realm.refresh()
        #expect(recorder.take() == [.initial([1, 2, 3])])
        token.invalidate()
    }

    @Test("observe(on: queue) delivers on that queue, without refresh(), the collection already current there")
    func queueDelivery() throws {
        let name = UUID().uuidString
        let realm = try makeRealm(name)
        try realm.write { for id in 1...3 { realm.create(Dog.self, value: ["id": id, "age": id]) } }
        let queue = DispatchQueue(label: "shoal.tests.queue-delivery")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let recorder = Recorder()
        let onQueue = Locked<[Bool]>([])
        let arrived = DispatchSemaphore(value: 0)
        let token = realm.objects(Dog.self).filter("age > 1").observe(on: queue) { (change: RealmCollectionChange<Results<Dog>>) in
            onQueue.withLock { $0.append(DispatchQueue.getSpecific(key: key) == true) }
            recorder.handle(change)
            arrived.signal()
        }
        #expect(arrived.wait(timeout: .now() + 10) == .success)
        #expect(recorder.take() == [.initial([2, 3])])
        try realm.write {
            realm.create(Dog.self, value: ["id": 4, "age": 4])
            Fixture.dog(realm, 1).age = 0
            Fixture.dog(realm, 2).name = "renamed"
        }
        #expect(arrived.wait(timeout: .now() + 10) == .success)
        #expect(recorder.take() == [.update([2, 3, 4], deletions: [], insertions: [2], modifications: [0])])
        #expect(onQueue.withLock { $0 } == [true, true])
        token.invalidate()
    }

    @Test("a queue's delivery runs at the version the engine processed, without waiting for commits it has not")
    func queueDeliveryDoesNotWaitForLaterCommits() throws {
        let realm = try makeRealm()
        try realm.write { realm.create(Dog.self, value: ["id": 1, "age": 1]) }
        let queue = DispatchQueue(label: "shoal.tests.queue-no-wait")
        let ages = Locked<[[Int]]>([])
        let arrived = DispatchSemaphore(value: 0)
        let token = realm.objects(Dog.self).observe(on: queue) { (change: RealmCollectionChange<Results<Dog>>) in
            switch change {
            case .initial(let dogs), .update(let dogs, _, _, _): ages.withLock { $0.append(dogs.map(\.age)) }
            case .error(let error): Issue.record("\(error)")
            }
            arrived.signal()
        }
        #expect(arrived.wait(timeout: .now() + 10) == .success)
        let tracker = try #require(realm.instance.coordinator.tracker)
        // The queue drains only once the engine has processed the next
        // commit and a later one waits, unprocessed, behind the held worker.
        let hold = DispatchSemaphore(value: 0)
        queue.async { hold.wait() }
        try realm.write { Fixture.dog(realm, 1).age = 2 }
        tracker.waitUntilProcessed(realm.instance.snapshotVersion)
        tracker.suspendWorker()
        try realm.write { Fixture.dog(realm, 1).age = 3 }
        hold.signal()
        let delivered = arrived.wait(timeout: .now() + 5)
        tracker.resumeWorker()
        #expect(delivered == .success)
        #expect(arrived.wait(timeout: .now() + 10) == .success)
        #expect(ages.withLock { $0 } == [[1], [2], [3]])
        token.invalidate()
    }

    @Test("an object observed on a queue gets its changes there")
    func objectOnQueue() throws {
        let realm = try Fixture.dogs(1...1)
        let queue = DispatchQueue(label: "shoal.tests.object-queue")
        let recorder = ObjectRecorder<Dog>()
        let arrived = DispatchSemaphore(value: 0)
        let token = Fixture.dog(realm, 1).observe(on: queue) { (change: ObjectChange<Dog>) in
            recorder.handle(change)
            arrived.signal()
        }
        try realm.write { Fixture.dog(realm, 1).name = "queued" }
        #expect(arrived.wait(timeout: .now() + 10) == .success)
        #expect(recorder.take() == [.change(["name: d1 -> queued"])])
        token.invalidate()
    }

    @Test("the detailed changeset reports moves and modifications in both index spaces")
    func detailed() throws {
        let realm = try Fixture.dogs(1...5) { $0 * 10 }
        var sets: [CollectionChangeSet] = []
        var initial: [Int] = []
        let token = realm.objects(Dog.self).sorted(byKeyPath: "age").observeDetailed { change in
            switch change {
            case .initial(let dogs): initial = dogs.map(\.id)
            case .update(_, let set): sets.append(set)
            case .error(let error): Issue.record("\(error)")
            }
        }
        realm.refresh()
        try realm.write {
            realm.delete(Fixture.dog(realm, 1))
            Fixture.dog(realm, 2).age = 45
            Fixture.dog(realm, 4).name = "renamed"
        }
        realm.refresh()
        // [1,2,3,4,5] → [3,4,2,5]: 1 deleted, 2 moved from 1 to 2, 4 modified (old 3, new 1).
        #expect(initial == [1, 2, 3, 4, 5])
        #expect(sets.count == 1)
        #expect(sets.map(\.deletions) == [[0, 1]])
        #expect(sets.map(\.insertions) == [[2]])
        #expect(sets.map(\.modifications) == [[3]])
        #expect(sets.map(\.modificationsNew) == [[1]])
        #expect(sets.map { $0.moves.map { [$0.from, $0.to] } } == [[[1, 2]]])
        token.invalidate()
    }
}
