import Foundation
import ShoalTestSupport
import Testing

@testable import Shoal

@Suite struct StringDictionaryTests {
    static let name = Property(name: "name", type: .string, isOptional: true)

    @Test("a string column is dictionary-encoded up to the capacity's distinct strings, then plain for good, keeping every value")
    func turnsPlainPastCapacity() {
        var column = Column(for: Self.name)
        var expected: [Value] = []
        for i in 0..<StringDictionary.capacity {
            let v: Value = i % 1000 == 7 ? .null : .string("s\(i)")
            column.append(v)
            expected.append(v)
        }
        // Nulls take no code: the dictionary is not yet full.
        #expect(column.kind == .codedString)
        column.set(3, .string("s3"))
        column.append(.string("s0"))
        expected.append(.string("s0"))
        for i in 0..<100 {
            column.append(.string("new \(i)"))
            expected.append(.string("new \(i)"))
        }
        #expect(column.kind == .string)
        #expect(column.storageKind == "string")
        column.set(0, .null)
        expected[0] = .null
        #expect(column.count == expected.count)
        #expect((0..<expected.count).allSatisfy { column[$0].isIdentical(to: expected[$0]) && column.isNull($0) == expected[$0].isNull })
    }

    @Test("appending a coded column translates its codes into this column's dictionary, and turns plain part way when the dictionary fills")
    func appendsCodedColumns() {
        var a = Column(for: Self.name)
        var b = Column(for: Self.name)
        var expected: [Value] = []
        for w in ["x", "y", "z"] {
            a.append(.string(w))
            expected.append(.string(w))
        }
        // Another order, so that the same strings have other codes, and a null.
        for w in ["z", "q", "x", "", "q"] { b.append(.string(w)) }
        b.append(.null)
        a.append(contentsOf: b)
        expected += (0..<b.count).map { b[$0] }
        #expect(a.kind == .codedString && a.dictionary?.count == 5)
        #expect((0..<expected.count).allSatisfy { a[$0].isIdentical(to: expected[$0]) })

        // One string short of full: the second of two new strings turns it plain.
        var full = Column(for: Self.name)
        for i in 0..<(StringDictionary.capacity - 1) { full.append(.string("f\(i)")) }
        var more = Column(for: Self.name)
        for w in ["f0", "new 1", "f1", "new 2", "new 1"] { more.append(.string(w)) }
        full.append(contentsOf: more)
        #expect(full.kind == .string)
        #expect(full.count == StringDictionary.capacity - 1 + 5)
        #expect((0..<5).allSatisfy { full[StringDictionary.capacity - 1 + $0].isIdentical(to: more[$0]) })
        #expect(full[12].isIdentical(to: .string("f12")))
    }

    @Test("plain leaves appended to an empty coded column are taken as they are; to one holding values, they are coded")
    func plainLeavesIntoCoded() {
        var plain = Column(kind: .string)
        for w in ["a", "b", "a"] { plain.append(.string(w)) }
        var empty = Column(for: Self.name)
        empty.append(contentsOf: plain)
        #expect(empty.kind == .string)
        var holding = Column(for: Self.name)
        holding.append(.string("b"))
        holding.append(contentsOf: plain)
        #expect(holding.kind == .codedString && holding.dictionary?.count == 2)
        #expect((0..<4).map { holding[$0] } == ["b", "a", "b", "a"].map { Value.string($0) })
        #expect(holding.invariantViolation() == nil)
        // Into a dictionary one string short of full: the second new string
        // turns the column plain, nulls and all kept.
        var full = Column(for: Self.name)
        for i in 0..<(StringDictionary.capacity - 1) { full.append(.string("f\(i)")) }
        var more = Column(kind: .string)
        let values: [Value] = [.string("f3"), .null, .string("new 1"), .string("new 2"), .null, .string("f4")]
        more.append(contentsOf: values)
        full.append(contentsOf: more)
        #expect(full.kind == .string)
        #expect((0..<values.count).allSatisfy { full[StringDictionary.capacity - 1 + $0].isIdentical(to: values[$0]) })
    }

    @Test("canonically equivalent strings keep different codes (Shoal compares bytes, as Realm does)")
    func bytesNotCanonical() {
        var column = Column(for: Self.name)
        column.append(.string("\u{e9}"))
        column.append(.string("e\u{301}"))
        #expect(column.dictionary?.count == 2)
        #expect(column[0].isIdentical(to: .string("\u{e9}")) && column[1].isIdentical(to: .string("e\u{301}")))
        #expect(column.dictionary?.code(of: "e\u{301}") == 1)
    }

    @Test("a copy keeps its dictionary while the original adds strings, and ranks follow the strings each version holds")
    func copiesAndRanks() {
        var column = Column(for: Self.name)
        for w in ["m", "c", "x"] { column.append(.string(w)) }
        let copy = column
        #expect(copy.dictionary?.ranks() == [1, 0, 2])
        column.append(.string("a"))
        column.set(0, .string("b"))
        #expect(column.dictionary?.ranks() == [3, 2, 4, 0, 1])
        #expect(copy.dictionary?.count == 3 && copy.dictionary?.ranks() == [1, 0, 2])
        #expect((0..<3).map { copy[$0] } == ["m", "c", "x"].map { Value.string($0) })
        #expect((0..<4).map { column[$0] } == ["b", "c", "x", "a"].map { Value.string($0) })
    }

    @Test("new strings added at once take the next codes in order, past a growth of the table; a repeat stops them at its index; copies diverge as with single adds")
    func addNewAtOnce() {
        var dictionary = StringDictionary()
        #expect(dictionary.code(adding: "m") == 0)
        #expect(dictionary.ranks() == [0])
        let words = (0..<300).map { "w\($0)" }
        #expect(dictionary.addNew(words) == nil)
        #expect(dictionary.count == 301)
        for (i, w) in words.enumerated() { #expect(dictionary.code(of: w) == Int32(i + 1)) }
        #expect(dictionary.code(of: "m") == 0)
        // The ranks made before are dropped: made again over all 301.
        #expect(dictionary.ranks()[0] == 0 && dictionary.ranks().count == 301)

        // A repeat of a held string, or of one earlier in the batch.
        var held = dictionary
        #expect(held.addNew(["a", "b", "w7", "c"]) == 2)
        #expect(held.count == 303 && held.code(of: "b") == 302 && held.code(of: "c") == nil)
        var twice = dictionary
        #expect(twice.addNew(["z", "y", "z"]) == 2)
        #expect(twice.count == 303 && twice.code(of: "y") == 302)

        // A copy that adds after another copy claimed the same codes starts
        // a lineage of its own: neither is a prefix of the other.
        var base = StringDictionary()
        #expect(base.addNew(["a", "b"]) == nil)
        var first = base, second = base
        #expect(first.addNew(["p"]) == nil)
        #expect(second.addNew(["q", "r"]) == nil)
        #expect(base.isPrefix(of: first))
        #expect(!first.isPrefix(of: second) && !second.isPrefix(of: first))
        #expect(first.code(of: "p") == 2 && second.code(of: "q") == 2)
    }
}

/// Coded string columns in snapshots (format version 5).
@Suite struct CodedStringRunTests {
    /// Writes `slots` of `column` as a coded strings run the way writers
    /// before 2026-11-27 did: the strings up to the highest code the run
    /// uses, so that later runs bring new ones.
    static func encodeStringsRunByRun(_ column: Column, slots: Range<Int>, written: inout Int, into w: inout ByteWriter) {
        let dictionary = column.dictionary!
        let codes = ContiguousArray(slots.lazy.map { column.ints[$0] })
        let end = Swift.max(written, Int(codes.max() ?? -1) + 1)
        w.byte(ChangeRecordCodec.ColumnKind.codedStrings.rawValue)
        w.varint(end - written)
        var start = written
        while start < end {
            let strings = (start..<Swift.min(end, start + Chunks<UInt8>.width)).map { dictionary.strings[$0] }
            ChangeRecordCodec.encodeStringLeaf(count: strings.count, into: &w, length: { strings[$0].utf8.count }) { i, w in w.utf8(strings[i]) }
            start += strings.count
        }
        written = end
        ChangeRecordCodec.encodePackedInts(codes, into: &w)
    }

    @Test("runs written from one coded column load, run by run, into one dictionary whose codes the table takes as they are: nulls, unused strings, more than a leaf of new strings; the writer's whole dictionary in the first run, or strings brought run by run", arguments: [true, false])
    func runsRoundTrip(wholeDictionaryFirst: Bool) throws {
        var column = Column(for: StringDictionaryTests.name)
        var expected: [Value] = []
        var rng = SeededRandom(seed: 21)
        for i in 0..<9_000 {
            let v: Value = i % 97 == 0 ? .null : .string("w\(Int.random(in: 0..<6_000, using: &rng))")
            column.append(v)
            expected.append(v)
            if i == 100 {
                // A string no slot holds any more stays in the dictionary.
                column.set(5, .string("overwritten"))
                column.set(5, expected[5])
            }
        }
        // A last string no slot holds any more: past the highest code, so
        // not written.
        column.set(0, .string("trailing"))
        column.set(0, expected[0])
        let used = column.dictionary!.count - 1
        var w = ByteWriter()
        var written = 0
        let runs = [0..<4096, 4096..<8192, 8192..<9_000]
        for (n, run) in runs.enumerated() {
            if wholeDictionaryFirst {
                ChangeRecordCodec.encodeCodedStrings(column, slots: run, written: &written, into: &w)
                // Every string up to the highest code in the first run.
                #expect(written == used, "run \(n)")
            } else {
                Self.encodeStringsRunByRun(column, slots: run, written: &written, into: &w)
                #expect(n == runs.count - 1 || written < used, "run \(n)")
            }
        }
        #expect(written == used)
        var r = ByteReader(w.bytes)
        var dictionary = StringDictionary()
        var loaded = Column(for: StringDictionaryTests.name)
        for run in runs {
            #expect(try r.byte() == ChangeRecordCodec.ColumnKind.codedStrings.rawValue)
            let (column, hasNull) = try ChangeRecordCodec.decodeCodedStrings(&r, count: run.count, into: &dictionary)
            #expect(hasNull == (0..<column.count).contains(where: column.isNull))
            loaded.append(contentsOf: column)
        }
        #expect(r.remaining == 0)
        #expect(loaded.kind == .codedString && loaded.count == expected.count)
        #expect((0..<expected.count).allSatisfy { loaded[$0].isIdentical(to: expected[$0]) })
        // Taken as they are: the same codes, the last run's dictionary.
        #expect((0..<expected.count).allSatisfy { loaded.ints[$0] == column.ints[$0] })
        #expect(loaded.dictionary!.count == used && loaded.dictionary!.isPrefix(of: dictionary))
    }

    @Test("a run whose new string the dictionary already holds is damage, named at its leaf")
    func duplicateString() throws {
        var column = Column(for: StringDictionaryTests.name)
        for w in ["x", "y"] { column.append(.string(w)) }
        var w = ByteWriter()
        var written = 0
        ChangeRecordCodec.encodeCodedStrings(column, slots: 0..<2, written: &written, into: &w)
        var r = ByteReader(w.bytes)
        _ = try r.byte()
        var dictionary = StringDictionary()
        _ = dictionary.code(adding: "y")
        let failure = #expect(throws: DecodingFailure.self) { _ = try ChangeRecordCodec.decodeCodedStrings(&r, count: 2, into: &dictionary) }
        #expect(failure?.reason.contains("the dictionary's new string 1 of this leaf is one it holds") == true, "\(String(describing: failure))")
        #expect(failure?.offset == 2)
    }
}

extension CodedStringRunTests {
    @Test("a leaf's bounds are its least and greatest value, at every width", arguments: [
        [Int64](repeating: -3, count: 10), [5, 200, 7, 9], [-1, 0, 65_000, 12], [Int64(-1), 1 << 31, 7], [Int64.min, Int64.max, 0], [42],
    ] as [[Int64]])
    func leafBounds(values: [Int64]) {
        let leaf = values.withUnsafeBufferPointer { IntChunks.Leaf(packing: $0) }
        let bounds = leaf.bounds
        #expect(bounds?.least == values.min() && bounds?.most == values.max(), "width \(leaf.width)")
    }
}

extension CodedStringRunTests {
    @Test("compaction writes a plain string column coded when its strings fit a dictionary, and plain when they do not; loading gives every value back")
    func plainUpgraded() throws {
        let schema = Schema([ObjectSchema(className: "Dog", properties: [Property(name: "name", type: .string, isOptional: true)])])
        var snapshot = Snapshot(schema: schema)
        let t = TableKey(0)
        // Few distinct strings, then (past 3 runs) only new ones: the
        // dictionary fills part way.
        var expected: [Value] = []
        for i in 0..<(3 * 4096 + StringDictionary.capacity + 100) {
            let v: Value = i % 1000 == 3 ? .null : i < 3 * 4096 ? .string("n\(i % 40)") : .string("u\(i)")
            snapshot.apply(.insert(t, ObjectKey(Int64(i)), [v]))
            expected.append(v)
        }
        var plain = Column(kind: .string)
        plain.append(contentsOf: expected)
        snapshot.tables[0].scalars[0] = plain
        let restored = try SnapshotCodec.decode(SnapshotCodec.encode(snapshot), formatVersion: LogFormat.version, decodeAheadFrom: .max)
        #expect(restored.hasSameContents(as: snapshot) && restored.invariantViolation() == nil)
        #expect(restored.tables[0].scalars[0].kind == .string)
        // Only the low-cardinality part: coded.
        var small = Snapshot(schema: schema)
        for i in 0..<(3 * 4096) { small.apply(.insert(t, ObjectKey(Int64(i)), [expected[i]])) }
        var smallPlain = Column(kind: .string)
        smallPlain.append(contentsOf: expected.prefix(3 * 4096))
        small.tables[0].scalars[0] = smallPlain
        let restoredSmall = try SnapshotCodec.decode(SnapshotCodec.encode(small), formatVersion: LogFormat.version, decodeAheadFrom: .max)
        #expect(restoredSmall.hasSameContents(as: small))
        #expect(restoredSmall.tables[0].scalars[0].kind == .codedString && restoredSmall.tables[0].scalars[0].dictionary?.count == 40)
    }
}

extension StringDictionaryTests {
    @Test("two copies that add different strings part lineages: neither extends the other, and appending one's codes to the other translates them")
    func lineages() {
        var base = StringDictionary()
        for w in ["a", "b"] { _ = base.code(adding: w) }
        var first = base, second = base
        _ = first.code(adding: "x")
        _ = second.code(adding: "y")
        #expect(base.isPrefix(of: first) && first.isPrefix(of: first))
        // The second took code 2 after the first had: a lineage of its own.
        #expect(!base.isPrefix(of: second) && !second.isPrefix(of: first) && !first.isPrefix(of: second))
        #expect(first.strings[2] == "x" && second.strings[2] == "y")

        // A table column adopts a loaded run, codes strings of its own (a
        // plain run), then meets the loader's next run: translated, not adopted.
        var table = Column(for: Self.name)
        var run = Column(for: Self.name)
        for w in ["p", "q"] { run.append(.string(w)) }
        table.append(contentsOf: run)
        var loader = run.dictionary!
        var plain = Column(kind: .string)
        for w in ["r", "p"] { plain.append(.string(w)) }
        table.append(contentsOf: plain)
        _ = loader.code(adding: "s")
        let nextRun = Column(codes: IntChunks.Leaf(wide: [2, 1, -1]), dictionary: loader)
        table.append(contentsOf: nextRun)
        let values = (0..<table.count).map { table[$0] }
        #expect(values == ["p", "q", "r", "p", "s", "q"].map { Value.string($0) } + [.null])
        #expect(table.dictionary?.count == 4)
    }

    @Test("a sort of few elements against many distinct strings compares them rather than ranking the dictionary, until ranks are made")
    func fewElements() throws {
        let snapshot = StringSortTests.dogs(named: (0..<2_000).map { .string("n\(1_999 - $0)") })
        let t = TableKey(0)
        let key = StringSortTests.byName()
        let few = [5, 3, 700].map { Value.link(Link(table: t, key: ObjectKey(Int64($0)))) }
        #expect(OrderingStep.sortByStringColumn(few, key, snapshot) == nil)
        #expect(OrderingStep.apply([.sort([key])], to: few, snapshot: snapshot) == [700, 5, 3].map { Value.link(Link(table: t, key: ObjectKey(Int64($0)))) })
        let all = (0..<2_000).map { Value.link(Link(table: t, key: ObjectKey(Int64($0)))) }
        let sorted = try #require(OrderingStep.sortByStringColumn(all, key, snapshot))
        #expect(sorted.map { snapshot.value(t, $0.linkValue!.key, 0) } == (0..<2_000).map { "n\($0)" }.sorted().map { Value.string($0) })
        #expect(OrderingStep.sortByStringColumn(few, key, snapshot) != nil)
    }

    @Test("ranks asked for on several threads at once are made once and agree")
    func concurrentRanks() async {
        var dictionary = StringDictionary()
        for i in 0..<3_000 { _ = dictionary.code(adding: "w\((i * 7919) % 3_000)") }
        let shared = dictionary
        let results = await withTaskGroup(of: [Int32].self) { group in
            for _ in 0..<8 { group.addTask { shared.ranks() } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let expected = (0..<3_000).sorted { shared.strings[$0] < shared.strings[$1] }
        var ranks = [Int32](repeating: 0, count: 3_000)
        for (rank, code) in expected.enumerated() { ranks[code] = Int32(rank) }
        #expect(results.count == 8 && results.allSatisfy { $0 == ranks })
    }

    @Test("a comparison against more distinct strings than the keys to test is left to the value-by-value test")
    func scanCutOff() {
        var column = Column(for: Self.name)
        for i in 0..<500 { column.append(.string("s\(i)")) }
        let matcher = ValueMatcher(.beginsWith, [.string("s1")], options: [])
        #expect(column.filter([ObjectKey(3), ObjectKey(10)], matching: matcher) == nil)
        let keys = (0..<500).map { ObjectKey(Int64($0)) }
        #expect(column.filter(keys, matching: matcher) == keys.filter { matcher.matches(column[$0.slot]) })
    }
}

@Suite struct StringCopyTests {
    @Test("this platform's String has the layout the read's bit copy relies on, so reads take that path")
    func knowsLayout() {
        #expect(StringCopy.knowsLayout)
    }

    @Test("reading a coded string gives the stored string, whether small, empty, non-ASCII or heap-allocated, and a heap string stays alive through many reads")
    func readsEveryKindOfString() {
        let strings = [
            "", "a", "Maple Sorrel", "exactly15bytes!", "sixteen bytes ok", "héllo wörld", "日本語", "🐟🐠",
            String(repeating: "long string that lives on the heap ", count: 4),
        ]
        var column = Column(for: StringDictionaryTests.name)
        for s in strings { column.append(.string(s)) }
        column.append(.null)
        #expect(column.kind == .codedString)
        withUnsafePointer(to: column) { pointer in
            var read: [String] = []
            // Many copies made and dropped: a copy that skipped a retain
            // it needed would free the heap string under the column.
            for _ in 0..<1_000 { read = strings.indices.map { Column.codedString(pointer, $0)! } }
            #expect(read == strings)
            #expect(Column.codedString(pointer, strings.count) == nil)
        }
        #expect(strings.indices.allSatisfy { column[$0].isIdentical(to: .string(strings[$0])) })
    }

    @Test("this build makes a small ASCII string's words as the runtime does, so plain reads take that path")
    func makesSmall() {
        #expect(StringCopy.makesSmall)
    }

    @Test("reading a plain string column gives each string back: ASCII of every small length, non-ASCII, 16 bytes and more, from a full leaf (short ends) and a filling one")
    func readsPlainStrings() {
        let ascii = "Shoal reads 0123456789 abcdefghijklmnopqrstuvwxyz"
        var strings = (0...17).map { String(ascii.prefix($0)) }
        strings += ["a\u{0}b", "\u{0}", "\u{7F}~", "é", "héllo", "exactly 15 byté", "日本", "🐟", "naïve café au lait"]
        // A leaf that fills within 65,535 bytes keeps its ends in two bytes
        // each; the long string comes in the next leaf.
        let expected = (0..<(Chunks<UInt8>.width + strings.count)).map { strings[$0 % strings.count] }
            + [String(repeating: ascii, count: 30)] + strings
        var column = Column(kind: .string)
        for s in expected { column.append(.string(s)) }
        #expect(column.kind == .string && column.bytes.leaves.first?.isShort == true && column.bytes.leaves.last?.isShort == false)
        // The words the runtime makes from the same bytes: a string that
        // compares equal but carries other flags (say, "ASCII" on "é")
        // would count its characters wrongly.
        func words(_ string: String) -> [UInt8] { withUnsafeBytes(of: string) { Array($0) } }
        for _ in 0..<20 {
            let read = expected.indices.map { column.bytes.string($0) }
            #expect(read == expected)
            #expect(zip(read, expected).allSatisfy { Array($0.utf8) == Array($1.utf8) && $0.count == $1.count })
            #expect(zip(read, expected).allSatisfy {
                $1.utf8.count > 15 || words($0) == words(String(decoding: Array($1.utf8), as: UTF8.self))
            })
        }
        #expect(expected.indices.allSatisfy { column[$0].isIdentical(to: .string(expected[$0])) })
    }
}
