import Foundation
import Testing
@testable import Shoal

/// The transaction's ownership rules for embedded classes, at the storage
/// layer: cascades are explicit ops of the record, and a snapshot whose
/// embedded object has no owner (or two) breaks an invariant.
@Suite struct WriteTransactionEmbeddedTests {
    static let schema = Schema([
        ObjectSchema(className: "Owner", properties: [
            Property(name: "one", type: .object, isOptional: true, objectClassName: "Part"),
            Property(name: "many", type: .object, collection: .list, objectClassName: "Part"),
        ]),
        ObjectSchema(className: "Part", properties: [Property(name: "v", type: .int)], isEmbedded: true),
    ])
    static let (owner, part) = (TableKey(0), TableKey(1))

    @Test("deleting an owner records a delete for each embedded object after its own; replaying the record gives the same state")
    func cascadeIsRecorded() throws {
        let base = Snapshot(schema: Self.schema)
        let tx = WriteTransaction(base: base)
        let o = try tx.insert(Self.owner, values: [.null, .null])
        let a = try tx.insert(Self.part, values: [.int(1)])
        let b = try tx.insert(Self.part, values: [.int(2)])
        try tx.set(Self.owner, o, 0, .link(Link(table: Self.part, key: a)))
        try tx.listInsert(Self.owner, o, 1, .link(Link(table: Self.part, key: b)), at: 0)
        #expect(tx.working.invariantViolation() == nil)
        let before = tx.record.ops.count
        try tx.delete(Self.owner, o)
        #expect(Array(tx.record.ops[before...]) == [.delete(Self.owner, o), .delete(Self.part, a), .delete(Self.part, b)])
        var replayed = base.applying(tx.record)
        replayed.version = tx.working.version
        #expect(replayed.hasSameContents(as: tx.working))
        #expect(tx.working.tables[Self.part.index].count == 0)
    }

    @Test("a second owner is refused; an embedded object without an owner breaks the snapshot's invariant")
    func oneOwner() throws {
        let tx = WriteTransaction(base: Snapshot(schema: Self.schema))
        let o1 = try tx.insert(Self.owner, values: [.null, .null])
        let o2 = try tx.insert(Self.owner, values: [.null, .null])
        let a = try tx.insert(Self.part, values: [.int(1)])
        #expect(tx.working.invariantViolation()?.contains("embedded Part") == true)
        let link = Value.link(Link(table: Self.part, key: a))
        try tx.set(Self.owner, o1, 0, link)
        let error = #expect(throws: ShoalError.self) { try tx.set(Self.owner, o2, 0, link) }
        #expect(error?.message == "Can't set link to existing managed embedded object")
        #expect(throws: ShoalError.self) { try tx.listInsert(Self.owner, o2, 1, link, at: 0) }
        #expect(throws: ShoalError.self) { _ = try tx.insert(Self.owner, values: [link, .null]) }
        #expect(tx.working.invariantViolation() == nil)
    }

    @Test("an embedded object is refused in a mixed property and in a list of mixed values")
    func notInMixed() throws {
        let schema = Schema([
            ObjectSchema(className: "Holder", properties: [
                Property(name: "any", type: .any),
                Property(name: "anys", type: .any, collection: .list),
                Property(name: "one", type: .object, isOptional: true, objectClassName: "Part"),
            ]),
            ObjectSchema(className: "Part", properties: [Property(name: "v", type: .int)], isEmbedded: true),
        ])
        let tx = WriteTransaction(base: Snapshot(schema: schema))
        let holder = try tx.insert(TableKey(0), values: [.null, .null, .null])
        let part = Value.link(Link(table: TableKey(1), key: try tx.insert(TableKey(1), values: [.int(1)])))
        let error = #expect(throws: ShoalError.self) { try tx.set(TableKey(0), holder, 0, part) }
        #expect(error?.message == "An AnyRealmValue cannot hold an embedded object ('Part' in 'Holder.any').")
        #expect(throws: ShoalError.self) { try tx.listInsert(TableKey(0), holder, 1, part, at: 0) }
        #expect(throws: ShoalError.self) { _ = try tx.insert(TableKey(0), values: [part, .null, .null]) }
        try tx.set(TableKey(0), holder, 2, part)
        #expect(tx.working.invariantViolation() == nil)
    }
}
