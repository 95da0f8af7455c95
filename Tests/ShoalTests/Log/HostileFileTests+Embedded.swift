import Foundation
import ShoalTestSupport
import Testing

@testable import Shoal

extension HostileFileTests {
    /// A state with one contact and one address, the address owned by the
    /// contact's `home` as many times as `owners` says (0 or 2 take a second
    /// contact pointing at it, or none), as a buggy writer could store it.
    static func embeddedState(owners: Int) throws -> Snapshot {
        let schema = try makeRealm(types: [Contact.self, Address.self, Coordinates.self]).instance.schema
        let contacts = try #require(schema.tableByName["Contact"])
        let addresses = try #require(schema.tableByName["Address"])
        let home = try #require(schema[contacts].indexByName["home"])
        let id = try #require(schema[contacts].primaryKeyIndex)
        var batch = BatchApplier(Snapshot(schema: schema))
        var address = ClassRegistry.info(for: Address.self).defaults
        address[try #require(schema[addresses].indexByName["city"])] = .string("Oslo")
        #expect(batch.apply(.insert(addresses, ObjectKey(0), address)) == nil)
        for i in 0..<2 {
            var contact = ClassRegistry.info(for: Contact.self).defaults
            contact[id] = .int(Int64(i))
            if i < owners { contact[home] = .link(Link(table: addresses, key: ObjectKey(0))) }
            #expect(batch.apply(.insert(contacts, ObjectKey(Int64(i)), contact)) == nil)
        }
        // Replay refuses such a batch (BatchApplierEmbeddedTests); its
        // state is complete all the same, as a buggy writer would store it.
        #expect(batch.finish() == (owners == 1 ? nil : "embedded Address key#0 has \(owners) owners, not 1"))
        return batch.snapshot
    }

    @Test("a snapshot holding an embedded object with no owner, or two, is damage in both forms (fuzzer finding)", arguments: [0, 2])
    func embeddedOwners(owners: Int) throws {
        let state = try Self.embeddedState(owners: owners)
        for (form, version, payload) in [("columnar", LogFormat.version, SnapshotCodec.encode(state)), ("rows", UInt16(1), SnapshotCodec.encodeRows(state))] {
            let failure = #expect(throws: DecodingFailure.self, "\(form)") {
                try SnapshotCodec.decode(payload, formatVersion: version, decodeAheadFrom: .max)
            }
            #expect(failure?.reason == "embedded Address key#0 has \(owners) owners, not 1", "\(form): \(failure?.reason ?? "")")
        }
        // Owned once, the same state loads.
        let owned = try Self.embeddedState(owners: 1)
        let loaded = try SnapshotCodec.decode(SnapshotCodec.encode(owned), formatVersion: LogFormat.version, decodeAheadFrom: .max)
        #expect(loaded.invariantViolation() == nil)
    }
}

/// Ops from a file that orphan an embedded object or give it a second owner
/// fail the batch that replay applies them in.
@Suite struct BatchApplierEmbeddedTests {
    /// A contact owning an address through `home`, one in `previous` and
    /// one under "x" in `byLabel`, and what the test needs to name them.
    struct Base {
        let state: Snapshot
        let contacts: TableKey, addresses: TableKey
        let home: Int, previous: Int, byLabel: Int
        let contact: ObjectKey, homeAddress: ObjectKey, previousAddress: ObjectKey, labelled: ObjectKey
    }

    static func base() throws -> Base {
        let realm = try makeRealm(types: [Contact.self, Address.self, Coordinates.self])
        let contact = Contact(value: ["id": 1, "home": ["city": "Oslo"]])
        contact.previous.append(Address(value: ["city": "Lima"]))
        contact.byLabel["x"] = Address(value: ["city": "Rome"])
        try realm.write { realm.add(contact) }
        let schema = realm.instance.schema
        let contacts = try #require(schema.tableByName["Contact"])
        return Base(
            state: realm.instance.snapshot, contacts: contacts, addresses: try #require(schema.tableByName["Address"]),
            home: try #require(schema[contacts].indexByName["home"]), previous: try #require(schema[contacts].indexByName["previous"]),
            byLabel: try #require(schema[contacts].indexByName["byLabel"]),
            contact: try #require(contact.ref?.key), homeAddress: try #require(contact.home?.ref?.key),
            previousAddress: try #require(contact.previous.first?.ref?.key), labelled: try #require(contact.byLabel["x"]??.ref?.key))
    }

    /// What finishing a batch of `ops` on the base state reports.
    static func outcome(_ ops: (Base) -> [ChangeOp]) throws -> String? {
        let b = try base()
        var batch = BatchApplier(b.state)
        for op in ops(b) {
            if let problem = batch.apply(op) { return "refused: \(problem)" }
        }
        return batch.finish()
    }

    @Test("an op that orphans an embedded object, or gives it a second owner, fails the batch; cascading deletes do not")
    func ownership() throws {
        func address(_ b: Base, _ k: ObjectKey) -> Value { .link(Link(table: b.addresses, key: k)) }
        func orphan(_ b: Base, _ k: ObjectKey) -> String { "embedded Address \(k) has 0 owners, not 1" }
        let defaults = ClassRegistry.info(for: Address.self).defaults
        // Inserted with no owner.
        #expect(try Self.outcome { b in [.insert(b.addresses, ObjectKey(3), defaults)] } == "embedded Address key#3 has 0 owners, not 1")
        // Unlinked without being deleted: a link, a list element, a map value, a cleared list, a deleted owner.
        #expect(try Self.outcome { b in [.set(b.contacts, b.contact, property: b.home, .null)] } == orphan(try Self.base(), try Self.base().homeAddress))
        let b = try Self.base()
        #expect(try Self.outcome { b in [.listRemove(b.contacts, b.contact, property: b.previous, index: 0)] } == orphan(b, b.previousAddress))
        #expect(try Self.outcome { b in [.mapRemove(b.contacts, b.contact, property: b.byLabel, key: "x")] } == orphan(b, b.labelled))
        #expect(try Self.outcome { b in [.collectionClear(b.contacts, b.contact, property: b.previous)] } == orphan(b, b.previousAddress))
        #expect(try Self.outcome { b in [.delete(b.contacts, b.contact)] }?.hasSuffix("has 0 owners, not 1") == true)
        // A second owner: another contact's home, or the list's slot set to the home address.
        #expect(try Self.outcome { b in
            var contact = ClassRegistry.info(for: Contact.self).defaults
            contact[b.home] = address(b, b.homeAddress)
            contact[0] = .int(2)
            return [.insert(b.contacts, ObjectKey(1), contact)]
        } == "embedded Address \(b.homeAddress) has 2 owners, not 1")
        #expect(try Self.outcome { b in [.listSet(b.contacts, b.contact, property: b.previous, index: 0, address(b, b.homeAddress))] } != nil)
        // What a live write records: the unlink, then the delete; a new address linked once.
        #expect(try Self.outcome { b in [.set(b.contacts, b.contact, property: b.home, .null), .delete(b.addresses, b.homeAddress)] } == nil)
        #expect(try Self.outcome { b in
            [.insert(b.addresses, ObjectKey(3), defaults), .listInsert(b.contacts, b.contact, property: b.previous, index: 1, address(b, ObjectKey(3)))]
        } == nil)
        #expect(try Self.outcome { b in
            [.set(b.contacts, b.contact, property: b.home, .null), .delete(b.addresses, b.homeAddress),
             .listRemove(b.contacts, b.contact, property: b.previous, index: 0), .delete(b.addresses, b.previousAddress),
             .mapRemove(b.contacts, b.contact, property: b.byLabel, key: "x"), .delete(b.addresses, b.labelled), .delete(b.contacts, b.contact)]
        } == nil)
    }
}
