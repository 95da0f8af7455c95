import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// The oracle itself: it accepts Realm's documented changesets and rejects
/// wrong ones, and its change model follows REALM-SEMANTICS §3.2.
@Suite struct NotificationOracleSelfTests {
    @Test("a correct changeset passes; wrong index spaces, missing or extra modifications and untouched moves fail")
    func check() {
        let old = [1, 2, 3, 4, 5], new = [1, 3, 4, 5, 6]
        func problems(_ d: [Int], _ i: [Int], _ m: [Int], must: Set<Int> = [3], may: Set<Int> = [3], move: Set<Int> = []) -> [String] {
            OracleCheck.problems(old: old, new: new, deletions: d, insertions: i, modifications: m, mustModify: must, mayModify: may, mayMove: move)
        }
        #expect(problems([1], [4], [2]) == [])
        #expect(!problems([1], [4], [1]).isEmpty, "modification in the new index space")
        #expect(!problems([1], [4], []).isEmpty, "missing modification")
        #expect(!problems([1], [4], [2, 3]).isEmpty, "extra modification")
        #expect(!problems([1], [3], [2]).isEmpty, "insertion at the wrong index")
        #expect(!problems([1, 2], [1, 4], []).isEmpty, "dog 3 moved without being touched")
        #expect(problems([1, 2], [1, 4], [], move: [3]) == [], "a touched object may move instead of being modified")
        #expect(!OracleCheck.problems(old: [1], new: [1], deletions: [], insertions: [], modifications: [], mustModify: [], mayModify: [], mayMove: []).isEmpty,
                "an empty update")
        #expect(OracleCheck.required(old: [1, 2], new: [1, 2], mustModify: [2]))
        #expect(!OracleCheck.required(old: [1, 2], new: [1, 2], mustModify: [3]))
    }

    /// Ann (1) owns and lists dog 1; dog 2 is listed by Bob (2) only.
    static func state() -> OracleState {
        var state = OracleState()
        state.dogs[1] = .init(name: "Rex", age: 1, breed: "", tags: [], owner: 1)
        state.dogs[2] = .init(name: "Fido", age: 2, breed: "", tags: [], owner: nil)
        state.people[1] = .init(name: "Ann", city: "Oslo", dogs: [1])
        state.people[2] = .init(name: "Bob", city: "Rome", dogs: [2])
        state.owned = [1: [1]]
        state.owners = [1: [1], 2: [2]]
        return state
    }

    @Test("the change model: link paths, backlink paths and unfiltered depth")
    func changes() {
        let before = Self.state()
        var renamed = before
        renamed.people[1]?.name = "Anna"
        renamed.people[2]?.name = "Bobby"
        func modified(_ keyPaths: [String]?, _ after: OracleState, generous: Bool = false) -> Set<Int> {
            OracleChanges.modified(.dog, keyPaths: keyPaths, before: before, after: after, depth: 3, generous: generous)
        }
        #expect(modified(nil, renamed) == [1], "owner is a forward link; Bob only lists dog 2 (a backlink)")
        #expect(modified(["owner"], renamed) == [])
        #expect(modified(["owner.name"], renamed) == [1])
        #expect(modified(["owners.name"], renamed) == [1, 2])
        #expect(modified(["owners"], renamed) == [])
        var linked = before
        linked.people[3] = .init(name: "Cleo", city: "", dogs: [2])
        linked.owners[2] = [2, 3]
        #expect(modified(["owners"], linked) == [2], "a new origin")
        #expect(modified(["name"], linked) == [])
        #expect(OracleChanges.touched(.dog, before: before, after: linked) == [2])
    }
}
