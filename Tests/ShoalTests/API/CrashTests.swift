import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// A child process commits until it is killed with SIGKILL at a random
/// moment; reopening must find every transaction `write` returned from
/// (durable policy) and exactly the state of some committed version.
@Suite struct CrashTests {
    static var workerURL: URL {
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("ShoalCrashWorker"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("ShoalCrashWorker"),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("ShoalCrashWorker"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    /// Runs the worker until it has acknowledged its first transaction,
    /// kills it `delayMicros` later, and returns the transactions it
    /// acknowledged. Waiting for the first acknowledgement adapts the kill
    /// window to the machine: under load, opening the database may take
    /// longer than any fixed delay, and the kill would hit before any commit.
    static func runAndKill(_ path: String, policy: String, delayMicros: UInt32) throws -> Int {
        let output = try runWorker([path, policy], trigger: .firstAcknowledgement, delayMicros: delayMicros)
        #expect(output.failure == nil, "the worker failed by itself: \(output.failure ?? "")")
        return output.acknowledged.count
    }

    @Test("a second process opening a database that is open here gets a clear error naming it, and nothing changes")
    func secondProcessIsRefused() throws {
        let url = temporaryDatabaseURL()
        let realm = try Realm(configuration: fileConfiguration(url))
        try realm.write { realm.create(Dog.self, value: ["id": 1]) }
        let process = Process()
        process.executableURL = Self.workerURL
        process.arguments = [url.path, "durable"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus != 0)
        #expect(message.contains("is open in another process"), "\(message)")
        #expect(message.contains(url.path))
        #expect(realm.objects(Dog.self).count == 1)
        realm.refresh()
        #expect(realm.objects(Dog.self).count == 1)
    }

    @Test("200 kills at random moments never lose an acknowledged durable transaction nor expose a partial one")
    func killLoop() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.workerURL.path), "worker not found at \(Self.workerURL.path)")
        var rng = SeededRandom(seed: 0xC0FFEE)
        let url = temporaryDatabaseURL()
        let config = fileConfiguration(url)
        var acknowledgedTotal = 0
        for round in 0..<200 {
            let policy = round % 4 == 3 ? "relaxed" : "durable"
            let before = try Realm(configuration: config).objects(Dog.self).count
            let acknowledged = try Self.runAndKill(url.path, policy: policy, delayMicros: UInt32(rng.next() % (policy == "relaxed" ? 1_500 : 6_000)))
            acknowledgedTotal += acknowledged
            let realm = try Realm(configuration: config)
            let dogs = realm.objects(Dog.self)
            let count = dogs.count
            // Every acknowledged transaction is there (relaxed too: the process
            // died, not the machine), plus at most the one in flight.
            #expect(count >= before + acknowledged, "round \(round) (\(policy)): \(count) dogs after \(before) + \(acknowledged) acknowledged")
            #expect(count <= before + acknowledged + 1, "round \(round): \(count) dogs")
            // Atomicity: the counter written in the same transaction agrees.
            let counter = realm.object(ofType: Person.self, forPrimaryKey: 0)?.city ?? "0"
            #expect(counter == String(count), "round \(round): counter \(counter) for \(count) dogs")
            #expect(Set(dogs.map(\.id)) == Set(0..<count), "round \(round)")
            #expect(realm.instance.coordinator.latest.invariantViolation() == nil)
        }
        // Each round was killed after its first acknowledgement, at a random moment.
        #expect(acknowledgedTotal >= 200)
    }
}
