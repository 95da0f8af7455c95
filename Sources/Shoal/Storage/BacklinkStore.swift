/// The links pointing at one object, in the order they were made.
///
/// A value with no heap storage for none or one link (most objects have at
/// most one: a dog in its owner's list, an embedded object in its parent);
/// two or more are held in an array: of object keys alone (``PackedKeys``:
/// a byte a link for keys close together) when they all come from one
/// property of one class (the owner of many dogs, linked by `Dog.owner`),
/// of whole links otherwise.
struct Backlinks: RandomAccessCollection, Hashable, Sendable, ExpressibleByArrayLiteral {
    /// Normalized: `.uniform` and `.many` always hold two links or more,
    /// `.uniform` exactly when they share origin and property, so that
    /// equal lists have equal storage.
    private enum Storage: Hashable, Sendable {
        case none
        case one(Backlink)
        /// Two links or more from one property of one class: their keys.
        case uniform(origin: TableKey, property: Int, keys: PackedKeys)
        /// Two links or more from different classes or properties.
        case many([Backlink])
    }

    private var storage: Storage

    init() { storage = .none }

    init(_ links: some Sequence<Backlink>) {
        storage = .none
        append(contentsOf: links)
    }

    init(arrayLiteral links: Backlink...) { self.init(links) }

    fileprivate init(one link: Backlink) { storage = .one(link) }

    /// Links from different classes or properties, as ``manyLinks`` gave them.
    fileprivate init(many links: [Backlink]) {
        precondition(links.count >= 2, "a backlink list of \(links.count) held as many")
        storage = .many(links)
    }

    fileprivate init(origin: TableKey, property: Int, keys: PackedKeys) {
        precondition(keys.count >= 2, "a backlink list of \(keys.count) held as many")
        storage = .uniform(origin: origin, property: property, keys: keys)
    }

    /// The storage of `links`, whatever their number.
    private static func normalized(_ links: [Backlink]) -> Storage {
        guard let first = links.first else { return .none }
        guard links.count > 1 else { return .one(first) }
        guard links.allSatisfy({ $0.origin == first.origin && $0.property == first.property }) else { return .many(links) }
        return .uniform(origin: first.origin, property: first.property, keys: PackedKeys(links.lazy.map(\.key.rawValue)))
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    var count: Int {
        switch storage {
        case .none: 0
        case .one: 1
        case .uniform(_, _, let keys): keys.count
        case .many(let links): links.count
        }
    }

    var isEmpty: Bool {
        if case .none = storage { return true }
        return false
    }

    subscript(i: Int) -> Backlink {
        switch storage {
        case .one(let link) where i == 0: return link
        case .uniform(let origin, let property, let keys): return Backlink(origin: origin, property: property, key: ObjectKey(keys[i]))
        case .many(let links): return links[i]
        default: preconditionFailure("backlink index \(i) out of range 0..<\(count)")
        }
    }

    mutating func append(_ link: Backlink) {
        switch storage {
        case .none: storage = .one(link)
        case .one(let first):
            storage = first.origin == link.origin && first.property == link.property
                ? .uniform(origin: first.origin, property: first.property, keys: [first.key.rawValue, link.key.rawValue])
                : .many([first, link])
        case .uniform(let origin, let property, var keys):
            storage = .none  // so that `keys` is uniquely referenced
            if origin == link.origin && property == link.property {
                // (The keys grow by half, not doubling, so that less room
                // is left unused.)
                keys.append(link.key.rawValue)
                storage = .uniform(origin: origin, property: property, keys: keys)
            } else {
                var links = keys.map { Backlink(origin: origin, property: property, key: ObjectKey($0)) }
                links.append(link)
                storage = .many(links)
            }
        case .many(var links):
            storage = .none  // so that `links` is uniquely referenced
            links.append(link)
            storage = .many(links)
        }
    }

    /// Appends links from `property` of `origin` with `keys`, in order, as
    /// ``append(contentsOf:)`` would, but straight into the keys when the
    /// list is empty or already holds links from that property alone.
    mutating func append(origin: TableKey, property: Int, keys: some Collection<Int64>) {
        switch storage {
        case .none where keys.count >= 2:
            storage = .uniform(origin: origin, property: property, keys: PackedKeys(keys))
        case .uniform(let o, let p, var held) where o == origin && p == property:
            storage = .none  // so that `held` is uniquely referenced
            held.append(contentsOf: keys)
            storage = .uniform(origin: origin, property: property, keys: held)
        default:
            append(contentsOf: keys.lazy.map { Backlink(origin: origin, property: property, key: ObjectKey($0)) })
        }
    }

    /// Appends `links` in order, growing the storage once: as keys alone
    /// while every link shares the origin and property of the first.
    mutating func append(contentsOf links: some Sequence<Backlink>) {
        var iterator = links.makeIterator()
        guard let next = iterator.next() else { return }
        guard let second = iterator.next() else { return append(next) }
        var origin = next.origin, property = next.property
        var keys: PackedKeys?
        var mixed: [Backlink]?
        switch storage {
        case .none: keys = []
        case .one(let link):
            (origin, property) = (link.origin, link.property)
            keys = [link.key.rawValue]
        case .uniform(let o, let p, let k):
            (origin, property) = (o, p)
            keys = k
        case .many(let all): mixed = all
        }
        // (`underestimatedCount` counts the two links already taken.)
        let capacity = count + Swift.max(2, links.underestimatedCount)
        storage = .none  // so that the arrays are uniquely referenced
        keys?.reserveCapacity(capacity)
        mixed?.reserveCapacity(capacity)
        // A loop over an optional, not a nested function: the variables a
        // nested function captures are checked for exclusive access at run
        // time on every link.
        var pending: Backlink? = next
        var afterSecond = false
        while let link = pending {
            if keys != nil {
                if link.origin == origin && link.property == property {
                    keys!.append(link.key.rawValue)
                } else {
                    mixed = keys!.map { Backlink(origin: origin, property: property, key: ObjectKey($0)) }
                    keys = nil
                    mixed!.append(link)
                }
            } else {
                mixed!.append(link)
            }
            if afterSecond {
                pending = iterator.next()
            } else {
                pending = second
                afterSecond = true
            }
        }
        storage = keys.map { .uniform(origin: origin, property: property, keys: $0) } ?? .many(mixed!)
    }

    /// Removes and returns link `i`.
    @discardableResult
    mutating func remove(at i: Int) -> Backlink {
        switch storage {
        case .one(let link) where i == 0:
            storage = .none
            return link
        case .uniform(let origin, let property, var keys):
            storage = .none
            let removed = keys.remove(at: i)
            storage = keys.count == 1
                ? .one(Backlink(origin: origin, property: property, key: ObjectKey(keys[0])))
                : .uniform(origin: origin, property: property, keys: keys)
            return Backlink(origin: origin, property: property, key: ObjectKey(removed))
        case .many(var links):
            storage = .none
            let removed = links.remove(at: i)
            storage = Self.normalized(links)
            return removed
        default:
            preconditionFailure("backlink index \(i) out of range 0..<\(count)")
        }
    }

    /// The links from different classes or properties, when held as such.
    fileprivate var manyLinks: [Backlink]? {
        if case .many(let links) = storage { return links }
        return nil
    }

    /// The origin, property and keys of two links or more from one property of one class.
    fileprivate var uniformLinks: (origin: TableKey, property: Int, keys: PackedKeys)? {
        if case .uniform(let origin, let property, let keys) = storage { return (origin, property, keys) }
        return nil
    }

    fileprivate var single: Backlink? {
        if case .one(let link) = storage { return link }
        return nil
    }
}

/// The backlinks of every slot of a table, by slot.
///
/// Sparse by leaf: a leaf of ``width`` slots none of which is linked takes
/// no memory, so the slots of deleted objects (which are never reused) and
/// classes nothing links to cost nothing. A linked leaf holds one 16-byte
/// cell per slot, with no reference to count: empty, the one link, links
/// from one property with consecutive keys (a person's dogs, added in
/// order), or a mark that the slot's two links or more are in the leaf's
/// overflow.
///
/// Copy-on-write like ``Chunks``: a copy shares every leaf; a change copies
/// the list of leaves and the one leaf it touches, when they are shared.
struct BacklinkStore: RandomAccessCollection, Sendable {
    /// One slot's links, in 16 bytes with no reference: `tag` is the
    /// origin's table key for one link (`property` its property), or one of
    /// the marks: empty, many links in the leaf's `overflow`, many links
    /// from one origin table (`property` their property, `key` the origin's
    /// table key) whose keys are in the leaf's `keyOverflow`, or a run:
    /// links from one property of one class whose keys are consecutive
    /// (`property` the origin table in its high 16 bits and the property
    /// in its low 16, `key` the count in its high 16 bits and the first
    /// key in its low 48).
    private struct Cell: Sendable {
        var tag: UInt32
        var property: UInt32
        var key: Int64

        static let empty = Cell(tag: emptyTag, property: 0, key: 0)
        static let many = Cell(tag: manyTag, property: 0, key: 0)
        static let emptyTag = UInt32.max
        static let manyTag = UInt32.max - 1
        static let uniformTag = UInt32.max - 2
        static let runTag = UInt32.max - 3
        /// The most links a run cell holds.
        static let maximumRun = Int(UInt16.max)
        /// The most links ``Leaf/put(_:_:)`` checks for a run: a list
        /// taken out of a run cell is made again (and checked) at each put.
        static let putRunLimit = 256

        /// A run cell for links from `property` of `origin` with keys
        /// `first ..< first + count`, or `nil` when they do not fit one.
        static func run(origin: TableKey, property: Int, first: Int64, count: Int) -> Cell? {
            guard count >= 2, count <= maximumRun, origin.rawValue <= UInt16.max, property >= 0, property <= Int(UInt16.max),
                first >= 0, first < 1 << 48
            else { return nil }
            return Cell(tag: runTag, property: origin.rawValue << 16 | UInt32(property), key: Int64(count) << 48 | first)
        }

        /// A run cell's count, first key, origin and property.
        var runCount: Int { Int(key >> 48) }
        var runFirst: Int64 { key & (1 << 48 - 1) }
        var runOrigin: TableKey { TableKey(property >> 16) }
        var runProperty: Int { Int(property & 0xFFFF) }

        init(tag: UInt32, property: UInt32, key: Int64) {
            self.tag = tag
            self.property = property
            self.key = key
        }

        init(_ link: Backlink) {
            precondition(link.origin.rawValue < Self.runTag, "backlink from table \(link.origin) out of range")
            self.init(tag: link.origin.rawValue, property: UInt32(link.property), key: link.key.rawValue)
        }

        var link: Backlink { Backlink(origin: TableKey(tag), property: Int(property), key: ObjectKey(key)) }
    }

    private struct Leaf: Sendable {
        var cells: ContiguousArray<Cell>
        /// The links of the slots marked many, by index in the leaf.
        var overflow: [UInt16: [Backlink]] = [:]
        /// The keys of the links of the slots marked uniform, by index in the leaf.
        var keyOverflow: [UInt16: PackedKeys] = [:]

        init(count: Int) {
            cells = ContiguousArray(repeating: .empty, count: count)
        }

        /// The number of links of slot `i`.
        func count(_ i: Int) -> Int {
            switch cells[i].tag {
            case Cell.emptyTag: 0
            case Cell.manyTag: overflow[UInt16(i)]!.count
            case Cell.uniformTag: keyOverflow[UInt16(i)]!.count
            case Cell.runTag: cells[i].runCount
            default: 1
            }
        }

        func links(_ i: Int) -> Backlinks {
            let cell = cells[i]
            switch cell.tag {
            case Cell.emptyTag: return Backlinks()
            case Cell.manyTag: return Backlinks(many: overflow[UInt16(i)]!)
            case Cell.uniformTag:
                return Backlinks(origin: TableKey(UInt32(truncatingIfNeeded: cell.key)), property: Int(cell.property), keys: keyOverflow[UInt16(i)]!)
            case Cell.runTag:
                return Backlinks(origin: cell.runOrigin, property: cell.runProperty,
                    keys: PackedKeys(cell.runFirst ..< cell.runFirst + Int64(cell.runCount)))
            default: return Backlinks(one: cell.link)
            }
        }

        /// Slot `i`'s links, moved out (the slot is left empty): once the
        /// leaf lets go of them, the caller holds the only reference to
        /// their array, and changes it in place.
        mutating func take(_ i: Int) -> Backlinks {
            let taken = links(i)
            clear(i)
            return taken
        }

        mutating func put(_ i: Int, _ links: Backlinks) {
            clear(i)
            if let many = links.manyLinks {
                cells[i] = .many
                overflow[UInt16(i)] = many
            } else if let uniform = links.uniformLinks {
                if uniform.keys.count <= Cell.putRunLimit, uniform.keys.isConsecutive(from: uniform.keys[0]),
                    let run = Cell.run(origin: uniform.origin, property: uniform.property, first: uniform.keys[0], count: uniform.keys.count)
                {
                    cells[i] = run
                    return
                }
                cells[i] = Cell(tag: Cell.uniformTag, property: UInt32(uniform.property), key: Int64(uniform.origin.rawValue))
                keyOverflow[UInt16(i)] = uniform.keys
            } else {
                cells[i] = links.single.map(Cell.init) ?? .empty
            }
        }

        /// Empties slot `i`, dropping what its overflow held.
        private mutating func clear(_ i: Int) {
            switch cells[i].tag {
            case Cell.manyTag: overflow[UInt16(i)] = nil
            case Cell.uniformTag: keyOverflow[UInt16(i)] = nil
            default: break
            }
            cells[i] = .empty
        }
    }

    /// log2 of the slots per leaf: a leaf is 16 KiB, the most a commit
    /// that links to an object copies when the leaf is shared.
    static var bits: Int { 10 }
    static var width: Int { 1 << bits }
    static var mask: Int { width - 1 }

    /// The leaves in slot order; `nil` for a leaf whose slots are all unlinked.
    private var leaves: [Leaf?] = []
    private(set) var count = 0

    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    /// The links pointing at slot `slot`.
    subscript(slot: Int) -> Backlinks {
        get {
            precondition(slot >= 0 && slot < count, "backlink slot \(slot) out of range 0..<\(count)")
            guard let leaf = leaves[slot &>> Self.bits] else { return Backlinks() }
            return leaf.links(slot & Self.mask)
        }
        set {
            modify(slot) { $0 = newValue }
        }
    }

    /// The number of links pointing at slot `slot`, read in place.
    func linkCount(_ slot: Int) -> Int {
        precondition(slot >= 0 && slot < count, "backlink slot \(slot) out of range 0..<\(count)")
        guard let leaf = leaves[slot &>> Self.bits] else { return 0 }
        return leaf.count(slot & Self.mask)
    }

    /// Appends `n` slots with no links: a leaf at a time, and no memory for
    /// leaves left unlinked.
    mutating func appendEmpty(_ n: Int) {
        precondition(n >= 0, "a negative number of slots")
        guard n > 0 else { return }
        let room = count & Self.mask == 0 ? 0 : Self.width - (count & Self.mask)
        if room > 0, leaves[leaves.count - 1] != nil {
            leaves[leaves.count - 1]!.cells.append(contentsOf: repeatElement(.empty, count: Swift.min(room, n)))
        }
        let newCount = count + n
        let leafCount = (newCount + Self.mask) &>> Self.bits
        if leafCount > leaves.count { leaves.append(contentsOf: repeatElement(nil, count: leafCount - leaves.count)) }
        count = newCount
    }

    /// Mutates slot `slot`'s links in place, copying only the leaf that holds
    /// it (and the list of leaves) when they are shared.
    mutating func modify<R>(_ slot: Int, _ body: (inout Backlinks) -> R) -> R {
        precondition(slot >= 0 && slot < count, "backlink slot \(slot) out of range 0..<\(count)")
        let l = slot &>> Self.bits
        if leaves[l] == nil {
            // Only materialized once a link arrives.
            var links = Backlinks()
            let result = body(&links)
            if !links.isEmpty {
                var leaf = Leaf(count: Swift.min(Self.width, count - (l &<< Self.bits)))
                leaf.put(slot & Self.mask, links)
                leaves[l] = leaf
            }
            return result
        }
        var links = leaves[l]!.take(slot & Self.mask)
        let result = body(&links)
        leaves[l]!.put(slot & Self.mask, links)
        return result
    }

    /// Mutates the links of the slots `slot` gives for `items`, which must
    /// ascend (repeats allowed), calling `body` for each item in order.
    mutating func modify<C: RandomAccessCollection>(
        ascending items: C, slot: (C.Element) -> Int, _ body: (C.Element, inout Backlinks) -> Void
    ) {
        forEachCell(ascending: items, slot: slot) { item, leaf, i in
            var links = leaf.take(i)
            body(item, &links)
            leaf.put(i, links)
        }
    }

    /// Appends links from `property` of `origin` to the slots `slot` gives
    /// for `items`, which must ascend (repeats allowed): to each slot, the
    /// run of consecutive keys `keys` gives for its item. Gives the lists
    /// ``modify(ascending:slot:_:)`` would with
    /// `Backlinks.append(origin:property:keys:)`, but stores the run, in a
    /// slot that had no link, in its cell: no array, no overflow entry
    /// (loading a person's ten dogs takes no allocation).
    mutating func appendAscending<C: RandomAccessCollection>(
        _ items: C, origin: TableKey, property: Int, slot: (C.Element) -> Int, keys: (C.Element) -> Range<Int64>
    ) {
        forEachCell(ascending: items, slot: slot) { item, leaf, i in
            let itemKeys = keys(item)
            if leaf.cells[i].tag == Cell.emptyTag,
                let run = Cell.run(origin: origin, property: property, first: itemKeys.lowerBound, count: itemKeys.count)
            {
                leaf.cells[i] = run
            } else {
                var links = leaf.take(i)
                links.append(origin: origin, property: property, keys: itemKeys)
                leaf.put(i, links)
            }
        }
    }

    /// Appends, to each of `groups`' slots (which must ascend, repeats
    /// allowed), links from `property` of `origin` with the keys
    /// `firstKey + group.objects`: what
    /// ``appendAscending(_:origin:property:slot:keys:)`` does with those
    /// keys, in one loop per leaf over its cells in place. A group that
    /// does not go into an empty cell as a run (a slot with links, one
    /// link, a run too long) takes that general path after the loop,
    /// as do the later groups of its slot.
    mutating func appendRuns(_ groups: [LinkGroup], origin: TableKey, property: Int, firstKey: Int64) {
        let keys = { (group: LinkGroup) in (firstKey + Int64(group.objects.lowerBound))..<(firstKey + Int64(group.objects.upperBound)) }
        var g = 0
        while g < groups.count {
            let first = groups[g].slot
            precondition(first >= 0 && first < count, "backlink slot \(first) out of range 0..<\(count)")
            let l = first &>> Self.bits
            let base = l &<< Self.bits
            var end = g &+ 1
            while end < groups.count, groups[end].slot &>> Self.bits == l { end &+= 1 }
            var leaf = leaves[l] ?? Leaf(count: Swift.min(Self.width, count - base))
            leaves[l] = nil
            /// The groups left to the general path, in order.
            var general: [Int] = []
            groups.withUnsafeBufferPointer { groups in
                leaf.cells.withUnsafeMutableBufferPointer { cells in
                    var lastGeneralSlot = -1
                    for h in g..<end {
                        let slot = groups[h].slot
                        let i = slot &- base
                        precondition(i >= 0 && i < cells.count, "backlink slot \(slot) out of range 0..<\(count)")
                        let objects = groups[h].objects
                        if slot != lastGeneralSlot, cells[i].tag == Cell.emptyTag,
                            let run = Cell.run(origin: origin, property: property, first: firstKey + Int64(objects.lowerBound), count: objects.count)
                        {
                            cells[i] = run
                        } else {
                            general.append(h)
                            lastGeneralSlot = slot
                        }
                    }
                }
            }
            for h in general {
                let i = groups[h].slot - base
                var links = leaf.take(i)
                links.append(origin: origin, property: property, keys: keys(groups[h]))
                leaf.put(i, links)
            }
            leaves[l] = leaf
            g = end
        }
    }

    /// Calls `body` with each of `items` (whose slots, from `slot`, must
    /// ascend), the leaf holding its slot and the slot's index in it. Each
    /// leaf is moved out while its items are handled, so that it is
    /// changed in place when no other store shares it.
    private mutating func forEachCell<C: RandomAccessCollection>(
        ascending items: C, slot: (C.Element) -> Int, _ body: (C.Element, inout Leaf, Int) -> Void
    ) {
        var i = items.startIndex
        while i != items.endIndex {
            let first = slot(items[i])
            precondition(first >= 0 && first < count, "backlink slot \(first) out of range 0..<\(count)")
            let l = first &>> Self.bits
            let base = l &<< Self.bits
            var leaf = leaves[l] ?? Leaf(count: Swift.min(Self.width, count - base))
            leaves[l] = nil
            while i != items.endIndex {
                let s = slot(items[i])
                guard s &>> Self.bits == l else { break }
                body(items[i], &leaf, s - base)
                items.formIndex(after: &i)
            }
            leaves[l] = leaf
        }
    }

    /// Calls `body` with each slot that has links, in slot order.
    func forEachLinked(_ body: (_ slot: Int, _ links: Backlinks) throws -> Void) rethrows {
        for (l, leaf) in leaves.enumerated() {
            guard let leaf else { continue }
            let base = l &<< Self.bits
            for (i, cell) in leaf.cells.enumerated() where cell.tag != Cell.emptyTag {
                try body(base + i, leaf.links(i))
            }
        }
    }

    /// The number of leaves that hold cells (the others take no memory).
    var linkedLeafCount: Int { leaves.lazy.filter { $0 != nil }.count }

    /// The number of slots whose links are held in an overflow array
    /// rather than in their cell.
    var overflowCount: Int {
        leaves.reduce(0) { $0 + ($1.map { $0.overflow.count + $0.keyOverflow.count } ?? 0) }
    }

    /// The number of links held, over every slot.
    var totalLinkCount: Int {
        var total = 0
        for leaf in leaves {
            guard let leaf else { continue }
            for cell in leaf.cells where cell.tag <= Cell.runTag { total += cell.tag == Cell.runTag ? cell.runCount : 1 }
            for links in leaf.overflow.values { total += links.count }
            for keys in leaf.keyOverflow.values { total += keys.count }
        }
        return total
    }
}

extension Collection<Int64> {
    /// Whether the keys are `low, low + 1, low + 2, ...` (`low` the first).
    fileprivate func isConsecutive(from low: Int64) -> Bool {
        var expected = low
        for key in self {
            guard key == expected else { return false }
            expected &+= 1
        }
        return true
    }
}
