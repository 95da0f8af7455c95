import Foundation
import Shoal
import ShoalTestSupport
import Testing

@Suite struct ErrorsAndFilesTests {
    @Test("localizedDescription of a ShoalError is its message")
    func localizedDescription() {
        let error: any Error = ShoalError(.invalidQuery, "Unable to parse the format string")
        #expect(error.localizedDescription == "Unable to parse the format string")
    }

    @Test("opening a file whose parent directory does not exist fails with fileNotFound and creates nothing")
    func missingParentDirectory() throws {
        let parent = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("shoal-missing-\(UUID().uuidString)")
        var config = Realm.Configuration(fileURL: parent.appendingPathComponent("nested/db.realm"))
        config.objectTypes = [Dog.self, Person.self]
        do {
            _ = try Realm(configuration: config)
            Issue.record("opened a Realm in a directory that does not exist")
        } catch let error as ShoalError {
            #expect(error.code == .fileNotFound)
            #expect(error.localizedDescription.contains("parent directory does not exist"))
            #expect(error.localizedDescription.contains(parent.path))
        }
        #expect(!FileManager.default.fileExists(atPath: parent.path))
    }

    @Test("explain() is public and names the index a query uses")
    func explainIsPublic() throws {
        let realm = try makeRealm(types: [Dog.self, Person.self])
        try realm.write { for i in 0..<10 { realm.create(Dog.self, value: ["id": i]) } }
        #expect(realm.objects(Dog.self).filter("id == 3").explain().contains("Dog"))
    }
}
