import Foundation
@_spi(Benchmarks) public import Shoal

/// The model of `shared/WORKLOADS.md` in Shoal.
public final class Dog: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var name: String
    @Persisted(indexed: true) public var age: Int
    @Persisted public var breed: String
    @Persisted public var owner: Person?
}

public final class Person: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var name: String
    @Persisted public var city: String
    @Persisted public var dogs: List<Dog>
    /// The dogs whose `owner` is this person.
    @Persisted(originProperty: "owner") public var ownedDogs: LinkingObjects<Dog>
}

public enum ShoalEngine: Engine {
    public static let name = "Shoal"

    public static func configuration(_ storage: Storage, path: String) -> Realm.Configuration {
        var config: Realm.Configuration
        switch storage {
        case .memory:
            config = Realm.Configuration(inMemoryIdentifier: path)
        case .durable:
            config = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
            config.durability = .durable
        case .relaxed:
            config = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
            config.durability = .relaxed(maxDelay: .seconds(1))
        }
        config.objectTypes = [Dog.self, Person.self]
        return config
    }

    /// Adds the data in the open write transaction of `realm`, as an app
    /// would: unmanaged objects, then `add`.
    static func add(_ data: Dataset, to realm: Realm) {
        var people: [Person] = []
        people.reserveCapacity(data.people.count)
        for row in data.people {
            let person = Person()
            person.id = row.id
            person.name = row.name
            person.city = row.city
            realm.add(person)
            people.append(person)
        }
        for row in data.dogs {
            let dog = Dog()
            dog.id = row.id
            dog.name = row.name
            dog.age = row.age
            dog.breed = row.breed
            dog.owner = people[row.ownerId]
            realm.add(dog)
        }
    }

    public static func insertAll(_ data: Dataset, storage: Storage, path: String) throws -> Int64 {
        try scoped {
            let realm = try Realm(configuration: configuration(storage, path: path))
            try realm.write { add(data, to: realm) }
        }
        return storage == .memory ? 0 : Disk.bytes(path)
    }

    public static func makeCommitter(_ data: Dataset, storage: Storage, path: String) throws -> any Committer {
        try ShoalCommitter(data, configuration: configuration(storage, path: path))
    }

    public static func makeQueries(_ data: Dataset) throws -> any Queries {
        try ShoalQueries(data, configuration: configuration(.memory, path: "w3-\(UUID())"))
    }

    public static func populate(_ data: Dataset, path: String, compact: Bool) throws {
        try scoped {
            let realm = try Realm(configuration: configuration(.durable, path: path))
            try realm.write { add(data, to: realm) }
            if compact { try realm.compact() }
        }
    }

    public static func reopenAndCount(path: String, breed: String) throws -> Reopened {
        try scoped {
            let start = Measure.now()
            let realm = try Realm(configuration: configuration(.durable, path: path))
            return Reopened(count: realm.objects(Dog.self).where { $0.breed == breed }.count, since: start)
        }
    }
}

/// A store kept open (by a frozen Realm, which any thread may hold) and a
/// live Realm for whichever thread uses it: package-benchmark may run setup
/// and the measured closure on different threads, and a live Realm belongs
/// to the thread that opened it.
final class ShoalStore: @unchecked Sendable {
    // Safe because: `live` is only used on `liveThread`, checked on every access.
    let configuration: Realm.Configuration
    private var keeper: Realm?
    private var live: Realm?
    private var liveThread: pthread_t?

    init(_ configuration: Realm.Configuration) throws {
        self.configuration = configuration
        keeper = try Realm(configuration: configuration).freeze()
    }

    var realm: Realm {
        get throws {
            let me = pthread_self()
            if let live, let liveThread, pthread_equal(liveThread, me) != 0 { return live }
            let opened = try Realm(configuration: configuration)
            live = opened
            liveThread = me
            return opened
        }
    }

    func close() {
        live = nil
        liveThread = nil
        keeper = nil
    }
}

final class ShoalCommitter: Committer {
    let store: ShoalStore
    let count: Int

    init(_ data: Dataset, configuration: Realm.Configuration) throws {
        store = try ShoalStore(configuration)
        count = data.dogs.count
        let realm = try store.realm
        try realm.write { ShoalEngine.add(data, to: realm) }
    }

    func commit(_ i: Int) throws {
        let realm = try store.realm
        let id = i % count
        try realm.write {
            let dog = realm.object(ofType: Dog.self, forPrimaryKey: id)!
            dog.age = (dog.age + 1) % 16
        }
    }

    func close() throws { store.close() }
}

final class ShoalQueries: Queries {
    let store: ShoalStore

    init(_ data: Dataset, configuration: Realm.Configuration) throws {
        store = try ShoalStore(configuration)
        let realm = try store.realm
        try realm.write { ShoalEngine.add(data, to: realm) }
    }

    func rangeSorted() throws -> Int {
        let dogs = try store.realm.objects(Dog.self).filter("age BETWEEN {3, 5}").sorted(byKeyPath: "name")
        var total = 0
        for dog in dogs { total &+= dog.name.utf8.count }
        return total
    }

    func lookup(_ keys: [Int]) throws -> Int {
        let realm = try store.realm
        var total = 0
        for key in keys {
            total &+= realm.object(ofType: Dog.self, forPrimaryKey: key)!.name.utf8.count
        }
        return total
    }

    func pkRange(_ low: Int, _ high: Int) throws -> Int {
        let dogs = try store.realm.objects(Dog.self).filter("id BETWEEN {%d, %d}", low, high)
        var total = 0
        for dog in dogs { total &+= dog.name.utf8.count }
        return total
    }

    func countBreed(_ breed: String) throws -> Int {
        try store.realm.objects(Dog.self).where { $0.breed == breed }.count
    }
}

/// Runs `body` so that everything it opened is released when it returns.
@inline(never)
func scoped<T>(_ body: () throws -> T) rethrows -> T { try body() }

extension ShoalEngine {
    /// W10: opens the durable store at `path` and compacts it.
    public static func compactStore(path: String) throws {
        try scoped {
            let realm = try Realm(configuration: configuration(.durable, path: path))
            try realm.compact()
        }
    }

    /// W6's floor: reads, verifies and LZ4-decompresses what opening `path`
    /// reads (the newest snapshot and the log after it), decoding nothing.
    /// - Returns: the bytes of decompressed payload.
    public static func decompressOnly(path: String) throws -> Int64 {
        try DecompressionFloor.run(databasePath: path).payloadBytes
    }
}
