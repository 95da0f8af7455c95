import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// Commits that wait for the notification engine are merged into one run
/// and processed in one step: the engine's work and memory follow what
/// changed, not how many commits there were, and what observers receive is
/// the combined change.
@Suite struct CoalescingTests {
    private static func tracker(_ realm: Realm) throws -> DependencyTracker {
        try #require(realm.instance.coordinator.tracker)
    }

    /// Waits up to 30 s for `done`, on this thread.
    private static func eventually(_ done: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if done() { return true }
            usleep(10_000)
        }
        return done()
    }

    /// Runs `body` on a new thread with its own Realm for the store `name`
    /// (one that observes nothing, so its writes never wait for the engine)
    /// and waits for it.
    private static func elsewhere(_ name: String, _ body: @escaping @Sendable (Realm) throws -> Void) throws {
        let failure = Locked<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            do { try body(try makeRealm(name)) } catch { failure.withLock { $0 = error } }
            done.signal()
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    @Test("1,000 commits made while the engine is busy wait as one run and reach a sorted observer in one step")
    func backlogIsOneRun() throws {
        let name = UUID().uuidString
        let realm = try makeRealm(name)
        try realm.write { for id in 0..<100 { realm.create(Dog.self, value: ["id": id, "age": id]) } }
        var changes: [RealmCollectionChange<Results<Dog>>] = []
        let token = realm.objects(Dog.self).sorted(byKeyPath: "age").observe { changes.append($0) }
        realm.refresh()
        let tracker = try Self.tracker(realm)
        let before = tracker.statistics
        let firstVersion = realm.instance.coordinator.latest.version
        let old = realm.objects(Dog.self).sorted(byKeyPath: "age").map(\.id)

        tracker.suspendWorker()
        try Self.elsewhere(name) { realm in
            for i in 0..<1_000 {
                try realm.write {
                    if i % 10 == 0 {
                        realm.create(Dog.self, value: ["id": 1_000 + i, "age": i % 150])
                    } else {
                        realm.object(ofType: Dog.self, forPrimaryKey: i % 100)!.age = (i * 7) % 150
                    }
                }
            }
        }
        let backlog = tracker.backlog
        tracker.resumeWorker()
        // Every commit was published at once (in memory), so one run waits,
        // holding its first `before` and its last `after` snapshot only.
        #expect(backlog.runs == 1 && backlog.unpublished == 0)
        realm.refresh()

        let after = tracker.statistics
        // (A commit that writes an age the dog already has is no commit.)
        let commits = Int(realm.instance.coordinator.latest.version - firstVersion)
        #expect(commits > 900)
        #expect(after.commits - before.commits == commits)
        // (The worker may have taken the first commit before it was held.)
        #expect(after.steps - before.steps <= 2)
        #expect(after.notifierRuns - before.notifierRuns <= 2)
        try #require(changes.count == 2)
        guard case let .update(results, deletions, insertions, modifications) = changes[1] else {
            Issue.record("expected an update, got \(changes[1])")
            return
        }
        let new = results.map(\.id)
        #expect(new == realm.objects(Dog.self).sorted(byKeyPath: "age").map(\.id))
        #expect(insertions.count >= 100, "the hundred new dogs are insertions")
        let problems = OracleCheck.problems(old: old, new: new, deletions: deletions, insertions: insertions,
            modifications: modifications, mustModify: [], mayModify: Set(old), mayMove: Set(old))
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        token.invalidate()
    }

    @Test("a list, an object and a map observer each get the combined change of a merged run")
    func mergedRunForEveryKind() throws {
        let name = UUID().uuidString
        let realm = try makeRealm(name)
        let person = try realm.write {
            let person = realm.create(Person.self, value: ["id": 1, "name": "Ann"])
            for id in 0..<5 { person.dogs.append(realm.create(Dog.self, value: ["id": id])) }
            return person
        }
        let dog = realm.object(ofType: Dog.self, forPrimaryKey: 0)!
        var listChanges: [RealmCollectionChange<List<Dog>>] = []
        var objectChanges: [ObjectChange<Dog>] = []
        var mapChanges: [RealmMapChange<Map<String, Double>>] = []
        let tokens = [
            person.dogs.observe { listChanges.append($0) },
            dog.observe { objectChanges.append($0) },
            dog.scores.observe { mapChanges.append($0) },
        ]
        realm.refresh()
        let tracker = try Self.tracker(realm)
        tracker.suspendWorker()
        try Self.elsewhere(name) { realm in
            let person = realm.object(ofType: Person.self, forPrimaryKey: 1)!
            let dog = realm.object(ofType: Dog.self, forPrimaryKey: 0)!
            try realm.write { person.dogs.remove(at: 4) }
            try realm.write { person.dogs.append(realm.create(Dog.self, value: ["id": 10])) }
            try realm.write { person.dogs.move(from: 0, to: 3) }
            try realm.write { dog.name = "Rex"; dog.scores["a"] = 1 }
            try realm.write { dog.age = 4; dog.scores["b"] = 2 }
            try realm.write { dog.scores["a"] = nil }
        }
        #expect(tracker.backlog.runs == 1)
        tracker.resumeWorker()
        realm.refresh()

        try #require(listChanges.count == 2)
        if case let .update(list, deletions, insertions, modifications) = listChanges[1] {
            #expect(list.map(\.id) == [1, 2, 3, 0, 10])
            // Old [0,1,2,3,4]: 4 removed, 0 moved (a deletion and an insertion), 10 appended.
            #expect(deletions == [0, 4])
            #expect(insertions == [3, 4])
            #expect(modifications == [])
        } else {
            Issue.record("expected a list update, got \(listChanges[1])")
        }
        try #require(objectChanges.count == 1)
        if case let .change(_, properties) = objectChanges[0] {
            #expect(properties.map(\.name) == ["name", "age", "scores"])
            #expect(properties.first { $0.name == "name" }?.oldValue as? String == "")
            #expect(properties.first { $0.name == "age" }?.newValue as? Int == 4)
        } else {
            Issue.record("expected an object change, got \(objectChanges[0])")
        }
        try #require(mapChanges.count == 2)
        if case let .update(_, deletions, insertions, modifications) = mapChanges[1] {
            // "a" was added and removed within the run: only "b" is new.
            #expect(deletions == [] && insertions == ["b"] && modifications == [])
        } else {
            Issue.record("expected a map update, got \(mapChanges[1])")
        }
        tokens.forEach { $0.invalidate() }
    }

    @Test("a registration cuts the run: the new observer's notifier never sees a commit twice")
    func registrationCutsTheRun() throws {
        let name = UUID().uuidString
        let realm = try makeRealm(name)
        var firstChanges: [RealmCollectionChange<Results<Dog>>] = []
        let first = realm.objects(Dog.self).observe { firstChanges.append($0) }
        realm.refresh()
        let tracker = try Self.tracker(realm)
        tracker.suspendWorker()
        try Self.elsewhere(name) { realm in for id in 0..<10 { try realm.write { realm.create(Dog.self, value: ["id": id]) } } }
        var secondChanges: [RealmCollectionChange<Results<Dog>>] = []
        let second = realm.objects(Dog.self).observe { secondChanges.append($0) }
        try Self.elsewhere(name) { realm in for id in 10..<15 { try realm.write { realm.create(Dog.self, value: ["id": id]) } } }
        #expect(tracker.backlog.runs == 2)
        tracker.resumeWorker()
        realm.refresh()

        // The second observer's initial state is the processed one (15 dogs);
        // its notifier, made at 10, took only the five commits after it.
        try #require(firstChanges.count == 2 && secondChanges.count == 1)
        if case let .initial(dogs) = secondChanges[0] { #expect(dogs.count == 15) }
        if case let .update(dogs, _, insertions, _) = firstChanges[1] {
            #expect(dogs.count == 15 && insertions == Array(0..<15))
        }
        try Self.elsewhere(name) { realm in try realm.write { _ = realm.create(Dog.self, value: ["id": 15]) } }
        realm.refresh()
        try #require(secondChanges.count == 2)
        if case let .update(dogs, deletions, insertions, modifications) = secondChanges[1] {
            #expect(dogs.map(\.id) == Array(0...15))
            #expect(deletions == [] && insertions == [15] && modifications == [])
        } else {
            Issue.record("expected an update, got \(secondChanges[1])")
        }
        first.invalidate()
        second.invalidate()
    }

    @Test("commits that skip an observer stay apart until too many runs wait; then they merge and skip only what all skipped")
    func skippingCommitsAreBounded() throws {
        let realm = try makeRealm()
        let calls = Locked((skipped: 0, other: 0))
        // Both deliver on one queue: one drain delivers both, the skipped one first.
        let queue = DispatchQueue(label: "shoal.tests.coalescing.skipping")
        let skipped = realm.objects(Dog.self).observe(on: queue) { _ in calls.withLock { $0.skipped += 1 } }
        let other = realm.objects(Dog.self).observe(on: queue) { _ in calls.withLock { $0.other += 1 } }
        #expect(Self.eventually { calls.withLock { $0.other } == 1 })
        let tracker = try Self.tracker(realm)

        // Alone, a skipping commit is its own run and stays unnotified.
        tracker.suspendWorker()
        realm.beginWrite()
        realm.create(Dog.self, value: ["id": 0])
        try realm.commitWrite(withoutNotifying: [skipped])
        #expect(tracker.backlog.runs == 1)
        tracker.resumeWorker()
        #expect(Self.eventually { calls.withLock { $0.other } == 2 })
        #expect(calls.withLock { $0.skipped } == 1)

        // Under a backlog, at most `maximumRuns` wait however many skip.
        tracker.suspendWorker()
        for id in 1...200 {
            realm.beginWrite()
            realm.create(Dog.self, value: ["id": id])
            try realm.commitWrite(withoutNotifying: id.isMultiple(of: 2) ? [skipped] : [])
        }
        #expect(tracker.backlog.runs <= DependencyTracker.maximumRuns)
        tracker.resumeWorker()
        #expect(Self.eventually { calls.withLock { $0.skipped } >= 2 })
        // Merged with commits that do not skip it, the skipping ones are reported with them.
        #expect(calls.withLock { $0.skipped } >= 2)
        skipped.invalidate()
        other.invalidate()
    }

    @Test("sectioned(by:) after a backlog of 2,000 commits waits for at most two steps")
    func sectioningWaitsForOneStep() throws {
        let name = UUID().uuidString
        let realm = try makeRealm(name)
        try realm.write { for id in 0..<50 { realm.create(Dog.self, value: ["id": id, "name": "d\(id)"]) } }
        let token = realm.objects(Dog.self).observe { _ in }
        realm.refresh()
        let tracker = try Self.tracker(realm)
        let before = tracker.statistics
        let firstVersion = realm.instance.coordinator.latest.version
        tracker.suspendWorker()
        try Self.elsewhere(name) { realm in
            for i in 0..<2_000 { try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: i % 50)!.age = i } }
        }
        tracker.resumeWorker()
        let sections = realm.objects(Dog.self).sectioned(by: { String($0.name.prefix(2)) }, sortDescriptors: [SortDescriptor(keyPath: "name")])
        #expect(sections.allKeys.count == 10)
        #expect(tracker.statistics.steps - before.steps <= 2)
        #expect(tracker.statistics.commits - before.commits == Int(realm.instance.coordinator.latest.version - firstVersion))
        token.invalidate()
    }

    @Test("durable writers on 4 threads while the engine is held back and let go: observers stay consistent, the backlog stays bounded")
    func concurrentWritersWithPauses() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coalescing-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = Realm.Configuration(fileURL: directory)
        configuration.objectTypes = [Person.self, Dog.self, Kennel.self, Puppy.self, AllTypes.self, Note.self]
        let opened = configuration
        let realm = try Realm(configuration: opened)
        try realm.write { for id in 0..<20 { realm.create(Dog.self, value: ["id": -id - 1, "age": id * 5]) } }
        let all = NotificationConcurrencyTests.Tracker("queue, all")
        let sorted = NotificationConcurrencyTests.Tracker("queue, sorted by age")
        let tokens = [
            realm.objects(Dog.self).observe(on: DispatchQueue(label: "shoal.tests.coalescing.all")) { all.apply($0) },
            realm.objects(Dog.self).sorted(byKeyPath: "age").observe(on: DispatchQueue(label: "shoal.tests.coalescing.sorted")) {
                sorted.apply($0)
            },
        ]
        let started = Self.eventually { all.ids != nil && sorted.ids != nil }
        #expect(started)
        let tracker = try Self.tracker(realm)
        let maxBacklog = Locked(0)
        let stop = Locked(false)
        let pauser = Thread {
            while !stop.withLock({ $0 }) {
                tracker.suspendWorker()
                usleep(20_000)
                let backlog = tracker.backlog
                maxBacklog.withLock { $0 = max($0, backlog.runs + backlog.unpublished) }
                tracker.resumeWorker()
                usleep(5_000)
            }
        }
        pauser.start()
        let writers = DispatchGroup()
        for t in 0..<4 {
            writers.enter()
            Thread.detachNewThread {
                let realm = try! Realm(configuration: opened)
                for i in 0..<150 {
                    try! realm.write {
                        if i % 3 == 2, let dog = realm.objects(Dog.self).first { realm.delete(dog) } else {
                            realm.create(Dog.self, value: ["id": t * 10_000 + i, "age": (i * 13 + t) % 100])
                        }
                    }
                }
                writers.leave()
            }
        }
        writers.wait()
        stop.withLock { $0 = true }
        let expected = Set(realm.objects(Dog.self).map(\.id))
        let reached = Self.eventually {
            realm.refresh()
            return Set(all.ids ?? []) == Set(realm.objects(Dog.self).map(\.id)) && Set(sorted.ids ?? []) == Set(all.ids ?? [])
        }
        #expect(reached, "expected \(expected.count) dogs; saw \(all.ids?.count ?? -1) and \(sorted.ids?.count ?? -1)")
        #expect(all.problems.isEmpty, "\(all.problems.prefix(5))")
        #expect(sorted.problems.isEmpty, "\(sorted.problems.prefix(5))")
        // Four writers each wait for their own commit: at most a handful of
        // commits are unpublished, and published ones merge into one run.
        #expect(maxBacklog.withLock { $0 } <= 8)
        tokens.forEach { $0.invalidate() }
    }

    @Test("a writer that commits while the engine's step has run longer than its allowance waits for it, for at most the writer patience")
    func writerWaitsForLongStep() throws {
        let name = UUID().uuidString
        let realm = try makeRealm(name)
        let token = realm.objects(Dog.self).observe { _ in }
        defer { token.invalidate() }
        realm.refresh()
        let tracker = try Self.tracker(realm)
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        tracker.setStepHook {
            entered.signal()
            release.wait()
        }
        // A commit starts a step, which the hook holds.
        try Self.elsewhere(name) { realm in
            try realm.write { _ = realm.create(Dog.self, value: ["id": 1, "age": 1]) }
        }
        let started = entered.wait(timeout: DispatchTime.now() + 30)
        #expect(started == .success)
        let patience = Double(DependencyTracker.writerPatience) / 1e9
        Thread.sleep(forTimeInterval: Double(DependencyTracker.stepAllowance) / 1e9 + patience)
        // The step has now run longer than its allowance: the next commit waits.
        let waited = Locked(0.0)
        try Self.elsewhere(name) { realm in
            let start = Date()
            try realm.write { _ = realm.create(Dog.self, value: ["id": 2, "age": 2]) }
            waited.withLock { $0 = Date().timeIntervalSince(start) }
        }
        tracker.setStepHook(nil)
        release.signal()
        // It waited for the step, but not until the step ended (it is still held).
        #expect(waited.withLock { $0 } >= patience * 0.9)
        #expect(waited.withLock { $0 } < 30)
        #expect(Self.eventually { realm.refresh(); return realm.objects(Dog.self).count == 2 })
    }
}
