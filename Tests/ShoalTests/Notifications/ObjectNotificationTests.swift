import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// Object notifications (REALM-SEMANTICS §3.3, decisions table): no
/// initial callback, shallow unless filtered, `PropertyChange` with old
/// values, `.deleted`, root property names for key paths; and
/// `Realm.observe`.
@Suite struct ObjectNotificationTests {
    /// Ann (1) owns dog 1 ("Rex", 3) and lists it; Bob (2) exists.
    static func household() throws -> (Realm, Dog, Person) {
        let realm = try makeRealm()
        let (dog, ann) = try realm.write {
            let ann = realm.create(Person.self, value: ["id": 1, "name": "Ann", "city": "Oslo"])
            realm.create(Person.self, value: ["id": 2, "name": "Bob"])
            let dog = realm.create(Dog.self, value: ["id": 1, "name": "Rex", "age": 3, "owner": ann])
            ann.dogs.append(dog)
            return (dog, ann)
        }
        return (realm, dog, ann)
    }

    @Test("no initial callback; a change reports the property with its old and new values, at refresh()")
    func propertyChange() throws {
        let (realm, dog, _) = try Self.household()
        let recorder = ObjectRecorder<Dog>()
        let token = dog.observe(recorder.handle)
        realm.refresh()
        #expect(recorder.events == [])
        try realm.write { dog.name = "Max" }
        #expect(recorder.events == [])
        realm.refresh()
        #expect(recorder.take() == [.change(["name: Rex -> Max"])])
        token.invalidate()
    }

    @Test("several properties in one commit are one callback; oldValue is filled for local writes")
    func severalProperties() throws {
        let (realm, dog, _) = try Self.household()
        let recorder = ObjectRecorder<Dog>()
        let token = dog.observe(recorder.handle)
        try realm.write {
            dog.name = "Max"
            dog.age = 4
            dog.breed = "collie"
        }
        realm.refresh()
        #expect(recorder.take() == [.change(["age: 3 -> 4", "breed:  -> collie", "name: Rex -> Max"])])
        token.invalidate()
    }

    @Test("several commits coalesce into one change from the last delivered value to the current one")
    func coalesced() throws {
        let (realm, dog, _) = try Self.household()
        let recorder = ObjectRecorder<Dog>()
        let token = dog.observe(recorder.handle)
        Fixture.writeElsewhere(realm) { Fixture.dog($0, 1).name = "Max" }
        Fixture.writeElsewhere(realm) { Fixture.dog($0, 1).name = "Bo" }
        realm.refresh()
        #expect(recorder.take() == [.change(["name: Rex -> Bo"])])
        token.invalidate()
    }

    @Test("unfiltered object observation is shallow: a linked object's change is silent, reassigning the link is not")
    func shallow() throws {
        let (realm, dog, ann) = try Self.household()
        let recorder = ObjectRecorder<Dog>()
        let token = dog.observe(recorder.handle)
        try realm.write { ann.name = "Anna" }
        realm.refresh()
        #expect(recorder.events == [])
        try realm.write { dog.owner = Fixture.person(realm, 2) }
        realm.refresh()
        #expect(recorder.take() == [.change(["owner: Person(1) -> Person(2)"])])
        token.invalidate()
    }

    @Test("a list property's membership change reports the property with nil old and new values")
    func listProperty() throws {
        let (realm, _, ann) = try Self.household()
        let recorder = ObjectRecorder<Person>()
        let token = ann.observe(recorder.handle)
        try realm.write { ann.dogs.append(realm.create(Dog.self, value: ["id": 2])) }
        realm.refresh()
        try realm.write { ann.dogs[0].name = "member change" }
        realm.refresh()
        #expect(recorder.take() == [.change(["dogs: nil -> nil"])])
        token.invalidate()
    }

    @Test("no callback for a same-value write or an empty write")
    func sameValue() throws {
        let (realm, dog, _) = try Self.household()
        let recorder = ObjectRecorder<Dog>()
        let token = dog.observe(recorder.handle)
        try realm.write { dog.name = "Rex" }
        realm.refresh()
        try realm.write {}
        realm.refresh()
        #expect(recorder.events == [])
        try realm.write { dog.age = 5 }
        realm.refresh()
        #expect(recorder.take() == [.change(["age: 3 -> 5"])])
        token.invalidate()
    }

    @Test("deleting the object delivers .deleted, filtered or not, and nothing after")
    func deleted() throws {
        let (realm, dog, _) = try Self.household()
        let unfiltered = ObjectRecorder<Dog>(), filtered = ObjectRecorder<Dog>()
        let tokens = [dog.observe(unfiltered.handle), dog.observe(keyPaths: ["breed"], filtered.handle)]
        try realm.write { realm.delete(dog) }
        realm.refresh()
        try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "same key, new object"]) }
        realm.refresh()
        #expect(unfiltered.take() == [.deleted])
        #expect(filtered.take() == [.deleted])
        tokens.forEach { $0.invalidate() }
    }

    @Test("a change then a deletion before delivery is just .deleted")
    func changeThenDelete() throws {
        let (realm, dog, _) = try Self.household()
        let recorder = ObjectRecorder<Dog>()
        let token = dog.observe(recorder.handle)
        Fixture.writeElsewhere(realm) { Fixture.dog($0, 1).name = "Max" }
        Fixture.writeElsewhere(realm) { $0.delete(Fixture.dog($0, 1)) }
        realm.refresh()
        #expect(recorder.take() == [.deleted])
        token.invalidate()
    }

    @Test("a key-path filter limits the properties; filters are exclusive per token on one object")
    func filtered() throws {
        let (realm, dog, _) = try Self.household()
        let names = ObjectRecorder<Dog>(), ages = ObjectRecorder<Dog>()
        let tokens = [dog.observe(keyPaths: ["name"], names.handle), dog.observe(keyPaths: [\Dog.age], ages.handle)]
        try realm.write { dog.age = 7 }
        realm.refresh()
        try realm.write {
            dog.name = "Max"
            dog.age = 8
        }
        realm.refresh()
        #expect(names.take() == [.change(["name: Rex -> Max"])])
        #expect(ages.take() == [.change(["age: 3 -> 7"]), .change(["age: 7 -> 8"])])
        tokens.forEach { $0.invalidate() }
    }

    @Test("a link key path reports the root property; other properties of the target are silent")
    func linkKeyPath() throws {
        let (realm, dog, ann) = try Self.household()
        let recorder = ObjectRecorder<Dog>()
        let token = dog.observe(keyPaths: ["owner.name"], recorder.handle)
        try realm.write { ann.city = "Bergen" }
        realm.refresh()
        #expect(recorder.events == [])
        try realm.write { ann.name = "Anna" }
        realm.refresh()
        #expect(recorder.take() == [.change(["owner: Person(1) -> Person(1)"])])
        token.invalidate()
    }

    @Test("a list key path reports the root list property with nil values")
    func listKeyPath() throws {
        let (realm, dog, ann) = try Self.household()
        let recorder = ObjectRecorder<Person>()
        let token = ann.observe(keyPaths: ["dogs.name"], recorder.handle)
        try realm.write { dog.age = 9 }
        realm.refresh()
        #expect(recorder.events == [])
        try realm.write { dog.name = "Max" }
        realm.refresh()
        #expect(recorder.take() == [.change(["dogs: nil -> nil"])])
        token.invalidate()
    }

    @Test("a backlink key path on an object: a new origin notifies under the root property")
    func backlinkKeyPath() throws {
        let (realm, dog, _) = try Self.household()
        let recorder = ObjectRecorder<Dog>()
        let token = dog.observe(keyPaths: ["owners.name"], recorder.handle)
        try realm.write { Fixture.person(realm, 1).name = "Anna" }
        realm.refresh()
        #expect(recorder.take() == [.change(["owners: nil -> nil"])])
        try realm.write { Fixture.person(realm, 1).city = "Bergen" }
        realm.refresh()
        #expect(recorder.events == [])
        token.invalidate()
    }

    @Test("an invalid key path is the token's first and only callback, an .error naming the property and class")
    func invalidKeyPath() throws {
        let (realm, dog, _) = try Self.household()
        let top = ObjectRecorder<Dog>(), nested = ObjectRecorder<Dog>()
        let tokens = [dog.observe(keyPaths: ["nope"], top.handle), dog.observe(keyPaths: ["owner.nope"], nested.handle)]
        realm.refresh()
        try realm.write { dog.name = "Max" }
        realm.refresh()
        Fixture.expectInvalidKeyPath(top.events.map(\.errorMessage), property: "nope", className: "Dog")
        Fixture.expectInvalidKeyPath(nested.events.map(\.errorMessage), property: "nope", className: "Person")
        tokens.forEach { $0.invalidate() }
    }
}

/// `Realm.observe`: `.didChange` once per commit that changes something,
/// synchronously for the committing Realm; never for an empty write.
@Suite struct RealmObserveTests {
    @Test("didChange fires per non-empty commit, and not for empty, same-value or cancelled writes")
    func didChange() throws {
        let realm = try Fixture.dogs(1...2)
        var notifications: [Realm.Notification] = []
        let token = realm.observe { notification, observed in
            #expect(observed == realm)
            notifications.append(notification)
        }
        try realm.write { Fixture.dog(realm, 1).name = "changed" }
        #expect(notifications == [.didChange])
        try realm.write {}
        try realm.write { Fixture.dog(realm, 2).name = Fixture.dog(realm, 2).name }
        realm.beginWrite()
        Fixture.dog(realm, 2).age = 99
        realm.cancelWrite()
        realm.refresh()
        #expect(notifications == [.didChange])
        try realm.write { realm.create(Dog.self, value: ["id": 3]) }
        try realm.write { realm.delete(Fixture.dog(realm, 3)) }
        realm.refresh()
        #expect(notifications == [.didChange, .didChange, .didChange])
        token.invalidate()
        try realm.write { Fixture.dog(realm, 1).name = "unheard" }
        realm.refresh()
        #expect(notifications.count == 3)
    }

    @Test("a write a didChange block begins stays open after the commit that told it, and commits")
    func writeBegunInDidChange() throws {
        let realm = try Fixture.dogs(1...2)
        var began = false
        let token = realm.observe { notification, observed in
            guard notification == .didChange, !began else { return }
            began = true
            observed.beginWrite()
            observed.create(Dog.self, value: ["id": 99])
        }
        try realm.write { Fixture.dog(realm, 1).name = "changed" }
        #expect(realm.isInWriteTransaction)
        try realm.commitWrite()
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 99) != nil)
        // The store's write lock was released: another write goes through.
        try realm.write { realm.create(Dog.self, value: ["id": 100]) }
        #expect(realm.objects(Dog.self).count == 4)
        token.invalidate()
    }

    @Test("another thread's commit notifies this Realm when it refreshes")
    func remoteCommit() throws {
        let name = UUID().uuidString
        let realm = try makeRealm(name)
        var count = 0
        let token = realm.observe { notification, _ in
            if notification == .didChange { count += 1 }
        }
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let other = try! makeRealm(name)
            try! other.write { other.create(Dog.self, value: ["id": 1]) }
            done.signal()
        }
        done.wait()
        #expect(count == 0)
        realm.refresh()
        #expect(count == 1)
        #expect(realm.objects(Dog.self).count == 1)
        token.invalidate()
    }
}
