import Foundation
import Testing
@testable import Shoal

@Suite struct ObjectIdTests {
    @Test("generated ids are unique, increasing within a second, and round-trip through their string")
    func generate() throws {
        let ids = (0..<1000).map { _ in ObjectId.generate() }
        #expect(Set(ids).count == 1000)
        let parsed = try ObjectId(string: ids[0].stringValue)
        #expect(parsed == ids[0])
        #expect(ids[0].stringValue.count == 24)
        #expect(abs(ids[0].timestamp.timeIntervalSinceNow) < 5)
    }

    @Test("invalid strings throw naming the string", arguments: ["", "xyz", "5f2b7a9c1d3e4f5a6b7c8d9", "5f2b7a9c1d3e4f5a6b7c8d9g"])
    func invalid(_ string: String) {
        let error = #expect(throws: ShoalError.self) { try ObjectId(string: string) }
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains("'\(string)'") == true)
    }

    @Test("Decimal128 parses, compares and does arithmetic")
    func decimal() throws {
        let a = try Decimal128(string: "12.50")
        #expect(try a + 1 == Decimal128(string: "13.5"))
        #expect(a > 12)
        // As in Realm, a string that is not a number gives NaN.
        #expect(try Decimal128(string: "abc").isNaN)
        #expect(Value.compare(.decimal(a), .int(13)) == .orderedAscending)
    }
}
