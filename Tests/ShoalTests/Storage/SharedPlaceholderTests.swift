import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// Whole leaves of repeated placeholders (deleted objects' slots) share one
/// buffer until one of them is written to.
@Suite struct SharedPlaceholderTests {
    static func buffer<T>(_ leaf: ContiguousArray<T>) -> UnsafeRawPointer? {
        leaf.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }

    @Test("repeated values fill whole leaves with one shared buffer; a write copies only its own leaf")
    func chunksShareWholeLeaves() {
        let width = Chunks<Int64>.width
        var chunks = Chunks<Int64>()
        chunks.append(7)
        chunks.append(repeating: 0, count: 4 * width)
        #expect(chunks.count == 4 * width + 1)
        let leaves = chunks.leaves
        // The first leaf is filled up in place, the next three are whole and shared, the last holds one.
        #expect(leaves.map(\.count) == [width, width, width, width, 1])
        #expect(Self.buffer(leaves[1]) == Self.buffer(leaves[2]) && Self.buffer(leaves[2]) == Self.buffer(leaves[3]))
        #expect(Self.buffer(leaves[0]) != Self.buffer(leaves[1]))
        let copy = chunks
        chunks[2 * width + 5] = 42
        #expect(chunks[2 * width + 5] == 42 && chunks[width + 5] == 0 && chunks[3 * width + 5] == 0)
        #expect(copy[2 * width + 5] == 0)
        #expect(Self.buffer(chunks.leaves[1]) == Self.buffer(chunks.leaves[3]))
        #expect(Self.buffer(chunks.leaves[2]) != Self.buffer(chunks.leaves[1]))
        #expect(chunks[0] == 7 && Array(chunks).filter { $0 != 0 }.count == 2)
    }

    @Test("empty strings fill whole leaves with one shared leaf, and a write changes only its own value")
    func byteChunksShareWholeLeaves() {
        let width = Chunks<UInt8>.width
        var bytes = ByteChunks()
        bytes.append("first")
        bytes.appendEmpty(count: 3 * width)
        #expect(bytes.count == 3 * width + 1)
        #expect(bytes.leaves[1].isShort && Self.buffer(bytes.leaves[1].shortEnds) == Self.buffer(bytes.leaves[2].shortEnds))
        bytes.set(width + 3, "x")
        #expect(bytes.string(width + 3) == "x" && bytes.string(2 * width + 3) == "" && bytes.string(0) == "first")
        #expect((1...(3 * width)).filter { !bytes.string($0).isEmpty } == [width + 3])
    }

    @Test("repeated collections in a persistent vector read and write like separate ones")
    func vectorsShareWholeLeaves() {
        var vector = PersistentVector<[Int]>()
        vector.append([1])
        vector.append(repeating: [], count: 10_000)
        vector.append([2])
        #expect(vector.count == 10_002)
        let copy = vector
        vector[5000].append(9)
        vector.modify(64) { $0 = [3] }
        #expect(vector[5000] == [9] && vector[64] == [3] && vector[5001].isEmpty && vector[63].isEmpty && vector[128].isEmpty)
        #expect(vector[0] == [1] && vector[10_001] == [2])
        #expect(copy[5000].isEmpty && copy[64].isEmpty)
        #expect(vector.filter { !$0.isEmpty }.count == 4)
        var expected = [[Int]](repeating: [], count: 10_002)
        (expected[0], expected[64], expected[5000], expected[10_001]) = ([1], [3], [9], [2])
        #expect(Array(vector) == expected)
    }
}
