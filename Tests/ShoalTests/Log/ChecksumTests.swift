import Testing

@testable import Shoal

@Suite struct ChecksumTests {
    @Test("XXH3-64 matches the reference value for empty input")
    func referenceVector() {
        #expect(Checksum.xxh3([], seed: 0) == 0x2D06_8005_38D3_94C2)
    }

    @Test("the seed changes the checksum, which is how the file salt rejects foreign records")
    func seedMatters() {
        let bytes = Array("a record".utf8)
        #expect(Checksum.xxh3(bytes, seed: 1) != Checksum.xxh3(bytes, seed: 2))
        #expect(Checksum.xxh3(bytes, seed: 1) == Checksum.xxh3(bytes, seed: 1))
    }

    @Test("the incremental hasher equals the one-shot hash of the concatenation")
    func incremental() {
        let a = LogFixture.payload(.incompressible, version: 1, size: 1000)
        let b = LogFixture.payload(.incompressible, version: 2, size: 333)
        var hasher = Checksum.Hasher(seed: 99)
        hasher.update(a)
        hasher.update(b)
        #expect(hasher.finalize() == Checksum.xxh3(a + b, seed: 99))
        #expect(Checksum.xxh3(a + b, range: 1000..<1333, seed: 5) == Checksum.xxh3(b, seed: 5))
    }
}
