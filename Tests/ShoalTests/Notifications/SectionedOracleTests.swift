import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// Model-based randomized test of sectioned results: the oracle's random
/// transactions on a writer thread, deliveries at random points so that
/// commits coalesce, and for every callback: the changeset applied to the
/// sections last delivered gives the new sections, which equal sections
/// computed afresh; the key block ran only for dogs that are new or
/// changed in what it reads.
@Suite struct SectionedOracleTests {
    /// One sectioned observer (of all sections, or of one key's section).
    final class Observer {
        let label: String
        /// The sections computed afresh at the Realm's version.
        let fresh: (Realm) -> SectionSnapshot
        /// The key of a section observer; `nil` for the whole sections.
        let sectionKey: String?
        /// Whether section order cannot change without sections being
        /// inserted or deleted (the sort groups the keys), so that
        /// changesets can be applied as a table view would.
        let grouped: Bool
        var delivered: SectionSnapshot?
        var token: NotificationToken?
        var updates = 0

        init(label: String, sectionKey: String? = nil, grouped: Bool, fresh: @escaping (Realm) -> SectionSnapshot) {
            self.label = label
            self.sectionKey = sectionKey
            self.grouped = grouped
            self.fresh = fresh
        }

        /// The part of `all` a section observer sees.
        func visible(_ all: SectionSnapshot) -> SectionSnapshot {
            guard let sectionKey else { return all }
            guard let index = all.keys.firstIndex(of: sectionKey) else { return SectionSnapshot(keys: [], ids: []) }
            return SectionSnapshot(keys: [sectionKey], ids: [all.ids[index]])
        }
    }

    /// Sections of `dogs` (already sorted) by `key`, as Realm defines them.
    static func sections(_ dogs: Results<Dog>, key: (Dog) -> String) -> SectionSnapshot {
        var out = SectionSnapshot(keys: [], ids: [])
        for dog in dogs {
            let k = key(dog)
            if let i = out.keys.firstIndex(of: k) { out.ids[i].append(dog.id) } else {
                out.keys.append(k)
                out.ids.append([dog.id])
            }
        }
        return out
    }

    /// Logs the ids the key block ran for.
    final class KeyLog: @unchecked Sendable {
        // Safe because: used on the observing thread only.
        var ids: [Int] = []
    }

    @Test("3,000 random transactions with random coalescing: sectioned changesets rebuild the sections; keys only for new and changed dogs")
    func randomized() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["SHOAL_SECTION_SEED"] ?? "") ?? 0x5EC7_0001
        let name = "sections-\(seed)-\(UUID().uuidString)"
        let realm = try makeRealm(name)
        var workload = OracleWorkload(seed: seed)
        let writer = OracleWriter(realmName: name)
        defer { writer.stop() }
        var state = try #require(writer.perform(workload.populate(dogs: 24, people: 4)))
        realm.refresh()
        var problems: [String] = []
        var transaction = 0

        let dogs = realm.objects(Dog.self)
        let byLetter = dogs.sectioned(by: \.firstLetter, ascending: true)
        let keyLog = KeyLog()
        let byAge = dogs.sectioned(by: { (dog: Dog) -> Int in
            keyLog.ids.append(dog.id)
            return dog.age / 3
        }, sortDescriptors: [SortDescriptor(keyPath: "age"), SortDescriptor(keyPath: "name")])
        let scattered = dogs.sectioned(by: { $0.age % 2 }, sortDescriptors: [SortDescriptor(keyPath: "age", ascending: false)])
        let letterFresh: (Realm) -> SectionSnapshot = { Self.sections($0.objects(Dog.self).sorted(byKeyPath: "name"), key: \.firstLetter) }
        let ageFresh: (Realm) -> SectionSnapshot = {
            Self.sections($0.objects(Dog.self).sorted(by: [SortDescriptor(keyPath: "age"), SortDescriptor(keyPath: "name")]), key: { "\($0.age / 3)" })
        }
        let scatteredFresh: (Realm) -> SectionSnapshot = {
            Self.sections($0.objects(Dog.self).sorted(byKeyPath: "age", ascending: false), key: { "\($0.age % 2)" })
        }

        var observers: [Observer] = []
        func check(_ observer: Observer, _ event: SectionedEvent) {
            let label = "seed \(seed), transaction \(transaction), \(observer.label)"
            let fresh = observer.visible(observer.fresh(realm))
            switch event {
            case .initial(let snapshot):
                if snapshot != fresh { problems.append("\(label): initial \(snapshot) != fresh \(fresh)") }
            case let .update(snapshot, deletions, insertions, modifications, sectionsToInsert, sectionsToDelete):
                observer.updates += 1
                if snapshot != fresh { problems.append("\(label): delivered \(snapshot) != fresh \(fresh)") }
                guard let old = observer.delivered else {
                    problems.append("\(label): an update before the initial callback")
                    return
                }
                for path in deletions + modifications where observer.sectionKey == nil
                    && (path.section >= old.ids.count || path.item >= old.ids[path.section].count) {
                    problems.append("\(label): old path \(path) out of range of \(old)")
                }
                if observer.sectionKey != nil {
                    let expected: SectionSnapshot
                    if !sectionsToDelete.isEmpty {
                        expected = SectionSnapshot(keys: [], ids: [])
                    } else if !sectionsToInsert.isEmpty {
                        expected = SectionSnapshot(keys: snapshot.keys, ids: [insertions.map { snapshot.ids[0][$0.item] }])
                    } else {
                        var ids = old.ids.first ?? []
                        for path in deletions.sorted().reversed() { ids.remove(at: path.item) }
                        for path in insertions.sorted() { ids.insert(snapshot.ids[0][path.item], at: path.item) }
                        expected = SectionSnapshot(keys: old.keys, ids: [ids])
                    }
                    if expected != snapshot { problems.append("\(label): applying the section's changes to \(old) gives \(expected), not \(snapshot)") }
                } else if observer.grouped {
                    let applied = old.applying(deletions: deletions, insertions: insertions, sectionsToInsert: IndexSet(sectionsToInsert),
                        sectionsToDelete: IndexSet(sectionsToDelete), new: snapshot)
                    if applied != snapshot {
                        problems.append("\(label): applying \(event) to \(old) gives \(applied)")
                    }
                }
            }
            if case .initial(let s) = event { observer.delivered = s }
            if case .update(let s, _, _, _, _, _) = event { observer.delivered = s }
        }

        func add<K>(_ observer: Observer, _ sections: SectionedResults<K, Dog>, keyPaths: [String]? = nil) {
            observers.append(observer)
            if let key = observer.sectionKey {
                guard let section = sections.first(where: { "\($0.key)" == key }) else { return }
                let recorder = SectionRecorder()
                observer.token = section.observe(keyPaths: keyPaths, on: nil) { change in
                    recorder.handleSection(change)
                    for event in recorder.take() { check(observer, event) }
                }
            } else {
                let recorder = SectionRecorder()
                observer.token = sections.observe(keyPaths: keyPaths, on: nil) { change in
                    recorder.handle(change)
                    for event in recorder.take() { check(observer, event) }
                }
            }
        }
        add(Observer(label: "by letter", grouped: true, fresh: letterFresh), byLetter)
        add(Observer(label: "by letter, [age]", grouped: true, fresh: letterFresh), byLetter, keyPaths: ["age"])
        add(Observer(label: "by age / 3", grouped: true, fresh: ageFresh), byAge)
        add(Observer(label: "by age % 2, scattered", grouped: false, fresh: scatteredFresh), scattered)
        for key in ["R", "B"] { add(Observer(label: "section \(key)", sectionKey: key, grouped: true, fresh: letterFresh), byLetter) }
        realm.refresh()
        #expect(keyLog.ids.count == state.dogs.count, "the initial sections key every dog once")
        keyLog.ids = []

        var mayRekey = Set<Int>()
        for number in 1...3_000 {
            transaction = number
            let tx = workload.transaction(state)
            if let after = writer.perform(tx) {
                // What the block-keyed sections may key again: new dogs, and
                // dogs that reach a change within the unfiltered depth.
                mayRekey.formUnion(after.ids(.dog).subtracting(state.ids(.dog)))
                mayRekey.formUnion(OracleChanges.modified(.dog, keyPaths: nil, before: state, after: after, depth: 3, generous: true))
                state = after
            }
            guard workload.chance(35) || number == 3_000 else { continue }
            realm.refresh()
            let unexpected = Set(keyLog.ids).subtracting(mayRekey)
            if !unexpected.isEmpty {
                problems.append("seed \(seed), transaction \(number): the age key ran for unchanged dogs \(unexpected.sorted())")
            }
            keyLog.ids = []
            mayRekey = []
            for observer in observers where observer.token != nil {
                let fresh = observer.visible(observer.fresh(realm))
                if observer.delivered != fresh {
                    problems.append("seed \(seed), transaction \(number), \(observer.label): after refresh \(observer.delivered.map(\.description) ?? "nil") != fresh \(fresh)")
                }
            }
            if problems.count > 20 { break }
        }
        #expect(observers.filter { $0.token != nil }.allSatisfy { $0.updates > 0 }, "seed \(seed): some observer never got an update")
        #expect(problems.isEmpty, "seed \(seed):\n\(problems.prefix(20).joined(separator: "\n"))")
        observers.forEach { $0.token?.invalidate() }
    }
}
