import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// Misusing observation stops the program with Realm's message
/// (REALM-SEMANTICS §7.2, §7.3); an invalid key path is an `.error`
/// callback instead. Each stop runs in a child process.
@Suite struct NotificationErrorTests {
    @Test("an invalid key path on a collection is the first and only callback, an .error naming property and class")
    func invalidCollectionKeyPath() throws {
        let realm = try Fixture.dogs(1...2)
        let top = Recorder(), nested = Recorder()
        let tokens = [
            realm.objects(Dog.self).observe(keyPaths: ["colour"], top.handle),
            realm.objects(Dog.self).observe(keyPaths: ["owner.nope"], nested.handle),
        ]
        #expect(top.events == [])
        realm.refresh()
        try realm.write { realm.create(Dog.self, value: ["id": 3]) }
        realm.refresh()
        #expect(top.events.count == 1)
        #expect(nested.events.count == 1)
        guard case .error(let topMessage) = top.events.first, case .error(let nestedMessage) = nested.events.first else {
            Issue.record("expected .error, got \(top.events) and \(nested.events)")
            return
        }
        #expect(topMessage.contains("Invalid property name: property 'colour' not found in object of type 'Dog'"))
        #expect(nestedMessage.contains("Invalid property name: property 'nope' not found in object of type 'Person'"))
        tokens.forEach { $0.invalidate() }
    }

    @Test("observe after a change inside a write stops with Realm's message")
    func observeAfterChangeInWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Fixture.dogs(1...1)
            realm.beginWrite()
            realm.create(Dog.self, value: ["id": 2])
            _ = realm.objects(Dog.self).observe { (_: RealmCollectionChange<Results<Dog>>) in }
        }
        #expect(ErrorTests.stderr(result).contains("Cannot create asynchronous query after making changes in a write transaction."))
    }

    @Test("observing an object after a change inside a write stops with Realm's message")
    func observeObjectAfterChangeInWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Fixture.dogs(1...1)
            realm.beginWrite()
            Fixture.dog(realm, 1).name = "changed"
            _ = Fixture.dog(realm, 1).observe { (_: ObjectChange<Dog>) in }
        }
        #expect(ErrorTests.stderr(result).contains("Cannot create asynchronous query after making changes in a write transaction."))
    }

    @Test("observing frozen results stops with Realm's message")
    func observeFrozenResults() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Fixture.dogs(1...1)
            _ = realm.objects(Dog.self).freeze().observe { (_: RealmCollectionChange<Results<Dog>>) in }
        }
        #expect(ErrorTests.stderr(result).contains("Frozen Realms do not change and do not have change notifications."))
    }

    @Test("observing a frozen object stops with Realm's message")
    func observeFrozenObject() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Fixture.dogs(1...1)
            _ = Fixture.dog(realm, 1).freeze().observe { (_: ObjectChange<Dog>) in }
        }
        #expect(ErrorTests.stderr(result).contains("Frozen Realms do not change and do not have change notifications."))
    }

    @Test("observing an unmanaged list stops with Realm's message")
    func observeUnmanagedList() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = List<Dog>().observe { (_: RealmCollectionChange<List<Dog>>) in }
        }
        #expect(ErrorTests.stderr(result).contains("Change notifications are only supported on managed collections."))
    }

    @Test("observing an unmanaged object stops with Realm's message")
    func observeUnmanagedObject() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Dog().observe { (_: ObjectChange<Dog>) in }
        }
        #expect(ErrorTests.stderr(result).contains("Only objects which are managed by a Realm support change notifications"))
    }

    @Test("observing a deleted object stops")
    func observeDeletedObject() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Fixture.dogs(1...1)
            let dog = Fixture.dog(realm, 1)
            try realm.write { realm.delete(dog) }
            _ = dog.observe { (_: ObjectChange<Dog>) in }
        }
        let message = ErrorTests.stderr(result)
        #expect(message.contains("invalidated or deleted") || message.contains("deleted or invalidated"), "\(message)")
    }

    @Test("observing results of an invalidated Realm stops")
    func observeInvalidatedResults() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Fixture.dogs(1...1)
            let dogs = realm.objects(Dog.self)
            _ = dogs.count
            realm.invalidate()
            _ = dogs.observe { (_: RealmCollectionChange<Results<Dog>>) in }
        }
        #expect(ErrorTests.stderr(result).contains("invalidated"))
    }

    @Test("skipping a token of another Realm stops with Realm's message")
    func tokenFromAnotherRealm() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let first = try Fixture.dogs(1...1)
            let second = try Fixture.dogs(1...1)
            let token = second.objects(Dog.self).observe { (_: RealmCollectionChange<Results<Dog>>) in }
            try first.write(withoutNotifying: [token]) { Fixture.dog(first, 1).name = "x" }
        }
        #expect(ErrorTests.stderr(result).contains("Incorrect Realm: only notifications for the Realm being modified can be skipped."))
    }
}
