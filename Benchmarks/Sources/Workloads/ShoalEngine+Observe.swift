import Foundation
import Shoal

extension ShoalEngine {
    /// W4 / W5 / W8: an in-memory store seeded with `data` (no fsync), with
    /// observers delivering on one serial queue.
    public static func makeObserved(_ data: Dataset) throws -> any ObservedStore {
        try ShoalObserved(data, configuration: configuration(.memory, path: "observe-\(UUID())"))
    }
}

extension Dog {
    /// W7's section key: the first letter of the name.
    var firstLetter: String { name.first.map(String.init) ?? "" }
}

/// A store observed on `queue`, written through the live Realm of whichever
/// thread calls (package-benchmark may run setup and the measured closure
/// on different threads).
final class ShoalObserved: ObservedStore {
    let queue = DispatchQueue(label: "shoal.bench.observers")
    private let store: ShoalStore
    private var tokens: [NotificationToken] = []
    /// The Realm confined to `queue`, taken from an initial callback; its
    /// `refresh()` waits for the notification worker and delivers.
    private let confined = ConfinedRealm()

    init(_ data: Dataset, configuration: Realm.Configuration) throws {
        store = try ShoalStore(configuration)
        let realm = try store.realm
        try realm.write { ShoalEngine.add(data, to: realm) }
    }

    func observeOwners(_ owners: Range<Int>, nameOnly: Bool, onUpdate: @escaping @Sendable (Int, Int) -> Void) throws {
        let initial = InitialCallbacks(expecting: owners.count)
        let keyPaths = nameOnly ? ["name"] : nil
        let confined = confined
        let realm = try store.realm
        tokens.reserveCapacity(tokens.count + owners.count)
        for k in owners {
            let dogs = realm.objects(Dog.self).filter("owner.id == %@", k)
            tokens.append(dogs.observe(keyPaths: keyPaths, on: queue) { change in
                switch change {
                case .initial(let results):
                    confined.keep(results.realm)
                    initial.arrived()
                case .update(_, let deletions, let insertions, let modifications):
                    onUpdate(k, deletions.count + insertions.count + modifications.count)
                case .error(let error):
                    fatalError("Shoal observer of owner \(k): \(error)")
                }
            })
        }
        initial.wait("Shoal, \(owners.count) owner observers")
    }

    func observeSorted(onUpdate: @escaping @Sendable (Int) -> Void) throws {
        let initial = InitialCallbacks(expecting: 1)
        let confined = confined
        let sorted = try store.realm.objects(Dog.self).sorted(by: [SortDescriptor(keyPath: "age"), SortDescriptor(keyPath: "name")])
        tokens.append(sorted.observe(on: queue) { change in
            switch change {
            case .initial(let results):
                confined.keep(results.realm)
                initial.arrived()
            case .update(_, let deletions, let insertions, let modifications):
                onUpdate(deletions.count + insertions.count + modifications.count)
            case .error(let error):
                fatalError("Shoal sorted observer: \(error)")
            }
        })
        initial.wait("Shoal, sorted observer")
    }

    func observeSections(recompute: Bool, onUpdate: @escaping @Sendable (Int) -> Void) throws {
        let initial = InitialCallbacks(expecting: 1)
        let confined = confined
        let dogs = try store.realm.objects(Dog.self)
        if recompute {
            // Realm's way: after each change, the key of every dog, in order.
            tokens.append(dogs.sorted(byKeyPath: "name").observe(on: queue) { change in
                switch change {
                case .initial(let results):
                    confined.keep(results.realm)
                    initial.arrived()
                case .update(let results, _, _, _):
                    var sections: [String: Int] = [:]
                    var keys: [String] = []
                    for dog in results {
                        let key = dog.firstLetter
                        if sections[key] == nil { keys.append(key) }
                        sections[key, default: 0] += 1
                    }
                    onUpdate(keys.count)
                case .error(let error):
                    fatalError("Shoal recomputing sections observer: \(error)")
                }
            })
        } else {
            tokens.append(dogs.sectioned(by: \.firstLetter, ascending: true).observe(on: queue) { change in
                switch change {
                case .initial(let sections):
                    confined.keep(sections.realm)
                    initial.arrived()
                case .update(_, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
                    onUpdate(deletions.count + insertions.count + modifications.count + sectionsToInsert.count + sectionsToDelete.count)
                }
            })
        }
        initial.wait("Shoal, sections observer")
    }

    func rename(_ id: Int, to name: String) throws {
        let realm = try store.realm
        try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: id)!.name = name }
    }

    func bumpAge(_ id: Int) throws {
        let realm = try store.realm
        try realm.write {
            let dog = realm.object(ofType: Dog.self, forPrimaryKey: id)!
            dog.age = (dog.age + 1) % 16
        }
    }

    func drain() throws {
        let confined = confined
        queue.sync { _ = confined.realm?.refresh() }
    }

    func close() throws {
        for token in tokens { token.invalidate() }
        tokens.removeAll()
        let confined = confined
        queue.sync { confined.keep(nil) }
        store.close()
    }
}

/// The queue-confined Realm of a store's observers, kept so that the
/// runner can drain deliveries on the queue.
final class ConfinedRealm: @unchecked Sendable {
    // Safe because: only read and written on the observers' queue.
    private(set) var realm: Realm?

    func keep(_ realm: Realm?) {
        if self.realm == nil || realm == nil { self.realm = realm }
    }
}
