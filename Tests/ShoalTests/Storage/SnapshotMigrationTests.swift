import Testing

@testable import Shoal

@Suite struct SnapshotMigrationTests {
    static let v0 = Schema([ObjectSchema(className: "A", properties: [Property(name: "n", type: .int)])])
    static let v1 = Schema([ObjectSchema(className: "A", properties: [Property(name: "n", type: .int), Property(name: "m", type: .int)])])

    @Test("a migration keeps every deleted slot where it was: at the start, between objects and at the end")
    func deletedSlotsKeepTheirPlaces() throws {
        var state = Snapshot(schema: Self.v0)
        let a = TableKey(0)
        for i in 0..<20 { state.apply(.insert(a, ObjectKey(Int64(i)), [.int(Int64(i))])) }
        let deleted: Set<Int> = [0, 1, 2, 7, 8, 12, 17, 18, 19]
        for i in deleted.sorted() { state.apply(.delete(a, ObjectKey(Int64(i)))) }
        let migrated = try state.migrated(to: Self.v1, schemaVersion: 1, defaults: ["A": [.int(0), .int(7)]])
        let table = migrated.tables[0]
        #expect(table.alive.count == 20 && table.count == 11)
        for slot in 0..<20 {
            #expect(table.alive[slot] == !deleted.contains(slot), "slot \(slot)")
            guard !deleted.contains(slot) else { continue }
            #expect(migrated.value(a, ObjectKey(Int64(slot)), 0) == .int(Int64(slot)))
            #expect(migrated.value(a, ObjectKey(Int64(slot)), 1) == .int(7))
        }
        #expect(migrated.invariantViolation() == nil)
    }
}
