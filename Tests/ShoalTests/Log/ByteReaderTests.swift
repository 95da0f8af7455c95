import ShoalTestSupport
import Testing

@testable import Shoal

@Suite struct ByteReaderTests {
    /// Bytes of varints of every length, then a tail that may be cut short,
    /// overlong or overflowing.
    static func payload(seed: UInt64, count: Int, tail: [UInt8]) -> [UInt8] {
        var rng = SeededRandom(seed: seed)
        var writer = ByteWriter()
        for _ in 0..<count {
            // A width of 0 to 64 bits, so that every varint length comes up.
            let bits = Int.random(in: 0...64, using: &rng)
            let value = bits == 0 ? 0 : UInt64.random(in: 0...UInt64.max, using: &rng) >> UInt64(64 - bits)
            writer.varint(value)
        }
        return writer.bytes + tail
    }

    @Test("varints read in bulk equal those read one by one, with the same failure at the same offset", arguments: [
        [], [0x80], [0xFF, 0xFF], [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02],
        [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],
    ] as [[UInt8]])
    func bulkVarints(tail: [UInt8]) {
        for seed in UInt64(1)...20 {
            let bytes = Self.payload(seed: seed, count: Int(seed) * 37, tail: tail)
            // One by one, as many as there are, and the failure after them.
            var single = ByteReader(bytes)
            var expected: [UInt64] = []
            var expectedFailure: DecodingFailure?
            while !single.isAtEnd {
                do throws(DecodingFailure) { expected.append(try single.varint()) } catch {
                    expectedFailure = error
                    break
                }
            }
            // In bulk, asking for one more when the tail fails.
            let wanted = expected.count + (expectedFailure == nil ? 0 : 1)
            var bulk = ByteReader(bytes)
            var values = [UInt64](repeating: 0, count: wanted)
            var failure: DecodingFailure?
            values.withUnsafeMutableBufferPointer { buffer in
                do throws(DecodingFailure) { try bulk.varints(into: buffer) } catch { failure = error }
            }
            #expect(failure == expectedFailure, "seed \(seed)")
            #expect(Array(values.prefix(expected.count)) == expected, "seed \(seed)")
            if expectedFailure == nil { #expect(bulk.offset == single.offset && bulk.isAtEnd) }
            // Each varint's offset is found again from the first.
            var walker = ByteReader(bytes)
            for i in 0..<expected.count {
                #expect(bulk.offset(ofVarint: i, from: 0) == walker.offset)
                _ = try? walker.varint()
            }
        }
    }

    @Test("strings read as a run equal those read one by one (short, empty, around a word, and past 127 bytes; a last one with a longer prefix than it needs), with the same failure at the same offset", arguments: [
        [], [0x05, 0x41], [0x80], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], [0x90, 0x03, 0x41, 0x42],
        [0x82, 0x00, 0x41, 0x42], [0x80, 0x80, 0x00],
    ] as [[UInt8]])
    func stringRuns(tail: [UInt8]) {
        for seed in UInt64(1)...20 {
            var rng = SeededRandom(seed: seed)
            var writer = ByteWriter()
            let count = Int(seed) * 13
            for _ in 0..<count {
                let length = [0, 1, 7, 8, 9, 11, 63, 64, 65, 127, 128, 300].randomElement(using: &rng)!
                writer.string(String(repeating: "é", count: length / 2) + String(repeating: "a", count: length % 2))
            }
            let bytes = writer.bytes + tail
            // One by one, and one more when there is a tail.
            let wanted = count + (tail.isEmpty ? 0 : 1)
            var single = ByteReader(bytes)
            var expectedBytes: [UInt8] = []
            var expectedEnds: [UInt32] = []
            var expectedFailure: DecodingFailure?
            for _ in 0..<wanted {
                do throws(DecodingFailure) {
                    let string = try single.lengthPrefixed()
                    expectedBytes += bytes[string.range]
                    expectedEnds.append(UInt32(expectedBytes.count))
                } catch {
                    expectedFailure = error
                    break
                }
            }
            var run = ByteReader(bytes)
            do throws(DecodingFailure) {
                let (copied, ends) = try run.lengthPrefixedRun(wanted)
                #expect(expectedFailure == nil, "seed \(seed)")
                #expect(Array(copied) == expectedBytes && Array(ends) == expectedEnds, "seed \(seed)")
                #expect(run.offset == single.offset)
            } catch {
                #expect(error == expectedFailure, "seed \(seed)")
            }
        }
    }
}
