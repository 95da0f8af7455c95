import Foundation
import ShoalTestSupport
import Testing

@testable import Shoal

/// Files no Shoal writes, as a buggy writer, a hostile file or a fuzzer with
/// checksums recomputed makes them (issue 16): each must give a typed error
/// or a report, never a trap, a hang or an allocation the file cannot justify.
@Suite("Hostile files")
struct HostileFileTests {
    typealias F = LogFixture

    static func noOp(_ version: UInt64) -> LogRecord {
        LogRecord(type: .noOp, version: version, timestampMicros: 1_700_000_000_000_000, payload: [])
    }

    /// A database directory on disk holding one segment file with `bytes`.
    static func database(segment bytes: [UInt8]) throws -> String {
        let url = temporaryDatabaseURL("hostile")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Data(bytes).write(to: url.appendingPathComponent(LogFormat.segmentFileName(baseVersion: 0)))
        return url.path
    }

    @Test("a record version past the maximum is damage, and the scan does not overflow")
    func recordVersionAtTheTop() throws {
        let (bytes, receipts) = try F.segmentBytes([F.record(1)])
        let hostile = bytes + Self.noOp(.max).framed(salt: F.salt)
        let reader = try LogReader(path: F.segmentPath, contents: hostile)
        let (report, summary) = reader.scan()
        #expect(report.records.map(\.record.version) == [1])
        #expect(report.damage.map(\.reason) == [.invalidField("version")])
        #expect(summary.lastVersionInOrder == 1)
        var replayed: [UInt64] = []
        let result = reader.replay { replayed.append($0.version) }
        #expect(replayed == [1] && result.validEnd == receipts[0].offset + Int64(receipts[0].byteCount))
    }

    /// A record framed by hand, with whatever lengths and codec, and a valid checksum.
    static func framed(
        type: UInt8, version: UInt64, codec: LogFormat.Codec, payload: [UInt8], rawLength: Int
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLittleEndian(UInt64(0))
        bytes.appendLittleEndian(UInt32(payload.count))
        bytes.appendLittleEndian(UInt32(rawLength))
        bytes.appendLittleEndian(version)
        bytes.appendLittleEndian(UInt64(0))
        bytes += [type, codec.rawValue, 0, 0] + payload
        let checksummed = LogFormat.RecordHeaderLayout.checksummedFrom
        bytes.storeLittleEndian(Checksum.xxh3(bytes, range: checksummed..<bytes.count, seed: F.salt), at: 0)
        return bytes
    }

    @Test("a record of an ignorable type whose payload does not decode stops replay as it stops the scan")
    func ignorableRecordWithBadPayload() throws {
        // Minimized from a crash of the log fuzz target: replay skipped the record unverified, the scan called it damage.
        let (bytes, _) = try F.segmentBytes([])
        let hostile = bytes + Self.framed(type: 0x85, version: 1, codec: .lz4, payload: [0xFF, 0xFF, 0xFF, 0xFF], rawLength: 100)
            + Self.noOp(2).framed(salt: F.salt)
        let (records, result) = try F.replay(hostile)  // checks that scan and replay agree
        #expect(records.isEmpty)
        guard case .corruptRecord(let damage) = result.ending else {
            Issue.record("\(result.ending)")
            return
        }
        #expect(damage.offset == Int64(LogFormat.fileHeaderSize))
        let skipped = try F.replay(bytes + Self.framed(type: 0x85, version: 1, codec: .raw, payload: [1, 2], rawLength: 2)
            + Self.noOp(2).framed(salt: F.salt))
        #expect(skipped.records.map(\.version) == [2] && skipped.result.ignoredRecordCount == 1)
    }

    @Test("a header base version past the maximum is a damaged header", arguments: [UInt64.max, UInt64(Int64.max)])
    func headerVersionAtTheTop(base: UInt64) throws {
        let header = FileHeader(kind: .log, salt: F.salt, baseVersion: base, schemaFingerprint: 0, createdAtMicros: 0)
        #expect(throws: FileHeaderError.corrupt(field: "baseVersion")) {
            try FileHeader.decode(header.encoded(), expecting: .log)
        }
        let error = #expect(throws: ShoalError.self) { try LogReader(path: F.segmentPath, contents: header.encoded()) }
        #expect(error?.code == .corruptHeader)
        var atMaximum = header
        atMaximum.baseVersion = LogFormat.maximumVersion
        #expect(try LogReader(path: F.segmentPath, contents: atMaximum.encoded()).header.baseVersion == LogFormat.maximumVersion)
    }

    @Test("dump --json of a segment based at 2^63 - 1 reports the header, without converting the version")
    func dumpOfAHugeBase() throws {
        let header = FileHeader(
            kind: .log, salt: F.salt, baseVersion: UInt64(Int64.max), schemaFingerprint: 0, createdAtMicros: 0)
        let path = try Self.database(segment: header.encoded() + [UInt8](repeating: 0xAB, count: 50))
        var lines: [String] = []
        try LogInspector(path: path, ignoringLock: true).dump(format: .json) { lines.append($0) }
        #expect(lines.contains { $0.contains("\"corruptHeader\"") })
        for line in lines { #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(line)") }
    }

    @Test("a version gap larger than the damage before it could hold is reported, not listed version by version")
    func versionGapBeyondTheDamage() throws {
        let (bytes, _) = try F.segmentBytes([Self.noOp(1)])
        let gap: UInt64 = 1 << 22
        let hostile = bytes + [UInt8](repeating: 0xAB, count: 40) + Self.noOp(1 + gap).framed(salt: F.salt)
        let source = try RecoverySource.load(path: try Self.database(segment: hostile), ignoringLock: true)
        let salvage = RecoveryWalk.run(source, policy: .skipBadRecords)
        #expect(salvage.lost.count < 16)
        #expect(salvage.state.version == 1 && salvage.highestValidVersion == 1)
        #expect(salvage.problems.contains { $0.kind == .nonMonotonicVersion && $0.reason.contains("\(1 + gap)") })
        let stop = RecoveryWalk.run(source, policy: .stopAtFirstProblem)
        #expect(stop.state.version == 1 && stop.highestValidVersion == 1)
    }

    @Test("a gap the damage before it can hold is still bridged, each missing version listed")
    func versionGapWithinTheDamage() throws {
        let (bytes, _) = try F.segmentBytes([Self.noOp(1)])
        let hostile = bytes + [UInt8](repeating: 0xAB, count: 36 * 4) + Self.noOp(6).framed(salt: F.salt)
        let source = try RecoverySource.load(path: try Self.database(segment: hostile), ignoringLock: true)
        let salvage = RecoveryWalk.run(source, policy: .skipBadRecords)
        #expect(salvage.lost.map(\.version) == [2, 3, 4, 5])
        #expect(salvage.state.version == 6)
    }

    static let oneInt = Schema([ObjectSchema(className: "A", properties: [Property(name: "n", type: .int)])])

    /// A columnar snapshot payload of `schema` whose only table has `slots` slots and no live object.
    static func snapshotPayload(slots: Int, schema: Schema = oneInt) -> [UInt8] {
        snapshotPayload(slots: [slots], schema: schema)
    }

    /// A columnar snapshot payload of `schema` whose table `t` has `slots[t]` slots and no live object.
    static func snapshotPayload(slots: [Int], schema: Schema) -> [UInt8] {
        var w = ByteWriter()
        w.varint(1)
        w.varint(0)
        SchemaCodec.encode(schema, into: &w)
        for (t, count) in slots.enumerated() {
            w.varint(t)
            w.varint(count)
            w.varint(0)  // live
            w.varint(0)  // runs
        }
        for _ in slots { w.varint(0) }  // backlinks
        return w.bytes
    }

    @Test("a deleted-slot count past the bound is refused before it is allocated")
    func hugeSlotCount() throws {
        let failure = #expect(throws: DecodingFailure.self) {
            try SnapshotCodec.decodeColumnar(ByteReader(Self.snapshotPayload(slots: 1 << 31)), leafKinds: true, codedKinds: true, decodeAheadFrom: .max)
        }
        #expect(failure?.reason.contains("deleted slots") == true)
        let limit = SnapshotCodec.maximumDeletedSlots
        #expect(limit == 1 << 26)
        // The fuzzer's 53-byte snapshot: 2^28 deleted slots of a one-property
        // class, under the old bound of cells, over 4 GB and 10 s to load.
        #expect(throws: DecodingFailure.self) {
            try SnapshotCodec.decodeColumnar(ByteReader(Self.snapshotPayload(slots: 1 << 28)), leafKinds: true, codedKinds: true, decodeAheadFrom: .max)
        }
        #expect(throws: DecodingFailure.self) {
            try SnapshotCodec.decodeColumnar(ByteReader(Self.snapshotPayload(slots: limit + 1)), leafKinds: true, codedKinds: true, decodeAheadFrom: .max)
        }
        // The bound is for the whole snapshot: a second table may not take
        // another gigabyte (each table alone is within it).
        let two = Schema(["A", "B"].map { ObjectSchema(className: $0, properties: [Property(name: "n", type: .int)]) })
        let both = #expect(throws: DecodingFailure.self) {
            try SnapshotCodec.decodeColumnar(ByteReader(Self.snapshotPayload(slots: [1000, limit - 500], schema: two)), leafKinds: true, codedKinds: true, decodeAheadFrom: .max)
        }
        #expect(both?.reason.contains("deleted slots of B") == true, "\(String(describing: both))")
        let small = try SnapshotCodec.decodeColumnar(ByteReader(Self.snapshotPayload(slots: [1000, 2000], schema: two)), leafKinds: true, codedKinds: true, decodeAheadFrom: .max)
        #expect(small.tables.map(\.alive.count) == [1000, 2000])
        let loaded = try SnapshotCodec.decodeColumnar(ByteReader(Self.snapshotPayload(slots: 1000)), leafKinds: true, codedKinds: true, decodeAheadFrom: .max)
        #expect(loaded.tables[0].alive.count == 1000)
        // Deleted slots hold no backlink leaves.
        #expect(loaded.tables[0].backlinks.count == 1000)
        #expect(loaded.tables[0].backlinks.linkedLeafCount == 0)
    }

    @Test("a snapshot whose payload is at another version than its header is damaged")
    func snapshotVersionMismatch() throws {
        let io = FaultyFileIO()
        var state = Snapshot(schema: Self.oneInt)
        state.version = .max
        let path = try SnapshotFile.write(
            SnapshotCodec.encode(state), version: 3, schemaFingerprint: Self.oneInt.fingerprint, directory: "/db", io: io)
        let file = try SnapshotFile.read(at: path, io: io)
        let failure = #expect(throws: DecodingFailure.self) { try file.decodedSnapshot() }
        #expect(failure?.reason.contains("\(UInt64.max)") == true)
        state.version = 3
        let good = try SnapshotFile.write(
            SnapshotCodec.encode(state), version: 3, schemaFingerprint: Self.oneInt.fingerprint, directory: "/db", io: io)
        #expect(try SnapshotFile.read(at: good, io: io).decodedSnapshot().version == 3)
    }

    @Test("a live count larger than the bytes left is refused before it is reserved for")
    func liveCountPastTheBytes() throws {
        var w = ByteWriter()
        w.varint(1)
        w.varint(0)
        SchemaCodec.encode(Self.oneInt, into: &w)
        w.varint(0)
        w.varint(1 << 20)
        w.varint(1 << 20)
        w.varint(0)
        #expect(throws: DecodingFailure.self) { try SnapshotCodec.decodeColumnar(ByteReader(w.bytes), leafKinds: true, codedKinds: true, decodeAheadFrom: .max) }
    }

    @Test("an LZ4 record stating more raw bytes than its payload can expand to is damage")
    func impossibleExpansion() throws {
        let (bytes, receipts) = try F.segmentBytes([F.record(1, .compressible)])
        var hostile = bytes
        let offset = Int(receipts[0].offset)
        let payloadLength = Int(hostile.loadLittleEndian(UInt32.self, at: offset + LogFormat.RecordHeaderLayout.payloadLength))
        hostile.storeLittleEndian(UInt32(payloadLength * 300), at: offset + LogFormat.RecordHeaderLayout.rawLength)
        let checksummed = LogFormat.RecordHeaderLayout.checksummedFrom
        hostile.storeLittleEndian(
            Checksum.xxh3(hostile, range: (offset + checksummed)..<hostile.count, seed: F.salt),
            at: offset + LogFormat.RecordHeaderLayout.checksum)
        let (report, _) = try LogReader(path: F.segmentPath, contents: hostile).scan()
        #expect(report.records.isEmpty)
        guard case .lengthOutOfBounds? = report.damage.first?.reason else {
            Issue.record("\(report.damage)")
            return
        }
    }

    @Test("a NaN date in a record is described in the error, not trapped on")
    func nanDateInARecord() throws {
        let schema = Schema([ObjectSchema(className: "A", properties: [Property(name: "s", type: .string)])])
        let nan = Date(timeIntervalSinceReferenceDate: .nan)
        let payload = ChangeRecordCodec.encode(
            ChangeRecord(baseVersion: 0, ops: [.insert(TableKey(0), ObjectKey(0), [.date(nan)])]), insertRuns: false)
        let failure = #expect(throws: DecodingFailure.self) {
            try ChangeRecordCodec.decode(payload, baseVersion: 0, schema: schema)
        }
        #expect(failure?.reason.contains("nan") == true)
        #expect(Value.date(nan).description == "Date(timeIntervalSince1970: nan)")
    }

    @Test("a stored schema with duplicate or empty names is invalid", arguments: [
        ["A", "A"], ["", "B"],
    ])
    func duplicateClassNames(names: [String]) throws {
        let schema = Schema(names.map { ObjectSchema(className: $0, properties: [Property(name: "n", type: .int)]) })
        #expect(throws: DecodingFailure.self) { try SchemaCodec.decode(SchemaCodec.encode(schema)) }
    }

    @Test("a stored class with duplicate or empty property names is invalid", arguments: [["n", "n"], ["", "m"]])
    func duplicatePropertyNames(names: [String]) throws {
        let schema = Schema([ObjectSchema(className: "A", properties: names.map { Property(name: $0, type: .int) })])
        #expect(throws: DecodingFailure.self) { try SchemaCodec.decode(SchemaCodec.encode(schema)) }
        #expect(throws: ShoalError.self) { try schema.validate() }
    }

    @Test("a new database's directories are created through FileIO, durably")
    func directoryCreation() throws {
        let io = FaultyFileIO()
        let opened = try DatabaseLog.open(directory: "/data/new/db", schema: Self.oneInt, durability: .durable, io: io)
        opened.log.close()
        #expect(io.callCount(.createDirectory) == 1)
        #expect(io.model.withLock { $0.durableDirectories } == ["/data", "/data/new", "/data/new/db"])
        let image = FaultyFileIO.crashImage(of: io.model.withLock { $0 }, keptPending: 0, then: .dropped)
        #expect(!(try image.listDirectory(at: "/data/new/db").filter { $0.hasPrefix("log-") }.isEmpty))
    }

    @Test("the POSIX file system creates missing parents")
    func posixCreateDirectory() throws {
        let root = temporaryDatabaseURL("dirs").deletingLastPathComponent().path
        let path = joinPath(joinPath(root, "a"), "b")
        try PosixFileIO().createDirectory(at: path)
        try PosixFileIO().createDirectory(at: path)
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue)
    }
}
