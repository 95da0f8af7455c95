import Foundation
import Testing
@testable import Shoal

@Suite struct ValueTests {
    @Test("numbers compare across kinds and nulls sort first")
    func ordering() {
        #expect(Value.compare(.int(3), .double(3.5)) == .orderedAscending)
        #expect(Value.int(3) == Value.double(3))
        #expect(Value.compare(.null, .int(-100)) == .orderedAscending)
    }

    @Test("strings order by their UTF-8 bytes, as Realm orders them", arguments: [
        ("Z", "a"), ("", "a"), ("ab", "abc"), ("z", "é"), ("é", "ê"), ("a\u{0}b", "a\u{0}c"), ("dog10", "dog9"),
    ])
    func stringOrder(_ lower: String, _ higher: String) {
        #expect(Value.compareStrings(lower, higher) == .orderedAscending)
        #expect(Value.compareStrings(higher, lower) == .orderedDescending)
        #expect(Value.compareStrings(lower, lower) == .orderedSame)
        #expect(Array(lower.utf8).lexicographicallyPrecedes(Array(higher.utf8)))
    }
}

@Suite struct ValueNaNHashTests {
    @Test("every NaN hashes alike, as == holds between any two, so grouping by hash (a batch's index build) keeps them together")
    func nanHashes() {
        let computed = [0.0, -0.0].map { $0 / 0.0 }  // run-time NaNs, whichever sign the CPU gives them
        let nans: [Value] = [.double(.nan), .double(-Double.nan), .double(Double(bitPattern: 0x7FF8_0000_DEAD_BEEF)), .float(.nan), .double(computed[0])]
        for a in nans {
            for b in nans {
                #expect(a == b)
                #expect(a.hashValue == b.hashValue, "\(a) and \(b)")
            }
        }
        let grouped = Dictionary(grouping: nans, by: { $0 })
        #expect(grouped.count == 1)
    }

    @Test("a batch of index entries holding NaNs of different bits makes one bucket, as a live commit does")
    func nanBucket() {
        var index = SecondaryIndex()
        let keys = (0..<10).map { ObjectKey(Int64($0)) }
        var groups: [Value: [ObjectKey]] = [:]
        for (i, key) in keys.enumerated() { groups[.double(i % 2 == 0 ? .nan : -Double.nan), default: []].append(key) }
        #expect(groups.count == 1)
        // Even a batch that names one value twice never makes two equal keys.
        let clash = index.merge([(key: Value.double(.nan), payload: KeySet(sortedKeys: keys[..<5])), (key: .double(-Double.nan), payload: KeySet(sortedKeys: keys[5...]))])
        #expect(clash != nil)
        #expect(index.count == 1 && index.invariantViolation() == nil)
    }
}
