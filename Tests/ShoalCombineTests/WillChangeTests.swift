import Foundation
import OpenCombine
import ShoalCombine
import ShoalTestSupport
import Testing
@testable import Shoal

/// `objectWillChange`: emitted before a change becomes visible on the
/// observing thread, and not for the start of observation.
@Suite struct WillChangeTests {
    @Test("a collection's objectWillChange fires at refresh() before the Realm shows the other thread's commit")
    func collectionBeforeVisible() throws {
        let realm = try Fixture.dogs(1...2)
        let dogs = realm.objects(Dog.self)
        var countsSeen: [Int] = []
        let cancellable = dogs.objectWillChange.sink { countsSeen.append(dogs.count) }
        realm.refresh()
        #expect(countsSeen.isEmpty)   // starting to observe is not a change
        Fixture.writeElsewhere(realm) { $0.create(Dog.self, value: ["id": 3]) }
        #expect(countsSeen.isEmpty)
        realm.refresh()
        #expect(countsSeen == [2])   // fired while the Realm still showed two dogs
        #expect(dogs.count == 3)
        Fixture.writeElsewhere(realm) { $0.create(Person.self, value: ["id": 1]) }   // not a dog
        realm.refresh()
        #expect(countsSeen == [2])
        cancellable.cancel()
    }

    @Test("an object's objectWillChange fires before its new values (and its deletion) are visible")
    func objectBeforeVisible() throws {
        let realm = try Fixture.dogs(1...1)
        let dog = Fixture.dog(realm, 1)
        var seen: [String] = []
        let cancellable = dog.objectWillChange.sink { seen.append(dog.isInvalidated ? "invalidated" : dog.name) }
        Fixture.writeElsewhere(realm) { Fixture.dog($0, 1).name = "new name" }
        realm.refresh()
        #expect(seen == ["d1"])
        #expect(dog.name == "new name")
        Fixture.writeElsewhere(realm) { $0.delete(Fixture.dog($0, 1)) }
        realm.refresh()
        #expect(seen == ["d1", "new name"])
        #expect(dog.isInvalidated)
        cancellable.cancel()
    }

    @Test("beginWrite() announces a pending change before the write shows it")
    func beforeWrite() throws {
        let realm = try Fixture.dogs(1...1)
        let dogs = realm.objects(Dog.self)
        var seen: [(count: Int, inWrite: Bool)] = []
        let cancellable = dogs.objectWillChange.sink { seen.append((dogs.count, realm.isInWriteTransaction)) }
        realm.refresh()
        Fixture.writeElsewhere(realm) { $0.create(Dog.self, value: ["id": 2]) }
        realm.beginWrite()
        #expect(seen.map(\.count) == [1])
        #expect(seen.map(\.inWrite) == [false])
        realm.cancelWrite()
        cancellable.cancel()
    }

    @Test("several changes before a refresh are announced once; a Map and a List announce theirs")
    func coalescedAndOtherKinds() throws {
        let realm = try Fixture.dogs(1...1)
        let person = try realm.write { realm.create(Person.self, value: ["id": 1]) }
        var dogsFired = 0, scoresFired = 0, listFired = 0
        let cancellables = [
            realm.objects(Dog.self).objectWillChange.sink { dogsFired += 1 },
            Fixture.dog(realm, 1).scores.objectWillChange.sink { scoresFired += 1 },
            person.dogs.objectWillChange.sink { listFired += 1 },
        ]
        realm.refresh()
        Fixture.writeElsewhere(realm) { $0.create(Dog.self, value: ["id": 2]) }
        Fixture.writeElsewhere(realm) { Fixture.dog($0, 1).scores["a"] = 1 }
        Fixture.writeElsewhere(realm) { $0.object(ofType: Person.self, forPrimaryKey: 1)!.dogs.append(Fixture.dog($0, 2)) }
        realm.refresh()
        #expect(dogsFired == 1)
        #expect(scoresFired == 1)
        #expect(listFired == 1)
        cancellables.forEach { $0.cancel() }
    }

    @Test("cancelling objectWillChange removes its hook and its token: later commits do no work for it")
    func cancelRemovesHook() throws {
        let realm = try Fixture.dogs(1...1)
        var fired = 0
        let cancellable = realm.objects(Dog.self).objectWillChange.sink { fired += 1 }
        realm.refresh()
        #expect(realm.instance.willDeliverHooks.withLock { $0.count } == 1)
        cancellable.cancel()
        #expect(realm.instance.willDeliverHooks.withLock { $0.count } == 0)
        Fixture.writeElsewhere(realm) { $0.create(Dog.self, value: ["id": 2]) }
        realm.refresh()
        #expect(fired == 0)
        #expect(realm.instance.mailbox?.subscriptions.isEmpty == true)
    }

    @Test("Realm.objectWillChange emits once per new version, as Realm.observe does")
    func realmLevel() throws {
        let realm = try Fixture.dogs(1...1)
        var fired = 0
        let cancellable = realm.objectWillChange.sink { fired += 1 }
        try realm.write { realm.create(Dog.self, value: ["id": 2]) }
        #expect(fired == 1)
        Fixture.writeElsewhere(realm) { $0.create(Dog.self, value: ["id": 3]) }
        realm.refresh()
        #expect(fired == 2)
        try realm.write {}
        #expect(fired == 2)
        cancellable.cancel()
    }
}
