import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// The typed primary key index (integer keys, the null key beside them)
/// against the `Value`-keyed tree it replaced, which is the model: every
/// look-up, range and change must answer the same.
@Suite struct PrimaryIndexTests {
    typealias Model = SortedTree<Value, ObjectKey>
    typealias Bound = TreeBound<Value>

    static let intProperty = Property(name: "id", type: .int, isOptional: true, isPrimary: true)

    /// A key to look up or bound a range with: mostly integers, and every
    /// other kind a predicate can bring (numbers of other kinds, null, strings).
    static func probe(_ rng: inout SeededRandom) -> Value {
        let n = Int64(rng.next() % 60) - 10
        switch rng.next() % 10 {
        case 0: return .double(Double(n))
        case 1: return .double(Double(n) + 0.5)
        case 2: return .float(Float(n))
        case 3: return .decimal(Decimal128(Int(n)))
        case 4: return .null
        case 5: return .string("x\(n)")
        default: return .int(n)
        }
    }

    /// Each entry a walk visits, as `key=object`.
    static func entries(_ walk: ((Value, ObjectKey) -> Bool) -> Void) -> [String] {
        var out: [String] = []
        walk { key, object in
            out.append("\(key)=\(object.rawValue)")
            return true
        }
        return out
    }

    static func entries(_ index: PrimaryIndex, _ lower: Bound?, _ upper: Bound?) -> [String] {
        entries { index.forEach(from: lower, to: upper, $0) }
    }

    static func entries(_ model: Model, _ lower: Bound?, _ upper: Bound?) -> [String] {
        entries { model.forEach(from: lower, to: upper, $0) }
    }

    @Test("an int primary key is held typed; look-ups, ranges, changes and merges answer as the Value-keyed tree does")
    func matchesValueKeyedTree() {
        var rng = SeededRandom(seed: 17)
        for round in 0..<40 {
            var index = PrimaryIndex(for: Self.intProperty)
            var model = Model()
            #expect(index.isTyped)
            var nextObject: Int64 = 0
            for _ in 0..<300 {
                switch rng.next() % 6 {
                case 0, 1:
                    let key: Value = rng.next() % 20 == 0 ? .null : .int(Int64(rng.next() % 50) - 10)
                    let object = ObjectKey(nextObject)
                    nextObject += 1
                    #expect(index.updateValue(object, forKey: key) == model.updateValue(object, forKey: key))
                case 2:
                    let key = Self.probe(&rng)
                    let removed = index.remove(key), expected = model.remove(key)
                    #expect(removed?.payload == expected?.payload)
                    #expect(removed.map { "\($0.key)" } == expected.map { "\($0.key)" })
                case 3:
                    // A batch of ascending keys, some already present.
                    var keys = Set<Int64>()
                    for _ in 0..<(rng.next() % 12) { keys.insert(Int64(rng.next() % 80) - 10) }
                    var batch: [PrimaryIndex.Element] = keys.sorted().map { (.int($0), ObjectKey(nextObject + $0 + 100)) }
                    if rng.next() % 8 == 0 { batch.insert((.null, ObjectKey(nextObject + 1_000)), at: 0) }
                    nextObject += 2_000
                    let clash = index.merge(batch), expected = model.merge(batch)
                    #expect(clash.map { "\($0.key)=\($0.payload.rawValue)" } == expected.map { "\($0.key)=\($0.payload.rawValue)" })
                default:
                    let key = Self.probe(&rng)
                    #expect(index[key] == model[key], "look-up of \(key)")
                }
                let lower = rng.next() % 4 == 0 ? nil : Bound(key: Self.probe(&rng), isInclusive: rng.next() % 2 == 0)
                let upper = rng.next() % 4 == 0 ? nil : Bound(key: Self.probe(&rng), isInclusive: rng.next() % 2 == 0)
                #expect(Self.entries(index, lower, upper) == Self.entries(model, lower, upper), "round \(round): \(String(describing: lower)) to \(String(describing: upper))")
                #expect(Self.entries(index, Bound(key: .null, isInclusive: false), upper) == Self.entries(model, Bound(key: .null, isInclusive: false), upper))
            }
            #expect(index.isTyped)
            #expect(index.count == model.count)
            #expect(index.invariantViolation() == nil)
            #expect(index.map { "\($0.key)=\($0.payload.rawValue)" } == model.map { "\($0.key)=\($0.payload.rawValue)" })
        }
    }

    @Test("a value of another kind stored in a typed index turns it into Value keys, losing nothing")
    func otherKindsBecomeValueKeys() {
        var index = PrimaryIndex(for: Self.intProperty)
        index.updateValue(ObjectKey(0), forKey: .null)
        index.merge((1...100).map { (.int(Int64($0)), ObjectKey(Int64($0))) })
        #expect(index.isTyped)
        index.updateValue(ObjectKey(500), forKey: .string("odd"))
        #expect(!index.isTyped)
        #expect(index.count == 102)
        #expect(index[.null] == ObjectKey(0))
        #expect(index[.int(42)] == ObjectKey(42))
        #expect(index[.double(42)] == ObjectKey(42))
        #expect(index[.string("odd")] == ObjectKey(500))
        #expect(index.invariantViolation() == nil)

        // A batch holding a value of another kind does the same.
        var batched = PrimaryIndex(for: Self.intProperty)
        let clash = batched.merge([(.int(1), ObjectKey(1)), (.int(2), ObjectKey(2)), (.string("a"), ObjectKey(3))])
        #expect(clash == nil)
        #expect(!batched.isTyped)
        #expect(batched.map(\.payload) == [ObjectKey(1), ObjectKey(2), ObjectKey(3)])
    }

    @Test("only an int primary key is typed")
    func typedOnlyForIntegers() {
        #expect(PrimaryIndex(for: Property(name: "id", type: .int, isPrimary: true)).isTyped)
        #expect(!PrimaryIndex(for: Property(name: "id", type: .string, isPrimary: true)).isTyped)
        #expect(!PrimaryIndex(for: Property(name: "id", type: .objectId, isPrimary: true)).isTyped)
    }

    @Test("a bulk insert of integer keys finds a duplicate, in order or not")
    func integerBatchFindsDuplicates() {
        var index = PrimaryIndex(for: Self.intProperty)
        let entries = ContiguousArray((0..<1_000).map { (key: Int64($0), payload: ObjectKey(Int64($0))) })
        #expect(index.merge(integers: entries) == nil)
        let again = index.merge(integers: [(key: 2_000, payload: ObjectKey(2_000)), (key: 500, payload: ObjectKey(9))].sorted { $0.key < $1.key }.reduce(into: ContiguousArray()) { $0.append($1) })
        #expect(again?.key == 500 && again?.payload == ObjectKey(9))
        #expect(index.object(forInteger: 500) == ObjectKey(500))
        #expect(index.object(forInteger: 2_000) == ObjectKey(2_000))
        #expect(index.invariantViolation() == nil)
    }
}

/// The direct map of dense integer primary keys beside the tree.
@Suite struct DenseKeysTests {
    /// Every key from `low` to `high` looked up in `index` and in `model`.
    static func agree(_ index: PrimaryIndex, _ model: [Int64: ObjectKey], _ keys: ClosedRange<Int64>) -> Bool {
        keys.allSatisfy { index.object(forInteger: $0) == model[$0] && index[.int($0)] == model[$0] }
    }

    @Test("keys added one by one from an empty index are found through the map while dense; a key past the span or below the base drops it, and the tree answers alone")
    func oneByOne() {
        var index = PrimaryIndex(for: PrimaryIndexTests.intProperty)
        var model: [Int64: ObjectKey] = [:]
        for k in Int64(100)..<10_100 {
            index.updateValue(ObjectKey(k * 3), forKey: .int(k))
            model[k] = ObjectKey(k * 3)
        }
        #expect(index.hasDenseMap && index.invariantViolation() == nil)
        #expect(Self.agree(index, model, 0...10_200))
        // A copy keeps its map while the original changes.
        let copy = index
        index.updateValue(ObjectKey(7), forKey: .int(150))
        #expect(copy.object(forInteger: 150) == ObjectKey(450) && index.object(forInteger: 150) == ObjectKey(7))
        model[150] = ObjectKey(7)
        // A gap within the span is kept; one past it is not.
        index.updateValue(ObjectKey(1), forKey: .int(20_000))
        model[20_000] = ObjectKey(1)
        #expect(index.hasDenseMap && index.invariantViolation() == nil)
        index.updateValue(ObjectKey(2), forKey: .int(1_000_000))
        model[1_000_000] = ObjectKey(2)
        #expect(!index.hasDenseMap && index.invariantViolation() == nil)
        #expect(Self.agree(index, model, 0...20_100) && index.object(forInteger: 1_000_000) == ObjectKey(2))

        var below = PrimaryIndex(for: PrimaryIndexTests.intProperty)
        below.updateValue(ObjectKey(0), forKey: .int(5))
        below.updateValue(ObjectKey(1), forKey: .int(4))
        #expect(!below.hasDenseMap && below.object(forInteger: 4) == ObjectKey(1) && below.object(forInteger: 5) == ObjectKey(0))
    }

    @Test("while dense the map alone holds the keys: counts, replacements, removals, iteration, ranges and the turn into a tree agree with a model")
    func denseOnly() {
        var index = PrimaryIndex(for: PrimaryIndexTests.intProperty)
        var model: [Int64: ObjectKey] = [:]
        var rng = SeededRandom(seed: 0xD0_5E)
        // The least key first: the map's base (it is never removed).
        index.updateValue(ObjectKey(99_999), forKey: .int(49))
        model[49] = ObjectKey(99_999)
        for step in 0..<3_000 {
            let key = Int64(rng.next() % 700) + 50
            if rng.next() % 4 == 0 {
                let removed = index.remove(.int(key))
                #expect(removed?.payload == model.removeValue(forKey: key), "step \(step)")
            } else {
                let payload = ObjectKey(Int64(step))
                #expect(index.updateValue(payload, forKey: .int(key)) == model.updateValue(payload, forKey: key), "step \(step)")
            }
        }
        #expect(index.hasDenseMap && index.invariantViolation() == nil)
        #expect(index.count == model.count)
        #expect(index.map { "\($0.key)=\($0.payload.rawValue)" } == model.sorted { $0.key < $1.key }.map { "\(Value.int($0.key))=\($0.value.rawValue)" })
        var ranged: [Int64] = []
        index.forEach(from: TreeBound(key: .int(100), isInclusive: false), to: TreeBound(key: .int(200), isInclusive: true)) { key, _ in
            if case .int(let n) = key { ranged.append(n) }
            return true
        }
        #expect(ranged == model.keys.filter { $0 > 100 && $0 <= 200 }.sorted())
        // A key far past the span turns the map into the tree, which keeps every entry.
        index.updateValue(ObjectKey(1), forKey: .int(10_000_000))
        model[10_000_000] = ObjectKey(1)
        #expect(!index.hasDenseMap && index.invariantViolation() == nil && index.count == model.count)
        #expect(Self.agree(index, model, 0...800) && index.object(forInteger: 10_000_000) == ObjectKey(1))
    }

    @Test("ranges read from the map give the tree's objects between any bounds, with gaps, at the extremes and up to a limit, also with a null key or a bound of another kind")
    func denseRanges() {
        var index = PrimaryIndex(for: PrimaryIndexTests.intProperty)
        var model = PrimaryIndexTests.Model()
        for k in Int64(10)..<6_000 {
            index.updateValue(ObjectKey(k * 2), forKey: .int(k))
            model.updateValue(ObjectKey(k * 2), forKey: .int(k))
        }
        for k in stride(from: Int64(13), to: 6_000, by: 7) {
            _ = index.remove(.int(k))
            _ = model.remove(.int(k))
        }
        #expect(index.hasDenseMap)
        /// The objects a walk visits, stopping past `limit`.
        func objects(_ walk: ((Value, ObjectKey) -> Bool) -> Void, limit: Int) -> [ObjectKey] {
            var found: [ObjectKey] = []
            walk { _, key in
                found.append(key)
                return found.count <= limit
            }
            return found
        }
        func agree(_ lower: TreeBound<Value>?, _ upper: TreeBound<Value>?, limit: Int) -> Bool {
            objects({ index.forEach(from: lower, to: upper, $0) }, limit: limit) == objects({ model.forEach(from: lower, to: upper, $0) }, limit: limit)
        }
        var rng = SeededRandom(seed: 0xDE45E)
        func bound(_ rng: inout SeededRandom) -> TreeBound<Value>? {
            switch rng.next() % 8 {
            case 0: return nil
            case 1: return TreeBound<Value>(key: .int(rng.next() % 2 == 0 ? .max : .min), isInclusive: rng.next() % 2 == 0)
            default: return TreeBound<Value>(key: .int(Int64(rng.next() % 6_200) - 100), isInclusive: rng.next() % 2 == 0)
            }
        }
        for _ in 0..<2_000 {
            let lower = rng.next() % 10 == 0 ? TreeBound<Value>(key: .null, isInclusive: false) : bound(&rng)
            let upper = bound(&rng)
            let limit = rng.next() % 3 == 0 ? Int(rng.next() % 50) : .max - 1
            #expect(agree(lower, upper, limit: limit), "\(String(describing: lower)) \(String(describing: upper)) \(limit)")
        }
        #expect(agree(TreeBound<Value>(key: .double(3.5), isInclusive: true), nil, limit: 10))
        index.updateValue(ObjectKey(1), forKey: .null)
        model.updateValue(ObjectKey(1), forKey: .null)
        #expect(index.hasDenseMap && agree(nil, TreeBound<Value>(key: .int(20), isInclusive: true), limit: 100))
        #expect(objects({ index.forEach(from: TreeBound<Value>(key: .int(10), isInclusive: true), to: TreeBound<Value>(key: .int(12), isInclusive: true), $0) }, limit: 100)
            == [ObjectKey(20), ObjectKey(22), ObjectKey(24)])
    }

    @Test("a bulk merge into an empty index makes the map, later merges extend it, a clash or a sparse batch drops it; removals that leave it sparse drop it")
    func merges() {
        var index = PrimaryIndex(for: PrimaryIndexTests.intProperty)
        var model: [Int64: ObjectKey] = [:]
        func merge(_ keys: [Int64]) -> (key: Int64, payload: ObjectKey)? {
            let batch = ContiguousArray(keys.map { (key: $0, payload: ObjectKey($0 + 1_000_000)) })
            let clash = index.merge(integers: batch)
            for k in keys where model[k] == nil { model[k] = ObjectKey(k + 1_000_000) }
            return clash
        }
        #expect(merge(Array(0..<5_000).map { Int64($0) * 2 }) == nil)
        #expect(index.hasDenseMap)
        #expect(merge(Array(10_000..<14_000)) == nil)
        #expect(index.hasDenseMap && index.invariantViolation() == nil)
        #expect(Self.agree(index, model, -5...14_005))
        // Removing most keys leaves the map too sparse.
        for k in Int64(0)..<14_000 where k % 50 != 0 {
            index.remove(.int(k))
            model[k] = nil
        }
        #expect(!index.hasDenseMap && index.invariantViolation() == nil)
        #expect(Self.agree(index, model, -5...14_005))

        var clashing = PrimaryIndex(for: PrimaryIndexTests.intProperty)
        _ = clashing.merge(integers: [(key: 1, payload: ObjectKey(1)), (key: 2, payload: ObjectKey(2))])
        #expect(clashing.hasDenseMap)
        let clash = clashing.merge(integers: [(key: 2, payload: ObjectKey(9)), (key: 3, payload: ObjectKey(3))])
        #expect(clash?.key == 2 && !clashing.hasDenseMap)
        #expect(clashing.object(forInteger: 2) == ObjectKey(2) && clashing.object(forInteger: 3) == ObjectKey(3))

        var sparse = PrimaryIndex(for: PrimaryIndexTests.intProperty)
        _ = sparse.merge(integers: ContiguousArray((0..<100).map { (key: Int64($0) * 1_000, payload: ObjectKey(Int64($0))) }))
        #expect(!sparse.hasDenseMap && sparse.object(forInteger: 5_000) == ObjectKey(5))
        // Extremes: no overflow in the span or the look-up.
        var extremes = PrimaryIndex(for: PrimaryIndexTests.intProperty)
        extremes.updateValue(ObjectKey(0), forKey: .int(.min))
        extremes.updateValue(ObjectKey(1), forKey: .int(.max))
        #expect(!extremes.hasDenseMap && extremes.object(forInteger: .max) == ObjectKey(1) && extremes.object(forInteger: .min) == ObjectKey(0))
        #expect(extremes.object(forInteger: 0) == nil)
    }
}

extension DenseKeysTests {
    @Test("the map gives way to Value keys, leaves the null key beside it, and is made again once the index is empty")
    func otherKeys() {
        var index = PrimaryIndex(for: PrimaryIndexTests.intProperty)
        for k in Int64(0)..<100 { index.updateValue(ObjectKey(k), forKey: .int(k)) }
        index.updateValue(ObjectKey(500), forKey: .null)
        #expect(index.hasDenseMap && index[.null] == ObjectKey(500) && index[.double(7)] == ObjectKey(7) && index[.double(7.5)] == nil)
        #expect(index[.string("7")] == nil && index.invariantViolation() == nil)
        for k in Int64(0)..<100 { index.remove(.int(k)) }
        #expect(index.object(forInteger: 5) == nil && index.invariantViolation() == nil)
        index.updateValue(ObjectKey(9), forKey: .int(1_000))
        #expect(index.hasDenseMap && index.object(forInteger: 1_000) == ObjectKey(9) && index[.null] == ObjectKey(500))
        index.updateValue(ObjectKey(10), forKey: .string("x"))
        #expect(!index.isTyped && !index.hasDenseMap && index[.int(1_000)] == ObjectKey(9) && index[.string("x")] == ObjectKey(10))
        #expect(index.invariantViolation() == nil)
    }
}

extension DenseKeysTests {
    @Test("a map extended by runs of objects whose ids continue holds them as a run: look-ups, ranges across its end, changes and removals inside it, and later slots agree with a model")
    func runOfObjects() {
        var map = DenseKeys(base: 1_000)
        var model: [Int64: ObjectKey] = [:]
        // Objects 50..<5_050 with ids 1_000..<6_000, in two inputs: one run.
        for (slots, ids) in [(50..<3_050, Int64(1_000)..<4_000), (3_050..<5_050, 4_000..<6_000)] {
            let extended = map.extend(keys: InputKeys(run: slots), integers: ContiguousArray(ids))
            #expect(extended)
            for (slot, id) in zip(slots, ids) { model[id] = ObjectKey(Int64(slot)) }
        }
        // Ids that go on but objects that do not (a gap in the slots): slots after the run.
        let after = map.extend(keys: InputKeys(run: 6_000..<6_100), integers: ContiguousArray(6_000..<6_100))
        #expect(after)
        for (slot, id) in zip(6_000..<6_100, Int64(6_000)..<6_100) { model[id] = ObjectKey(Int64(slot)) }
        // A list of keys, with a gap in the ids.
        let listed = (7_000..<7_050).map { ObjectKey(Int64($0)) }
        let gapped = map.extend(keys: InputKeys(listed), integers: ContiguousArray((0..<50).map { 6_200 + 2 * Int64($0) }))
        #expect(gapped)
        for (j, key) in listed.enumerated() { model[6_200 + 2 * Int64(j)] = key }

        func check(_ when: String) {
            #expect(map.held == model.count, "\(when)")
            #expect((900...6_400).allSatisfy { map.object(Int64($0)) == model[Int64($0)] }, "\(when)")
            var entries: [(Int64, ObjectKey)] = []
            map.forEachEntry(from: TreeBound(key: 3_990, isInclusive: false), to: TreeBound(key: 6_010, isInclusive: true)) { key, object in
                entries.append((key, object))
                return true
            }
            let expected = model.filter { $0.key > 3_990 && $0.key <= 6_010 }.sorted { $0.key < $1.key }
            #expect(entries.map(\.0) == expected.map(\.key) && entries.map(\.1) == expected.map(\.value), "\(when)")
            var stopped = 0
            map.forEachEntry(from: nil, to: nil) { _, _ in
                stopped += 1
                return stopped < 10
            }
            #expect(stopped == 10, "\(when)")
        }
        check("with the run")
        // A removal after the run leaves it whole.
        let cleared = map.clear(6_050)
        #expect(cleared)
        model[6_050] = nil
        check("cleared after the run")

        // A change inside the run writes it out; a copy keeps its own.
        let copy = map
        let set = map.set(2_500, ObjectKey(99_999), keys: map.held)
        #expect(set)
        model[2_500] = ObjectKey(99_999)
        let kept = map.clear(1_500)
        #expect(kept)
        model[1_500] = nil
        check("written out")
        #expect(copy.object(2_500) == ObjectKey(1_550) && copy.object(1_500) == ObjectKey(550) && copy.held == model.count + 1)

        // A run that does not continue the ids' slots is refused, and changes nothing.
        var refused = DenseKeys(base: 0)
        let first = refused.extend(keys: InputKeys(run: 0..<10), integers: ContiguousArray(0..<10))
        let second = refused.extend(keys: InputKeys(run: 10..<20), integers: ContiguousArray(5..<15))
        #expect(first && !second)
        #expect(refused.held == 10 && refused.object(9) == ObjectKey(9) && refused.object(10) == nil)
    }

    @Test("ids counting up, given without their values (as read on a table's leaves), extend a map exactly as the same ids written out do, and are refused where those are")
    func consecutiveInputs() {
        // (slots or keys, first id, count): runs that continue, a gap in the
        // slots, a gap in the ids, keys listed, ids below the base or inside
        // the map, and a span past the map's limit.
        let inputs: [(InputKeys, Int64, Int)] = [
            (InputKeys(run: 0..<4_096), 100, 4_096),
            (InputKeys(run: 4_096..<5_000), 4_196, 904),
            (InputKeys(run: 6_000..<6_010), 5_100, 10),
            (InputKeys(run: 6_010..<6_020), 5_200, 10),
            (InputKeys((7_000..<7_005).map { ObjectKey(Int64($0 * 2)) }), 5_210, 5),
            (InputKeys(run: 8_000..<8_010), 50, 10),
            (InputKeys(run: 8_010..<8_020), 3_000, 10),
            (InputKeys(run: 9_000..<9_100), 1_000_000, 100),
            (InputKeys(run: 9_100..<9_100), 5_215, 0),
        ]
        var counted = DenseKeys(base: 100), written = DenseKeys(base: 100)
        var refusals = 0
        for (n, (keys, first, count)) in inputs.enumerated() {
            var (c, w) = (counted, written)
            let takenCounted = c.extend(keys: keys, integers: .consecutive(from: first, count: count))
            let takenWritten = w.extend(keys: keys, integers: .array(ContiguousArray(first..<first + Int64(count))))
            #expect(takenCounted == takenWritten, "input \(n)")
            #expect(c.held == w.held && c.span == w.span, "input \(n)")
            #expect((0...12_000).allSatisfy { c.object(Int64($0)) == w.object(Int64($0)) }, "input \(n)")
            // A refused input is dropped, as ``IndexBuild`` drops the map.
            if takenCounted { (counted, written) = (c, w) } else { refusals += 1 }
        }
        // Below the base, inside the map, and past its limit.
        #expect(refusals == 3)
        #expect(counted.held == 4_096 + 904 + 10 + 10 + 5)

        // Ids ending at Int64.max, written out without passing it.
        let last = InputIntegers.consecutive(from: Int64.max - 9, count: 10)
        #expect(Array(last.array) == (0..<10).map { Int64.max - 9 + Int64($0) })
        var high = DenseKeys(base: Int64.max - 9)
        let taken = high.extend(keys: InputKeys(run: 0..<10), integers: last)
        #expect(taken && high.held == 10 && high.object(.max) == ObjectKey(9) && high.object(Int64.max - 9) == ObjectKey(0))
    }

    @Test("an index that adopts a map holding a run iterates, counts and turns into a tree with every key")
    func adoptedRun() {
        var map = DenseKeys(base: 0)
        let extended = map.extend(keys: InputKeys(run: 0..<20_000), integers: ContiguousArray(0..<20_000))
        #expect(extended)
        var index = PrimaryIndex(for: PrimaryIndexTests.intProperty)
        index.adopt(map)
        #expect(index.count == 20_000 && index.invariantViolation() == nil)
        #expect(index.map(\.1) == (0..<20_000).map { ObjectKey(Int64($0)) })
        // A key far past the span makes the index a tree, with every key.
        index.updateValue(ObjectKey(20_000), forKey: .int(10_000_000))
        #expect(!index.hasDenseMap && index.count == 20_001 && index.invariantViolation() == nil)
        #expect(index.object(forInteger: 12_345) == ObjectKey(12_345) && index.object(forInteger: 10_000_000) == ObjectKey(20_000))
    }
}

extension DenseKeysTests {
    @Test("the objects of a range of keys within the map's run are its consecutive object keys, as iterating gives them; a range past the run, a null key before it or a bound of another kind is left to iterating", arguments: [false, true])
    func consecutiveObjects(withNull: Bool) {
        // Ids 100..<5_100 on objects 7..<5_007 (the run), then ids
        // 5_100..<5_200 on objects 6_000..<6_100 (after it).
        var map = DenseKeys(base: 100)
        let run = map.extend(keys: InputKeys(run: 7..<5_007), integers: ContiguousArray(100..<5_100))
        let after = map.extend(keys: InputKeys(run: 6_000..<6_100), integers: ContiguousArray(5_100..<5_200))
        #expect(run && after)
        var index = PrimaryIndex(for: PrimaryIndexTests.intProperty)
        index.adopt(map)
        if withNull { index.updateValue(ObjectKey(9_000), forKey: .null) }
        #expect(index.hasDenseMap)
        typealias Bound = PrimaryIndexTests.Bound
        func bound(_ key: Int64?, _ inclusive: Bool) -> Bound? { key.map { Bound(key: .int($0), isInclusive: inclusive) } }
        var fast = 0
        for low in [nil, 0, 99, 100, 101, 2_500, 5_099, 5_100, 9_999] as [Int64?] {
            for high in [nil, 50, 100, 2_500, 5_098, 5_099, 5_100, 5_300] as [Int64?] {
                for (lowInclusive, highInclusive) in [(true, true), (false, false), (true, false)] {
                    let (lower, upper) = (bound(low, lowInclusive), bound(high, highInclusive))
                    var walked: [ObjectKey] = []
                    index.forEach(from: lower, to: upper) { _, object in
                        walked.append(object)
                        return true
                    }
                    let context = "\(String(describing: low)) \(lowInclusive) ... \(String(describing: high)) \(highInclusive)"
                    guard let objects = index.consecutiveObjects(from: lower, to: upper) else {
                        // Left to iterating only where the walk leaves the run or meets the null key.
                        #expect(walked.contains { $0.rawValue >= 5_007 } || (withNull && lower == nil), "\(context)")
                        continue
                    }
                    fast += 1
                    #expect(objects.map(ObjectKey.init) == walked, "\(context)")
                }
            }
        }
        #expect(fast > 40)
        // The bound after nulls, and a bound of another kind.
        let afterNulls = Bound(key: .null, isInclusive: false)
        #expect(index.consecutiveObjects(from: afterNulls, to: bound(104, true)) == 7..<12)
        #expect(index.consecutiveObjects(from: Bound(key: .string("a"), isInclusive: true), to: nil) == nil)
    }

    @Test("ids counted up with the objects, inserted one by one, make the map's run; an insert that does not continue it goes after it")
    func runFromSingleInserts() {
        var index = PrimaryIndex(for: PrimaryIndexTests.intProperty)
        for i in 0..<5_000 { index.updateValue(ObjectKey(Int64(i)), forKey: .int(100 + Int64(i))) }
        #expect(index.hasDenseMap && index.count == 5_000 && index.invariantViolation() == nil)
        typealias Bound = PrimaryIndexTests.Bound
        let (low, high) = (Bound(key: .int(200), isInclusive: true), Bound(key: .int(300), isInclusive: true))
        #expect(index.consecutiveObjects(from: low, to: high) == 100..<201)
        // The next id on an object that does not come next: after the run.
        index.updateValue(ObjectKey(9_999), forKey: .int(5_100))
        #expect(index.object(forInteger: 5_100) == ObjectKey(9_999) && index.object(forInteger: 5_099) == ObjectKey(4_999))
        #expect(index.consecutiveObjects(from: low, to: nil) == nil && index.consecutiveObjects(from: low, to: high) == 100..<201)
        #expect(index.count == 5_001 && index.invariantViolation() == nil)
    }

    @Test("random replacements, inserts past the end and removals on an index whose map began as a run agree with a model, first with the run whole", arguments: [1, 2, 3])
    func randomChangesOverARun(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        var map = DenseKeys(base: 500)
        let extended = map.extend(keys: InputKeys(run: 0..<3_000), integers: ContiguousArray(500..<3_500))
        #expect(extended)
        var index = PrimaryIndex(for: PrimaryIndexTests.intProperty)
        index.adopt(map)
        var model = Dictionary(uniqueKeysWithValues: (0..<3_000).map { (Int64(500 + $0), ObjectKey(Int64($0))) })
        var next = Int64(3_000)
        for step in 0..<600 {
            // First past the run only (it stays whole), then anywhere.
            let key = Int64.random(in: step < 200 ? 3_500..<4_000 : 400..<4_000, using: &rng)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0:
                #expect(index.remove(.int(key))?.1 == model.removeValue(forKey: key), "step \(step): remove \(key)")
            case 1:
                #expect(index.updateValue(ObjectKey(next), forKey: .int(key)) == model.updateValue(ObjectKey(next), forKey: key), "step \(step): set \(key)")
                next += 1
            default:
                // The next id past the end, as a live insert makes it.
                let id = (model.keys.max() ?? 499) + 1
                #expect(index.updateValue(ObjectKey(next), forKey: .int(id)) == nil)
                model[id] = ObjectKey(next)
                next += 1
            }
            if step % 50 == 0 {
                #expect(index.invariantViolation() == nil, "step \(step)")
                #expect(Self.agree(index, model, 400...4_100), "step \(step)")
            }
        }
        #expect(index.count == model.count && index.invariantViolation() == nil)
        #expect(Self.agree(index, model, 400...4_100))
        #expect(index.map(\.0) == model.keys.sorted().map { Value.int($0) })
    }
}
