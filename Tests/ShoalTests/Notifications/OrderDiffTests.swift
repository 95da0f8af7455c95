import ShoalTestSupport
import Testing
@testable import Shoal

@Suite struct OrderDiffTests {
    /// Applies a changeset to `old`: deletions (old indices, descending),
    /// then insertions (new indices, ascending) taken from `new`.
    static func apply(_ c: IndexChanges, _ old: [ElementID], _ new: ContiguousArray<ElementID>) -> [ElementID] {
        var out = old
        for d in c.deletions.reversed() { out.remove(at: d) }
        for i in c.insertions { out.insert(new[i], at: i) }
        return out
    }

    @Test("on random orders, the changeset rebuilds the new order, names only touched elements, and keeps the most in place")
    func randomOrders() {
        var rng = SeededRandom(seed: 0x5EED_0D1F)
        for round in 0..<2_000 {
            let n = Int.random(in: 0..<40, using: &rng)
            let old = ContiguousArray((0..<Int64(n)).shuffled(using: &rng))
            // Touch some: remove them, and reinsert some of those and some new ones anywhere.
            var touched = Set<ElementID>()
            var new = old
            for id in old where Int.random(in: 0..<4, using: &rng) == 0 {
                touched.insert(id)
                new.remove(at: new.firstIndex(of: id)!)
            }
            for id in touched where Bool.random(using: &rng) {
                new.insert(id, at: Int.random(in: 0...new.count, using: &rng))
            }
            for id in Int64(n)..<Int64(n + Int.random(in: 0..<3, using: &rng)) {
                touched.insert(id)
                new.insert(id, at: Int.random(in: 0...new.count, using: &rng))
            }
            let modified = Set(new.filter { _ in Int.random(in: 0..<5, using: &rng) == 0 })
            let c = OrderDiff.changes(from: old, to: new, touched: touched, modified: modified, replaced: [])
            #expect(Self.apply(c, Array(old), new) == Array(new), "round \(round): \(old) -> \(new)")
            for d in c.deletions { #expect(touched.contains(old[d]), "round \(round): untouched \(old[d]) deleted") }
            for i in c.insertions { #expect(touched.contains(new[i]), "round \(round): untouched \(new[i]) inserted") }
            // Modifications: old and new positions of the same elements, never inserted ones.
            #expect(c.modifications.map { old[$0] }.sorted() == c.modificationsNew.map { new[$0] }.sorted())
            #expect(c.modifications.allSatisfy { !c.deletions.contains($0) })
            #expect(c.modificationsNew.allSatisfy { !c.insertions.contains($0) })
            #expect(Set(c.modifications.map { old[$0] }) == modified.intersection(old).subtracting(c.deletions.map { old[$0] }))
            for move in c.moves { #expect(old[move.from] == new[move.to] && c.deletions.contains(move.from) && c.insertions.contains(move.to)) }
            // Nothing that kept its relative order among the untouched is moved: the
            // kept elements form one common subsequence as long as any other.
            let kept = old.filter { id in new.contains(id) && !c.moves.contains { old[$0.from] == id } }
            #expect(kept == new.filter { kept.contains($0) })
        }
    }

    @Test("a row modified while another is deleted keeps its old index in modifications (Realm's testModifyObjectShiftedByDeletion)")
    func modificationShiftedByDeletion() {
        var change = OrderChange()
        change.removed = [(11, 1)]
        change.kept = [12: (2, 1)]
        let c = OrderDiff.changes(change, modified: [12])
        #expect(c.deletions == [1] && c.modifications == [2] && c.modificationsNew == [1] && c.insertions.isEmpty)
    }

    @Test("a moved and modified row is a deletion and an insertion only; {3,5} to {5,3} moves one")
    func movedIsNotModified() {
        let c = OrderDiff.changes(from: [1, 3, 5], to: [1, 5, 3], touched: [3, 5], modified: [1, 3, 5], replaced: [])
        // One of 3 and 5 stays (modified in place), the other moves: reported
        // only as a deletion plus an insertion, never as a modification.
        #expect(c.deletions.count == 1 && c.insertions.count == 1 && c.moves.count == 1)
        #expect(c.modifications.count == 2 && c.modifications.contains(0) && !c.modifications.contains(c.deletions[0]))
    }

    @Test("the longest increasing subsequence is found")
    func longestIncreasing() {
        #expect(OrderDiff.longestIncreasing([3, 1, 2, 5, 4, 6]).map { [3, 1, 2, 5, 4, 6][$0] } == [1, 2, 4, 6])
        #expect(OrderDiff.longestIncreasing([]).isEmpty)
        #expect(OrderDiff.longestIncreasing([7]) == [0])
    }

    @Test("the baseline before a change is rebuilt from the order after it")
    func baseline() {
        var change = OrderChange()
        change.removed = [(5, 0), (7, 2)]
        change.inserted = [(9, 1), (7, 3)]
        #expect(OrderDiff.baseline(before: change, from: [6, 9, 8, 7]) == [5, 6, 7, 8])
    }
}
