import ShoalTestSupport
import Testing

@testable import Shoal

@Suite struct IntChunksTests {
    static let width = IntChunks.width

    /// A value from a range chosen at random: one value, a byte's span, two
    /// bytes', four bytes', or any 64 bits (the extremes included).
    static func value(_ rng: inout SeededRandom, spread: Int) -> Int64 {
        switch spread {
        case 0: 7
        case 1: 1_000 + Int64.random(in: 0...255, using: &rng)
        case 2: -5_000 + Int64.random(in: 0...65_535, using: &rng)
        case 3: Int64(Int32.min) + Int64.random(in: 0...Int64(UInt32.max), using: &rng)
        default: [Int64.min, Int64.max, -1, 0].randomElement(using: &rng)! &+ Int64.random(in: -3...3, using: &rng)
        }
    }

    func check(_ chunks: IntChunks, _ model: [Int64], _ context: String) {
        #expect(chunks.count == model.count, "\(context)")
        #expect(Array(chunks) == model, "\(context)")
        var scanned: [Int64] = []
        chunks.forEachLeaf { base, leaf in
            #expect(base == scanned.count)
            scanned += leaf
        }
        #expect(scanned == model, "\(context)")
        // Ranges within and across leaves, stopped early or not.
        if !model.isEmpty {
            for (first, last) in [(0, model.count - 1), (model.count / 3, model.count / 3 + Self.width + 5), (model.count - 1, model.count - 1)] {
                let last = min(last, model.count - 1)
                var read: [Int64] = []
                chunks.forEach(from: first, through: last) { read.append($0); return true }
                #expect(read == Array(model[first...last]), "\(context) \(first)...\(last)")
                var stopped: [Int64] = []
                chunks.forEach(from: first, through: last) { stopped.append($0); return stopped.count < 3 }
                #expect(stopped == Array(model[first...last].prefix(3)), "\(context) \(first)...\(last), stopped")
                let copied = [Int64](unsafeUninitializedCapacity: last - first + 1) { out, made in
                    chunks.copyValues(first..<(last + 1), to: out.baseAddress!)
                    made = last - first + 1
                }
                #expect(copied == Array(model[first...last]), "\(context) \(first)...\(last), copied")
                // Counted in place, by a test the values pass at random.
                let pivot = model[(first + last) / 2]
                #expect(chunks.count(from: first, through: last) { $0 < pivot } == model[first...last].count { $0 < pivot }, "\(context) \(first)...\(last), counted")
                #expect(chunks.count(from: first, through: last) { _ in true } == last - first + 1, "\(context) \(first)...\(last), counted all")
            }
        }
        if !model.isEmpty {
            let i = model.count / 2
            let (base, leaf) = chunks.chunk(containing: i)
            #expect(base == i & ~IntChunks.mask && leaf[i - base] == model[i], "\(context)")
        }
        // Every leaf but the last is full, and only full leaves are packed.
        for (n, leaf) in chunks.leaves.enumerated() {
            #expect(leaf.count == (n == chunks.leaves.count - 1 ? model.count - n * Self.width : Self.width), "\(context)")
            #expect(leaf.width == 8 || leaf.count == Self.width, "\(context)")
        }
        // Each leaf's runs of equal values, found on the values as stored.
        for (n, leaf) in chunks.leaves.enumerated() {
            let values = model[(n * Self.width)..<(n * Self.width + leaf.count)]
            var starts = [Int32](repeating: -1, count: Self.width)
            var runValues = [Int64](repeating: -1, count: Self.width)
            let runs = starts.withUnsafeMutableBufferPointer { starts in
                runValues.withUnsafeMutableBufferPointer { leaf.runStarts(into: starts.baseAddress!, values: $0.baseAddress!) }
            }
            let expected = values.indices.filter { $0 == values.startIndex || values[$0] != values[$0 - 1] }.map { Int32($0 - values.startIndex) }
            #expect(Array(starts.prefix(runs)) == expected, "\(context) leaf \(n)'s runs")
            #expect(Array(runValues.prefix(runs)) == expected.map { values[values.startIndex + Int($0)] }, "\(context) leaf \(n)'s run values")
        }
        if !model.isEmpty {
            // Counted equal to values held, and to one perhaps not.
            for v in [model[0], model[model.count / 2], model[model.count - 1], model[model.count / 2] &+ 1] {
                #expect(chunks.count(equalTo: v) == model.count { $0 == v }, "\(context) count of \(v)")
            }
            for range in [(model.count / 3)..<model.count, 0..<1, (model.count - 1)..<model.count] {
                // The range's leaves, shared, read back.
                let (part, within) = chunks.sharing(range)
                #expect(Array(Array(part)[within]) == Array(model[range]), "\(context) \(range) shared")
                // Consecutive or not, as the values are.
                let consecutive = zip(model[range], model[range].dropFirst()).allSatisfy { $1 == $0 &+ 1 }
                #expect(chunks.consecutiveFirst(range) == (consecutive ? model[range.lowerBound] : nil), "\(context) \(range) consecutive")
            }
        }
    }

    @Test("random appends, whole leaves, repeats and writes of every span read back as an array of the same values does", arguments: [1, 2, 3, 4])
    func randomModel(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        var chunks = IntChunks()
        var model: [Int64] = []
        for step in 0..<60 {
            let spread = Int.random(in: 0...4, using: &rng)
            switch Int.random(in: 0...5, using: &rng) {
            case 0:
                let v = Self.value(&rng, spread: spread)
                chunks.append(v)
                model.append(v)
            case 1:
                let values = (0..<Int.random(in: 1...(2 * Self.width), using: &rng)).map { _ in Self.value(&rng, spread: spread) }
                chunks.append(contentsOf: values)
                model += values
            case 2:
                let values = ContiguousArray((0..<(Bool.random(using: &rng) ? Self.width : 100)).map { _ in Self.value(&rng, spread: spread) })
                chunks.append(leaf: values)
                model += values
            case 3:
                let v = Self.value(&rng, spread: spread), n = Int.random(in: 0...(2 * Self.width), using: &rng)
                chunks.append(repeating: v, count: n)
                model += repeatElement(v, count: n)
            case 4:
                var other = IntChunks()
                let values = (0..<Int.random(in: 0...(2 * Self.width), using: &rng)).map { _ in Self.value(&rng, spread: spread) }
                other.append(contentsOf: values)
                chunks.append(contentsOf: other)
                model += values
            default:
                // Writes, which fit their packed leaf or widen it; a copy
                // taken first keeps the old values.
                guard !model.isEmpty else { continue }
                let copy = chunks, copied = model
                for _ in 0..<20 {
                    let i = Int.random(in: 0..<model.count, using: &rng)
                    let v = Bool.random(using: &rng) ? model[Int.random(in: 0..<model.count, using: &rng)] : Self.value(&rng, spread: spread)
                    chunks[i] = v
                    model[i] = v
                }
                check(copy, copied, "copy at step \(step)")
            }
            check(chunks, model, "seed \(seed) step \(step)")
        }
    }

    @Test("runs of equal values are found in leaves of every width, at and across each 64-byte block's edges, and where only a value's high byte differs", arguments: [1, 2, 4, 8])
    func runStartsAtBlockEdges(width: Int) {
        var rng = SeededRandom(seed: UInt64(width))
        /// A value of the leaf's width: its span from 0 needs `width` bytes.
        let top: Int64 = width == 8 ? Int64.max : (Int64(1) << (8 * width)) - 1
        for pattern in 0..<4 {
            var values: [Int64] = []
            switch pattern {
            case 0:
                // Runs of 1 to 70 values, of random values.
                while values.count < Self.width {
                    let v = Int64.random(in: 0...top, using: &rng)
                    values += repeatElement(v, count: Swift.min(Int.random(in: 1...70, using: &rng), Self.width - values.count))
                }
            case 1:
                // One value apart at each position near a block's edge.
                values = Array(repeating: 0, count: Self.width)
                for p in [1, 2, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 127, 128, 129, 4_094, 4_095] { values[p] = top }
            case 2:
                // Values that differ only in their highest byte.
                values = (0..<Self.width).map { $0 / 5 % 2 == 0 ? 0 : width == 8 ? Int64(1) << 56 : Int64(1) << (8 * (width - 1)) }
            default:
                // Every value its own run.
                values = (0..<Self.width).map { Int64($0 % 2) * top }
            }
            values[0] = 0
            values[1] = top  // the span that gives the leaf its width
            let leaf = values.withUnsafeBufferPointer { IntChunks.Leaf(packing: $0) }
            #expect(leaf.width == width, "pattern \(pattern)")
            var starts = [Int32](repeating: -1, count: Self.width)
            var runValues = [Int64](repeating: -1, count: Self.width)
            let runs = starts.withUnsafeMutableBufferPointer { starts in
                runValues.withUnsafeMutableBufferPointer { leaf.runStarts(into: starts.baseAddress!, values: $0.baseAddress!) }
            }
            let expected = values.indices.filter { $0 == 0 || values[$0] != values[$0 - 1] }.map { Int32($0) }
            #expect(Array(starts.prefix(runs)) == expected, "width \(width), pattern \(pattern)")
            #expect(Array(runValues.prefix(runs)) == expected.map { values[Int($0)] }, "width \(width), pattern \(pattern)")
        }
    }

    @Test("a packed leaf whose bytes lie at an odd address (a slice of a loaded snapshot's bytes) reads, counts, scans and writes as an aligned one does", arguments: [1, 2, 4])
    func unalignedLeaves(width: Int) {
        let count = 131  // past two 64-byte blocks at every width
        let base: Int64 = -3
        let span = width == 1 ? 250 : 60_000
        let values: [Int64] = (0..<count).map { i -> Int64 in
            let offset = (i / 3 * 7 + (i == 5 ? 1 : 0)) % span
            return base + Int64(offset)
        }
        var bytes: [UInt8] = [0xAA]
        for v in values {
            let offset = UInt64(v - base)
            for b in 0..<width { bytes.append(UInt8(truncatingIfNeeded: offset >> (8 * UInt64(b)))) }
        }
        let slice = bytes[1...]
        #expect(slice.withUnsafeBytes { Int(bitPattern: $0.baseAddress) } % 2 == 1 || width == 1)
        var leaf = IntChunks.Leaf(packed: slice, width: width, base: base, count: count)
        #expect((0..<count).allSatisfy { leaf.value($0) == values[$0] })
        var seen: [Int64] = []
        #expect(leaf.forEach(from: 2, through: count - 1) { seen.append($0); return true })
        #expect(seen == Array(values[2...]))
        #expect(leaf.bounds! == (values.min()!, values.max()!))
        #expect(leaf.count(equalTo: values[9]) == values.count { $0 == values[9] })
        #expect(leaf.negativeLeast == values.min()!)
        #expect(leaf.countsUp(0..<1, from: values[0]) && !leaf.countsUp(0..<3, from: values[0]))
        var copied = [Int64](repeating: 0, count: count - 1)
        copied.withUnsafeMutableBufferPointer { leaf.copyValues(1..<count, to: $0.baseAddress!) }
        #expect(copied == Array(values[1...]))
        var scratch = ContiguousArray<Int64>()
        #expect(leaf.withValues(scratch: &scratch) { Array($0) } == values)
        var starts = [Int32](repeating: -1, count: count)
        var runValues = [Int64](repeating: -1, count: count)
        let runs = starts.withUnsafeMutableBufferPointer { starts in
            runValues.withUnsafeMutableBufferPointer { leaf.runStarts(into: starts.baseAddress!, values: $0.baseAddress!) }
        }
        let expected = values.indices.filter { $0 == 0 || values[$0] != values[$0 - 1] }.map { Int32($0) }
        #expect(Array(starts.prefix(runs)) == expected && Array(runValues.prefix(runs)) == expected.map { values[Int($0)] })
        // A write lands in the leaf's own copy; the bytes it was read from keep theirs.
        leaf.set(7, base + 1)
        #expect(leaf.value(7) == base + 1 && leaf.value(8) == values[8])
        #expect(bytes[1...] == slice && IntChunks.Leaf(packed: slice, width: width, base: base, count: count).value(7) == values[7])
    }

    @Test("values counting up by one are found consecutive across packed and open leaves, to Int64's end; a gap, a repeat or a descent anywhere is not")
    func consecutive() {
        let n = Self.width
        for first in [Int64(-5), 1, 1 << 40, Int64.max - Int64(3 * n + 9)] {
            let values = (0..<(3 * n + 10)).map { first + Int64($0) }
            var chunks = IntChunks()
            chunks.append(contentsOf: values)
            #expect(chunks.leaves.map(\.width) == [2, 2, 2, 8])
            for range in [0..<values.count, 7..<(n + 3), n..<(2 * n), (3 * n - 1)..<(3 * n + 4), 5..<6] {
                #expect(chunks.consecutiveFirst(range) == values[range.lowerBound], "\(first) \(range)")
            }
            // Broken in a packed leaf, at a leaf's end, in the open leaf.
            for (i, v) in [(n / 2, first), (n, first + Int64(n) + 1), (3 * n + 5, first + Int64(3 * n + 4)), (2 * n - 1, first + Int64(2 * n))] {
                var broken = chunks
                broken[i] = v
                #expect(broken.consecutiveFirst(0..<values.count) == nil, "\(first) broken at \(i)")
                #expect(broken.consecutiveFirst((i + 1)..<values.count) == values[i + 1], "\(first) after \(i)")
            }
        }
        // Counting on past Int64.max wraps to Int64.min: not consecutive,
        // in an open leaf or from a packed leaf ending at Int64.max to the next.
        var wrapping = IntChunks()
        wrapping.append(contentsOf: [Int64.max - 1, .max, .min, .min + 1])
        #expect(wrapping.consecutiveFirst(0..<4) == nil && wrapping.consecutiveFirst(0..<2) == Int64.max - 1)
        var acrossLeaves = IntChunks()
        acrossLeaves.append(contentsOf: (0..<n).map { Int64.max - Int64(n - 1) + Int64($0) })
        acrossLeaves.append(contentsOf: [Int64.min, .min + 1])
        #expect(acrossLeaves.leaves[0].width == 2)
        #expect(acrossLeaves.consecutiveFirst(0..<(n + 2)) == nil && acrossLeaves.consecutiveFirst(0..<n) == Int64.max - Int64(n - 1))
        // Repeated values (a leaf of one value) and descending ones.
        var repeated = IntChunks()
        repeated.append(repeating: 4, count: 2 * n)
        #expect(repeated.consecutiveFirst(0..<(2 * n)) == nil && repeated.consecutiveFirst(3..<4) == 4)
        var descending = IntChunks()
        descending.append(contentsOf: (0..<(n + 5)).map { Int64(n + 5 - $0) })
        #expect(descending.consecutiveFirst(0..<(n + 5)) == nil)
        // Offsets compared in their own width: counting on past the
        // width's largest offset (255 to 0 in a one-byte leaf) is a break,
        // not a wrap.
        var sawtooth = IntChunks()
        sawtooth.append(contentsOf: (0..<(2 * n)).map { Int64(1000 + $0 % 256) })
        #expect(sawtooth.leaves[0].width == 1)
        #expect(sawtooth.consecutiveFirst(250..<260) == nil && sawtooth.consecutiveFirst(250..<256) == 1250)
        #expect(sawtooth.consecutiveFirst(0..<256) == 1000 && sawtooth.consecutiveFirst(0..<257) == nil)
    }

    @Test("a full leaf takes the fewest bytes its values' span needs; a leaf of one value, none; the last leaf is kept as it is")
    func packedWidths() {
        func stored(_ values: [Int64]) -> Int {
            var chunks = IntChunks()
            chunks.append(contentsOf: values)
            return chunks.storedBytes
        }
        let n = Self.width
        #expect(stored((0..<n).map { _ in 42 }) == 0)
        #expect(stored((0..<n).map { Int64($0 % 16) }) == n)
        #expect(stored((0..<n).map { 1_000_000 + Int64($0) }) == 2 * n)
        #expect(stored((0..<n).map { Int64($0) << 20 }) == 4 * n)
        #expect(stored((0..<n).map { Int64($0) << 40 }) == 8 * n)
        #expect(stored([Int64.min] + (1..<n).map { _ in Int64.max }) == 8 * n)
        // One more value: a second, open leaf of 8 bytes a value.
        #expect(stored((0...n).map { Int64($0 % 16) }) == n + 8)
        var repeated = IntChunks()
        repeated.append(repeating: -1, count: 3 * n)
        #expect(repeated.storedBytes == 0 && Array(repeated) == Array(repeating: -1, count: 3 * n))
    }
}
