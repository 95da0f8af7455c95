import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

@Suite struct PersistentSortedSetTests {
    typealias Bound = PersistentSortedSet.Bound

    /// The model's answer to a range: the values of `sorted` from `lower` to `upper`.
    static func expected(_ sorted: [Int], _ lower: Bound?, _ upper: Bound?) -> ArraySlice<Int> {
        let start = lower.map { bound in
            let l = Int(bound.value.intValue!)
            return sorted.partitioningIndex { bound.isInclusive ? $0 >= l : $0 > l }
        } ?? 0
        let end = upper.map { bound in
            let u = Int(bound.value.intValue!)
            return sorted.partitioningIndex { bound.isInclusive ? $0 > u : $0 >= u }
        } ?? sorted.count
        return start < end ? sorted[start..<end] : []
    }

    static func values(_ set: PersistentSortedSet, from lower: Bound?, to upper: Bound?) -> [Int] {
        var out: [Int] = []
        set.forEach(from: lower, to: upper) { value in
            out.append(Int(value.intValue!))
            return true
        }
        return out
    }

    static func randomBound(_ rng: inout SeededRandom, below limit: Int) -> Bound? {
        guard rng.next() % 5 != 0 else { return nil }
        return Bound(value: .int(Int64(rng.next() % UInt64(limit)) - 5), isInclusive: rng.next() % 2 == 0)
    }

    /// Every node of the tree, by identity.
    static func nodes(_ set: PersistentSortedSet) -> Set<ObjectIdentifier> {
        var out: Set<ObjectIdentifier> = []
        func walk(_ node: SortedSetNode) {
            out.insert(ObjectIdentifier(node))
            node.children.forEach(walk)
        }
        if let root = set.root { walk(root) }
        return out
    }

    static func leafCount(_ set: PersistentSortedSet) -> Int {
        func walk(_ node: SortedSetNode) -> Int { node.isLeaf ? 1 : node.children.reduce(0) { $0 + walk($1) } }
        return set.root.map(walk) ?? 0
    }

    @Test("random inserts, removes and ranges match a sorted array, and every kept copy stays as it was")
    func randomAgainstSortedArray() {
        var rng = SeededRandom(seed: 0x50_27ED)
        var set = PersistentSortedSet()
        var model: [Int] = []
        var kept: [(PersistentSortedSet, [Int])] = []
        var ranges = 0
        for step in 0..<60_000 {
            // The value range grows and shrinks, so the tree grows to three
            // levels and later shrinks, through splits, merges and refills.
            let span = step < 30_000 ? 20_000 : 2_000
            let v = Int(rng.next() % UInt64(span))
            switch rng.next() % 10 {
            case 0..<5 where step < 45_000:
                let inserted = set.insert(.int(Int64(v)))
                let position = model.partitioningIndex { $0 >= v }
                let isNew = position == model.count || model[position] != v
                if isNew { model.insert(v, at: position) }
                #expect(inserted == isNew)
            case 0..<8:
                let removed = set.remove(.int(Int64(v)))
                let position = model.partitioningIndex { $0 >= v }
                let isPresent = position < model.count && model[position] == v
                if isPresent { model.remove(at: position) }
                #expect(removed == isPresent)
            case 8:
                let position = model.partitioningIndex { $0 >= v }
                #expect(set.contains(.int(Int64(v))) == (position < model.count && model[position] == v))
                let lower = Self.randomBound(&rng, below: span + 10), upper = Self.randomBound(&rng, below: span + 10)
                let got = Self.values(set, from: lower, to: upper), want = Self.expected(model, lower, upper)
                #expect(got[...] == want, "step \(step): \(String(describing: lower))...\(String(describing: upper))")
                ranges += 1
            default:
                if rng.next() % 200 == 0, kept.count < 40 { kept.append((set, model)) }
            }
            #expect(set.count == model.count)
            if step % 1_000 == 0 {
                #expect(set.invariantViolation() == nil, "step \(step)")
                #expect(set.map { Int($0.intValue!) } == model, "step \(step)")
            }
        }
        #expect(set.invariantViolation() == nil)
        #expect(set.map { Int($0.intValue!) } == model)
        #expect(ranges > 5_000)
        #expect(kept.count > 20)
        for (copy, expected) in kept {
            #expect(copy.invariantViolation() == nil)
            #expect(copy.map { Int($0.intValue!) } == expected)
        }
    }

    @Test("a set built from sorted values is a valid tree of exactly those values, and grows and shrinks like any other", arguments: [0, 1, 2, 63, 64, 65, 129, 4_096, 4_097, 262_145])
    func bulkBuild(count: Int) {
        let sorted = (0..<count).map { $0 * 2 }
        var set = PersistentSortedSet(sorted: sorted.map { Value.int(Int64($0)) })
        #expect(set.count == count)
        #expect(set.invariantViolation() == nil)
        #expect(set.map { Int($0.intValue!) } == sorted)
        var model = sorted
        var rng = SeededRandom(seed: UInt64(count))
        for _ in 0..<2_000 {
            let v = Int(rng.next() % UInt64(2 * count + 4))
            if rng.next() % 2 == 0 {
                if set.insert(.int(Int64(v))) { model.insert(v, at: model.partitioningIndex { $0 >= v }) }
            } else if set.remove(.int(Int64(v))) {
                model.remove(at: model.partitioningIndex { $0 >= v })
            }
        }
        #expect(set.invariantViolation() == nil)
        #expect(set.map { Int($0.intValue!) } == model)
        let lower = Bound(value: .int(Int64(count / 3)), isInclusive: false), upper = Bound(value: .int(Int64(count)), isInclusive: true)
        #expect(Self.values(set, from: lower, to: upper)[...] == Self.expected(model, lower, upper))
    }

    @Test("merging a batch keeps each value once, whether it rebuilds or inserts one by one", arguments: [10, 5_000])
    func insertContentsOf(batch: Int) {
        var rng = SeededRandom(seed: 0xBA7C)
        var set = PersistentSortedSet(sorted: (0..<1_000).map { Value.int(Int64($0 * 3)) })
        var model = Set((0..<1_000).map { $0 * 3 })
        // Repeats within the batch, and values already present.
        let values = (0..<batch).map { _ in Int(rng.next() % 6_000) }
        set.insert(contentsOf: values.map { Value.int(Int64($0)) })
        model.formUnion(values)
        #expect(set.invariantViolation() == nil)
        #expect(set.map { Int($0.intValue!) } == model.sorted())
        #expect(set.count == model.count)
    }

    @Test("values arriving in ascending order fill the nodes instead of leaving them half empty")
    func ascendingInsertsFillNodes() {
        var set = PersistentSortedSet()
        let count = 64 * 1_000
        for i in 0..<count { set.insert(.int(Int64(i))) }
        #expect(set.invariantViolation() == nil)
        // Even splits would leave about count / 32 leaves.
        #expect(Self.leafCount(set) <= count / 60)
    }

    @Test("a change to a copy copies only the path from the root to its leaf, and the original keeps its values")
    func pathCopying() {
        let original = PersistentSortedSet(sorted: (0..<100_000).map { Value.int(Int64($0 * 2)) })
        var copy = original
        copy.remove(.int(80_000))
        let shared = Self.nodes(original)
        // Three levels (1,563 leaves under 25 branches under the root): a
        // new root, branch and leaf.
        #expect(Self.nodes(copy).subtracting(shared).count == 3)
        // Another branch and leaf, and maybe the new half of a split leaf.
        copy.insert(.int(50_001))
        #expect(Self.nodes(copy).subtracting(shared).count <= 6)
        #expect(original.count == 100_000)
        #expect(original.contains(.int(80_000)))
        #expect(!original.contains(.int(50_001)))
        #expect(original.elementsEqual((0..<100_000).map { Value.int(Int64($0 * 2)) }))
        #expect(copy.contains(.int(50_001)) && !copy.contains(.int(80_000)))
    }

    @Test("strings are ordered by their UTF-8 bytes, as Value.compare orders them, and a walk stops when asked")
    func stringsAndEarlyStop() {
        var set = PersistentSortedSet()
        for s in ["é", "a", "Z", "b", "", "ab", "e\u{301}"] { set.insert(.string(s)) }
        #expect(set.map { $0.stringValue! } == ["", "Z", "a", "ab", "b", "e\u{301}", "é"])
        var seen: [String] = []
        set.forEach(from: Bound(value: .string("a"), isInclusive: true), to: nil) { value in
            seen.append(value.stringValue!)
            return seen.count < 3
        }
        #expect(seen == ["a", "ab", "b"])
    }
}

extension Value {
    fileprivate var intValue: Int64? {
        if case .int(let v) = self { return v }
        return nil
    }

    fileprivate var stringValue: String? {
        if case .string(let v) = self { return v }
        return nil
    }
}

extension Array where Element == Int {
    /// The first index whose element satisfies `predicate`, which must hold for a suffix.
    fileprivate func partitioningIndex(where predicate: (Int) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if predicate(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
