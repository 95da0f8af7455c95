import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

@Suite struct SortedTreeTests {
    /// A set of values: the shape of a tree with no payload.
    typealias ValueSet = SortedTree<Value, Void>
    typealias Bound = TreeBound<Value>

    /// The model's answer to a range: the values of `sorted` from `lower` to `upper`.
    static func expected(_ sorted: [Int], _ lower: Bound?, _ upper: Bound?) -> ArraySlice<Int> {
        let start = lower.map { bound in
            let l = Int(bound.key.intValue!)
            return sorted.partitioningIndex { bound.isInclusive ? $0 >= l : $0 > l }
        } ?? 0
        let end = upper.map { bound in
            let u = Int(bound.key.intValue!)
            return sorted.partitioningIndex { bound.isInclusive ? $0 > u : $0 >= u }
        } ?? sorted.count
        return start < end ? sorted[start..<end] : []
    }

    static func values(_ set: ValueSet, from lower: Bound?, to upper: Bound?) -> [Int] {
        var out: [Int] = []
        set.forEach(from: lower, to: upper) { value, _ in
            out.append(Int(value.intValue!))
            return true
        }
        return out
    }

    static func randomBound(_ rng: inout SeededRandom, below limit: Int) -> Bound? {
        guard rng.next() % 5 != 0 else { return nil }
        return Bound(key: .int(Int64(rng.next() % UInt64(limit)) - 5), isInclusive: rng.next() % 2 == 0)
    }

    /// Every node of the tree, by identity.
    static func nodes(_ set: ValueSet) -> Set<ObjectIdentifier> {
        var out: Set<ObjectIdentifier> = []
        func walk(_ node: ValueSet.Node) {
            out.insert(ObjectIdentifier(node))
            node.children.forEach(walk)
        }
        if let root = set.root { walk(root) }
        return out
    }

    static func leafCount(_ set: ValueSet) -> Int {
        func walk(_ node: ValueSet.Node) -> Int { node.isLeaf ? 1 : node.children.reduce(0) { $0 + walk($1) } }
        return set.root.map(walk) ?? 0
    }

    @Test("random inserts, removes and ranges match a sorted array, and every kept copy stays as it was")
    func randomAgainstSortedArray() {
        var rng = SeededRandom(seed: 0x50_27ED)
        var set = ValueSet()
        var model: [Int] = []
        var kept: [(ValueSet, [Int])] = []
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
                let removed = set.remove(.int(Int64(v))) != nil
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
                #expect(set.map { Int($0.key.intValue!) } == model, "step \(step)")
            }
        }
        #expect(set.invariantViolation() == nil)
        #expect(set.map { Int($0.key.intValue!) } == model)
        #expect(ranges > 5_000)
        #expect(kept.count > 20)
        for (copy, expected) in kept {
            #expect(copy.invariantViolation() == nil)
            #expect(copy.map { Int($0.key.intValue!) } == expected)
        }
    }

    @Test("a set built from sorted values is a valid tree of exactly those values, and grows and shrinks like any other", arguments: [0, 1, 2, 63, 64, 65, 129, 4_096, 4_097, 262_145])
    func bulkBuild(count: Int) {
        let sorted = (0..<count).map { $0 * 2 }
        var set = ValueSet(sortedKeys: sorted.map { Value.int(Int64($0)) })
        #expect(set.count == count)
        #expect(set.invariantViolation() == nil)
        #expect(set.map { Int($0.key.intValue!) } == sorted)
        // Keys read in place (an array, a slice) and gathered (a lazy
        // sequence) make the same tree; so do object keys, as a key set's.
        let gathered = ValueSet(sortedKeys: sorted.lazy.map { Value.int(Int64($0)) })
        #expect(gathered.invariantViolation() == nil && gathered.map(\.key) == set.map(\.key))
        let objects = sorted.map { ObjectKey(Int64($0)) }
        let inPlace = KeySet(sortedKeys: objects[...])
        #expect(inPlace.invariantViolation() == nil && Array(inPlace.keys) == objects)
        #expect(Array(KeySet(sortedKeys: objects.lazy.map { $0 }).keys) == objects)
        var model = sorted
        var rng = SeededRandom(seed: UInt64(count))
        for _ in 0..<2_000 {
            let v = Int(rng.next() % UInt64(2 * count + 4))
            if rng.next() % 2 == 0 {
                if set.insert(.int(Int64(v))) { model.insert(v, at: model.partitioningIndex { $0 >= v }) }
            } else if set.remove(.int(Int64(v))) != nil {
                model.remove(at: model.partitioningIndex { $0 >= v })
            }
        }
        #expect(set.invariantViolation() == nil)
        #expect(set.map { Int($0.key.intValue!) } == model)
        let lower = Bound(key: .int(Int64(count / 3)), isInclusive: false), upper = Bound(key: .int(Int64(count)), isInclusive: true)
        #expect(Self.values(set, from: lower, to: upper)[...] == Self.expected(model, lower, upper))
    }

    @Test("merging a sorted batch adds the new keys, keeps the entries already present and names the first clash, whether it rebuilds or inserts one by one", arguments: [10, 5_000])
    func merge(batch: Int) {
        var rng = SeededRandom(seed: 0xBA7C)
        var tree = SortedTree<Value, Int>(sorted: (0..<1_000).map { (key: Value.int(Int64($0 * 3)), payload: -$0) })
        var model = Dictionary(uniqueKeysWithValues: (0..<1_000).map { ($0 * 3, -$0) })
        // Values already present among the new ones.
        let values = Set((0..<batch).map { _ in Int(rng.next() % 6_000) }).sorted()
        let clash = tree.merge(values.map { (key: Value.int(Int64($0)), payload: $0) })
        #expect(clash.map { Int($0.key.intValue!) } == values.first { model[$0] != nil })
        for v in values where model[v] == nil { model[v] = v }
        #expect(tree.invariantViolation() == nil)
        #expect(tree.map { Int($0.key.intValue!) } == model.keys.sorted())
        #expect(tree.map(\.payload) == model.keys.sorted().map { model[$0]! })
        #expect(tree.count == model.count)
    }

    @Test("a first merge into an empty tree builds it from the batch, contiguous or not; a batch with equal neighbours keeps the first and names the second",
        arguments: [1, 64, 65, 10_000])
    func mergeIntoEmpty(count: Int) {
        let batch = (0..<count).map { (key: Value.int(Int64($0 * 2)), payload: $0) }
        var fromArray = SortedTree<Value, Int>()
        #expect(fromArray.merge(batch) == nil)
        var fromLazy = SortedTree<Value, Int>()
        #expect(fromLazy.merge((0..<count).lazy.map { (key: Value.int(Int64($0 * 2)), payload: $0) }) == nil)
        for tree in [fromArray, fromLazy] {
            #expect(tree.invariantViolation() == nil && tree.count == count)
            #expect(tree.map(\.payload) == Array(0..<count))
        }
        var clashing = SortedTree<Value, Int>()
        let duplicated = batch + [(key: Value.int(Int64(count * 2 - 2)), payload: -1)]
        let clash = clashing.merge(duplicated)
        #expect(clash?.payload == -1)
        #expect(clashing.invariantViolation() == nil && clashing.map(\.payload) == Array(0..<count))
    }

    @Test("a batch of keys above every key is appended, and its tree is valid and complete")
    func mergeAppends() {
        var tree = SortedTree<ObjectKey, Void>(sortedKeys: (0..<5_000).map { ObjectKey(Int64($0)) })
        let clash = tree.merge((5_000..<9_000).map { (key: ObjectKey(Int64($0)), payload: ()) })
        #expect(clash == nil)
        #expect(tree.invariantViolation() == nil)
        #expect(Array(tree.keys) == (0..<9_000).map { ObjectKey(Int64($0)) })
    }

    @Test("payloads: updateValue replaces and returns the old one, insert keeps it, modify changes it in place, and an equal key of another kind finds the entry made first")
    func payloads() {
        var tree = SortedTree<Value, Int>()
        let first = tree.updateValue(1, forKey: .int(3)), second = tree.updateValue(2, forKey: .int(3))
        #expect(first == nil && second == 1)
        let inserted = tree.insert(.int(3), 9)
        #expect(!inserted)
        #expect(tree[.int(3)] == 2)
        let made = tree.modify(.int(5), default: 10) { $0 += 1; return $0 }
        let changed = tree.modify(.int(5), default: 10) { $0 += 1; return $0 }
        #expect(made == (11, true) && changed == (12, false))
        // 3.0 equals 3 in `Value.compare`: it finds the entry and keeps its key.
        let replaced = tree.updateValue(7, forKey: .double(3))
        #expect(replaced == 2)
        #expect(tree.entry(.double(3))?.key.kindName == Value.int(3).kindName)
        let removed = tree.remove(.double(3))
        #expect(removed?.payload == 7)
        #expect(tree.map(\.payload) == [12])
        #expect(tree.invariantViolation() == nil)
    }

    @Test("a secondary index keeps each value's objects in table order, and drops a value's bucket with its last object")
    func secondaryBuckets() {
        var index = SecondaryIndex()
        for k in [5, 1, 9, 3] { Table.insert(CollectionOfOne(ObjectKey(Int64(k))), at: .string(k % 2 == 0 ? "even" : "odd"), into: &index) }
        Table.insert((20..<25).map { ObjectKey(Int64($0)) }, at: .string("odd"), into: &index)
        #expect(index.count == 1)
        #expect(Array(index[.string("odd")]!.keys) == [1, 3, 5, 9, 20, 21, 22, 23, 24].map { ObjectKey(Int64($0)) })
        for k in [1, 3, 5, 9, 20, 21, 22, 23] { Table.remove(ObjectKey(Int64(k)), at: .string("odd"), from: &index) }
        #expect(Array(index[.string("odd")]!.keys) == [ObjectKey(24)])
        Table.remove(ObjectKey(24), at: .string("odd"), from: &index)
        #expect(index.isEmpty)
    }

    @Test("values arriving in ascending order fill the nodes instead of leaving them half empty")
    func ascendingInsertsFillNodes() {
        var set = ValueSet()
        let count = 64 * 1_000
        for i in 0..<count { set.insert(.int(Int64(i))) }
        #expect(set.invariantViolation() == nil)
        // Even splits would leave about count / 32 leaves.
        #expect(Self.leafCount(set) <= count / 60)
    }

    @Test("a change to a copy copies only the path from the root to its leaf, and the original keeps its values")
    func pathCopying() {
        let original = ValueSet(sortedKeys: (0..<100_000).map { Value.int(Int64($0 * 2)) })
        var copy = original
        _ = copy.remove(.int(80_000))
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
        #expect(original.keys.elementsEqual((0..<100_000).map { Value.int(Int64($0 * 2)) }))
        #expect(copy.contains(.int(50_001)) && !copy.contains(.int(80_000)))
    }

    @Test("strings are ordered by their UTF-8 bytes, as Value.compare orders them, and a walk stops when asked")
    func stringsAndEarlyStop() {
        var set = ValueSet()
        for s in ["é", "a", "Z", "b", "", "ab", "e\u{301}"] { set.insert(.string(s)) }
        #expect(set.map { $0.key.stringValue! } == ["", "Z", "a", "ab", "b", "e\u{301}", "é"])
        var seen: [String] = []
        set.forEach(from: Bound(key: .string("a"), isInclusive: true), to: nil) { value, _ in
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
