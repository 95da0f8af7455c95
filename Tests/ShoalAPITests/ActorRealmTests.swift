import Foundation
import Shoal
import ShoalTestSupport
import Testing

/// An actor holding an actor-confined Realm.
actor DogStore {
    var realm: Realm?
    struct Refused: Error {}

    func open(_ config: Realm.Configuration) async throws {
        realm = try await Realm(configuration: config, actor: self)
    }

    func add(_ id: Int) async throws -> String {
        let realm = realm!
        let dog = try await realm.asyncWrite { realm.create(Dog.self, value: ["id": id, "name": "dog \(id)"]) }
        return dog.name
    }

    func failingWrite() async -> (threw: Bool, inWrite: Bool, count: Int) {
        let realm = realm!
        do {
            try await realm.asyncWrite {
                realm.create(Dog.self, value: ["id": 99])
                throw Refused()
            }
            return (false, realm.isInWriteTransaction, realm.objects(Dog.self).count)
        } catch {
            return (error is Refused, realm.isInWriteTransaction, realm.objects(Dog.self).count)
        }
    }

    func count() -> Int { realm!.objects(Dog.self).count }

    /// Whether opening the store again on this actor gives the same Realm instance.
    func sharesInstance(_ config: Realm.Configuration) async throws -> Bool {
        let again = try await Realm(configuration: config, actor: self)
        return again == realm!
    }

    /// Queues a `writeAsync` and waits (bounded) for its completion, with
    /// nothing calling `refresh()`: whether it completed, and the count then.
    func writeAsyncUnaided(_ id: Int) async -> (completed: Bool, count: Int) {
        let realm = realm!
        var completed = false
        realm.writeAsync {
            realm.create(Dog.self, value: ["id": id])
        } onComplete: { error in
            completed = error == nil
        }
        await boundedWait { completed }
        return (completed, realm.objects(Dog.self).count)
    }

    var seenCounts: [Int] = []
    var token: NotificationToken?

    /// Observes all dogs, noting the count each notification shows.
    func observeDogs() {
        token = realm!.objects(Dog.self).observe { [unowned self] change in
            switch change {
            case .initial(let dogs), .update(let dogs, _, _, _): seenCounts.append(dogs.count)
            case .error: seenCounts.append(-1)
            }
        }
    }

    /// Commits a dog on the actor and waits (bounded) for a notification
    /// showing `expected` dogs, without refreshing: the counts seen.
    func addAndAwaitNotification(_ id: Int, expected: Int) async throws -> [Int] {
        let realm = realm!
        try realm.write { realm.create(Dog.self, value: ["id": id]) }
        await boundedWait { self.seenCounts.last == expected }
        return seenCounts
    }

    /// Waits (bounded) for a notification showing `expected` dogs: the counts seen.
    func awaitNotification(expected: Int) async -> [Int] {
        await boundedWait { self.seenCounts.last == expected }
        return seenCounts
    }

    /// Makes a dog and observes it on `collector` through `keyPaths`.
    func observeDog(_ id: Int, keyPaths: [String], on collector: ChangeCollector) async throws -> NotificationToken {
        let realm = realm!
        let dog = try realm.write { realm.create(Dog.self, value: ["id": id, "name": "rex"]) }
        return await dog.observe(keyPaths: keyPaths, on: collector) { collector, change in collector.note(change) }
    }

    /// The same with typed key paths.
    func observeDog(_ id: Int, typedKeyPaths: [PartialKeyPath<Dog>], on collector: ChangeCollector) async throws -> NotificationToken {
        let realm = realm!
        let dog = try realm.write { realm.create(Dog.self, value: ["id": id, "name": "rex"]) }
        return await dog.observe(keyPaths: typedKeyPaths, on: collector) { collector, change in collector.note(change) }
    }

    /// Makes a dog and observes its `scores` map on `collector`.
    func observeScores(_ id: Int, on collector: ChangeCollector) async throws -> NotificationToken {
        let realm = realm!
        let dog = try realm.write { realm.create(Dog.self, value: ["id": id]) }
        return await dog.scores.observe(on: collector) { collector, change in collector.note(change) }
    }

    /// Observes all dogs on `collector` through typed key paths.
    func observeDogs(typedKeyPaths: [PartialKeyPath<Dog>], on collector: ChangeCollector) async -> NotificationToken {
        await realm!.objects(Dog.self).observe(keyPaths: typedKeyPaths, on: collector) { collector, change in collector.note(change) }
    }

    func update(_ id: Int, _ body: @Sendable (Dog) -> Void) throws {
        let realm = realm!
        try realm.write { body(realm.object(ofType: Dog.self, forPrimaryKey: id)!) }
    }
}

/// An actor that notes the object changes delivered to it.
actor ChangeCollector {
    var notes: [String] = []

    func note(_ change: ObjectChange<Dog>) {
        switch change {
        // The object is the collector's own Realm's: reading it here is legal.
        case .change(let dog, let properties): notes.append("\(dog.name) \(properties.map(\.name))")
        case .deleted: notes.append("deleted")
        case .error(let error): notes.append("error \(error)")
        }
    }

    func note(_ change: RealmMapChange<Map<String, Double>>) {
        switch change {
        // The map is the collector's own Realm's: reading it here is legal.
        case .initial(let map): notes.append("initial \(map.count)")
        case .update(let map, _, let insertions, _): notes.append("update \(insertions) \(map["a"] ?? 0)")
        case .error(let error): notes.append("error \(error)")
        }
    }

    func note(_ change: RealmCollectionChange<Results<Dog>>) {
        switch change {
        case .initial(let dogs): notes.append("initial \(dogs.count)")
        case .update(let dogs, _, _, let modifications): notes.append("update \(dogs.count) \(modifications)")
        case .error(let error): notes.append("error \(error)")
        }
    }

    func waitForNotes(_ count: Int) async -> [String] {
        await boundedWait { self.notes.count >= count }
        return notes
    }
}

/// How long a test waits for a delivery to an actor before it gives up.
///
/// Long, because a wait ends as soon as its condition holds: the whole test
/// run shares one cooperative pool, as wide as the machine has cores, and a
/// delivery's job may queue behind every test started before it (minutes on
/// two cores).
let deliveryDeadline = Duration.seconds(600)

/// Polls `condition` on the caller's actor, letting other work run between
/// polls, until it holds or ``deliveryDeadline`` has passed.
func boundedWait(_isolation: isolated (any Actor)? = #isolation, _ condition: () -> Bool) async {
    let deadline = ContinuousClock.now.advanced(by: deliveryDeadline)
    while !condition() && ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(1))
    }
}

@Suite struct ActorRealmTests {
    static func configuration() -> Realm.Configuration {
        var config = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        config.objectTypes = [Person.self, Dog.self, Kennel.self, Puppy.self, AllTypes.self, Note.self]
        return config
    }

    @Test("an actor-confined Realm is used inside its actor; asyncWrite commits and returns the block's result")
    func actorConfined() async throws {
        let store = DogStore()
        try await store.open(Self.configuration())
        #expect(try await store.add(1) == "dog 1")
        #expect(try await store.add(2) == "dog 2")
        #expect(await store.count() == 2)
    }

    @Test("a throwing asyncWrite block cancels the write and rethrows")
    func throwingBlock() async throws {
        let store = DogStore()
        try await store.open(Self.configuration())
        let outcome = await store.failingWrite()
        #expect(outcome.threw && !outcome.inWrite && outcome.count == 0)
    }

    @Test("writeAsync on an actor-confined Realm runs on the actor with nobody calling refresh()")
    func writeAsyncRunsUnaided() async throws {
        let store = DogStore()
        try await store.open(Self.configuration())
        let outcome = await store.writeAsyncUnaided(7)
        #expect(outcome.completed && outcome.count == 1)
    }

    @Test("notifications on an actor-confined Realm arrive on the actor after each commit, not at the next write")
    func notificationsDoNotLag() async throws {
        let store = DogStore()
        let config = Self.configuration()
        try await store.open(config)
        await store.observeDogs()
        #expect(await store.awaitNotification(expected: 0) == [0])
        #expect(try await store.addAndAwaitNotification(1, expected: 1) == [0, 1])
        // Another thread's commit reaches the actor's Realm too.
        try await Task.detached {
            let other = try Realm(configuration: config)
            try other.write { other.create(Dog.self, value: ["id": 2]) }
        }.value
        #expect(await store.awaitNotification(expected: 2) == [0, 1, 2])
    }

    @Test("calls for the same store and actor share one actor-confined Realm, as in Realm")
    func oneInstancePerActor() async throws {
        let store = DogStore()
        let config = Self.configuration()
        try await store.open(config)
        #expect(try await store.sharesInstance(config))
    }

    @Test("Object.observe(keyPaths:on: actor) calls the block on the actor with the actor's own object, filtered by key paths")
    func objectObserveOnActor() async throws {
        let store = DogStore()
        try await store.open(Self.configuration())
        let collector = ChangeCollector()
        let token = try await store.observeDog(1, keyPaths: ["name"], on: collector)
        try await store.update(1) { $0.age = 5 }    // not a key path observed: no call
        try await store.update(1) { $0.name = "max" }
        #expect(await collector.waitForNotes(1) == ["max [\"name\"]"])
        try await store.update(1) { $0.realm!.delete($0) }
        #expect(await collector.waitForNotes(2) == ["max [\"name\"]", "deleted"])
        token.invalidate()

        let typed = ChangeCollector()
        let typedToken = try await store.observeDog(2, typedKeyPaths: [\Dog.age], on: typed)
        try await store.update(2) { $0.name = "ignored" }
        try await store.update(2) { $0.age = 3 }
        #expect(await typed.waitForNotes(1) == ["ignored [\"age\"]"])
        typedToken.invalidate()
    }

    @Test("a Map observed on an actor and a collection observed on an actor through typed key paths call the block there")
    func mapAndTypedCollectionOnActor() async throws {
        let store = DogStore()
        try await store.open(Self.configuration())
        let maps = ChangeCollector()
        let mapToken = try await store.observeScores(1, on: maps)
        #expect(await maps.waitForNotes(1) == ["initial 0"])
        try await store.update(1) { $0.scores["a"] = 2.5 }
        #expect(await maps.waitForNotes(2) == ["initial 0", "update [\"a\"] 2.5"])
        mapToken.invalidate()

        let dogs = ChangeCollector()
        let dogsToken = await store.observeDogs(typedKeyPaths: [\Dog.name], on: dogs)
        #expect(await dogs.waitForNotes(1) == ["initial 1"])
        try await store.update(1) { $0.age = 4 }    // not a key path observed
        try await store.update(1) { $0.name = "fido" }
        #expect(await dogs.waitForNotes(2) == ["initial 1", "update 1 [0]"])
        dogsToken.invalidate()
    }

    @Test("using an actor-confined Realm outside its actor stops")
    func outsideActorStops() async {
        await #expect(processExitsWith: .failure) {
            var config = Realm.Configuration(inMemoryIdentifier: "actor-misuse")
            config.objectTypes = [Person.self, Dog.self, Kennel.self, Puppy.self, AllTypes.self, Note.self]
            let store = DogStore()
            try await store.open(config)
            let realm = await store.realm!
            _ = realm.objects(Dog.self).count
        }
    }
}
