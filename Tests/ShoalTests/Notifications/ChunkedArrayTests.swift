import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// The chunked order behind large sorted results and sections: every edit
/// agrees with an array, across chunk splits and removals.
@Suite struct ChunkedArrayTests {
    @Test("random inserts, removals, splits and joins agree with an array across many chunks")
    func agreesWithArray() {
        var rng = SeededRandom(seed: 0xC4_0001)
        var model = Array(0..<5_000)
        var chunked = ChunkedArray(model)
        var next = model.count
        for step in 0..<6_000 {
            switch rng.next() % 10 {
            case 0..<5:
                let at = Int(rng.next() % UInt64(model.count + 1))
                model.insert(next, at: at)
                chunked.insert(next, at: at)
                next += 1
            case 5..<9 where !model.isEmpty:
                let at = Int(rng.next() % UInt64(model.count))
                #expect(model.remove(at: at) == chunked.remove(at: at))
            default:
                let at = Int(rng.next() % UInt64(model.count + 1))
                let tail = chunked.removeSuffix(from: at)
                #expect(Array(tail) == Array(model[at...]))
                chunked.append(contentsOf: tail)
            }
            if step % 1_000 == 0 {
                #expect(Array(chunked) == model && chunked.count == model.count)
                #expect(chunked.chunks.allSatisfy { !$0.isEmpty && $0.count <= ChunkedArray<Int>.maxChunk })
            }
        }
        #expect(Array(chunked) == model)
        for probe in stride(from: 0, to: model.count, by: 997) { #expect(chunked[probe] == model[probe]) }
    }

    @Test("sorted results and sections larger than a chunk stay exact under random updates")
    func largeSortedResultsAndSections() throws {
        let realm = try makeRealm()
        var rng = SeededRandom(seed: 0xC4_0002)
        try realm.write {
            for id in 0..<3_000 { realm.create(Dog.self, value: ["id": id, "name": "d\(rng.next() % 50)", "age": Int(rng.next() % 1_000)]) }
        }
        let sorted = realm.objects(Dog.self).sorted(byKeyPath: "age")
        let sections = realm.objects(Dog.self).sectioned(by: { $0.age / 400 }, sortDescriptors: [SortDescriptor(keyPath: "age")])
        var flat: [Int] = []
        var delivered: SectionSnapshot?
        let flatToken = sorted.observe { change in
            switch change {
            case .initial(let dogs): flat = dogs.map(\.id)
            case let .update(dogs, deletions, insertions, _):
                let ids = dogs.map(\.id)
                for i in deletions.reversed() { flat.remove(at: i) }
                for i in insertions { flat.insert(ids[i], at: i) }
            case .error: break
            }
        }
        let sectionToken = sections.observe { change in
            switch change {
            case .initial(let s): delivered = SectionSnapshot(s)
            case let .update(s, deletions, insertions, _, sectionsToInsert, sectionsToDelete):
                let new = SectionSnapshot(s)
                delivered = delivered?.applying(deletions: deletions, insertions: insertions, sectionsToInsert: sectionsToInsert,
                    sectionsToDelete: sectionsToDelete, new: new)
            }
        }
        realm.refresh()
        for round in 0..<60 {
            try realm.write {
                for _ in 0..<(1 + Int(rng.next() % 3)) {
                    let dog = Fixture.dog(realm, Int(rng.next() % 3_000))
                    dog.age = Int(rng.next() % 1_000)
                }
            }
            if round % 3 == 0 { realm.refresh() }
        }
        realm.refresh()
        #expect(flat == sorted.map(\.id))
        #expect(delivered == SectionSnapshot(sections.freeze()))
        flatToken.invalidate()
        sectionToken.invalidate()
    }
}
