import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// `write(withoutNotifying:)` and `commitWrite(withoutNotifying:)`
/// (REALM-SEMANTICS §8): only the listed tokens skip that one commit.
@Suite struct WithoutNotifyingTests {
    /// Ten dogs 0...9 and two tokens on one Results, initial callbacks delivered.
    static func tenDogs() throws -> (Realm, Results<Dog>, [Recorder], [NotificationToken]) {
        let realm = try Fixture.dogs(0...9)
        let dogs = realm.objects(Dog.self)
        let recorders = [Recorder(), Recorder(), Recorder()]
        let tokens = recorders.map { dogs.observe($0.handle) }
        realm.refresh()
        for recorder in recorders { #expect(recorder.take() == [.initial(Array(0...9))]) }
        return (realm, dogs, recorders, tokens)
    }

    @Test("core example: commit A skipped for token 1, commit B not: token 1 gets [11], token 2 gets [10, 11]")
    func skippedThenMerged() throws {
        let (realm, _, recorders, tokens) = try Self.tenDogs()
        realm.beginWrite()
        realm.create(Dog.self, value: ["id": 10])
        try realm.commitWrite(withoutNotifying: [tokens[0]])
        Fixture.writeElsewhere(realm) { $0.create(Dog.self, value: ["id": 11]) }
        realm.refresh()
        #expect(recorders[0].take() == [.update(Array(0...11), deletions: [], insertions: [11], modifications: [])])
        #expect(recorders[1].take() == [.update(Array(0...11), deletions: [], insertions: [10, 11], modifications: [])])
        tokens.forEach { $0.invalidate() }
    }

    @Test("write(withoutNotifying:) skips only the listed tokens, other tokens on the same Results still hear")
    func onlyListedTokens() throws {
        let (realm, _, recorders, tokens) = try Self.tenDogs()
        try realm.write(withoutNotifying: [tokens[0], tokens[2]]) {
            Fixture.dog(realm, 3).name = "quiet"
        }
        realm.refresh()
        #expect(recorders[0].take() == [])
        #expect(recorders[1].take() == [.update(Array(0...9), deletions: [], insertions: [], modifications: [3])])
        #expect(recorders[2].take() == [])
        try realm.write { Fixture.dog(realm, 4).name = "loud" }
        realm.refresh()
        for recorder in [recorders[0], recorders[2]] {
            #expect(recorder.take() == [.update(Array(0...9), deletions: [], insertions: [], modifications: [4])])
        }
        tokens.forEach { $0.invalidate() }
    }

    @Test("a skipped deletion shifts later changes into the space the skipping caller already shows")
    func skippedDeletionShifts() throws {
        let (realm, _, recorders, tokens) = try Self.tenDogs()
        try realm.write(withoutNotifying: [tokens[0]]) { realm.delete(Fixture.dog(realm, 2)) }
        Fixture.writeElsewhere(realm) { Fixture.dog($0, 5).name = "after" }
        realm.refresh()
        let remaining = [0, 1, 3, 4, 5, 6, 7, 8, 9]
        #expect(recorders[0].take() == [.update(remaining, deletions: [], insertions: [], modifications: [4])])
        #expect(recorders[1].take() == [.update(remaining, deletions: [2], insertions: [], modifications: [5])])
        tokens.forEach { $0.invalidate() }
    }

    @Test("skipping a commit that changes nothing observed does not carry the skip over to the next commit")
    func skipDoesNotCarryOver() throws {
        let (realm, _, recorders, tokens) = try Self.tenDogs()
        try realm.write(withoutNotifying: [tokens[0]]) { realm.create(Kennel.self, value: ["name": "k"]) }
        realm.refresh()
        try realm.write { realm.create(Dog.self, value: ["id": 10]) }
        realm.refresh()
        #expect(recorders[0].take() == [.update(Array(0...10), deletions: [], insertions: [10], modifications: [])])
        tokens.forEach { $0.invalidate() }
    }

    @Test("an object token can be skipped too")
    func objectToken() throws {
        let realm = try Fixture.dogs(1...1)
        let skipped = ObjectRecorder<Dog>(), heard = ObjectRecorder<Dog>()
        let tokens = [Fixture.dog(realm, 1).observe(skipped.handle), Fixture.dog(realm, 1).observe(heard.handle)]
        try realm.write(withoutNotifying: [tokens[0]]) { Fixture.dog(realm, 1).name = "quiet" }
        realm.refresh()
        #expect(skipped.events == [])
        #expect(heard.take() == [.change(["name: d1 -> quiet"])])
        tokens.forEach { $0.invalidate() }
    }

    @Test("a cancelled write produces no notifications, listed tokens or not")
    func cancelled() throws {
        let (realm, _, recorders, tokens) = try Self.tenDogs()
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try realm.write(withoutNotifying: [tokens[0]]) {
                realm.create(Dog.self, value: ["id": 10])
                throw Abort()
            }
        }
        realm.refresh()
        #expect(recorders.map { $0.take() } == [[], [], []])
        tokens.forEach { $0.invalidate() }
    }
}
