import Foundation
import Shoal
import Testing

final class DumpedAddress: EmbeddedObject {
    @Persisted var city = ""
}

final class DumpedContact: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var home: DumpedAddress?
    @Persisted var others: List<DumpedAddress>
}

/// The recovery tool on a database with embedded objects (the issue's
/// done-when: a program using `EmbeddedObject` in a `List` and as a single
/// link survives the recovery tool's `dump`).
@Suite struct EmbeddedDumpTests {
    @Test("check passes and dump shows the embedded class, the inserts and each cascaded delete as its own op")
    func dump() throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("shoal-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("embedded.shoal")
        do {
            var config = Realm.Configuration(fileURL: url)
            config.objectTypes = [DumpedContact.self, DumpedAddress.self]
            let realm = try Realm(configuration: config)
            try realm.write {
                realm.create(DumpedContact.self, value: ["id": 1, "home": ["city": "Oslo"], "others": [["city": "A"], ["city": "B"]]] as [String: Any])
            }
            let contact = try #require(realm.object(ofType: DumpedContact.self, forPrimaryKey: 1))
            try realm.write { contact.home = DumpedAddress(value: ["city": "Lima"]) }
            try realm.write { realm.delete(contact) }
        }
        #expect(try ShoalProcess.run(["check", url.path]).status == 0)
        let output = try ShoalProcess.run(["dump", url.path])
        #expect(output.status == 0)
        let lines = output.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("schema version 0: DumpedContact, DumpedAddress (embedded)"))
        #expect(lines.contains { $0.hasPrefix("insert DumpedAddress#0") && $0.contains("\"Oslo\"") })
        // Reassigning the link deletes the Oslo address in the same transaction.
        let setIndex = try #require(lines.firstIndex { $0.hasPrefix("set DumpedContact[1].home = DumpedAddress#3") })
        #expect(lines[setIndex + 1] == "delete DumpedAddress#0")
        // Deleting the contact deletes its three remaining addresses, each as an op.
        let deleteIndex = try #require(lines.firstIndex { $0 == "delete DumpedContact[1]" })
        #expect(Set(lines[(deleteIndex + 1)...(deleteIndex + 3)]) == ["delete DumpedAddress#1", "delete DumpedAddress#2", "delete DumpedAddress#3"])
    }
}
