import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

@Suite struct BatchApplierTests {
    /// Random commits (inserts, indexed and unindexed sets, deletes, links,
    /// collections), with the snapshot before each and its record.
    static func commits(seed: UInt64, rounds: Int) throws -> (realm: Realm, steps: [(base: Snapshot, record: ChangeRecord)]) {
        var rng = SeededRandom(seed: seed)
        let realm = try makeRealm()
        var steps: [(Snapshot, ChangeRecord)] = []
        for _ in 0..<rounds {
            let base = realm.instance.coordinator.latest
            realm.beginWrite()
            RandomWorkload.step(realm, &rng, operations: 1 + Int(rng.next() % 40))
            let record = try #require(realm.instance.transaction).record
            try realm.commitWrite()
            if !record.isEmpty { steps.append((base, record)) }
        }
        return (realm, steps)
    }

    @Test("a batch with deferred indexing gives exactly the snapshot of the live commit, record by record")
    func recordByRecord() throws {
        let (realm, steps) = try Self.commits(seed: 0xBA7C4, rounds: 150)
        #expect(steps.count > 120)
        var deferredSets = 0
        for (round, (base, record)) in steps.enumerated() {
            var batch = BatchApplier(base)
            for op in record.ops {
                let problem = batch.apply(op)
                #expect(problem == nil, "round \(round)")
            }
            let r1 = batch.finish()

            #expect(r1 == nil)
            var replayed = batch.snapshot
            replayed.version = base.version + 1
            let expected = base.applying(record)
            #expect(replayed.hasSameContents(as: expected), "round \(round)")
            #expect(replayed.invariantViolation() == nil, "round \(round)")
            // Count records where an indexed property of an object inserted
            // in the same record is set afterwards: the flush-before-set path.
            var inserted: Set<ObjectKey> = []
            for op in record.ops {
                if case .insert(_, let k, _) = op { inserted.insert(k) }
                if case .set(_, let k, let p, _) = op, inserted.contains(k),
                    base.schema[op.target.table].properties[p].name == "age"
                {
                    deferredSets += 1
                }
            }
        }
        #expect(deferredSets > 0, "the workload never set an indexed property of an object inserted in the same record")
        #expect(realm.instance.coordinator.latest.invariantViolation() == nil)
    }

    @Test("a batch that takes the state over (replay on open) leaves an empty snapshot behind, gives the live commit's snapshot record by record, and leaves copies alone")
    func takingTheState() throws {
        let (_, steps) = try Self.commits(seed: 0x7A4E, rounds: 80)
        var state = steps[0].base
        for (round, (base, record)) in steps.enumerated() {
            let kept = state
            var batch = BatchApplier(taking: &state)
            #expect(state.tables.isEmpty && state.schema.objectSchema.isEmpty, "round \(round)")
            for op in record.ops { #expect(batch.apply(op) == nil, "round \(round)") }
            #expect(batch.finish() == nil)
            state = batch.snapshot
            state.version = base.version + 1
            #expect(state.hasSameContents(as: base.applying(record)), "round \(round)")
            #expect(kept.hasSameContents(as: base), "round \(round): a copy of the taken state changed")
        }
        #expect(state.invariantViolation() == nil)
    }

    @Test("one batch over every record of a history gives the final snapshot")
    func wholeHistory() throws {
        let (realm, steps) = try Self.commits(seed: 0x5EED, rounds: 150)
        var batch = BatchApplier(try #require(steps.first?.base))
        for (_, record) in steps {
            for op in record.ops {
                let problem = batch.apply(op)
                #expect(problem == nil)
            }
        }
        let r2 = batch.finish()

        #expect(r2 == nil)
        let latest = realm.instance.coordinator.latest
        var final = batch.snapshot
        final.version = latest.version
        #expect(final.hasSameContents(as: latest))
        #expect(batch.snapshot.invariantViolation() == nil)
    }

    @Test("a duplicate primary key is found when the batch is indexed, within the batch and against indexed objects")
    func duplicatePrimaryKeys() throws {
        let schema = try makeRealm().instance.schema
        let dogs = try #require(schema.tableByName["Dog"])
        let pk = try #require(schema[dogs].primaryKeyIndex)
        var values = ClassRegistry.info(for: Dog.self).defaults
        func dog(_ id: Int) -> [Value] {
            values[pk] = .int(Int64(id))
            return values
        }

        // Within one batch.
        var batch = BatchApplier(Snapshot(schema: schema))
        let r3 = batch.apply(.insert(dogs, ObjectKey(0), dog(7)))

        #expect(r3 == nil)
        let r4 = batch.apply(.insert(dogs, ObjectKey(1), dog(8)))

        #expect(r4 == nil)
        let r5 = batch.apply(.insert(dogs, ObjectKey(2), dog(7)))

        #expect(r5 == nil)
        let finished = batch.finish()
        let problem = try #require(finished)
        #expect(problem.contains("share the primary key 7"), "\(problem)")

        // Against an object indexed by an earlier batch.
        var first = BatchApplier(Snapshot(schema: schema))
        let r6 = first.apply(.insert(dogs, ObjectKey(0), dog(7)))

        #expect(r6 == nil)
        let r7 = first.finish()

        #expect(r7 == nil)
        var second = BatchApplier(first.snapshot)
        let r8 = second.apply(.insert(dogs, ObjectKey(1), dog(7)))

        #expect(r8 == nil)
        let r99 = second.finish()
        #expect(r99?.contains("share the primary key 7") == true)

        // A set of the primary key checks against the pending inserts too.
        var third = BatchApplier(Snapshot(schema: schema))
        let r9 = third.apply(.insert(dogs, ObjectKey(0), dog(1)))

        #expect(r9 == nil)
        let r10 = third.apply(.insert(dogs, ObjectKey(1), dog(2)))

        #expect(r10 == nil)
        let setProblem = third.apply(.set(dogs, ObjectKey(1), property: pk, .int(1)))
        #expect(setProblem?.contains("already has") == true, "\(String(describing: setProblem))")
    }

    @Test("a replayed record that inserts a duplicate primary key fails to open, naming the record's version")
    func replayNamesVersion() throws {
        let schema = try makeRealm().instance.schema
        let directory = temporaryDatabaseURL()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let dogs = try #require(schema.tableByName["Dog"])
        let pk = try #require(schema[dogs].primaryKeyIndex)
        var values = ClassRegistry.info(for: Dog.self).defaults
        values[pk] = .int(1)

        let opened = try DatabaseLog.open(directory: directory.path, schema: schema, durability: .durable, io: PosixFileIO())
        var state = opened.snapshot
        for key in 0..<2 {
            // The second record is one no write transaction would make.
            var record = ChangeRecord(baseVersion: state.version)
            record.ops = [.insert(dogs, ObjectKey(Int64(key)), values)]
            try opened.log.waitUntilDurable(try opened.log.enqueue(record, version: state.version + 1, schemaFingerprint: state.schema.fingerprint))
            state.apply(record.ops[0], indexing: false)
            state.version += 1
        }
        opened.log.close()

        let error = #expect(throws: ShoalError.self) {
            _ = try DatabaseLog.open(directory: directory.path, schema: schema, durability: .durable, io: PosixFileIO())
        }
        #expect(error?.code == .corruptRecord)
        #expect(error?.message.contains("version \(state.version)") == true, "\(String(describing: error?.message))")
        #expect(error?.message.contains("share the primary key 1") == true, "\(String(describing: error?.message))")
    }

    @Test("a batch large enough to build its indexes in parallel gives the same indexes, and finds a duplicate key")
    func parallelIndexing() throws {
        let schema = try makeRealm().instance.schema
        let dogs = try #require(schema.tableByName["Dog"])
        let pk = try #require(schema[dogs].primaryKeyIndex)
        let age = try #require(schema[dogs].indexByName["age"])
        // Above the parallel threshold, below the background one: indexed
        // when the batch finishes, each index on its own thread.
        let count = Table.parallelIndexingThreshold + 1_000
        #expect(count < BatchApplier.backgroundIndexingThreshold)
        var values = ClassRegistry.info(for: Dog.self).defaults
        func ops(duplicateAt: Int?) -> [ChangeOp] {
            (0..<count).map { i in
                values[pk] = .int(Int64(i == duplicateAt ? 17 : i))
                values[age] = .int(Int64(i % 16))
                return .insert(dogs, ObjectKey(Int64(i)), values)
            }
        }
        var live = Snapshot(schema: schema)
        for op in ops(duplicateAt: nil) { live.apply(op) }

        var batch = BatchApplier(Snapshot(schema: schema))
        for op in ops(duplicateAt: nil) {
            let problem = batch.apply(op)
            #expect(problem == nil)
        }
        let finished = batch.finish()
        #expect(finished == nil)
        #expect(batch.snapshot.hasSameContents(as: live))
        #expect(batch.snapshot.invariantViolation() == nil)

        var duplicate = BatchApplier(Snapshot(schema: schema))
        for op in ops(duplicateAt: count - 1) { _ = duplicate.apply(op) }
        let problem = duplicate.finish()
        #expect(problem?.contains("share the primary key 17") == true, "\(String(describing: problem))")
    }

    @Test("a large record of inserts, sets folded into them, and ops that need the indexes mid-way gives the live snapshot")
    func runsAndBackgroundIndexing() throws {
        let schema = try makeRealm().instance.schema
        let dogs = try #require(schema.tableByName["Dog"])
        let people = try #require(schema.tableByName["Person"])
        let dogPK = try #require(schema[dogs].primaryKeyIndex)
        let personPK = try #require(schema[people].primaryKeyIndex)
        let age = try #require(schema[dogs].indexByName["age"])
        let owner = try #require(schema[dogs].indexByName["owner"])
        let name = try #require(schema[dogs].indexByName["name"])
        var dogValues = ClassRegistry.info(for: Dog.self).defaults
        var personValues = ClassRegistry.info(for: Person.self).defaults
        func person(_ i: Int) -> Link { Link(table: people, key: ObjectKey(Int64(i))) }

        var ops: [ChangeOp] = []
        for i in 0..<100 {
            personValues[personPK] = .int(Int64(i))
            ops.append(.insert(people, ObjectKey(Int64(i)), personValues))
        }
        let count = BatchApplier.backgroundIndexingThreshold * 3
        for i in 0..<count {
            let key = ObjectKey(Int64(i))
            dogValues[dogPK] = .int(Int64(i))
            dogValues[age] = .int(Int64(i % 16))
            ops.append(.insert(dogs, key, dogValues))
            // As a live write makes them: the links, then other properties.
            ops.append(.set(dogs, key, property: owner, .link(person(i % 100))))
            if i % 7 == 0 { ops.append(.set(dogs, key, property: owner, .link(person((i + 1) % 100)))) }
            if i % 11 == 0 { ops.append(.set(dogs, key, property: age, .int(99))) }
            if i % 13 == 0 { ops.append(.set(dogs, key, property: owner, .null)) }
            // Ops on objects already applied (and perhaps handed to the
            // background indexes): they need the indexes home.
            if i == count / 2 {
                ops.append(.set(dogs, ObjectKey(5), property: age, .int(42)))
                ops.append(.set(dogs, ObjectKey(6), property: name, .string("six")))
                ops.append(.set(dogs, ObjectKey(8), property: owner, .null))
                ops.append(.delete(dogs, ObjectKey(8)))
                ops.append(.set(dogs, ObjectKey(9), property: dogPK, .int(Int64(count + 9))))
            }
        }
        var live = Snapshot(schema: schema)
        for op in ops {
            #expect(live.problem(applying: op) == nil)
            live.apply(op)
        }

        var batch = BatchApplier(Snapshot(schema: schema))
        for (i, op) in ops.enumerated() {
            let problem = batch.apply(op)
            #expect(problem == nil, "op \(i): \(op)")
        }
        let finished = batch.finish()
        #expect(finished == nil)
        #expect(batch.snapshot.hasSameContents(as: live))
        #expect(batch.snapshot.invariantViolation() == nil)
        #expect(batch.snapshot.object(dogs, primaryKey: .int(Int64(count + 9))) == ObjectKey(9))
    }

    /// `count` dogs (ids and keys `0..<count`, ages `i % 16`) applied and
    /// finished in one batch, as a replay of one bulk insert makes them.
    static func loadedDogs(_ count: Int, schema: Schema) throws -> Snapshot {
        var batch = BatchApplier(Snapshot(schema: schema))
        for op in try dogInserts(count, schema: schema) { #expect(batch.apply(op) == nil) }
        #expect(batch.finish() == nil)
        return batch.snapshot
    }

    /// The inserts of `count` dogs: ids and keys `0..<count`, ages `i % 16`.
    static func dogInserts(_ count: Int, schema: Schema) throws -> [ChangeOp] {
        let dogs = try #require(schema.tableByName["Dog"])
        let dogPK = try #require(schema[dogs].primaryKeyIndex)
        let age = try #require(schema[dogs].indexByName["age"])
        var values = ClassRegistry.info(for: Dog.self).defaults
        return (0..<count).map { i in
            values[dogPK] = .int(Int64(i))
            values[age] = .int(Int64(i % 16))
            return .insert(dogs, ObjectKey(Int64(i)), values)
        }
    }

    @Test("an index input holds a run of live slots as its range and slots with deletions among them as a list, with each live object's values in key order")
    func indexInputKeys() throws {
        let schema = try makeRealm().instance.schema
        let dogs = try #require(schema.tableByName["Dog"])
        let pk = try #require(schema[dogs].primaryKeyIndex)
        let age = try #require(schema[dogs].indexByName["age"])
        var snapshot = try Self.loadedDogs(3 * IntChunks.width, schema: schema)
        func expectInput(_ slots: Range<Int>, live: [Int]) {
            let input = IndexInput(snapshot.tables[dogs.index], slots: slots, properties: [pk, age])
            #expect(input.keys.map(\.slot) == live, "\(slots)")
            // (As integers while the column holds no null; deleted objects' nulls make them values.)
            #expect(Array(input.values(of: pk)) == live.map { .int(Int64($0)) } && Array(input.values(of: age)) == live.map { .int(Int64($0 % 16)) })
            // Read later from leaves shared with the table: the same values;
            // the ids, which count up, with nothing copied.
            var shared = IndexInput(snapshot.tables[dogs.index], slots: slots, properties: [pk, age], sharingLeaves: true)
            // (Deleted objects leave nulls in the columns: values then, as above.)
            let allLive = live.count == slots.count && snapshot.tables[dogs.index].scalars[pk].nulls == nil
            #expect(shared.sharesLeaves == allLive, "\(slots)")
            shared.readSharedLeaves()
            #expect(!shared.sharesLeaves)
            #expect(shared.keys.map(\.slot) == live && Array(shared.values(of: pk)) == Array(input.values(of: pk)) && Array(shared.values(of: age)) == Array(input.values(of: age)), "\(slots)")
            if allLive {
                guard case .consecutive(let first, let count)? = shared.integers[pk] else {
                    Issue.record("ids read from shared leaves were not found consecutive: \(slots)")
                    return
                }
                #expect(first == Int64(slots.lowerBound) && count == slots.count)
                guard case .array(let ages)? = shared.integers[age] else {
                    Issue.record("ages read from shared leaves are not an array: \(slots)")
                    return
                }
                #expect(Array(ages) == live.map { Int64($0 % 16) })
            }
        }
        let span = 5..<(2 * IntChunks.width + 7)
        expectInput(span, live: Array(span))
        // Deleted objects in two leaves: listed around.
        let deleted: Set = [6, IntChunks.width + 1, 2 * IntChunks.width + 6]
        for slot in deleted.sorted() {
            let problem = snapshot.problem(applying: .delete(dogs, ObjectKey(Int64(slot))))
            #expect(problem == nil)
            snapshot.apply(.delete(dogs, ObjectKey(Int64(slot))))
        }
        expectInput(span, live: span.filter { !deleted.contains($0) })
        expectInput(7..<IntChunks.width, live: Array(7..<IntChunks.width))
    }

    @Test("grouping by small-range integers gives each value's keys in order, and leaves wide ranges, other kinds and empty input to hashing")
    func groupSmallIntegers() {
        let keys = (0..<5000).map { ObjectKey(Int64($0 * 3)) }
        let values = ContiguousArray(keys.indices.map { Value.int(Int64(($0 * 7919) % 23) - 11) })
        let runs = IndexBuild.groupSmallIntegers(keys, values)
        var expected: [Int64: [ObjectKey]] = [:]
        for (key, value) in zip(keys, values) { if case .int(let n) = value { expected[n, default: []].append(key) } }
        #expect(runs?.map(\.value) == expected.keys.sorted())
        #expect(runs?.allSatisfy { Array($0.keys) == expected[$0.value] } == true)

        // Extremes of Int64 in one input: the span overflows.
        #expect(IndexBuild.groupSmallIntegers(Array(keys.prefix(2)), [.int(.min), .int(.max)]) == nil)
        // A span wider than the input (and than 4096).
        #expect(IndexBuild.groupSmallIntegers(Array(keys.prefix(2)), [.int(0), .int(1_000_000)]) == nil)
        #expect(IndexBuild.groupSmallIntegers(Array(keys.prefix(2)), [.int(4), .null]) == nil)
        #expect(IndexBuild.groupSmallIntegers(Array(keys.prefix(2)), [.int(4), .double(4)]) == nil)
        #expect(IndexBuild.groupSmallIntegers([], []) == nil)
        let single = IndexBuild.groupSmallIntegers([ObjectKey(9)], [.int(-3)])
        #expect(single?.count == 1 && single?[0].value == -3 && single.map { Array($0[0].keys) } == [ObjectKey(9)])
    }

    @Test("a large batch finishes with its secondary indexes still building: reads wait for them from any thread, a change takes them over, copies keep theirs")
    func pendingSecondaryIndexes() throws {
        let schema = try makeRealm().instance.schema
        let dogs = try #require(schema.tableByName["Dog"])
        let age = try #require(schema[dogs].indexByName["age"])
        let count = BatchApplier.backgroundIndexingThreshold * 2 + 100
        let opened = try Self.loadedDogs(count, schema: schema)
        // The primary keys are in place; the age index is handed over pending.
        #expect(opened.tables[dogs.index].pendingSecondaryIndexes != nil)
        #expect(opened.tables[dogs.index].hasSecondaryIndex(age))
        #expect(opened.object(dogs, primaryKey: .int(Int64(count - 1))) == ObjectKey(Int64(count - 1)))

        // Readers on several threads wait for the same indexes.
        let sizes = Locked([Int](repeating: -1, count: 4))
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            let size = opened.tables[dogs.index].secondaryIndex(age)?[.int(Int64(thread))]?.count ?? 0
            sizes.withLock { $0[thread] = size }
        }
        #expect(sizes.withLock { $0 } == (0..<4).map { thread in (0..<count).count { $0 % 16 == thread } })

        // A change takes the indexes over; the copy it came from keeps its own.
        var changed = opened
        let set = ChangeOp.set(dogs, ObjectKey(0), property: age, .int(99))
        #expect(changed.problem(applying: set) == nil)
        changed.apply(set)
        #expect(changed.tables[dogs.index].pendingSecondaryIndexes == nil)
        #expect(changed.tables[dogs.index].secondaryIndex(age)?[.int(99)].map { Array($0.keys) } == [ObjectKey(0)])
        #expect(opened.tables[dogs.index].secondaryIndex(age)?[.int(99)] == nil)
        #expect(opened.tables[dogs.index].secondaryIndex(age)?[.int(0)]?.count == (0..<count).count { $0 % 16 == 0 })
        #expect(changed.invariantViolation() == nil)
        #expect(opened.invariantViolation() == nil)
        // Read, so released without cancelling anything.
        #expect(opened.tables[dogs.index].pendingSecondaryIndexes?.job.isCancelled == false)
    }

    @Test("secondary indexes still building when every table holding them is released are cancelled, and read ones are not")
    func unreadPendingIndexesAreCancelled() throws {
        let schema = try makeRealm().instance.schema
        let dogs = try #require(schema.tableByName["Dog"])
        func loaded() throws -> Snapshot { try Self.loadedDogs(BatchApplier.backgroundIndexingThreshold + 10, schema: schema) }
        var unread: Snapshot? = try loaded()
        let unreadJob = try #require(unread?.tables[dogs.index].pendingSecondaryIndexes?.job)
        #expect(!unreadJob.isCancelled)
        unread = nil
        #expect(unreadJob.isCancelled)

        var read: Snapshot? = try loaded()
        let readJob = try #require(read?.tables[dogs.index].pendingSecondaryIndexes?.job)
        #expect(read?.tables[dogs.index].secondaryIndexes.isEmpty == false)
        read = nil
        #expect(!readJob.isCancelled)
    }

    @Test("a run's checks: keys in order, links only to live or earlier queued objects, duplicates found in the background")
    func runChecks() throws {
        let schema = try makeRealm().instance.schema
        let dogs = try #require(schema.tableByName["Dog"])
        let dogPK = try #require(schema[dogs].primaryKeyIndex)
        let owner = try #require(schema[dogs].indexByName["owner"])
        var values = ClassRegistry.info(for: Dog.self).defaults
        func dog(_ id: Int) -> [Value] {
            values[dogPK] = .int(Int64(id))
            return values
        }

        var batch = BatchApplier(Snapshot(schema: schema))
        #expect(batch.apply(.insert(dogs, ObjectKey(0), dog(0))) == nil)
        #expect(batch.apply(.insert(dogs, ObjectKey(2), dog(2)))?.contains("next key is key#1") == true)
        let nobody = Link(table: try #require(schema.tableByName["Person"]), key: ObjectKey(0))
        #expect(batch.apply(.set(dogs, ObjectKey(0), property: owner, .link(nobody)))?.contains("not a live object") == true)
        #expect(batch.apply(.set(dogs, ObjectKey(3), property: owner, .null))?.contains("not a live object") == true)

        // A queued object is live for the ops after it: a set of its
        // properties is folded into the run, a link to it checks out.
        var links = BatchApplier(Snapshot(schema: schema))
        let people = try #require(schema.tableByName["Person"])
        var person = ClassRegistry.info(for: Person.self).defaults
        person[try #require(schema[people].primaryKeyIndex)] = .int(1)
        #expect(links.apply(.insert(people, ObjectKey(0), person)) == nil)
        #expect(links.apply(.insert(dogs, ObjectKey(0), dog(0))) == nil)
        #expect(links.apply(.set(dogs, ObjectKey(0), property: owner, .link(Link(table: people, key: ObjectKey(0))))) == nil)
        #expect(links.apply(.insert(dogs, ObjectKey(1), dog(1))) == nil)
        let problem = links.finish()
        #expect(problem == nil)
        #expect(links.snapshot.tables[dogs.index].count == 2)
        #expect(links.snapshot.value(dogs, ObjectKey(0), owner) == .link(Link(table: people, key: ObjectKey(0))))
        #expect(links.snapshot.backlinks(people, ObjectKey(0), origin: dogs, property: owner) == [ObjectKey(0)])

        // A duplicate among objects indexed in the background.
        let count = BatchApplier.backgroundIndexingThreshold * 2
        var big = BatchApplier(Snapshot(schema: schema))
        for i in 0..<count { _ = big.apply(.insert(dogs, ObjectKey(Int64(i)), dog(i == count - 10 ? 3 : i))) }
        let duplicate = big.finish()
        #expect(duplicate?.contains("share the primary key 3") == true, "\(String(describing: duplicate))")
    }
}

extension BatchApplierTests {
    @Test("sets of properties no index holds and collection changes leave the indexes building on their threads; a set of an indexed property brings them home; the result is the live one")
    func opsThatLeaveIndexesAlone() throws {
        let schema = try makeRealm().instance.schema
        let dogs = try #require(schema.tableByName["Dog"])
        let age = try #require(schema[dogs].indexByName["age"])
        let name = try #require(schema[dogs].indexByName["name"])
        let tags = try #require(schema[dogs].indexByName["tags"])
        let ops = try Self.dogInserts(BatchApplier.backgroundIndexingThreshold + 100, schema: schema)
        var live = Snapshot(schema: schema)
        var batch = BatchApplier(Snapshot(schema: schema))
        func apply(_ op: ChangeOp) {
            #expect(live.problem(applying: op) == nil)
            live.apply(op)
            #expect(batch.apply(op) == nil, "\(op)")
        }
        for op in ops { apply(op) }
        // The insert runs handed the table's indexes to their threads.
        #expect(batch.snapshot.tables[dogs.index].primaryIndex == nil)
        apply(.set(dogs, ObjectKey(5), property: name, .string("five")))
        apply(.setInsert(dogs, ObjectKey(6), property: tags, .string("good")))
        #expect(batch.snapshot.tables[dogs.index].primaryIndex == nil)
        apply(.set(dogs, ObjectKey(7), property: age, .int(42)))
        #expect(batch.snapshot.tables[dogs.index].primaryIndex != nil)
        #expect(batch.finish() == nil)
        #expect(batch.snapshot.hasSameContents(as: live))
        #expect(batch.snapshot.invariantViolation() == nil)
    }
}
