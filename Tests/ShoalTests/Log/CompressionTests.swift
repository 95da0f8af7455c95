import ShoalTestSupport
import Testing

@testable import Shoal

@Suite struct CompressionTests {
    @Test("compressible bytes round-trip through one LZ4 block")
    func roundTrip() throws {
        let input = LogFixture.payload(.compressible, version: 3, size: 5000)
        let block = try #require(Compression.compress(input))
        #expect(block.count < input.count)
        #expect(try Compression.decompress(block, rawLength: input.count) == input)
    }

    @Test("incompressible, empty and 1-byte inputs are left to be stored raw", arguments: [0, 1, 300])
    func storeRaw(size: Int) {
        #expect(Compression.compress(LogFixture.payload(.incompressible, version: 1, size: size)) == nil)
    }

    @Test("decoding requires the exact raw length")
    func exactLength() throws {
        let input = LogFixture.payload(.compressible, version: 3, size: 2000)
        let block = try #require(Compression.compress(input))
        #expect(throws: Compression.Failure.self) { try Compression.decompress(block, rawLength: input.count - 1) }
        #expect(throws: Compression.Failure.self) { try Compression.decompress(block, rawLength: input.count + 1) }
    }

    @Test("a malformed block is rejected, never read out of bounds")
    func malformed() throws {
        let block = try #require(Compression.compress(LogFixture.payload(.compressible, version: 3, size: 2000)))
        #expect(throws: Compression.Failure.self) {
            try Compression.decompress(Array(block.prefix(block.count / 2)), rawLength: 2000)
        }
        #expect(throws: Compression.Failure.self) { try Compression.decompress([0xFF, 0xFF, 0xFF], rawLength: 2000) }
        #expect(throws: Compression.Failure.self) { try Compression.decompress(block, rawLength: 0) }
    }
}
