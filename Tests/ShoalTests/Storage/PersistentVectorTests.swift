import ShoalTestSupport
import Testing
@testable import Shoal

@Suite struct PersistentVectorTests {
    @Test("appending and reading back keeps every element in order across trie levels", arguments: [0, 1, 63, 64, 65, 4096, 4097, 300_000])
    func appendAndRead(count: Int) {
        var vector = PersistentVector<Int>()
        for i in 0..<count { vector.append(i * 3) }
        #expect(vector.count == count)
        #expect(Array(vector) == (0..<count).map { $0 * 3 })
        var chunked: [Int] = []
        vector.forEachChunk { base, chunk in
            #expect(base == chunked.count)
            chunked += chunk
        }
        #expect(chunked == Array(vector))
    }

    @Test("a copy is unaffected by later writes to the original, and vice versa")
    func copyOnWrite() {
        var original = PersistentVector(0..<10_000)
        let copy = original
        original[5000] = -1
        original.append(10_000)
        original.modify(0) { $0 = -2 }
        #expect(copy[5000] == 5000)
        #expect(copy[0] == 0)
        #expect(copy.count == 10_000)
        #expect(original[5000] == -1)
        #expect(original[0] == -2)
        #expect(original.count == 10_001)
        var second = copy
        second[1] = 42
        #expect(copy[1] == 1)
        #expect(second[1] == 42)
    }

    @Test("random appends and writes, in the tail and in the trie, match an array; every kept copy stays as it was")
    func randomAgainstArray() {
        var rng = SeededRandom(seed: 0x7A11)
        var vector = PersistentVector<Int>()
        var model: [Int] = []
        var kept: [(PersistentVector<Int>, [Int])] = []
        for step in 0..<40_000 {
            switch rng.next() % 8 {
            case 0..<5:
                vector.append(step)
                model.append(step)
            case 5, 6:
                guard !model.isEmpty else { continue }
                // Half the writes land in the last 64 elements (the tail).
                let near = rng.next() % 2 == 0
                let i = near ? max(0, model.count - 1 - Int(rng.next() % 64)) : Int(rng.next() % UInt64(model.count))
                vector[i] = -step
                model[i] = -step
            default:
                if rng.next() % 80 == 0, kept.count < 64 { kept.append((vector, model)) }
            }
        }
        #expect(Array(vector) == model)
        var chunked: [Int] = []
        vector.forEachChunk { _, chunk in chunked += chunk }
        #expect(chunked == model)
        #expect(kept.count > 30)
        for (copy, expected) in kept { #expect(Array(copy) == expected) }
    }

    @Test("appending a contiguous array a leaf at a time matches appending one by one, from any tail length, and leaves copies alone",
        arguments: [0, 1, 63, 64, 65, 200], [0, 1, 63, 64, 65, 128, 129, 4097])
    func appendContiguous(start: Int, added: Int) {
        var vector = PersistentVector(0..<start)
        let copy = vector
        vector.append(contentsOf: ContiguousArray(start..<start + added))
        #expect(Array(vector) == Array(0..<start + added))
        #expect(Array(copy) == Array(0..<start))
        // Appending element by element after the bulk append still works.
        vector.append(-1)
        #expect(vector.count == start + added + 1 && vector[start + added] == -1)
    }

    @Test("a run column's pieces become leaves at a leaf boundary and are copied elsewhere; the vector and the run never see each other's later writes",
        arguments: [0, 1, 63, 64, 65, 200], [1, 63, 64, 65, 128, 129, 4097])
    func appendLeaves(start: Int, added: Int) {
        var vector = PersistentVector((0..<start).map { Value.int(Int64($0)) })
        let copy = vector
        var run = RunColumn((start..<start + added).map { Value.int(Int64($0)) })
        #expect(run.leaves.allSatisfy { $0.count <= PersistentVector<Value>.width } && run.leaves.count == (added + 63) / 64)
        vector.append(leaves: run.leaves)
        let expected = (0..<start + added).map { Value.int(Int64($0)) }
        #expect(Array(vector) == expected)
        #expect(Array(copy) == Array(expected.prefix(start)))
        var chunked: [Value] = []
        vector.forEachChunk { base, chunk in
            #expect(base == chunked.count && (chunk.count == 64 || base + chunk.count == vector.count))
            chunked += chunk
        }
        #expect(chunked == expected)
        // Writes on either side, in the trie, in the tail and after it.
        run[0] = .string("run")
        run[added - 1] = .string("run")
        #expect(vector[start] == .int(Int64(start)) && vector[start + added - 1] == .int(Int64(start + added - 1)))
        vector[start] = .string("vector")
        vector[vector.count - 1] = .string("vector")
        vector.append(.null)
        #expect(run[0] == .string("run") && run[added - 1] == .string("run") && run.count == added)
        #expect(vector.count == start + added + 1 && vector[start] == .string("vector") && vector[start + added] == .null)
    }

    @Test("modifying many ascending positions at once matches modifying them one by one, in order, and leaves copies alone")
    func modifyAscending() {
        var rng = SeededRandom(seed: 31)
        for size in [1, 64, 65, 700, 5000] {
            var vector = PersistentVector(repeatElement([Int](), count: size))
            var expected = Array(repeatElement([Int](), count: size))
            let copy = vector
            let positions = (0..<size * 2).map { _ in Int(rng.next() % UInt64(size)) }
            let items = positions.enumerated().sorted { ($0.element, $0.offset) < ($1.element, $1.offset) }
            vector.modify(ascending: items, index: \.element) { item, element in element.append(item.offset) }
            for (offset, p) in positions.enumerated() { expected[p].append(offset) }
            #expect(Array(vector) == expected, "size \(size)")
            let untouched = copy.allSatisfy { $0.isEmpty }
            #expect(untouched)
        }
    }
}
