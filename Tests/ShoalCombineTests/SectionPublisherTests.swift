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
        case .error(let error): return "error \(error)"
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

    @Test("sectioned changes that pile up without demand arrive as one .initial with the current sections")
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
        #expect(seen == ["initial 3", "update 4 d[] i[3.0] m[] si[3] sd[]", "initial 5"])
        probe.cancel()
    }
}
