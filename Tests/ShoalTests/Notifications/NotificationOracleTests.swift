import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// Model-based randomized test of collection notifications: random
/// transactions on a writer thread, random observers (filtered and sorted
/// Results, Lists, LinkingObjects, random key-path filters) on this thread,
/// delivery at random points so that commits coalesce; every callback is
/// checked against ``OracleState`` and ``OracleCheck``.
@Suite struct NotificationOracleTests {
    /// One observer and what the oracle knows of it.
    final class Observer {
        let label: String
        let kind: OracleKind
        let keyPaths: [String]?
        /// The elements, evaluated freshly through the public API.
        let fresh: (Realm) -> [Int]
        /// The elements as a set, evaluated by brute force on the model.
        let model: (OracleState) -> Set<Int>
        var token: NotificationToken?
        /// The ids last delivered (`nil` before the initial callback).
        var delivered: [Int]?
        /// The model state at the last delivery (or at registration).
        var baseline: OracleState
        /// Upper bounds accumulated over the commits since the last delivery.
        var mayModify: Set<Int> = []
        var mayMove: Set<Int> = []
        var calls = 0
        /// The transaction number of the last delivery (or registration).
        var since = 0

        init(label: String, kind: OracleKind, keyPaths: [String]?, state: OracleState,
             fresh: @escaping (Realm) -> [Int], model: @escaping (OracleState) -> Set<Int>) {
            self.label = label
            self.kind = kind
            self.keyPaths = keyPaths
            self.fresh = fresh
            self.model = model
            baseline = state
        }
    }

    /// The run: model, observers, problems found.
    final class Run {
        let realm: Realm
        let seed: UInt64
        var workload: OracleWorkload
        var state: OracleState
        var observers: [Observer] = []
        var problems: [String] = []
        var transaction = 0
        /// One line per transaction, for failure messages.
        var log: [String] = []
        var updates = 0
        var initials = 0

        init(realm: Realm, seed: UInt64, state: OracleState, workload: OracleWorkload) {
            self.realm = realm
            self.seed = seed
            self.state = state
            self.workload = workload
        }

        func fail(_ observer: Observer, _ message: String) {
            let window = log.filter { line in Int(line.prefix { $0 != ":" && $0 != " " }).map { $0 > observer.since } ?? false }
            problems.append("seed \(seed), transaction \(transaction), \(observer.label): \(message)\n    since the last delivery:\n      "
                + window.suffix(12).joined(separator: "\n      "))
        }

        /// Records the changes of one commit as upper bounds for every
        /// observer: `steps` are the model's states before the transaction
        /// and after each of its operations, so that a change undone within
        /// the transaction (which Realm reports) is allowed too.
        func committed(_ steps: [OracleState]) {
            var pairs = zip(steps, steps.dropFirst()).map { ($0, $1) }
            if let first = steps.first, let last = steps.last, steps.count > 2 { pairs.append((first, last)) }
            var mayByFilter: [String: Set<Int>] = [:]
            var touched: [OracleKind: Set<Int>] = [:]
            for observer in observers {
                let key = "\(observer.kind)|\(observer.keyPaths?.joined(separator: ",") ?? "nil")"
                if mayByFilter[key] == nil {
                    mayByFilter[key] = pairs.reduce(into: []) { may, pair in
                        may.formUnion(OracleChanges.modified(observer.kind, keyPaths: observer.keyPaths, before: pair.0, after: pair.1, depth: 3, generous: true))
                        may.formUnion(OracleChanges.modified(observer.kind, keyPaths: observer.keyPaths, before: pair.0, after: pair.1, depth: 3, generous: false))
                    }
                }
                if touched[observer.kind] == nil {
                    touched[observer.kind] = pairs.reduce(into: []) { $0.formUnion(OracleChanges.touched(observer.kind, before: $1.0, after: $1.1)) }
                }
                observer.mayModify.formUnion(mayByFilter[key]!)
                observer.mayMove.formUnion(touched[observer.kind]!)
            }
        }

        /// The callback of an observer: checks the change against the oracle.
        func deliver<C: RealmCollection>(_ observer: Observer, _ change: RealmCollectionChange<C>) where C.Element: IntIdentified {
            observer.calls += 1
            let now = observer.fresh(realm)
            if Set(now) != observer.model(state) || now.count != observer.model(state).count {
                fail(observer, "fresh evaluation \(now) differs from the model \(observer.model(state).sorted())")
            }
            switch change {
            case .initial(let collection):
                initials += 1
                if observer.delivered != nil { fail(observer, "a second .initial") }
                if Recorder.ids(collection) != now { fail(observer, ".initial \(Recorder.ids(collection)) but the collection is \(now)") }
            case let .update(collection, deletions, insertions, modifications):
                updates += 1
                guard let old = observer.delivered else {
                    fail(observer, "an .update before .initial")
                    break
                }
                if Recorder.ids(collection) != now { fail(observer, "the delivered collection \(Recorder.ids(collection)) is not the fresh one \(now)") }
                let must = OracleChanges.modified(observer.kind, keyPaths: observer.keyPaths, before: observer.baseline, after: state, depth: 3, generous: false)
                for problem in OracleCheck.problems(old: old, new: now, deletions: deletions, insertions: insertions, modifications: modifications,
                                                    mustModify: must, mayModify: observer.mayModify, mayMove: observer.mayMove) {
                    fail(observer, "\(problem) [deletions \(deletions), insertions \(insertions), modifications \(modifications)]")
                }
            case .error(let error):
                fail(observer, "unexpected .error \(error)")
            }
            observer.delivered = now
            observer.since = transaction
            observer.baseline = state
            observer.mayModify = []
            observer.mayMove = []
        }

        /// After a delivery point: every observer with a required change was called.
        func checkDelivered(callsBefore: [ObjectIdentifier: Int]) {
            for observer in observers where observer.calls == callsBefore[ObjectIdentifier(observer)] {
                let now = observer.fresh(realm)
                guard let old = observer.delivered else {
                    fail(observer, "no .initial callback at the first delivery")
                    continue
                }
                let must = OracleChanges.modified(observer.kind, keyPaths: observer.keyPaths, before: observer.baseline, after: state, depth: 3, generous: false)
                if OracleCheck.required(old: old, new: now, mustModify: must) {
                    fail(observer, "no callback, but \(old) became \(now) and \(must.intersection(old).sorted()) changed")
                }
            }
        }
    }

    static let dogKeyPaths: [[String]?] = [nil, [], ["name"], ["age"], ["owner"], ["owner.name"], ["owners"], ["owners.name"], ["name", "owner.city"], ["tags"]]
    static let personKeyPaths: [[String]?] = [nil, ["name"], ["city"], ["dogs"], ["dogs.name"], ["ownedDogs"], ["ownedDogs.age"]]

    /// A random observer over the current state.
    static func makeObserver(_ run: Run) -> Observer {
        var w = run.workload
        defer { run.workload = w }
        let state = run.state, realm = run.realm
        let name = w.pick(OracleWorkload.names), city = w.pick(OracleWorkload.cities), age = w.int(8)
        let people = state.people.keys.sorted(), dogs = state.dogs.keys.sorted()
        let choice = w.int(10)
        let observer: Observer
        if choice < 4 || people.isEmpty || dogs.isEmpty {
            let predicates: [(String?, (OracleState.DogRow, OracleState) -> Bool)] = [
                (nil, { _, _ in true }),
                ("age >= \(age)", { dog, _ in dog.age >= age }),
                ("age < \(age)", { dog, _ in dog.age < age }),
                ("age >= \(age / 2) AND age <= \(age)", { dog, _ in dog.age >= age / 2 && dog.age <= age }),
                ("name == '\(name)'", { dog, _ in dog.name == name }),
                ("owner.name == '\(name)'", { dog, s in dog.owner.flatMap { s.people[$0]?.name } == name }),
                ("owner == nil", { dog, _ in dog.owner == nil }),
            ]
            let (predicate, holds) = w.pick(predicates)
            let sort: [Shoal.SortDescriptor]? = w.pick([nil, [Shoal.SortDescriptor(keyPath: "age")], [Shoal.SortDescriptor(keyPath: "age", ascending: false)],
                                                  [Shoal.SortDescriptor(keyPath: "name")], [Shoal.SortDescriptor(keyPath: "name", ascending: false), Shoal.SortDescriptor(keyPath: "age")],
                                                  [Shoal.SortDescriptor(keyPath: "owner.name")]])
            let keyPaths = w.pick(dogKeyPaths)
            let query: (Realm) -> Results<Dog> = { realm in
                var results = realm.objects(Dog.self)
                if let predicate { results = results.filter(predicate) }
                if let sort { results = results.sorted(by: sort) }
                return results
            }
            observer = Observer(label: "Results<Dog> \(predicate ?? "all") sorted \(sort?.map { "\($0.keyPath)\($0.ascending ? "↑" : "↓")" } ?? []) keyPaths \(keyPaths.map { "\($0)" } ?? "nil")",
                                kind: .dog, keyPaths: keyPaths, state: state,
                                fresh: { query($0).map(\.id) },
                                model: { s in Set(s.dogs.filter { holds($0.value, s) }.keys) })
            observer.token = query(realm).observe(keyPaths: keyPaths) { [unowned run, unowned observer] in run.deliver(observer, $0) }
        } else if choice < 6 {
            let predicates: [(String?, (OracleState.PersonRow, OracleState) -> Bool)] = [
                (nil, { _, _ in true }),
                ("name == '\(name)'", { person, _ in person.name == name }),
                ("city == '\(city)'", { person, _ in person.city == city }),
                ("ANY dogs.age > \(age)", { person, s in person.dogs.contains { (s.dogs[$0]?.age ?? -1) > age } }),
            ]
            let (predicate, holds) = w.pick(predicates)
            let sort: [Shoal.SortDescriptor]? = w.pick([nil, [Shoal.SortDescriptor(keyPath: "name")], [Shoal.SortDescriptor(keyPath: "city", ascending: false)]])
            let keyPaths = w.pick(personKeyPaths)
            let query: (Realm) -> Results<Person> = { realm in
                var results = realm.objects(Person.self)
                if let predicate { results = results.filter(predicate) }
                if let sort { results = results.sorted(by: sort) }
                return results
            }
            observer = Observer(label: "Results<Person> \(predicate ?? "all") sorted \(sort?.map { $0.keyPath } ?? []) keyPaths \(keyPaths.map { "\($0)" } ?? "nil")",
                                kind: .person, keyPaths: keyPaths, state: state,
                                fresh: { query($0).map(\.id) },
                                model: { s in Set(s.people.filter { holds($0.value, s) }.keys) })
            observer.token = query(realm).observe(keyPaths: keyPaths) { [unowned run, unowned observer] in run.deliver(observer, $0) }
        } else if choice < 8 {
            let id = w.pick(people), keyPaths = w.pick(dogKeyPaths)
            let person = realm.object(ofType: Person.self, forPrimaryKey: id)!
            observer = Observer(label: "person \(id).dogs keyPaths \(keyPaths.map { "\($0)" } ?? "nil")", kind: .dog, keyPaths: keyPaths, state: state,
                                fresh: { $0.object(ofType: Person.self, forPrimaryKey: id)?.dogs.map(\.id) ?? [] },
                                model: { Set($0.people[id]?.dogs ?? []) })
            observer.token = person.dogs.observe(keyPaths: keyPaths) { [unowned run, unowned observer] in run.deliver(observer, $0) }
        } else if choice < 9 {
            let id = w.pick(people), keyPaths = w.pick(dogKeyPaths)
            let person = realm.object(ofType: Person.self, forPrimaryKey: id)!
            observer = Observer(label: "person \(id).ownedDogs keyPaths \(keyPaths.map { "\($0)" } ?? "nil")", kind: .dog, keyPaths: keyPaths, state: state,
                                fresh: { $0.object(ofType: Person.self, forPrimaryKey: id)?.ownedDogs.map(\.id) ?? [] },
                                model: { $0.owned[id] ?? [] })
            observer.token = person.ownedDogs.observe(keyPaths: keyPaths) { [unowned run, unowned observer] in run.deliver(observer, $0) }
        } else {
            let id = w.pick(dogs), keyPaths = w.pick(personKeyPaths)
            let dog = realm.object(ofType: Dog.self, forPrimaryKey: id)!
            observer = Observer(label: "dog \(id).owners keyPaths \(keyPaths.map { "\($0)" } ?? "nil")", kind: .person, keyPaths: keyPaths, state: state,
                                fresh: { $0.object(ofType: Dog.self, forPrimaryKey: id)?.owners.map(\.id) ?? [] },
                                model: { $0.owners[id] ?? [] })
            observer.token = dog.owners.observe(keyPaths: keyPaths) { [unowned run, unowned observer] in run.deliver(observer, $0) }
        }
        observer.since = run.transaction
        return observer
    }

    @Test("random transactions, observers and delivery points: every callback matches the oracle",
          arguments: [0x5EED_0001, 0x5EED_0002, 0x5EED_0003, 0x5EED_0004, 0x5EED_0005] as [UInt64])
    func oracle(seed: UInt64) throws {
        let name = "oracle-\(seed)-\(UUID().uuidString)"
        let realm = try makeRealm(name)
        let writer = OracleWriter(realmName: name)
        defer { writer.stop() }
        var workload = OracleWorkload(seed: seed)
        let populate = workload.populate(dogs: 20, people: 5)
        guard let initialState = writer.perform(populate) else { return }
        realm.refresh()
        let run = Run(realm: realm, seed: seed, state: initialState, workload: workload)
        for _ in 0..<12 { run.observers.append(Self.makeObserver(run)) }
        for number in 1...1000 {
            run.transaction = number
            if number % 100 == 0 {
                for _ in 0..<3 {
                    let index = run.workload.int(run.observers.count)
                    run.observers[index].token?.invalidate()
                    run.observers[index] = Self.makeObserver(run)
                }
            }
            var transaction = run.workload.transaction(run.state)
            transaction.capture = number % 10 == 0
            run.log.append("\(number)\(transaction.cancel ? " (cancelled)" : ""): \(transaction.ops.map(\.description).joined(separator: "; "))")
            var steps = [run.state]
            if !transaction.cancel {
                for op in transaction.ops {
                    var next = steps[steps.count - 1]
                    next.apply(op)
                    steps.append(next)
                }
            }
            run.state = steps[steps.count - 1]
            if let captured = writer.perform(transaction), captured != run.state {
                run.problems.append("seed \(seed), transaction \(number): the Realm's state after it differs from the model's")
                run.state = captured
                steps.append(captured)
            }
            run.committed(steps)
            let point = run.workload.int(100)
            guard point < 40 || number == 1000 else { continue }
            let calls = Dictionary(uniqueKeysWithValues: run.observers.map { (ObjectIdentifier($0), $0.calls) })
            if point < 30 || number == 1000 {
                realm.refresh()
            } else {
                realm.beginWrite()
                realm.cancelWrite()
            }
            run.checkDelivered(callsBefore: calls)
            if run.problems.count > 20 { break }
        }
        for observer in run.observers { observer.token?.invalidate() }
        #expect(run.problems.isEmpty, "seed \(seed):\n\(run.problems.prefix(20).joined(separator: "\n"))")
        #expect(run.updates > 300, "seed \(seed): only \(run.updates) updates were checked")
        #expect(run.initials >= 12)
    }
}
