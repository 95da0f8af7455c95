import Foundation
import Shoal

extension ShoalEngine {
    /// W12: a durable store at `path` seeded with `data` (in one
    /// transaction, with the `dogs` list of each of the first 100 people
    /// holding that person's dogs, for the List observers).
    public static func makeSustained(_ data: Dataset, path: String) throws -> any SustainedStore {
        try ShoalSustained(data, configuration: configuration(.durable, path: path))
    }
}

/// An actor W12's actor observers deliver to.
actor SeenActor {
    func saw(_ recorder: SustainRecorder, _ observer: Int, _ value: Int) { recorder.saw(observer, value) }
}

final class ShoalSustained: SustainedStore {
    private let store: ShoalStore
    private var tokens: [NotificationToken] = []
    private var tasks: [Task<Void, Never>] = []
    /// The Realms confined to the queues, taken from initial callbacks and
    /// released on their queues at `close`.
    private var confined: [(DispatchQueue, ConfinedRealm)] = []

    init(_ data: Dataset, configuration: Realm.Configuration) throws {
        store = try ShoalStore(configuration)
        let realm = try store.realm
        let hotOwners = SustainedObserver.hotDogs(data) / Dataset.dogsPerOwner
        try realm.write {
            ShoalEngine.add(data, to: realm)
            for owner in 0..<hotOwners {
                let person = realm.object(ofType: Person.self, forPrimaryKey: owner)!
                person.dogs.append(objectsIn: person.ownedDogs.sorted(byKeyPath: "id"))
            }
        }
    }

    func observe(_ observers: [SustainedObserver], queues: [DispatchQueue], recorder: SustainRecorder) throws {
        let realm = try store.realm
        let confined = queues.map { _ in ConfinedRealm() }
        self.confined = Array(zip(queues, confined))
        let owners = { (k: Int) in realm.objects(Dog.self).filter("owner.id == %@", k) }
        var actorObservers: [(index: Int, owner: Int)] = []
        for (i, observer) in observers.enumerated() {
            let queue = queues[i % queues.count]
            let keep = confined[i % queues.count]
            switch observer {
            case .filtered(let owner):
                tokens.append(owners(owner).observe(on: queue) { change in
                    switch change {
                    case .initial(let dogs):
                        keep.keep(dogs.realm)
                        recorder.initialArrived()
                    case .update(let dogs, _, _, _): recorder.saw(i, highest(dogs.lazy.map(\.age)))
                    case .error(let error): fatalError("W12 Shoal \(observer): \(error)")
                    }
                })
            case .sorted(let breed):
                let dogs = realm.objects(Dog.self).filter("breed == %@", breed)
                    .sorted(by: [SortDescriptor(keyPath: "age", ascending: false), SortDescriptor(keyPath: "id")])
                tokens.append(dogs.observe(on: queue) { change in
                    switch change {
                    case .initial(let dogs):
                        keep.keep(dogs.realm)
                        recorder.initialArrived()
                    case .update(let dogs, _, _, _): recorder.saw(i, dogs.first?.age ?? 0)
                    case .error(let error): fatalError("W12 Shoal \(observer): \(error)")
                    }
                })
            case .object(let id):
                let dog = realm.object(ofType: Dog.self, forPrimaryKey: id)!
                tokens.append(dog.observe(on: queue) { (change: ObjectChange<Dog>) in
                    switch change {
                    case .change(let dog, _): recorder.saw(i, dog.age)
                    case .deleted: fatalError("W12 Shoal \(observer): deleted")
                    case .error(let error): fatalError("W12 Shoal \(observer): \(error)")
                    }
                })
            case .list(let owner):
                let person = realm.object(ofType: Person.self, forPrimaryKey: owner)!
                tokens.append(person.dogs.observe(on: queue) { change in
                    switch change {
                    case .initial(let dogs):
                        keep.keep(dogs.realm)
                        recorder.initialArrived()
                    case .update(let dogs, _, _, _): recorder.saw(i, highest(dogs.lazy.map(\.age)))
                    case .error(let error): fatalError("W12 Shoal \(observer): \(error)")
                    }
                })
            case .sectioned(let range):
                let sections = realm.objects(Dog.self)
                    .filter("owner.id >= %@ AND owner.id < %@", range.lowerBound, range.upperBound)
                    .sectioned(by: \.firstLetter, ascending: true)
                tokens.append(sections.observe(on: queue) { change in
                    switch change {
                    case .initial(let sections):
                        keep.keep(sections.realm)
                        recorder.initialArrived()
                    case .update(let sections, _, _, _, _, _):
                        recorder.saw(i, highest(sections.lazy.map { highest($0.lazy.map(\.age)) }))
                    }
                })
            case .asyncSequence(let owner):
                let changes = owners(owner).changes
                tasks.append(Task.detached {
                    for await change in changes {
                        switch change {
                        case .initial: recorder.initialArrived()
                        case .update(let dogs, _, _, _): recorder.saw(i, highest(dogs.lazy.map(\.age)))
                        case .error(let error): fatalError("W12 Shoal \(observer): \(error)")
                        }
                    }
                })
            case .actor(let owner):
                actorObservers.append((i, owner))
            }
        }
        if !actorObservers.isEmpty {
            // `observe(on: actor)` is async: register from a task, on a
            // Realm of the task's thread (it does not suspend before it
            // has registered).
            let configuration = store.configuration
            let done = DispatchSemaphore(value: 0)
            let registered = TokenBox()
            Task.detached {
                let realm = try! Realm(configuration: configuration)
                let actor = SeenActor()
                var tokens: [NotificationToken] = []
                for (i, owner) in actorObservers {
                    tokens.append(await realm.objects(Dog.self).filter("owner.id == %@", owner).observe(on: actor) { actor, change in
                        switch change {
                        case .initial: recorder.initialArrived()
                        case .update(let dogs, _, _, _): actor.saw(recorder, i, highest(dogs.lazy.map(\.age)))
                        case .error(let error): fatalError("W12 Shoal actor observer of owner \(owner): \(error)")
                        }
                    })
                }
                registered.tokens = tokens
                done.signal()
            }
            done.wait()
            tokens += registered.tokens
        }
        recorder.waitForInitialCallbacks("W12 Shoal, \(observers.count) observers")
    }

    func makeWriter() throws -> any SustainedWriter { ShoalSustainedWriter(try Realm(configuration: store.configuration)) }

    func close() throws {
        for token in tokens { token.invalidate() }
        tokens.removeAll()
        for task in tasks { task.cancel() }
        tasks.removeAll()
        for (queue, realm) in confined { queue.sync { realm.keep(nil) } }
        confined.removeAll()
        store.close()
    }
}

/// Tokens handed from the registering task to the caller, after a semaphore.
final class TokenBox: @unchecked Sendable {
    // Safe because: written before the semaphore is signalled, read after it is waited for.
    var tokens: [NotificationToken] = []
}

final class ShoalSustainedWriter: SustainedWriter {
    private let realm: Realm

    init(_ realm: Realm) { self.realm = realm }

    func setAge(_ id: Int, next: () -> Int) throws -> Int {
        var value = 0
        try realm.write {
            value = next()
            realm.object(ofType: Dog.self, forPrimaryKey: id)!.age = value
        }
        return value
    }
}
