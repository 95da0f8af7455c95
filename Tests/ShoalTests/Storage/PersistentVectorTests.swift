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
}
