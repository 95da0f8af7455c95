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
}
