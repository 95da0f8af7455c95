import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

@Suite struct RealmTests {
    @Test("write returns the block's value and commits")
    func writeReturnsValue() throws {
        let realm = try makeRealm()
        let name = try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "Rex"]).name }
        #expect(name == "Rex")
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(Dog.self).count == 1)
    }

    @Test("beginWrite, commitWrite and isInWriteTransaction")
    func manualTransaction() throws {
        let realm = try makeRealm()
        realm.beginWrite()
        #expect(realm.isInWriteTransaction)
        realm.create(Dog.self, value: ["id": 1])
        try realm.commitWrite()
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(Dog.self).count == 1)
    }

    @Test("cancelWrite rolls back inserts, updates and deletes, and invalidates objects created in it")
    func cancelRollsBack() throws {
        let realm = try makeRealm()
        let kept = try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "Rex"]) }
        let versionBefore = realm.instance.coordinator.latest.version
        realm.beginWrite()
        let added = realm.create(Dog.self, value: ["id": 2])
        kept.name = "Changed"
        let other = realm.create(Dog.self, value: ["id": 3])
        realm.delete(other)
        realm.cancelWrite()
        #expect(kept.name == "Rex")
        #expect(added.isInvalidated)
        #expect(realm.objects(Dog.self).count == 1)
        #expect(realm.instance.coordinator.latest.version == versionBefore)
        realm.beginWrite()
        realm.delete(kept)
        realm.cancelWrite()
        #expect(!kept.isInvalidated)
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 1)?.name == "Rex")
    }

    @Test("an empty write transaction commits no new version")
    func emptyWrite() throws {
        let realm = try makeRealm()
        let before = realm.instance.coordinator.latest.version
        try realm.write {}
        #expect(realm.instance.coordinator.latest.version == before)
    }

    @Test("writing a property's current value records nothing")
    func sameValueIsNoChange() throws {
        let realm = try makeRealm()
        let dog = try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "Rex"]) }
        let before = realm.instance.coordinator.latest.version
        try realm.write { dog.name = "Rex" }
        #expect(realm.instance.coordinator.latest.version == before)
    }

    @Test("two Realm values for one in-memory identifier share one store and one write state on a thread")
    func sharedStore() throws {
        let name = UUID().uuidString
        let a = try makeRealm(name)
        let b = try makeRealm(name)
        try a.write { a.create(Dog.self, value: ["id": 1]) }
        #expect(b.objects(Dog.self).count == 1)
        a.beginWrite()
        #expect(b.isInWriteTransaction)
        a.cancelWrite()
        #expect(a == b)
    }

    @Test("an in-memory store's data goes away when its last Realm is released")
    func inMemoryLifetime() throws {
        let name = UUID().uuidString
        do {
            let realm = try makeRealm(name)
            try realm.write { realm.create(Dog.self, value: ["id": 1]) }
            #expect(try makeRealm(name).objects(Dog.self).count == 1)
        }
        #expect(try makeRealm(name).objects(Dog.self).isEmpty)
    }

    @Test("Realm() opens the default configuration")
    func defaultConfiguration() throws {
        let saved = Realm.Configuration.defaultConfiguration
        defer { Realm.Configuration.defaultConfiguration = saved }
        var config = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        config.objectTypes = [Person.self, Dog.self]
        Realm.Configuration.defaultConfiguration = config
        let realm = try Realm()
        #expect(realm.configuration.inMemoryIdentifier == config.inMemoryIdentifier)
        #expect(realm.isEmpty)
        try realm.write { realm.create(Person.self, value: ["id": 1]) }
        #expect(!realm.isEmpty)
    }

    @Test("setting fileURL clears inMemoryIdentifier and vice versa; file Realms share a store per path")
    func configurationLocation() throws {
        var config = Realm.Configuration(inMemoryIdentifier: "x")
        config.fileURL = URL(fileURLWithPath: "/tmp/shoal-test-\(UUID().uuidString).realm")
        #expect(config.inMemoryIdentifier == nil)
        config.objectTypes = [Person.self, Dog.self]
        config.schemaVersion = 3
        let a = try Realm(configuration: config)
        try a.write { a.create(Person.self, value: ["id": 1]) }
        let b = try Realm(configuration: config)
        #expect(b.objects(Person.self).count == 1)
        #expect(b.configuration.schemaVersion == 3)
        config.inMemoryIdentifier = "y"
        #expect(config.fileURL == nil)
    }

    @Test("objects(_:) are live: they reflect the current write transaction and later commits")
    func liveResults() throws {
        let realm = try makeRealm()
        let dogs = realm.objects(Dog.self)
        #expect(dogs.isEmpty)
        realm.beginWrite()
        realm.create(Dog.self, value: ["id": 1, "name": "Rex"])
        #expect(dogs.count == 1)
        #expect(dogs.first?.name == "Rex")
        try realm.commitWrite()
        try realm.write { realm.create(Dog.self, value: ["id": 2, "name": "Fido"]) }
        #expect(dogs.count == 2)
        #expect(dogs.last?.name == "Fido")
    }

    @Test("object(ofType:forPrimaryKey:) finds by Int, String and ObjectId keys, and nil when absent")
    func primaryKeyLookup() throws {
        let realm = try makeRealm()
        let oid = ObjectId.generate()
        try realm.write {
            realm.create(Dog.self, value: ["id": 5, "name": "Rex"])
            realm.create(AllTypes.self, value: ["id": oid])
        }
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 5)?.name == "Rex")
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 6) == nil)
        #expect(realm.object(ofType: AllTypes.self, forPrimaryKey: oid)?.id == oid)
    }

    @Test("a Realm on another thread sees commits after refresh(), and beginWrite advances to the latest version")
    func refreshAcrossThreads() throws {
        let name = UUID().uuidString
        let realm = try makeRealm(name)
        let dogs = realm.objects(Dog.self)
        #expect(dogs.count == 0)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let other = try! makeRealm(name)
            try! other.write { other.create(Dog.self, value: ["id": 1]) }
            done.signal()
        }
        done.wait()
        #expect(dogs.count == 0)
        #expect(realm.refresh())
        #expect(dogs.count == 1)
        Thread.detachNewThread {
            let other = try! makeRealm(name)
            try! other.write { other.create(Dog.self, value: ["id": 2]) }
            done.signal()
        }
        done.wait()
        realm.beginWrite()
        #expect(dogs.count == 2)
        realm.cancelWrite()
        #expect(!realm.refresh())
    }

    @Test("invalidate() invalidates objects and results read before it; the Realm itself stays usable")
    func invalidate() throws {
        let realm = try makeRealm()
        let dog = try realm.write { realm.create(Dog.self, value: ["id": 1]) }
        let results = realm.objects(Dog.self)
        realm.invalidate()
        #expect(dog.isInvalidated)
        #expect(results.isInvalidated)
        #expect(realm.objects(Dog.self).count == 1)
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 1)?.isInvalidated == false)
    }

    @Test("freeze pins the current version; inside a write it pins the version the write started from; thaw returns a live Realm")
    func freezeAndThaw() throws {
        let realm = try makeRealm()
        try realm.write { realm.create(Dog.self, value: ["id": 1]) }
        let frozen = realm.freeze()
        #expect(frozen.isFrozen)
        #expect(frozen.freeze() == frozen)
        try realm.write { realm.create(Dog.self, value: ["id": 2]) }
        #expect(frozen.objects(Dog.self).count == 1)
        #expect(frozen.objects(Dog.self).isFrozen)
        #expect(frozen.objects(Dog.self)[0].isFrozen)
        #expect(!frozen.refresh())
        realm.beginWrite()
        realm.create(Dog.self, value: ["id": 3])
        let inWrite = realm.freeze()
        realm.cancelWrite()
        #expect(inWrite.objects(Dog.self).count == 2)
        let thawed = frozen.thaw()
        #expect(!thawed.isFrozen)
        #expect(thawed.objects(Dog.self).count == 2)
        #expect(thawed == realm)
    }

    @Test("add of a sequence, delete of a sequence, of Results, and deleteAll")
    func bulkAddDelete() throws {
        let realm = try makeRealm()
        let dogs = (1...10).map { Dog(value: ["id": $0, "age": $0 % 3]) }
        try realm.write { realm.add(dogs) }
        #expect(realm.objects(Dog.self).count == 10)
        try realm.write { realm.delete(dogs.prefix(3)) }
        #expect(realm.objects(Dog.self).count == 7)
        #expect(dogs[0].isInvalidated)
        try realm.write { realm.delete(realm.objects(Dog.self)) }
        #expect(realm.objects(Dog.self).isEmpty)
        try realm.write {
            realm.create(Person.self, value: ["id": 1, "dogs": [["id": 100]]])
        }
        #expect(!realm.isEmpty)
        try realm.write { realm.deleteAll() }
        #expect(realm.isEmpty)
    }
}
