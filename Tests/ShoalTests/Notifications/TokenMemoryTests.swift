import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// Invalidating a token frees what registering it made: after many
/// observations are made and ended, the engine's tables and a Realm's
/// observer list are back to the size of what is still registered.
/// (Measured on the tables themselves: the heap of a test process shared
/// with suites running in parallel is no measure.)
@Suite struct TokenMemoryTests {
    @Test("20,000 Results observers registered and invalidated leave the engine's tables small")
    func resultsTokens() throws {
        let realm = try makeRealm()
        try realm.write { for id in 0..<10 { realm.create(Dog.self, value: ["id": id]) } }
        let kept = realm.objects(Dog.self).observe { _ in }
        realm.refresh()
        let tracker = try #require(realm.instance.coordinator.tracker)
        let before = tracker.capacity(including: realm.instance.mailbox)
        var tokens = (0..<20_000).map { i in
            i.isMultiple(of: 2) ? realm.objects(Dog.self).observe { _ in } : realm.objects(Dog.self).filter("age > %@", i).observe { _ in }
        }
        realm.refresh()
        let grown = tracker.capacity(including: realm.instance.mailbox)
        #expect(grown > 20_000)
        tokens.forEach { $0.invalidate() }
        tokens = []
        try realm.write { realm.create(Dog.self, value: ["id": 100]) }
        realm.refresh()
        let after = tracker.capacity(including: realm.instance.mailbox)
        #expect(after <= max(before, 64) * 4, "\(before) slots before, \(grown) with 20,000 observers, \(after) after")
        kept.invalidate()
    }

    @Test("20,000 Realm observers registered and invalidated leave the Realm's list small")
    func realmTokens() throws {
        let realm = try makeRealm()
        var tokens = (0..<20_000).map { _ in realm.observe { _, _ in } }
        #expect(realm.instance.realmObservers.capacity >= 20_000)
        tokens.forEach { $0.invalidate() }
        tokens = []
        #expect(realm.instance.realmObservers.isEmpty)
        #expect(realm.instance.realmObservers.capacity <= 64)
    }
}
