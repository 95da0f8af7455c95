import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

@Suite struct WriteCopyDurabilityTests {
    @Test("writeCopy makes its directory through the file seam, durably, so power loss right after it returns keeps the copy")
    func copySurvivesPowerLoss() throws {
        let realm = try makeRealm()
        try realm.write {
            for i in 0..<50 { realm.add(Person(value: ["id": i, "name": "p\(i)", "city": "c"])) }
        }
        let io = FaultyFileIO()
        // A parent that exists, a destination that does not (writeCopy checks both).
        let destination = NSTemporaryDirectory() + "shoal-copy-\(UUID().uuidString)"
        try realm.writeCopy(toFile: URL(fileURLWithPath: destination), io: io)
        #expect(!FileManager.default.fileExists(atPath: destination), "the copy went around the seam")
        let model = io.model.withLock { $0 }
        #expect(model.durableDirectories.contains(destination))
        // Every unsynced write and directory change lost: the copy is still whole.
        let image = FaultyFileIO.crashImage(of: model, fates: { _ in .dropped })
        let names = try image.listDirectory(at: destination)
        let snapshot = try #require(names.first { $0.hasPrefix("snapshot") })
        let restored = try SnapshotFile.read(at: destination + "/" + snapshot, io: image).decodedSnapshot()
        #expect(restored.hasSameContents(as: realm.instance.coordinator.latest))
    }
}
