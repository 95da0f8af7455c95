import ShoalTestSupport
import Testing
@testable import Shoal

@Suite struct BacklinkStoreTests {
    static func link(_ n: Int) -> Backlink {
        Backlink(origin: TableKey(UInt32(n % 3)), property: n % 5, key: ObjectKey(Int64(n)))
    }

    /// Mostly links from one property of one class (held as keys alone),
    /// one in eight from another (which makes the list mixed).
    static func mostlyUniformLink(_ n: Int) -> Backlink {
        n % 8 == 0 ? link(n) : Backlink(origin: TableKey(1), property: 4, key: ObjectKey(Int64(n)))
    }

    static func contents(_ store: BacklinkStore) -> [[Backlink]] { store.map { Array($0) } }

    @Test("a list of links is stored the same however it was reached, and compares by its links")
    func normalized() {
        let (a, b, c) = (Self.link(1), Self.link(2), Self.link(3))
        var shrunk: Backlinks = [a, b, c]
        shrunk.remove(at: 1)
        shrunk.remove(at: 1)
        #expect(shrunk == [a])
        #expect(shrunk.hashValue == Backlinks([a]).hashValue)
        var grown = Backlinks()
        grown.append(contentsOf: [a])
        grown.append(contentsOf: [b, c])
        #expect(Array(grown) == [a, b, c])
        #expect(grown.count == 3 && grown.last == c && grown.firstIndex(of: b) == 1)
        grown.remove(at: 0)
        grown.remove(at: 0)
        grown.remove(at: 0)
        #expect(grown.isEmpty && grown == Backlinks())
    }

    @Test("slots appended without links take no leaves; a link makes one leaf, and removing it keeps the slot empty")
    func sparse() {
        var store = BacklinkStore()
        store.appendEmpty(50_000_000)
        #expect(store.count == 50_000_000)
        #expect(store.linkedLeafCount == 0)
        #expect(store[49_999_999].isEmpty && store.linkCount(12_345_678) == 0)
        store.modify(30_000_000) { $0.append(Self.link(7)) }
        #expect(store.linkedLeafCount == 1)
        #expect(Array(store[30_000_000]) == [Self.link(7)])
        #expect(store.totalLinkCount == 1)
        var seen: [Int] = []
        store.forEachLinked { slot, links in
            seen.append(slot)
            #expect(Array(links) == [Self.link(7)])
        }
        #expect(seen == [30_000_000])
        store[30_000_000] = []
        #expect(store.totalLinkCount == 0 && store[30_000_000].isEmpty)
    }

    @Test("links from one property of one class are held as keys, and become mixed and uniform again as links come and go")
    func uniformLists() {
        let a = Backlink(origin: TableKey(2), property: 3, key: ObjectKey(10))
        let b = Backlink(origin: TableKey(2), property: 3, key: ObjectKey(11))
        let c = Backlink(origin: TableKey(2), property: 3, key: ObjectKey(12))
        let other = Backlink(origin: TableKey(1), property: 3, key: ObjectKey(11))
        var links: Backlinks = [a, b, c]
        links.append(other)
        #expect(Array(links) == [a, b, c, other])
        #expect(links.remove(at: 3) == other)
        // Back to one origin: equal (and equally hashed) to the list built directly.
        #expect(links == [a, b, c] && links.hashValue == Backlinks([a, b, c]).hashValue)
        var grown = Backlinks()
        for link in [a, other, b] { grown.append(link) }
        grown.remove(at: 1)
        #expect(grown == [a, b] && Array(grown) == [a, b])

        // Appended in bulk: keys alone while the links share origin and
        // property, whole links from the first that does not.
        var bulk: Backlinks = [a]
        bulk.append(contentsOf: [b, c])
        #expect(bulk == [a, b, c] && bulk.hashValue == Backlinks([a, b, c]).hashValue)
        bulk.append(contentsOf: [other, a])
        #expect(Array(bulk) == [a, b, c, other, a])
        #expect(bulk == Backlinks([a, b, c, other, a]))
        var mixedFirst = Backlinks()
        mixedFirst.append(contentsOf: [other, a, b])
        #expect(Array(mixedFirst) == [other, a, b])

        // In a store: read back, counted, and moved between the two forms in place.
        var store = BacklinkStore()
        store.appendEmpty(3)
        store.modify(1) { $0.append(contentsOf: [a, b, c]) }
        #expect(Array(store[1]) == [a, b, c] && store.linkCount(1) == 3 && store.totalLinkCount == 3)
        store.modify(1) { $0.append(other) }
        #expect(Array(store[1]) == [a, b, c, other] && store.linkCount(1) == 4 && store.totalLinkCount == 4)
        store.modify(1) { _ = $0.remove(at: 3) }
        #expect(Array(store[1]) == [a, b, c] && store.totalLinkCount == 3)
        store[1] = [a]
        #expect(Array(store[1]) == [a] && store.totalLinkCount == 1)
    }

    @Test("keys appended from one property give the list appending their links one by one gives, from every form")
    func appendKeys() {
        let origin = TableKey(2)
        let keys: [[Int64]] = [[], [7], [7, 8], [7, 8, 9, 10, 11]]
        let starts: [Backlinks] = [
            [], [Backlink(origin: origin, property: 3, key: ObjectKey(1))], [Backlink(origin: TableKey(1), property: 3, key: ObjectKey(1))],
            [Backlink(origin: origin, property: 3, key: ObjectKey(1)), Backlink(origin: origin, property: 3, key: ObjectKey(2))],
            [Backlink(origin: origin, property: 4, key: ObjectKey(1)), Backlink(origin: origin, property: 4, key: ObjectKey(2))],
            [Backlink(origin: TableKey(1), property: 3, key: ObjectKey(1)), Backlink(origin: origin, property: 3, key: ObjectKey(2))],
        ]
        for start in starts {
            for added in keys {
                var bulk = start
                bulk.append(origin: origin, property: 3, keys: added)
                var single = start
                for key in added { single.append(Backlink(origin: origin, property: 3, key: ObjectKey(key))) }
                // Equal storage (lists are normalized) gives equal hashes.
                #expect(bulk == single && bulk.hashValue == single.hashValue && Array(bulk) == Array(single), "\(Array(start)) + \(added)")
            }
        }
    }

    @Test("consecutive keys from one property are held in the slot's cell, with no overflow, up to what a cell holds; anything else in the overflow")
    func runCells() {
        var store = BacklinkStore()
        store.appendEmpty(3_000)
        let origin = TableKey(2)
        // A person's ten dogs each, for a hundred people across leaves.
        let slots = Array(stride(from: 0, to: 3_000, by: 30))
        store.appendAscending(slots, origin: origin, property: 5, slot: { $0 }, keys: { Int64($0 * 10)..<Int64($0 * 10 + 10) })
        #expect(store.overflowCount == 0)
        #expect(store.totalLinkCount == 1_000 && store.linkCount(30) == 10)
        #expect(Array(store[30]) == (300..<310).map { Backlink(origin: origin, property: 5, key: ObjectKey(Int64($0))) })
        // A key out of sequence moves the list to the overflow; removing
        // it makes the keys consecutive again, back in the cell.
        store.modify(30) { $0.append(Backlink(origin: origin, property: 5, key: ObjectKey(999))) }
        #expect(store.overflowCount == 1 && store.linkCount(30) == 11)
        _ = store.modify(30) { $0.remove(at: 10) }
        #expect(store.overflowCount == 0 && store.linkCount(30) == 10)
        // One more consecutive key stays in the cell.
        store.modify(60) { $0.append(Backlink(origin: origin, property: 5, key: ObjectKey(610))) }
        #expect(store.overflowCount == 0 && Array(store[60]).map(\.key.rawValue) == Array(600...610))
        // What a cell cannot hold: a key past 48 bits, a property past 16
        // bits, more keys than 16 bits count, a run after a link the slot had.
        let big = Int64(1) << 48
        store.modify(4) { $0.append(Backlink(origin: origin, property: 5, key: ObjectKey(0))) }
        store.appendAscending([1, 2, 3, 4], origin: origin, property: 5, slot: { $0 }) { slot -> Range<Int64> in
            switch slot {
            case 1: big..<big + 2
            case 2: 5..<8
            case 3: 0..<70_000
            default: 5..<7
            }
        }
        store.appendAscending([5], origin: origin, property: 70_000, slot: { $0 }, keys: { _ in 1..<3 })
        #expect(store.overflowCount == 4)
        #expect(Array(store[1]).map(\.key.rawValue) == [big, big + 1])
        #expect(Array(store[2]).map(\.key.rawValue) == [5, 6, 7] && Array(store[4]).map(\.key.rawValue) == [0, 5, 6])
        #expect(store.linkCount(3) == 70_000 && store[3][69_999].key.rawValue == 69_999)
        #expect(store[5].allSatisfy { $0.property == 70_000 } && store.linkCount(5) == 2)
    }

    @Test("a run's groups are appended as appendAscending appends their keys, cells, overflow and order alike, whatever a cell cannot hold")
    func runGroupsMatchAscendingAppends() {
        let origin = TableKey(2)
        let big = Int64(1) << 48
        /// The groups' cases: (slot, first object, object count), with the
        /// run's first key.
        let cases: [(firstKey: Int64, groups: [(Int, Int, Int)])] = [
            // A person's ten dogs each, across leaves.
            (0, (0..<100).map { ($0 * 30, $0 * 10, 10) }),
            // One link, none, a run too long for a cell, repeats of a slot
            // (the first of them one link), a slot with a link already.
            (7, [(1, 0, 1), (1, 1, 5), (2, 6, 0), (3, 6, 70_000), (4, 70_006, 3), (4, 70_009, 2), (1_023, 70_011, 2), (1_024, 70_013, 4)]),
            // Keys past what a cell holds.
            (big - 3, [(5, 0, 2), (6, 2, 4)]),
        ]
        for (n, (firstKey, raw)) in cases.enumerated() {
            let groups = raw.map { LinkGroup(slot: $0.0, objects: $0.1..<($0.1 + $0.2)) }
            var store = BacklinkStore()
            store.appendEmpty(3_000)
            store.modify(4) { $0.append(Backlink(origin: origin, property: 5, key: ObjectKey(0))) }
            var expected = store
            store.appendRuns(groups, origin: origin, property: 5, firstKey: firstKey)
            expected.appendAscending(groups, origin: origin, property: 5, slot: \.slot) {
                (firstKey + Int64($0.objects.lowerBound))..<(firstKey + Int64($0.objects.upperBound))
            }
            #expect(Self.contents(store) == Self.contents(expected), "case \(n)")
            #expect(store.overflowCount == expected.overflowCount && store.linkedLeafCount == expected.linkedLeafCount, "case \(n)")
        }
        // Runs of objects, in cells: no overflow.
        var store = BacklinkStore()
        store.appendEmpty(3_000)
        store.appendRuns(cases[0].groups.map { LinkGroup(slot: $0.0, objects: $0.1..<($0.1 + $0.2)) }, origin: origin, property: 5, firstKey: 0)
        #expect(store.overflowCount == 0 && store.totalLinkCount == 1_000)
        #expect(Array(store[30]) == (10..<20).map { Backlink(origin: origin, property: 5, key: ObjectKey(Int64($0))) })
        // A property or origin past 16 bits takes the general path.
        store.appendRuns([LinkGroup(slot: 31, objects: 0..<3)], origin: origin, property: 70_000, firstKey: 0)
        #expect(store.overflowCount == 1 && store[31].allSatisfy { $0.property == 70_000 } && store.linkCount(31) == 3)
    }

    @Test("random appends, removals, sets and ascending batches match an array of arrays", arguments: [1, 2, 3])
    func matchesModel(seed: UInt64) {
        Self.checkAgainstModel(seed: seed, link: Self.link)
    }

    @Test("the same, with links mostly from one property of one class", arguments: [4, 5])
    func matchesModelMostlyUniform(seed: UInt64) {
        Self.checkAgainstModel(seed: seed, link: Self.mostlyUniformLink)
    }

    static func checkAgainstModel(seed: UInt64, link: (Int) -> Backlink) {
        var rng = SeededRandom(seed: seed)
        var store = BacklinkStore()
        var model: [[Backlink]] = []
        var copies: [(BacklinkStore, [[Backlink]])] = []
        for step in 0..<2_000 {
            let op = Int.random(in: 0..<10, using: &rng)
            if model.isEmpty, (1...7).contains(op) || op == 9 { continue }
            switch op {
            case 0:
                let n = [1, 7, 300, 1500].randomElement(using: &rng)!
                store.appendEmpty(n)
                model += Array(repeating: [], count: n)
            case 1, 2, 3:
                let slot = Int.random(in: 0..<model.count, using: &rng)
                let link = link(step)
                store.modify(slot) { $0.append(link) }
                model[slot].append(link)
            case 4, 5:
                let slot = Int.random(in: 0..<model.count, using: &rng)
                guard !model[slot].isEmpty else { continue }
                let i = Int.random(in: 0..<model[slot].count, using: &rng)
                let removed = store.modify(slot) { $0.remove(at: i) }
                #expect(removed == model[slot].remove(at: i))
            case 6:
                let slot = Int.random(in: 0..<model.count, using: &rng)
                let links = (0..<Int.random(in: 0..<4, using: &rng)).map { link(step * 10 + $0) }
                store[slot] = Backlinks(links)
                model[slot] = links
            case 7:
                // Ascending slots, with repeats, across leaves.
                let items = (0..<Int.random(in: 1..<40, using: &rng)).map { _ in Int.random(in: 0..<model.count, using: &rng) }.sorted()
                store.modify(ascending: items, slot: { $0 }) { slot, links in links.append(link(slot + step)) }
                for slot in items { model[slot].append(link(slot + step)) }
            case 9:
                // Runs of keys from one property appended to ascending slots
                // (held in the slot's cell when it was empty).
                let items = (0..<Int.random(in: 1..<20, using: &rng)).map { _ in Int.random(in: 0..<model.count, using: &rng) }.sorted()
                let origin = TableKey(1)
                let keys = items.map { _ in
                    let start = Int64.random(in: 0..<1_000, using: &rng)
                    let count = Int64.random(in: 1..<8, using: &rng)
                    return start..<start + count
                }
                if step.isMultiple(of: 2) {
                    store.appendAscending(Array(items.indices), origin: origin, property: 4, slot: { items[$0] }, keys: { keys[$0] })
                } else {
                    // The same, as a run's groups: keys from one first key.
                    let firstKey = keys.map(\.lowerBound).min()!
                    let groups = zip(items, keys).map { slot, keys in
                        LinkGroup(slot: slot, objects: Int(keys.lowerBound - firstKey)..<Int(keys.upperBound - firstKey))
                    }
                    store.appendRuns(groups, origin: origin, property: 4, firstKey: firstKey)
                }
                for (slot, added) in zip(items, keys) {
                    model[slot] += added.map { Backlink(origin: origin, property: 4, key: ObjectKey($0)) }
                }
            case 8 where copies.count < 8:
                copies.append((store, model))
            default:
                continue
            }
        }
        #expect(Self.contents(store) == model)
        #expect(store.totalLinkCount == model.reduce(0) { $0 + $1.count })
        #expect((0..<model.count).allSatisfy { store.linkCount($0) == model[$0].count })
        var linked: [Int] = []
        store.forEachLinked { slot, links in
            linked.append(slot)
            #expect(Array(links) == model[slot])
        }
        #expect(linked == model.indices.filter { !model[$0].isEmpty })
        // Every copy kept what it held when it was taken.
        for (copy, expected) in copies { #expect(Self.contents(copy) == expected) }
    }
}
