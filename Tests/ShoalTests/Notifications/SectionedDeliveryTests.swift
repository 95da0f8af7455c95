import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// Sectioned results delivered on a queue, through an async sequence and
/// to an actor; Realm's documented examples; misuse stopping with Realm's
/// messages.
@Suite struct SectionedDeliveryTests {
    @Test("observe(on: queue) keys and delivers on the queue, with sections confined to it")
    func onQueue() throws {
        let (realm, sections) = try SectionedResultsTests.abc()
        let queue = DispatchQueue(label: "sections")
        let recorder = SectionRecorder()
        let delivered = DispatchSemaphore(value: 0)
        let token = sections.observe(keyPaths: nil, on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            recorder.handle(change)
            delivered.signal()
        }
        #expect(delivered.wait(timeout: .now() + 10) == .success)
        #expect(recorder.take() == [.initial(SectionSnapshot(keys: ["A", "B", "C"], ids: [[2, 1], [3], [4]]))])
        try realm.write { realm.create(Dog.self, value: ["id": 5, "name": "Dora"]) }
        #expect(delivered.wait(timeout: .now() + 10) == .success)
        #expect(recorder.take() == [.update(SectionSnapshot(keys: ["A", "B", "C", "D"], ids: [[2, 1], [3], [4], [5]]),
            deletions: [], insertions: [ip(3, 0)], modifications: [], sectionsToInsert: [3], sectionsToDelete: [])])
        token.invalidate()
    }

    @Test("changes yields .initial and then merged updates over frozen sections")
    func asyncSequence() async throws {
        let realm = try Fixture.named(["Alice", "Adam", "Bob", "Carl"])
        let configuration = realm.configuration
        let sectioned = realm.objects(Dog.self).sectioned(by: \.firstLetter)
        var iterator = sectioned.changes().makeAsyncIterator()
        var sectionIterator = sectioned[key: "C"].changes().makeAsyncIterator()
        guard case .initial(let first)? = await iterator.next() else {
            Issue.record("no initial")
            return
        }
        #expect(first.isFrozen && first.allKeys == ["A", "B", "C"])
        guard case .initial(let firstSection)? = await sectionIterator.next() else {
            Issue.record("no initial for the section")
            return
        }
        #expect(firstSection.isFrozen && firstSection.count == 1)
        onAnotherThread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write { realm.create(Dog.self, value: ["id": 5, "name": "Abe"]) }
            try! realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 4)!.name = "Dan" }
        }
        try await Task.sleep(for: .milliseconds(50))
        var update = await iterator.next()
        // The two commits may arrive merged or one by one.
        if case .update(let s, _, _, _, _, _)? = update, s.allKeys == ["A", "B", "C"] { update = await iterator.next() }
        guard case .update(let sections, _, let insertions, _, let sectionsToInsert, let sectionsToDelete)? = update else {
            Issue.record("no update")
            return
        }
        #expect(sections.isFrozen && sections.allKeys == ["A", "B", "D"])
        #expect(insertions.contains(ip(2, 0)) && sectionsToInsert == [2] && sectionsToDelete == [2])
        guard case .update(let section, _, _, _, _, let deleted)? = await sectionIterator.next() else {
            Issue.record("no section update")
            return
        }
        #expect(section.isInvalidated && deleted == [2])
    }

    @Test("observe(on: actor) calls the block isolated to the actor")
    func actorObservation() async throws {
        let realm = try Fixture.named(["Alice", "Bob"])
        let configuration = realm.configuration
        let collector = AsyncNotificationTests.Collector()
        let token = await realm.objects(Dog.self).sectioned(by: \.firstLetter).observe(on: collector) { actor, change in
            switch change {
            case .initial(let sections): actor.add("initial \(sections.allKeys)")
            case .update(let sections, _, let insertions, _, _, _): actor.add("update \(sections.allKeys) \(insertions.count)")
            }
        }
        try await waitFor { await collector.seen.count == 1 }
        onAnotherThread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write { realm.create(Dog.self, value: ["id": 3, "name": "Cleo"]) }
        }
        try await waitFor { await collector.seen.count == 2 }
        #expect(await collector.seen == ["initial [\"A\", \"B\"]", "update [\"A\", \"B\", \"C\"] 1"])
        token.invalidate()
    }

    /// RealmSectionedResult's documented example, with Shoal's delivery:
    /// the initial callback comes when `beginWrite()` delivers, before the
    /// write (Realm's comment says it reflects the write, as Realm's run
    /// loop delivers it later); the write then arrives as an update.
    @Test("Realm's example of observing sectioned results runs, with Shoal's delivery timing")
    func documentedExample() throws {
        let realm = try makeRealm()
        var printed: [String] = []
        func print(_ line: String) { printed.append(line) }
        let person = try realm.write { realm.create(Person.self, value: ["id": 1]) }

        let dogs = realm.objects(Dog.self)
        let sectionedResults = dogs.sectioned(by: \.age, ascending: true)
        print("sectionedResults.count: \(sectionedResults.count)")  // => 0
        let token = sectionedResults.observe { changes in
            switch changes {
            case .initial(let sectionedResults):
                print("sectionedResults.count: \(sectionedResults.count)")
            case .update(let sectionedResults, _, _, _, _, _):
                print("update: \(sectionedResults.count)")
            }
        }
        try realm.write {
            let dog = Dog()
            dog.name = "Rex"
            person.dogs.append(dog)
        }
        realm.refresh()
        #expect(printed == ["sectionedResults.count: 0", "sectionedResults.count: 0", "update: 1"])
        token.invalidate()
    }

    @Test("Realm's key-path example: name changes and insertions notify, other properties do not")
    func documentedKeyPathExample() throws {
        let realm = try makeRealm()
        try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "Rex", "age": 3]) }
        var hits = 0
        let dogs = realm.objects(Dog.self)
        let sectionedResults = dogs.sectioned(by: \.age, ascending: true)
        let token = sectionedResults.observe(keyPaths: ["name"]) { changes in
            switch changes {
            case .initial: break
            case .update: hits += 1
            }
        }
        realm.refresh()
        try realm.write { Fixture.dog(realm, 1).tags.insert("good") }
        realm.refresh()
        #expect(hits == 0)
        try realm.write { Fixture.dog(realm, 1).name = "Max" }
        realm.refresh()
        #expect(hits == 1)
        try realm.write { realm.create(Dog.self, value: ["id": 2, "age": 3]) }
        realm.refresh()
        #expect(hits == 2)
        // A change of the section key moves the dog, whatever the filter.
        try realm.write { Fixture.dog(realm, 2).age = 4 }
        realm.refresh()
        #expect(hits == 3)
        token.invalidate()
    }

    // MARK: Errors

    @Test("an empty sort descriptor list stops with Realm's message")
    func emptySortDescriptors() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Fixture.named(["Rex"])
            _ = realm.objects(Dog.self).sectioned(by: \.firstLetter, sortDescriptors: [])
        }
        #expect(ErrorTests.stderr(result).contains("Can not section Results with empty sortDescriptor parameter."))
    }

    @Test("a key path other than the primary sort descriptor's stops with Realm's message")
    func keyPathMismatch() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Fixture.named(["Rex"])
            _ = realm.objects(Dog.self).sectioned(by: \.firstLetter, sortDescriptors: [SortDescriptor(keyPath: "age")])
        }
        #expect(ErrorTests.stderr(result).contains("The section key path must match the primary sort descriptor."))
    }

    @Test("a link as a section key stops with Realm's message")
    func linkKey() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Fixture.named(["Rex"])
            _ = realm.objects(Dog.self).sectioned(by: { $0.owner }, sortDescriptors: [SortDescriptor(keyPath: "name")])
        }
        #expect(ErrorTests.stderr(result).contains("Links are not supported as section keys."))
    }

    @Test("a section index out of bounds stops with the index and count")
    func outOfBounds() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Fixture.named(["Rex"])
            _ = realm.objects(Dog.self).sectioned(by: \.firstLetter)[1]
        }
        #expect(ErrorTests.stderr(result).contains("Index 1 is out of bounds (must be less than 1)."))
    }

    @Test("a key with no section stops with Realm's message")
    func missingKey() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Fixture.named(["Rex"])
            _ = realm.objects(Dog.self).sectioned(by: \.firstLetter)[key: "Q"]
        }
        #expect(ErrorTests.stderr(result).contains("Section key Q not found."))
    }

    @Test("reading a section whose key is gone stops with Realm's message")
    func invalidatedSection() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Fixture.named(["Rex", "Bo"])
            let section = realm.objects(Dog.self).sectioned(by: \.firstLetter)[key: "B"]
            try realm.write { realm.delete(Fixture.dog(realm, 2)) }
            _ = section[0]
        }
        #expect(ErrorTests.stderr(result).contains("Access to invalidated Results objects"))
    }

    @Test("observing frozen sections stops with Realm's message")
    func observeFrozen() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Fixture.named(["Rex"])
            _ = realm.objects(Dog.self).sectioned(by: \.firstLetter).freeze().observe { _ in }
        }
        #expect(ErrorTests.stderr(result).contains("Frozen Realms do not change and do not have change notifications."))
    }
}
