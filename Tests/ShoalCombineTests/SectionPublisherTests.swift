import Foundation
import OpenCombine
import OpenCombineDispatch
import ShoalCombine
import ShoalTestSupport
import Testing
@testable import Shoal

/// Publishers on `SectionedResults` and `ResultsSection`.
@Suite struct SectionPublisherTests {
    /// Dogs 1...4 aged 1, 1, 2, 3, in sections by age.
    static func sections() throws -> (Realm, SectionedResults<Int, Dog>) {
        let realm = try makeRealm()
        try realm.write {
            for (id, age) in [(1, 1), (2, 1), (3, 2), (4, 3)] { realm.create(Dog.self, value: ["id": id, "age": age]) }
        }
        return (realm, realm.objects(Dog.self).sectioned(by: \.age, sortDescriptors: [SortDescriptor(keyPath: "age"),
            SortDescriptor(keyPath: "id")]))
    }

    /// A sectioned change as text, read when it arrives.
    static func describe<C: RealmSectionedResult>(_ change: SectionedResultsChange<C>) -> String {
        switch change {
        case .initial(let c): return "initial \(c.count)"
        case .update(let c, let d, let i, let m, let si, let sd):
            func paths(_ p: [IndexPath]) -> String { p.map { "\($0.section).\($0.item)" }.joined(separator: ",") }
            return "update \(c.count) d[\(paths(d))] i[\(paths(i))] m[\(paths(m))] si\(Array(si)) sd\(Array(sd))"
        }
    }

    @Test("SectionedResults' changesetPublisher emits each commit's index paths and section changes")
    func sectionedChangesets() throws {
        let (realm, sections) = try Self.sections()
        var seen: [String] = []
        let cancellable = sections.changesetPublisher.sink { seen.append(Self.describe($0)) }
        realm.refresh()
        try realm.write { realm.create(Dog.self, value: ["id": 5, "age": 4]) }
        realm.refresh()
        try realm.write { Fixture.dog(realm, 3).name = "renamed" }
        realm.refresh()
        try realm.write { realm.delete(Fixture.dog(realm, 4)) }
        realm.refresh()
        #expect(seen == ["initial 3", "update 4 d[] i[3.0] m[] si[3] sd[]", "update 4 d[] i[] m[1.0] si[] sd[]",
            "update 3 d[] i[] m[] si[] sd[2]"])
        cancellable.cancel()
    }

    @Test("a ResultsSection's publishers hear only about that section, with key-path filtering")
    func sectionChangesets() throws {
        let (realm, sections) = try Self.sections()
        var changes: [String] = [], counts: [Int] = []
        let first = sections[key: 1]
        let cancellables = [
            first.changesetPublisher(keyPaths: ["name"]).sink { changes.append(Self.describe($0)) },
            first.collectionPublisher.sink(receiveCompletion: { _ in }, receiveValue: { counts.append($0.count) }),
        ]
        realm.refresh()
        try realm.write { Fixture.dog(realm, 3).name = "other section" }
        realm.refresh()
        try realm.write { Fixture.dog(realm, 1).age = 1 }   // its current value: nothing changes
        realm.refresh()
        try realm.write { Fixture.dog(realm, 2).name = "renamed" }
        realm.refresh()
        try realm.write { realm.create(Dog.self, value: ["id": 6, "age": 1]) }
        realm.refresh()
        #expect(changes == ["initial 2", "update 2 d[] i[] m[0.1] si[] sd[]", "update 3 d[] i[0.2] m[] si[] sd[]"])
        #expect(counts == [2, 2, 3])   // unfiltered, but only this section's changes
        cancellables.forEach { $0.cancel() }
    }

    @Test("sections' objectWillChange fires before the new section is visible; cancelling leaves nothing registered")
    func willChange() throws {
        let (realm, sections) = try Self.sections()
        var keysSeen: [[Int]] = []
        let cancellable = sections.objectWillChange.sink { keysSeen.append(sections.allKeys) }
        realm.refresh()
        Fixture.writeElsewhere(realm) { $0.create(Dog.self, value: ["id": 7, "age": 9]) }
        realm.refresh()
        #expect(keysSeen == [[1, 2, 3]])
        #expect(sections.allKeys == [1, 2, 3, 9])
        cancellable.cancel()
        realm.refresh()
        #expect(realm.instance.mailbox?.subscriptions.isEmpty == true)
        #expect(realm.instance.willDeliverHooks.withLock { $0.isEmpty })
    }

    @Test("subscribe(on:) and receive(on:) deliver sections live on a queue; freeze() delivers frozen ones")
    func queues() throws {
        let (realm, sections) = try Self.sections()
        let queue = DispatchQueue(label: "shoal.combine.sections")
        let seen = ResultBox<[String]>([])
        let arrived = DispatchSemaphore(value: 0), queueInitial = DispatchSemaphore(value: 0)
        func record(_ tag: String) -> (SectionedResultsChange<SectionedResults<Int, Dog>>) -> Void {
            { change in
                if case .initial = change, tag == "subscribe" { queueInitial.signal() }
                if case .update(let s, _, _, _, _, _) = change {
                    seen.update { $0.append("\(tag) \(s.allKeys) frozen:\(s.isFrozen)") }
                    arrived.signal()
                }
            }
        }
        let cancellables = [
            sections.changesetPublisher.subscribe(on: queue).sink(receiveValue: record("subscribe")),
            sections.changesetPublisher.receive(on: queue).sink(receiveValue: record("receive")),
            sections.changesetPublisher.map { $0 }.threadSafeReference().receive(on: queue.ocombine).sink(receiveValue: record("tsr")),
            sections.changesetPublisher.freeze().receive(on: DispatchQueue.global().ocombine).sink(receiveValue: record("freeze")),
        ]
        realm.refresh()
        #expect(queueInitial.wait(timeout: .now() + 10) == .success)
        try realm.write { realm.create(Dog.self, value: ["id": 8, "age": 5]) }
        realm.refresh()
        for _ in 0..<4 { #expect(arrived.wait(timeout: .now() + 10) == .success) }
        #expect(Set(seen.value) == ["subscribe [1, 2, 3, 5] frozen:false", "receive [1, 2, 3, 5] frozen:false",
            "tsr [1, 2, 3, 5] frozen:false", "freeze [1, 2, 3, 5] frozen:true"])
        cancellables.forEach { $0.cancel() }
    }

    @Test("sectioned changes that pile up without demand arrive merged into one update")
    func demand() throws {
        let (realm, sections) = try Self.sections()
        var seen: [String] = []
        let probe = Probe<SectionedResultsChange<SectionedResults<Int, Dog>>, Never>(initial: .max(1)) { change in
            seen.append(Self.describe(change))
        }
        sections.changesetPublisher.subscribe(probe)
        realm.refresh()
        try realm.write { realm.create(Dog.self, value: ["id": 9, "age": 6]) }
        realm.refresh()
        #expect(seen == ["initial 3"])
        probe.request(.max(1))
        #expect(seen == ["initial 3", "update 4 d[] i[3.0] m[] si[3] sd[]"])   // one kept change arrives as it was
        try realm.write { realm.create(Dog.self, value: ["id": 10, "age": 7]) }
        realm.refresh()
        try realm.write { realm.delete(Fixture.dog(realm, 1)) }
        realm.refresh()
        probe.request(.max(1))
        #expect(seen == ["initial 3", "update 4 d[] i[3.0] m[] si[3] sd[]", "update 5 d[0.0] i[4.0] m[] si[4] sd[]"])
        probe.cancel()
    }

    @Test("a single section's changes that pile up without demand arrive as one .initial (reload)")
    func sectionDemand() throws {
        let (realm, sections) = try Self.sections()
        var seen: [String] = []
        let probe = Probe<SectionedResultsChange<ResultsSection<Int, Dog>>, Never>(initial: .max(1)) { seen.append(Self.describe($0)) }
        sections[key: 1].changesetPublisher.subscribe(probe)
        realm.refresh()
        try realm.write { realm.create(Dog.self, value: ["id": 11, "age": 1]) }
        realm.refresh()
        try realm.write { Fixture.dog(realm, 1).name = "renamed" }
        realm.refresh()
        probe.request(.max(1))
        #expect(seen == ["initial 2", "initial 3"])
        probe.cancel()
    }

    @Test("merged sectioned changesets turn the sections last seen into the current ones", arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func mergedSectionChangesets(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let realm = try makeRealm()
        try realm.write { for id in 1...10 { realm.create(Dog.self, value: ["id": id, "age": Int(random.next() % 4)]) } }
        let sections = realm.objects(Dog.self).sectioned(by: \.age, sortDescriptors: [SortDescriptor(keyPath: "age"),
            SortDescriptor(keyPath: "name"), SortDescriptor(keyPath: "id")])
        func snapshot(_ s: SectionedResults<Int, Dog>) -> (keys: [Int], ids: [[Int]], names: [Int: String]) {
            (s.allKeys, s.map { $0.map(\.id) }, Dictionary(uniqueKeysWithValues: s.flatMap { $0 }.map { ($0.id, $0.name) }))
        }
        var last: (keys: [Int], ids: [[Int]], names: [Int: String])?
        var merged: SectionedResultsChange<SectionedResults<Int, Dog>>?
        let probe = Probe<SectionedResultsChange<SectionedResults<Int, Dog>>, Never>(initial: .max(1)) { change in
            if case .initial(let s) = change, last == nil { last = snapshot(s) } else { merged = change }
        }
        sections.changesetPublisher.subscribe(probe)
        realm.refresh()
        var nextID = 11
        for _ in 0..<(2 + Int(random.next() % 4)) {
            try realm.write {
                for _ in 0..<(1 + Int(random.next() % 3)) {
                    let dog = realm.object(ofType: Dog.self, forPrimaryKey: 1 + Int(random.next() % UInt64(nextID - 1)))
                    switch random.next() % 4 {
                    case 0:
                        realm.create(Dog.self, value: ["id": nextID, "age": Int(random.next() % 5)])
                        nextID += 1
                    case 1: if let dog { realm.delete(dog) }
                    case 2: dog?.age = Int(random.next() % 5)
                    default: dog?.name = "n\(random.next() % 4)"
                    }
                }
            }
            realm.refresh()
        }
        probe.request(.max(1))
        let before = try #require(last)
        guard case .update(let now, let deletions, let insertions, let modifications, let added, let removed)? = merged else {
            // Nothing arrives only when the commits netted out to nothing.
            #expect(merged == nil)
            #expect(snapshot(sections).ids == before.ids)
            return
        }
        let after = snapshot(now)
        // Apply the merged change to the sections last seen.
        var rows: [[Int]] = []
        for (new, key) in after.keys.enumerated() {
            guard let old = before.keys.firstIndex(of: key), !added.contains(new) else {
                rows.append(insertions.filter { $0.section == new }.map { after.ids[new][$0.item] })
                continue
            }
            var section = before.ids[old]
            for path in deletions.filter({ $0.section == old }).reversed() { section.remove(at: path.item) }
            for path in insertions.filter({ $0.section == new }) { section.insert(after.ids[new][path.item], at: path.item) }
            rows.append(section)
        }
        #expect(rows == after.ids)
        #expect(Set(removed) == Set(before.keys.indices.filter { !after.keys.contains(before.keys[$0]) }))
        // A renamed dog that kept its row is reported modified there.
        for (old, key) in before.keys.enumerated() {
            guard let new = after.keys.firstIndex(of: key) else { continue }
            for (row, id) in before.ids[old].enumerated()
            where after.names[id] != nil && after.names[id] != before.names[id] && after.ids[new].firstIndex(of: id) == row {
                #expect(modifications.contains(IndexPath(item: row, section: old)) || deletions.contains(IndexPath(item: row, section: old)))
            }
        }
        probe.cancel()
    }
}
