import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

@Suite struct ChangeRecordCodecDecodeAheadTests {
    /// One decoded change, as the walk hands it over.
    enum Change: Equatable {
        case op(ChangeOp)
        case run(InsertColumns)
    }

    /// A payload of runs and single ops: people, then dogs with a rename
    /// after every 500 (so runs alternate with ops across many batches).
    static func payload(_ schema: Schema, dogs: Int) throws -> [UInt8] {
        let dogTable = try #require(schema.tableByName["Dog"])
        let name = schema[dogTable].indexByName["name"]!
        var ops = try ChangeRecordCodecRunTests.personInserts(schema, count: 100)
        for (i, insert) in try ChangeRecordCodecRunTests.dogInserts(schema, first: 0, count: dogs, people: 100).enumerated() {
            ops.append(insert)
            if i % 500 == 499 { ops.append(.set(dogTable, ObjectKey(Int64(i)), property: name, .string("renamed \(i)"))) }
            // Single ops in a stretch longer than a batch.
            if i == 9_000 { for k in 0..<2_500 { ops.append(.set(dogTable, ObjectKey(Int64(k)), property: name, .string("again \(k)"))) } }
        }
        return ChangeRecordCodec.encode(ChangeRecord(baseVersion: 0, ops: ops))
    }

    /// The changes a walk hands over until it has taken `limit`, and what it threw.
    static func walk(_ bytes: [UInt8], _ schema: Schema, aheadOfTime: Bool, limit: Int = .max) -> ([Change], DecodingFailure?) {
        var changes: [Change] = []
        func op(_ op: ChangeOp) -> Bool {
            changes.append(.op(op))
            return changes.count < limit
        }
        func run(_ run: InsertColumns) -> Bool {
            changes.append(.run(run))
            return changes.count < limit
        }
        do {
            if aheadOfTime {
                try ChangeRecordCodec.forEachChangeDecodedAhead(in: bytes, schema: schema, op: op, run: run)
            } else {
                try ChangeRecordCodec.forEachChange(in: bytes, schema: schema, op: op, run: run)
            }
            return (changes, nil)
        } catch {
            return (changes, error)
        }
    }

    @Test("decoding ahead on another thread hands over the same changes in the same order as the direct walk")
    func sameChanges() throws {
        let schema = try makeRealm().instance.schema
        let bytes = try Self.payload(schema, dogs: 20_000)
        let (direct, directFailure) = Self.walk(bytes, schema, aheadOfTime: false)
        let (ahead, aheadFailure) = Self.walk(bytes, schema, aheadOfTime: true)
        #expect(directFailure == nil && aheadFailure == nil)
        #expect(direct.count > 2 * 1_024)
        #expect(direct.contains { if case .run = $0 { true } else { false } })
        #expect(ahead == direct)
    }

    @Test("stopping early hands over exactly the changes up to the stop, and throws nothing", arguments: [1, 5, 1_030, 2_600])
    func stopsEarly(limit: Int) throws {
        let schema = try makeRealm().instance.schema
        let bytes = try Self.payload(schema, dogs: 20_000)
        let (direct, _) = Self.walk(bytes, schema, aheadOfTime: false)
        let (ahead, failure) = Self.walk(bytes, schema, aheadOfTime: true, limit: limit)
        #expect(failure == nil)
        #expect(ahead == Array(direct.prefix(limit)))
    }

    @Test("a payload damaged part way fails with the direct walk's error, after the same changes")
    func damage() throws {
        let schema = try makeRealm().instance.schema
        let bytes = try Self.payload(schema, dogs: 20_000)
        for cut in [bytes.count / 3, bytes.count - 7] {
            var damaged = Array(bytes[..<cut])
            damaged += [UInt8](repeating: 0xFF, count: 9)
            let (direct, directFailure) = Self.walk(damaged, schema, aheadOfTime: false)
            let (ahead, aheadFailure) = Self.walk(damaged, schema, aheadOfTime: true)
            #expect(directFailure != nil)
            #expect(aheadFailure == directFailure)
            #expect(ahead == direct)
        }
    }

    @Test("replaying a record above the threshold decodes ahead and opens to the committed state")
    func replayLargeRecord() throws {
        let url = temporaryDatabaseURL("decode-ahead")
        let configuration = fileConfiguration(url, types: [Person.self, Dog.self])
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write {
                for i in 0..<200 { realm.create(Person.self, value: ["id": i, "name": "person \(i)"]) }
                for i in 0..<60_000 {
                    let dog = Dog()
                    dog.id = i
                    dog.name = "a somewhat long dog name, number \(i)"
                    dog.owner = realm.object(ofType: Person.self, forPrimaryKey: i % 200)
                    realm.add(dog)
                }
            }
        }
        let segment = try #require(FileManager.default.contentsOfDirectory(atPath: url.path).first { $0.hasSuffix(".wal") })
        let source = try RecoverySource.load(path: url.path, ignoringLock: true)
        let payloads = source.segments.flatMap(\.events).compactMap { event -> Int? in
            if case .record(let record, _, _) = event, record.type == .transaction { return record.payload.count }
            return nil
        }
        #expect(payloads.contains { $0 >= ChangeRecordCodec.decodeAheadThreshold }, "\(segment): \(payloads)")
        let realm = try Realm(configuration: configuration)
        #expect(realm.objects(Dog.self).count == 60_000)
        #expect(realm.object(ofType: Person.self, forPrimaryKey: 7)?.ownedDogs.count == 300)
        #expect(realm.instance.current.invariantViolation() == nil)
    }

    #if os(Linux)
    /// An item that notes, when it is freed, whether the consuming thread freed it.
    final class Tracked: Sendable {
        let freedOnConsumer: Locked<[Bool]>
        let consumer: pthread_t
        init(_ freedOnConsumer: Locked<[Bool]>, consumer: pthread_t) {
            self.freedOnConsumer = freedOnConsumer
            self.consumer = consumer
        }
        deinit {
            let here = pthread_equal(pthread_self(), consumer) != 0
            freedOnConsumer.withLock { $0.append(here) }
        }
    }

    @Test("batches the applying thread is done with are freed on a worker of their own, a few at a time, every one freed by the end")
    func consumedBatchesFreedByDecoder() throws {
        let freed = Locked<[Bool]>([])
        // (A `pthread_t` is an integer on Linux: it crosses into the
        // decoder's closure as a value.)
        let consumer = pthread_self()
        let count = 1_000
        var consumed = 0
        try DecodeAhead<Tracked>.run { emit in
            for _ in 0..<count {
                // A batch per item: flushed at once.
                guard emit(Tracked(freed, consumer: consumer), true) else { return }
            }
        } consume: { _ in
            consumed += 1
            return true
        }
        #expect(consumed == count)
        // The worker frees the last batches after the load returns.
        let deadline = Date().addingTimeInterval(10)
        while freed.withLock({ $0.count }) < count && Date() < deadline { usleep(1_000) }
        let onConsumer = freed.withLock { $0 }
        #expect(onConsumer.count == count)
        // Most are freed on the worker. (A hand-off's batches are freed
        // here when this thread drops its reference after the worker has:
        // rare, and bounded by the batches handed off together.)
        #expect(onConsumer.filter { $0 }.count < count / 2, "\(onConsumer.filter { $0 }.count) of \(count) freed by the applying thread")
    }
    #endif
}
