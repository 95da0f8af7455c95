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
