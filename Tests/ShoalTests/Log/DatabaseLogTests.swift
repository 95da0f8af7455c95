import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

@Suite struct DatabaseLogTests {
    /// A one-segment log of `count` transactions, with the segment's size and
    /// the committed state after each one (index 0: after the schema record).
    static func makeLog(count: Int) throws -> (url: URL, segment: URL, schema: Schema, states: [(end: Int, snapshot: Snapshot)]) {
        let url = temporaryDatabaseURL()
        let config = fileConfiguration(url, durability: .none)
        var states: [(Int, Snapshot)] = []
        var schema = Schema([])
        var segment = url
        try {
            let realm = try Realm(configuration: config)
            schema = realm.instance.schema
            segment = url.appendingPathComponent(try FileManager.default.contentsOfDirectory(atPath: url.path).first { $0.hasSuffix(".wal") }!)
            func record() throws { states.append((try FileManager.default.attributesOfItem(atPath: segment.path)[.size] as! Int, realm.instance.coordinator.latest)) }
            try record()
            var rng = SeededRandom(seed: 77)
            for i in 0..<count {
                try realm.write {
                    realm.create(Dog.self, value: ["id": i, "name": "dog \(i)", "tags": ["t\(i % 3)"]])
                    if i > 2 { RandomWorkload.step(realm, &rng, operations: 2) }
                }
                try record()
            }
            try realm.sync()
        }()
        return (url, segment, schema, states)
    }

    /// Opens a copy of the database whose segment holds `bytes`.
    static func open(_ bytes: Data, segmentName: String, schema: Schema) -> Result<Snapshot, ShoalError> {
        let dir = temporaryDatabaseURL()
        try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try! bytes.write(to: dir.appendingPathComponent(segmentName))
        defer { try? FileManager.default.removeItem(at: dir.deletingLastPathComponent()) }
        do {
            let opened = try DatabaseLog.open(directory: dir.path, schema: schema, durability: .none, io: PosixFileIO())
            opened.log.close()
            return .success(opened.snapshot)
        } catch {
            return .failure(error)
        }
    }

    @Test("a log cut at every byte of its last three records, and at 100 random places, opens to the last transaction completed before the cut")
    func truncationSweep() throws {
        let (_, segment, schema, states) = try Self.makeLog(count: 30)
        let data = try Data(contentsOf: segment)
        #expect(states.last?.end == data.count)
        var cuts = Array(states[states.count - 4].end..<data.count)
        var rng = SeededRandom(seed: 5)
        for _ in 0..<100 { cuts.append(LogFormat.fileHeaderSize + Int(rng.next() % UInt64(data.count - LogFormat.fileHeaderSize))) }
        for cut in cuts {
            // A cut inside the schema record leaves an empty log; opening records the schema again.
            let expected = (states.last { $0.end <= cut } ?? states[0]).snapshot
            switch Self.open(data.prefix(cut), segmentName: segment.lastPathComponent, schema: schema) {
            case .success(let snapshot):
                #expect(snapshot.hasSameContents(as: expected), "cut at \(cut), seed \(rng.seed)")
            case .failure(let error):
                Issue.record("cut at \(cut) failed to open: \(error.detailedDescription())")
            }
        }
    }

    @Test("a single flipped bit anywhere either opens to a committed state (damage in the last record) or fails with a named error")
    func bitFlipSweep() throws {
        let (_, segment, schema, states) = try Self.makeLog(count: 30)
        let data = try Data(contentsOf: segment)
        let lastStart = states[states.count - 2].end
        var rng = SeededRandom(seed: 6)
        var opened = 0, refused = 0
        for _ in 0..<200 {
            var damaged = data
            let offset = Int(rng.next() % UInt64(data.count))
            damaged[offset] ^= UInt8(1 << (rng.next() % 8))
            switch Self.open(damaged, segmentName: segment.lastPathComponent, schema: schema) {
            case .success(let snapshot):
                opened += 1
                #expect(offset >= lastStart, "bit flip at \(offset), before the last record at \(lastStart), opened anyway (seed \(rng.seed))")
                #expect(snapshot.hasSameContents(as: states[states.count - 2].snapshot), "bit flip at \(offset)")
            case .failure(let error):
                refused += 1
                #expect(offset < lastStart, "bit flip at \(offset) in the last record refused: \(error.message)")
                let named: Set<ShoalError.Code> = [.corruptRecord, .corruptHeader, .unsupportedFormat, .notAShoalFile, .nonMonotonicVersion, .requiresNewerShoal, .missingVersions]
                #expect(named.contains(error.code), "unexpected \(error.code): \(error.message)")
                #expect(error.context["path"] != nil)
            }
        }
        #expect(opened > 0 && refused > 0)
    }

    @Test("a crash between writing the compaction snapshot and deleting the old log (matrix case 10) opens to the same state and cleans up on the next compaction")
    func crashAfterSnapshotBeforeTruncation() throws {
        let url = temporaryDatabaseURL()
        let config = fileConfiguration(url)
        let oldSegments: [(String, Data)]
        let expected: Snapshot
        do {
            let realm = try Realm(configuration: config)
            try realm.write { for i in 0..<50 { realm.create(Dog.self, value: ["id": i]) } }
            oldSegments = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".wal") }
                .map { ($0, try Data(contentsOf: url.appendingPathComponent($0))) }
            try realm.compact()
            try realm.write { realm.create(Dog.self, value: ["id": 99]) }
            expected = realm.instance.coordinator.latest
        }
        // Put back what the crash would have left: the segments compaction deletes last.
        for (name, data) in oldSegments { try data.write(to: url.appendingPathComponent(name)) }
        let realm = try Realm(configuration: config)
        #expect(realm.instance.coordinator.latest.hasSameContents(as: expected))
        try realm.compact()
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".wal") }.count == 1)
    }

    @Test("a snapshot whose checksums verify but whose columnar contents are damaged refuses to open with corruptSnapshot, naming the file and payload offset")
    func damagedSnapshotContents() throws {
        let url = temporaryDatabaseURL()
        let config = fileConfiguration(url)
        try {
            let realm = try Realm(configuration: config)
            try realm.write { for i in 0..<100 { realm.create(Dog.self, value: ["id": i, "name": "d\(i)"]) } }
            try realm.compact()
        }()
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: url.path).first { $0.hasSuffix(".snap") })
        let io = PosixFileIO()
        let file = try SnapshotFile.read(at: url.appendingPathComponent(name).path, io: io)
        #expect(file.header.formatVersion == LogFormat.version && LogFormat.version >= LogFormat.columnarSnapshotVersion)
        // Rewritten with its last byte cut, so that only the contents are wrong.
        try SnapshotFile.write(
            Array(file.payload.dropLast()), version: file.version, schemaFingerprint: file.header.schemaFingerprint,
            directory: url.path, io: io)
        let error = #expect(throws: ShoalError.self) { _ = try Realm(configuration: config) }
        #expect(error?.code == .corruptSnapshot)
        #expect(error?.context["path"]?.hasSuffix(name) == true)
        #expect(error?.context["offset"] == String(file.payload.count - 1), "\(String(describing: error))")
    }

    @Test("files left half-written by a crash (*.tmp: a snapshot or a segment being created) are ignored and deleted on open (matrix cases 10b, 10c)")
    func leftoverTemporaryFiles() throws {
        let url = temporaryDatabaseURL()
        let config = fileConfiguration(url)
        try { let realm = try Realm(configuration: config); try realm.write { realm.create(Dog.self, value: ["id": 1]) } }()
        try Data("SHOALSNP garbage".utf8).write(to: url.appendingPathComponent("snapshot-0000000000000009.snap.tmp"))
        try Data(count: 10).write(to: url.appendingPathComponent("log-0000000000000009.wal.tmp"))
        let realm = try Realm(configuration: config)
        #expect(realm.objects(Dog.self).count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.path).allSatisfy { !$0.hasSuffix(".tmp") })
    }
}
