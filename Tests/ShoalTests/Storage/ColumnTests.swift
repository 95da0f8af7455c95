import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

@Suite struct ColumnTests {
    /// A random value of `type`, or null one time in `nullOneIn`.
    static func value(_ type: PropertyType, _ rng: inout some RandomNumberGenerator, nullOneIn: Int = 5) -> Value {
        if Int.random(in: 0..<nullOneIn, using: &rng) == 0 { return .null }
        switch type {
        case .int: return .int(Int64.random(in: -1_000...1_000, using: &rng))
        case .bool: return .bool(Bool.random(using: &rng))
        case .double: return .double(Double.random(in: -10...10, using: &rng))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...1_000_000, using: &rng))))
        case .string:
            let words = ["", "a", "ab", "abc", "abcdefgh", "abcdefghi", "Zoë", "zoe", "émile", "a somewhat longer string than sixteen bytes"]
            return .string(words.randomElement(using: &rng)!)
        case .data: return .data(Data((0..<Int.random(in: 0...40, using: &rng)).map { UInt8(truncatingIfNeeded: $0 &* 7) }))
        case .object: return .link(Link(table: TableKey(2), key: ObjectKey(Int64.random(in: 0...50, using: &rng))))
        default: return .int(Int64.random(in: 0...9, using: &rng))
        }
    }

    @Test("random appends, sets and null runs read back exactly what an array of values holds, for every column type, across leaves", arguments: [
        PropertyType.int, .bool, .double, .date, .string, .data, .object, .any,
    ])
    func matchesArray(type: PropertyType) {
        var rng = SeededRandom(seed: UInt64(type.rawValue) + 1)
        let property = Property(name: "p", type: type, isOptional: true, objectClassName: type == .object ? "Target" : nil)
        var column = Column(for: property)
        var expected: [Value] = []
        for _ in 0..<12_000 {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<5:
                let v = Self.value(type, &rng)
                column.append(v)
                expected.append(v)
            case 5..<8 where !expected.isEmpty:
                let i = Int.random(in: 0..<expected.count, using: &rng)
                let v = Self.value(type, &rng)
                column.set(i, v)
                expected[i] = v
            default:
                let n = Int.random(in: 0...300, using: &rng)
                column.appendNulls(n)
                expected += repeatElement(.null, count: n)
            }
        }
        #expect(column.count == expected.count)
        #expect((0..<expected.count).allSatisfy { column[$0].isIdentical(to: expected[$0]) && column.isNull($0) == expected[$0].isNull })
        // Typed, not tagged, except AnyRealmValue.
        #expect((column.kind == .values) == (type == .any))
    }

    @Test("a copy keeps its values while the original changes (copy-on-write leaves)")
    func copyOnWrite() {
        var column = Column(for: Property(name: "name", type: .string))
        for i in 0..<10_000 { column.append(.string("dog \(i)")) }
        let copy = column
        column.set(5, .string("a much longer name than before, to move the bytes after it"))
        column.set(9_999, .null)
        #expect(copy[5] == .string("dog 5") && copy[6] == .string("dog 6") && !copy.isNull(9_999))
        #expect(column[5] == .string("a much longer name than before, to move the bytes after it"))
        #expect(column[6] == .string("dog 6") && column.isNull(9_999))
    }

    @Test("a value of another type than the column's turns it into tagged values and loses nothing")
    func degradesToTagged() {
        var column = Column(for: Property(name: "age", type: .int))
        column.append(.int(3))
        column.appendNulls(2)
        column.append(.string("not an int"))
        #expect(column[0] == .int(3) && column[1].isNull && column[2].isNull && column[3] == .string("not an int"))
        #expect(column.kind == .values)
    }

    @Test("a coded column's count for one passing code (a string, an absent string, null) counts that code's copies across leaves; several passing codes go the general way")
    func countOneCode() {
        var column = Column(for: Property(name: "breed", type: .string, isOptional: true))
        let breeds = ["Pug", "Corgi", "Beagle", "Husky"]
        let n = 3 * IntChunks.width + 123
        for i in 0..<n { column.append(i % 11 == 0 ? .null : .string(breeds[(i * 7) % breeds.count])) }
        #expect(column.kind == .codedString)
        let matchers = [
            ValueMatcher(.equal, [.string("Pug")], options: []), ValueMatcher(.equal, [.string("Dachshund")], options: []),
            ValueMatcher(.equal, [.null], options: []), ValueMatcher(.notEqual, [.string("Pug")], options: []),
            ValueMatcher(.in, [.string("Corgi"), .string("Husky")], options: []),
        ]
        for matcher in matchers {
            #expect(column.countSlots(matching: matcher, alive: nil) == (0..<n).count { matcher.matches(column[$0]) }, "\(matcher)")
        }
    }

    @Test("typed scans give exactly what the matcher gives value by value, with dead slots and nulls", arguments: [PropertyType.int, .string])
    func typedScans(type: PropertyType) {
        var rng = SeededRandom(seed: 42)
        for round in 0..<40 {
            var column = Column(for: Property(name: "p", type: type, isOptional: round % 4 == 0))
            let n = Int.random(in: 0...9_000, using: &rng)
            for _ in 0..<n {
                column.append(type == .int ? .int(Int64.random(in: 0...15, using: &rng)) : Self.value(.string, &rng, nullOneIn: round % 4 == 0 ? 5 : Int.max))
            }
            var alive = Chunks<Bool>()
            for _ in 0..<n { alive.append(Int.random(in: 0..<7, using: &rng) != 0) }
            let operators: [PredicateTree.ComparisonOperator] = [.equal, .notEqual, .in, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .between]
            let op = operators.randomElement(using: &rng)!
            let operands: [Value] = type == .int
                ? [.int(Int64.random(in: 0...15, using: &rng)), .int(Int64.random(in: 0...15, using: &rng))]
                : [Self.value(.string, &rng, nullOneIn: .max), Self.value(.string, &rng, nullOneIn: .max)]
            let matcher = ValueMatcher(op, op == .between || op == .in ? operands : [operands[0]], options: [])
            let scanned = column.slots(matching: matcher, alive: alive)
            let expected = (0..<n).filter { alive[$0] && matcher.matches(column[$0]) }.map { ObjectKey(Int64($0)) }
            #expect(scanned == expected, "round \(round): \(op) \(operands)")
            // With no dead slot, the scan without a liveness test.
            let everyone = (0..<n).filter { matcher.matches(column[$0]) }.map { ObjectKey(Int64($0)) }
            #expect(column.slots(matching: matcher, alive: nil) == everyone, "round \(round), all live: \(op) \(operands)")
            // Counted in place: integers without nulls, coded strings, and
            // exact equality on plain strings without nulls.
            let counted = column.countSlots(matching: matcher, alive: alive)
            let countable = column.kind == .codedString || column.nulls == nil
                && (column.kind == .int || column.kind == .string && StringEquality(matcher) != nil)
            #expect(counted == (countable ? expected.count : nil), "round \(round): \(column.kind) \(op)")
            #expect(column.countSlots(matching: matcher, alive: nil) == counted.map { _ in everyone.count }, "round \(round)")
        }
    }
}

@Suite struct StringSortTests {
    /// A snapshot of one class whose one property, `name`, holds `names`,
    /// object `i` the `i`th (optional when `optional`).
    static func dogs(named names: [Value], optional: Bool = false) -> Snapshot {
        var snapshot = Snapshot(schema: Schema([ObjectSchema(className: "Dog", properties: [Property(name: "name", type: .string, isOptional: optional)])]))
        for (i, name) in names.enumerated() { snapshot.apply(.insert(TableKey(0), ObjectKey(Int64(i)), [name])) }
        return snapshot
    }

    /// The sort by ``dogs(named:optional:)``'s `name`.
    static func byName(ascending: Bool = true) -> SortKey {
        SortKey(path: SortPath(steps: [BoundProperty(table: TableKey(0), index: 0)], text: "name"), ascending: ascending)
    }

    /// Makes the string column of `snapshot`'s first table plain UTF-8
    /// (as a loaded snapshot's is) when `coded` is false; checks it is
    /// dictionary-encoded (as inserted objects make it) otherwise.
    static func storeStrings(coded: Bool, in snapshot: inout Snapshot) {
        let column = snapshot.tables[0].scalars[0]
        #expect(column.kind == .codedString)
        guard !coded else { return }
        var plain = Column(kind: .string)
        for i in 0..<column.count { plain.append(column[i]) }
        snapshot.tables[0].scalars[0] = plain
    }

    @Test("sorting objects by a string column in place gives the order Value.compareStrings gives, stable, both directions, coded or plain",
        arguments: [true, false])
    func sortsAsValues(coded: Bool) throws {
        var rng = SeededRandom(seed: 7)
        let t = TableKey(0)
        let names = (0..<6_000).map { _ in ColumnTests.value(.string, &rng, nullOneIn: .max) }
        var snapshot = Self.dogs(named: names)
        Self.storeStrings(coded: coded, in: &snapshot)
        // Elements in a shuffled order, some twice, so that stability shows.
        var elements = (0..<names.count).map { Value.link(Link(table: t, key: ObjectKey(Int64($0)))) }
        elements.shuffle(using: &rng)
        elements += elements.prefix(500)
        for ascending in [true, false] {
            let key = Self.byName(ascending: ascending)
            let fast = try #require(OrderingStep.sortByStringColumn(elements, key, snapshot))
            let expected = elements.indices.sorted { a, b in
                let r = Value.compare(snapshot.value(t, elements[a].linkValue!.key, 0), snapshot.value(t, elements[b].linkValue!.key, 0))
                return r == .orderedSame ? a < b : (r == .orderedAscending) == ascending
            }.map { elements[$0] }
            #expect(fast == expected)
        }
    }

    @Test("the radix sort by prefix (or by rank) and the sort of equal prefixes give Value.compareStrings' order for long shared prefixes and NUL bytes",
        arguments: [true, false], [true, false])
    func sortsSharedPrefixes(ascending: Bool, coded: Bool) throws {
        var rng = SeededRandom(seed: 11)
        let t = TableKey(0)
        let alphabet: [Character] = ["a", "b", "\0", "é"]
        let prefixes = ["", "abcdefg", "abcdefgh", "abcdefghij", "ab\0\0\0\0\0\0"]
        let names = (0..<3_000).map { _ in
            prefixes.randomElement(using: &rng)! + String((0..<Int.random(in: 0...12, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
        }
        var snapshot = Self.dogs(named: names.map(Value.string))
        Self.storeStrings(coded: coded, in: &snapshot)
        let elements = (0..<names.count).map { Value.link(Link(table: t, key: ObjectKey(Int64($0)))) }
        let key = Self.byName(ascending: ascending)
        let fast = try #require(OrderingStep.sortByStringColumn(elements, key, snapshot))
        let expected = elements.indices.sorted { a, b in
            let r = Value.compareStrings(names[a], names[b])
            return r == .orderedSame ? a < b : (r == .orderedAscending) == ascending
        }.map { elements[$0] }
        #expect(fast == expected)
    }

    @Test("objects whose strings are all empty keep their order")
    func sortsEmptyStrings() throws {
        let snapshot = Self.dogs(named: Array(repeating: .string(""), count: 5))
        let t = TableKey(0)
        let elements = [3, 1, 4, 0, 2].map { Value.link(Link(table: t, key: ObjectKey(Int64($0)))) }
        for ascending in [true, false] {
            let key = Self.byName(ascending: ascending)
            #expect(try #require(OrderingStep.sortByStringColumn(elements, key, snapshot)) == elements)
        }
    }

    @Test("the radix sort orders 64-bit keys by every byte, equal keys in position order")
    func radixOrder() {
        var rng = SeededRandom(seed: 5)
        var keys: [UInt64] = []
        for _ in 0..<5_000 {
            let choices: [UInt64] = [0, 1, UInt64.max, 0x0100_0000_0000_0000, rng.next(), rng.next() & 0xff00]
            keys.append(choices[Int(rng.next() % UInt64(choices.count))])
        }
        var pairs = keys.enumerated().map { (key: $0.element, position: Int32($0.offset)) }
        OrderingStep.radixSort(&pairs)
        let order = pairs.map { Int($0.position) }
        let expected = keys.indices.sorted { (a: Int, b: Int) -> Bool in keys[a] == keys[b] ? a < b : keys[a] < keys[b] }
        #expect(order == expected)
    }

    @Test("a string column with nulls, coded or plain, is left to the general sort", arguments: [true, false])
    func declinesOtherShapes(coded: Bool) {
        var snapshot = Self.dogs(named: [.string("b"), .null], optional: true)
        let t = TableKey(0)
        Self.storeStrings(coded: coded, in: &snapshot)
        let key = Self.byName()
        let elements = [Value.link(Link(table: t, key: ObjectKey(0))), .link(Link(table: t, key: ObjectKey(1)))]
        #expect(OrderingStep.sortByStringColumn(elements, key, snapshot) == nil)
        #expect(OrderingStep.apply([.sort([key])], to: elements, snapshot: snapshot) == elements.reversed())
    }
}

extension ColumnTests {
    @Test("filtering given keys over the typed leaves keeps exactly the keys the matcher passes, and declines what it cannot answer")
    func typedFilter() {
        var rng = SeededRandom(seed: 3)
        var ints = Column(for: Property(name: "age", type: .int))
        var names = Column(kind: .string)
        // The same strings dictionary-encoded, nulls included.
        var coded = Column(for: Property(name: "name", type: .string, isOptional: true))
        for _ in 0..<5_000 {
            ints.append(.int(Int64.random(in: 0...15, using: &rng)))
            names.append(Self.value(.string, &rng, nullOneIn: .max))
            coded.append(Self.value(.string, &rng, nullOneIn: 7))
        }
        #expect(names.storageKind == "string" && coded.storageKind == "string")
        let keys = (0..<5_000).filter { _ in Bool.random(using: &rng) }.map { ObjectKey(Int64($0)) }
        for matcher in [ValueMatcher(.between, [.int(3), .int(5)], options: []), ValueMatcher(.notEqual, [.int(7)], options: [])] {
            #expect(ints.filter(keys, matching: matcher) == keys.filter { matcher.matches(ints[$0.slot]) })
        }
        let equal = ValueMatcher(.equal, [.string("abc")], options: [])
        #expect(names.filter(keys, matching: equal) == keys.filter { equal.matches(names[$0.slot]) })
        // A double constant, or [c], is left to the value-by-value test.
        #expect(ints.filter(keys, matching: ValueMatcher(.lessThan, [.double(3.5)], options: [])) == nil)
        #expect(names.filter(keys, matching: ValueMatcher(.equal, [.string("abc")], options: [.caseInsensitive])) == nil)
        // Coded strings answer any comparison, a distinct string at a time:
        // exactly as the matcher decides each value, null included.
        let alive = Chunks(repeating: true, count: coded.count)
        for matcher in [
            equal, ValueMatcher(.equal, [.string("abc")], options: [.caseInsensitive]), ValueMatcher(.notEqual, [.string("abc")], options: []),
            ValueMatcher(.beginsWith, [.string("a")], options: []), ValueMatcher(.equal, [.null], options: []),
            ValueMatcher(.greaterThan, [.string("b")], options: []),
        ] {
            let expected = keys.filter { matcher.matches(coded[$0.slot]) }
            #expect(coded.filter(keys, matching: matcher) == expected, "\(matcher)")
            #expect(coded.slots(matching: matcher, alive: alive) == (0..<coded.count).filter { matcher.matches(coded[$0]) }.map { ObjectKey(Int64($0)) })
            #expect(coded.slots(matching: matcher, alive: nil) == coded.slots(matching: matcher, alive: alive))
        }
    }
}

extension ColumnTests {
    @Test("a backlink takes 16 bytes and keeps its property index")
    func backlinkLayout() {
        let b = Backlink(origin: TableKey(3), property: 70_000, key: ObjectKey(Int64.max))
        #expect(MemoryLayout<Backlink>.stride == 16)
        #expect(b.origin == TableKey(3) && b.property == 70_000 && b.key == ObjectKey(Int64.max))
    }
}

extension ColumnTests {
    @Test("a filled string leaf keeps at most an eighth of its bytes as unused capacity, and reads back every value")
    func byteLeavesAreTrimmed() {
        var chunks = ByteChunks()
        var expected: [String] = []
        let width = Chunks<UInt8>.width
        for i in 0..<(width * 3 + 17) {
            // Lengths that a doubling array rounds up well past the bytes held.
            let s = String(repeating: "abcdefghij", count: 1 + i % 2) + "\(i % 7)"
            chunks.append(s)
            expected.append(s)
        }
        for leaf in chunks.leaves.dropLast() {
            #expect(leaf.count == width)
            #expect(leaf.bytes.capacity <= leaf.bytes.count + leaf.bytes.count / 8 + 64, "capacity \(leaf.bytes.capacity) for \(leaf.bytes.count) bytes")
        }
        #expect((0..<expected.count).allSatisfy { chunks.string($0) == expected[$0] })
    }

    @Test("a full leaf of at most 65,535 bytes keeps two-byte ends, others four; writes that outgrow two bytes widen the leaf")
    func shortEnds() {
        var rng = SeededRandom(seed: 31)
        let width = Chunks<UInt8>.width
        var chunks = ByteChunks()
        var expected: [String] = []
        func string(_ length: Int) -> String { String(repeating: "é", count: length / 2) + String(repeating: "a", count: length % 2) }
        // A leaf of short strings, a leaf of 20-byte ones (81,920 bytes), and an open leaf.
        for i in 0..<(2 * width + 5) {
            let s = string(i < width ? Int.random(in: 0...12, using: &rng) : 20)
            chunks.append(s)
            expected.append(s)
        }
        #expect(chunks.leaves.map(\.isShort) == [true, false, false])
        // A decoded leaf is shortened the same way.
        var decoded = ByteChunks()
        var bytes = ContiguousArray<UInt8>(), ends = ContiguousArray<UInt32>()
        for i in 0..<width {
            bytes += Array(expected[i].utf8)
            ends.append(UInt32(bytes.count))
        }
        decoded.append(leafBytes: bytes, ends: ends)
        #expect(decoded.leaves.map(\.isShort) == [true] && (0..<width).allSatisfy { decoded.string($0) == expected[$0] })
        // Writes: growing, shrinking, and one that needs four-byte ends.
        for _ in 0..<200 {
            let i = Int.random(in: 0..<expected.count, using: &rng)
            let s = string(Int.random(in: 0...30, using: &rng))
            chunks.set(i, s)
            expected[i] = s
        }
        chunks.set(7, string(70_000))
        expected[7] = string(70_000)
        #expect(!chunks.leaves[0].isShort)
        #expect((0..<expected.count).allSatisfy { chunks.string($0) == expected[$0] })
        // The string scan reads ends of both widths.
        var column = Column(for: Property(name: "s", type: .string))
        for s in expected { column.append(.string(s)) }
        let alive = Chunks(repeating: true, count: expected.count)
        let wanted = expected[3]
        #expect(column.slots(matching: ValueMatcher(.equal, [.string(wanted)], options: []), alive: alive).map(\.slot)
            == expected.indices.filter { expected[$0] == wanted })
    }
}

extension ColumnTests {
    @Test("a plain string column counts exact equality in place, as its scan lists it, with and without dead slots")
    func plainStringCounts() {
        var rng = SeededRandom(seed: 9)
        var column = Column(kind: .string)
        let words = ["", "a", "pug", "Pug", "lab", "beagle", "é", "e\u{301}"]
        let n = 10_000
        for _ in 0..<n { column.append(.string(words.randomElement(using: &rng)!)) }
        #expect(column.kind == .string)
        var alive = Chunks<Bool>()
        for _ in 0..<n { alive.append(Int.random(in: 0..<5, using: &rng) != 0) }
        for matcher in [
            ValueMatcher(.equal, [.string("pug")], options: []), ValueMatcher(.notEqual, [.string("pug")], options: []),
            ValueMatcher(.equal, [.string("")], options: []), ValueMatcher(.in, [.string("lab"), .string("é")], options: []),
        ] {
            let listed = column.slots(matching: matcher, alive: alive).count
            #expect(listed == (0..<n).count { alive[$0] && matcher.matches(column[$0]) }, "\(matcher)")
            #expect(column.countSlots(matching: matcher, alive: alive) == listed, "\(matcher)")
            #expect(column.countSlots(matching: matcher, alive: nil) == (0..<n).count { matcher.matches(column[$0]) }, "\(matcher)")
        }
        // [c] is left to the value-by-value test.
        #expect(column.countSlots(matching: ValueMatcher(.equal, [.string("pug")], options: [.caseInsensitive]), alive: nil) == nil)
    }
}
