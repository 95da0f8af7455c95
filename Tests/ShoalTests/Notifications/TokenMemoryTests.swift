import Foundation
import CMallocInfo
import ShoalTestSupport
import Testing
@testable import Shoal

/// Invalidating a token frees what registering it made: many observations
/// made and ended leave the heap where it was.
@Suite(.serialized) struct TokenMemoryTests {
    /// Bytes in use on the heap, after returning free memory to the system.
    static func heapInUse() -> Int {
        malloc_trim(0)
        return Int(mallinfo2().uordblks)
    }

    static func measure(_ label: String, tokens n: Int, _ body: (Realm) -> [NotificationToken]) throws -> Double {
        let realm = try makeRealm()
        try realm.write { for id in 0..<10 { realm.create(Dog.self, value: ["id": id]) } }
        // Warm up: the engine, the mailbox and their first allocations.
        body(realm).forEach { $0.invalidate() }
        realm.refresh()
        let before = heapInUse()
        var tokens = body(realm)
        #expect(tokens.count == n)
        realm.refresh()
        tokens.forEach { $0.invalidate() }
        tokens = []
        realm.refresh()
        try realm.write { realm.create(Dog.self, value: ["id": 100]) }
        realm.refresh()
        let after = heapInUse()
        let perToken = Double(after - before) / Double(n)
        print("\(label): \(perToken) bytes per token")
        return perToken
    }

    @Test("20,000 Results observers registered and invalidated leave under a byte each")
    func resultsTokens() throws {
        let perToken = try Self.measure("Results.observe", tokens: 20_000) { realm in
            (0..<20_000).map { _ in realm.objects(Dog.self).observe { _ in } }
        }
        #expect(perToken < 1)
    }

    @Test("20,000 Realm observers registered and invalidated leave under a byte each")
    func realmTokens() throws {
        let perToken = try Self.measure("Realm.observe", tokens: 20_000) { realm in
            (0..<20_000).map { _ in realm.observe { _, _ in } }
        }
        #expect(perToken < 1)
    }
}
