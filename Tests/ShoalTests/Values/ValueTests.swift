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
