import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

@Suite struct BatchApplierRunTests {
    /// Replays `record` onto `base` as the log does: encoded, decoded with
    /// its runs in column form, applied by one batch.
    ///
    /// - Returns: the snapshot, and how many runs the record held.
    static func replay(_ record: ChangeRecord, onto base: Snapshot) throws -> (Snapshot, runs: Int) {
        var batch = BatchApplier(base)
        var problem: String?
        var runs = 0
        try ChangeRecordCodec.forEachChange(in: ChangeRecordCodec.encode(record), schema: base.schema) { op in
            problem = batch.apply(op)
            return problem == nil
        } run: { run in
            runs += 1
            problem = batch.apply(run)
            return problem == nil
        }
        #expect(problem == nil)
        let finished = batch.finish()
        #expect(finished == nil)
        var snapshot = batch.snapshot
        snapshot.version = base.version + 1
        return (snapshot, runs)
    }

    /// Commits `body` and returns the snapshot before it and its record.
    static func commit(_ realm: Realm, _ body: () -> Void) throws -> (Snapshot, ChangeRecord) {
        let base = realm.instance.coordinator.latest
        realm.beginWrite()
        body()
        let record = try #require(realm.instance.transaction).record
        try realm.commitWrite()
        return (base, record)
    }

    @Test("records replayed through their runs give exactly the live commit's snapshot: random workloads, bulk adds around maximumRun, runs among other ops, runs whose owners ascend")
    func sameAsLiveCommit() throws {
        var steps = try BatchApplierTests.commits(seed: 0xC0DEC, rounds: 60).steps
        let realm = try makeRealm()
        var rng = SeededRandom(seed: 4242)
        steps.append(try Self.commit(realm) {
            for i in 0..<300 { realm.add(Person(value: ["id": i, "name": "P\(i)", "city": i % 3 == 0 ? "Oslo" : "Bergen"])) }
        })
        let people = Array(realm.objects(Person.self))
        var nextDog = 0
        for count in [BatchApplier.maximumRun - 1, BatchApplier.maximumRun, BatchApplier.maximumRun + 1, 2 * BatchApplier.maximumRun + 9] {
            steps.append(try Self.commit(realm) {
                for _ in 0..<count {
                    let dog = Dog(value: ["id": nextDog, "name": "D\(nextDog)", "age": Int(rng.next() % 20), "breed": "Pug"])
                    dog.owner = rng.next() % 5 == 0 ? nil : people[Int(rng.next() % 300)]
                    realm.add(dog)
                    nextDog += 1
                    // Ops among the inserts: a set of an indexed property,
                    // a set of a link, a delete, all in the same record.
                    if nextDog % 1000 == 0 {
                        realm.object(ofType: Dog.self, forPrimaryKey: nextDog - 500)?.age = 99
                        realm.object(ofType: Dog.self, forPrimaryKey: nextDog - 400)?.owner = people[1]
                        if let doomed = realm.object(ofType: Dog.self, forPrimaryKey: nextDog - 300) { realm.delete(doomed) }
                    }
                }
            })
        }
        // Owners ascending with the dogs (a person's dogs added after the
        // person), some without one: the runs' backlinks are added a
        // target at a time.
        for count in [BatchApplier.maximumRun, BatchApplier.maximumRun + 300] {
            steps.append(try Self.commit(realm) {
                var owner = Int(rng.next() % 20)
                for _ in 0..<count {
                    let dog = Dog(value: ["id": nextDog, "name": "D\(nextDog)", "age": Int(rng.next() % 20), "breed": "Pug"])
                    if rng.next() % 4 == 0 { owner = min(owner + Int(rng.next() % 3), 299) }
                    dog.owner = rng.next() % 9 == 0 ? nil : people[owner]
                    realm.add(dog)
                    nextDog += 1
                }
            })
        }
        var runs = 0
        for (round, (base, record)) in steps.enumerated() {
            let (replayed, n) = try Self.replay(record, onto: base)
            runs += n
            #expect(replayed.hasSameContents(as: base.applying(record)), "round \(round)")
            #expect(replayed.invariantViolation() == nil, "round \(round)")
        }
        #expect(runs > 10)
        // Backlinks in link order, as the live commit made them.
        let live = realm.instance.coordinator.latest
        let (replayed, _) = try Self.replay(steps.last!.1, onto: steps.last!.0)
        let personTable = try #require(live.schema.tableByName["Person"])
        for k in 0..<300 {
            #expect(replayed.withTable(personTable) { $0.pointee.backlinks[k] } == live.withTable(personTable) { $0.pointee.backlinks[k] })
        }
    }

    @Test("links inside a run to objects earlier in the same run replay, and their backlinks keep link order")
    func linksIntoTheSameRun() throws {
        let realm = try makeRealm(types: [Chain.self])
        let (base, record) = try Self.commit(realm) {
            var previous: Chain?
            var first: Chain?
            for i in 0..<50 {
                let link = Chain(value: ["id": i, "label": "c\(i)", "weight": i % 2 == 0 ? nil : Double(i) as Any])
                // Each links to the one before, every fifth to the first.
                link.next = i % 5 == 4 ? first : previous
                realm.add(link)
                previous = link
                if first == nil { first = link }
            }
        }
        #expect(record.ops.allSatisfy { if case .insert = $0 { true } else { false } })
        let (replayed, runs) = try Self.replay(record, onto: base)
        #expect(runs == 1)
        #expect(replayed.hasSameContents(as: realm.instance.coordinator.latest))
        let chains = try #require(replayed.schema.tableByName["Chain"])
        let next = try #require(replayed.schema[chains].indexByName["next"])
        #expect(replayed.backlinks(chains, ObjectKey(0), origin: chains, property: next) == [1, 4, 9, 14, 19, 24, 29, 34, 39, 44, 49].map { ObjectKey(Int64($0)) })
    }

    @Test("a damaged run is refused with the reason, and nothing of it is applied")
    func damagedRuns() throws {
        let realm = try makeRealm(types: [Chain.self])
        let schema = realm.instance.schema
        let chains = try #require(schema.tableByName["Chain"])
        let os = schema[chains]
        let pk = try #require(os.primaryKeyIndex)
        let next = try #require(os.indexByName["next"])
        /// A run of `count` chains from `first`, ids from `id`, `next` from `links`.
        func run(first: Int64 = 0, count: Int = 3, id: Int64 = 0, links: (Int) -> Value = { _ in .null }) -> InsertColumns {
            var columns = [RunColumn](repeating: RunColumn(repeating: .null, count: count), count: os.storedCount)
            columns[pk] = RunColumn((0..<count).map { .int(id + Int64($0)) })
            columns[os.indexByName["label"]!] = RunColumn(repeating: .string("x"), count: count)
            columns[next] = RunColumn((0..<count).map(links))
            return InsertColumns(table: chains, firstKey: ObjectKey(first), count: count, columns: columns)
        }
        func link(_ k: Int) -> Value { .link(Link(table: chains, key: ObjectKey(Int64(k)))) }

        var batch = BatchApplier(Snapshot(schema: schema))
        #expect(batch.apply(run()) == nil)
        func expectRefused(_ inserts: InsertColumns, _ reason: String) {
            let problem = batch.apply(inserts)
            #expect(problem?.contains(reason) == true, "\(String(describing: problem))")
            #expect(batch.snapshot.tables[chains.index].alive.count == 3)
            let unlinked = batch.snapshot.tables[chains.index].backlinks.allSatisfy { $0.isEmpty }
            #expect(unlinked)
        }
        expectRefused(run(first: 4, id: 10), "but the next key is key#3")
        var short = run(first: 3, id: 10)
        short.columns.removeLast()
        expectRefused(short, "with \(os.storedCount - 1) values")
        var ragged = run(first: 3, id: 10)
        ragged.columns[next].removeLast()
        expectRefused(ragged, "with 2 values of property \(next)")
        expectRefused(run(first: 3, id: 10) { $0 == 2 ? link(77) : .null }, "link to")
        // A link to a later object of the run, or to itself: not live yet.
        expectRefused(run(first: 3, id: 10) { $0 == 0 ? link(4) : .null }, "not a live object")
        expectRefused(run(first: 3, id: 10) { $0 == 1 ? link(4) : .null }, "not a live object")

        // Links to earlier objects of the run and to applied ones are fine.
        #expect(batch.apply(run(first: 3, id: 10) { $0 == 0 ? link(2) : link(3) }) == nil)
        #expect(batch.finish() == nil)
        #expect(batch.snapshot.backlinks(chains, ObjectKey(3), origin: chains, property: next) == [ObjectKey(4), ObjectKey(5)])

        // A duplicate primary key is found when the batch is indexed.
        var duplicate = BatchApplier(Snapshot(schema: schema))
        #expect(duplicate.apply(run(count: 5, id: 0)) == nil)
        #expect(duplicate.apply(run(first: 5, count: 5, id: 4)) == nil)
        let problem = duplicate.finish()
        #expect(problem?.contains("share the primary key 4") == true, "\(String(describing: problem))")
    }

    @Test("large runs index their primary keys on other threads, straight into the direct map when the ids ascend: gaps, runs out of order, a repeat across runs and sparse ids give what single inserts give")
    func largeRunsPrimaryKeys() throws {
        let realm = try makeRealm(types: [Chain.self])
        let schema = realm.instance.schema
        let chains = try #require(schema.tableByName["Chain"])
        let os = schema[chains]
        let pk = try #require(os.primaryKeyIndex)
        let runLength = 5_000, runs = 8
        #expect(runLength * runs > 2 * BatchApplier.backgroundIndexingThreshold)
        /// Loads `runs` runs, run `r` of ids `ids(r, i)`, and returns the
        /// batch's problem and snapshot.
        func load(_ ids: (Int, Int) -> Int64) -> (String?, Snapshot) {
            var batch = BatchApplier(Snapshot(schema: schema))
            for r in 0..<runs {
                var columns = [RunColumn](repeating: RunColumn(repeating: .null, count: runLength), count: os.storedCount)
                columns[pk] = RunColumn((0..<runLength).map { .int(ids(r, $0)) })
                columns[os.indexByName["label"]!] = RunColumn(repeating: .string("x"), count: runLength)
                let run = InsertColumns(table: chains, firstKey: ObjectKey(Int64(r * runLength)), count: runLength, columns: columns)
                #expect(batch.apply(run) == nil)
            }
            return (batch.finish(), batch.snapshot)
        }
        /// Whether every id finds its object, and ids around them nothing.
        func expectIndexed(_ ids: (Int, Int) -> Int64, dense: Bool) {
            let (problem, snapshot) = load(ids)
            #expect(problem == nil)
            let index = snapshot.tables[chains.index].primaryIndex!
            #expect(index.hasDenseMap == dense && index.count == runLength * runs && index.invariantViolation() == nil)
            var expected: [Int64: ObjectKey] = [:]
            for r in 0..<runs {
                for i in 0..<runLength { expected[ids(r, i)] = ObjectKey(Int64(r * runLength + i)) }
            }
            let probes = expected.keys.flatMap { [$0 - 1, $0, $0 + 1] }
            #expect(probes.allSatisfy { index.object(forInteger: $0) == expected[$0] })
        }
        // Every other id: as sparse as the map allows.
        expectIndexed({ r, i in Int64(2 * (r * runLength + i)) }, dense: true)
        // Runs in descending order: sorted, then dense all the same.
        expectIndexed({ r, i in Int64((runs - 1 - r) * runLength + i) }, dense: true)
        expectIndexed({ r, i in Int64(1_000 * (r * runLength + i)) }, dense: false)
        let (problem, _) = load { r, i in Int64(r * runLength + i - (r == 4 ? 1 : 0)) }
        #expect(problem?.contains("share the primary key \(4 * runLength - 1)") == true, "\(String(describing: problem))")
    }

    @Test("a bulk write replays from the log as runs into the committed state")
    func reopen() throws {
        let url = temporaryDatabaseURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let config = fileConfiguration(url, durability: .none)
        let before: Snapshot = try {
            let realm = try Realm(configuration: config)
            try realm.write {
                for i in 0..<100 { realm.add(Person(value: ["id": i, "name": "P\(i)"])) }
            }
            let people = Array(realm.objects(Person.self))
            try realm.write {
                for i in 0..<5_000 {
                    let dog = Dog(value: ["id": i, "name": "D\(i)", "age": i % 13])
                    dog.owner = i % 9 == 0 ? nil : people[(i * 7) % 100]
                    realm.add(dog)
                }
            }
            return realm.instance.coordinator.latest
        }()
        let realm = try Realm(configuration: config)
        let after = realm.instance.coordinator.latest
        #expect(after.hasSameContents(as: before))
        #expect(after.invariantViolation() == nil)
        #expect(realm.objects(Person.self)[3].ownedDogs.map(\.id) == (0..<5_000).filter { $0 % 9 != 0 && ($0 * 7) % 100 == 3 })
    }
}

@Suite struct BatchApplierLinkColumnTests {
    /// People 0..<6 with person 3 deleted, and a run of dogs from key 0
    /// whose typed `owner` column holds `owners` (`-1` for none).
    static func setUp(owners: [Int64], people count: Int = 6, deleting deleted: Int? = 3) throws -> (base: Snapshot, run: InsertColumns, dogs: TableKey, people: TableKey, owner: Int) {
        let realm = try makeRealm()
        try realm.write {
            for i in 0..<count { realm.add(Person(value: ["id": i, "name": "P\(i)", "city": "Oslo"])) }
        }
        if let deleted { try realm.write { realm.delete(realm.object(ofType: Person.self, forPrimaryKey: deleted)!) } }
        let base = realm.instance.coordinator.latest
        let schema = base.schema
        let dogs = try #require(schema.tableByName["Dog"]), people = try #require(schema.tableByName["Person"])
        let os = schema[dogs]
        let owner = try #require(os.indexByName["owner"])
        var columns = [RunColumn](repeating: RunColumn(repeating: .null, count: owners.count), count: os.storedCount)
        columns[try #require(os.primaryKeyIndex)] = RunColumn(owners.indices.map { .int(Int64($0)) })
        columns[try #require(os.indexByName["name"])] = RunColumn(repeating: .string("D"), count: owners.count)
        columns[try #require(os.indexByName["breed"])] = RunColumn(repeating: .string("Pug"), count: owners.count)
        columns[try #require(os.indexByName["age"])] = RunColumn(repeating: .int(1), count: owners.count)
        var typed = Column(kind: .link, linkTarget: people)
        typed.appendInts(ContiguousArray(owners))
        columns[owner] = RunColumn(typed: typed)
        return (base, InsertColumns(table: dogs, firstKey: ObjectKey(0), count: owners.count, columns: columns), dogs, people, owner)
    }

    /// The snapshot the run's objects give inserted one by one.
    static func oneByOne(_ base: Snapshot, _ run: InsertColumns) -> (Snapshot, String?) {
        var batch = BatchApplier(base)
        for i in 0..<run.count {
            let values = run.columns.map { $0[i] }
            if let problem = batch.apply(.insert(run.table, ObjectKey(Int64(i)), values)) { return (batch.snapshot, problem) }
        }
        let problem = batch.finish()
        return (batch.snapshot, problem)
    }

    @Test("a run's one link column to another class, its targets ascending (with nulls, and a target again after one), gives each target the list the objects one by one give")
    func ascendingTargets() throws {
        // Person 0 twice around a null, person 2 long enough for a run of
        // its own, then 4 and 5; and one ordering that does not ascend.
        for owners: [Int64] in [[0, 0, -1, 0, 1, 1, 2, 2, 2, 2, 2, 4, 5, 5, -1], [-1, -1, 5], [2, 1, 1, 0]] {
            try Self.expectOneByOneBacklinks(owners: owners, checking: [0, 1, 2, 4, 5])
        }
    }

    /// Applies a run of dogs with `owners` as a batch and checks it against
    /// the same inserts one by one: the same contents, no invariant broken,
    /// and each of persons `checked` linked from exactly its dogs, in order.
    static func expectOneByOneBacklinks(owners: [Int64], people count: Int = 6, deleting deleted: Int? = 3, checking checked: [Int]) throws {
        let (base, run, dogs, people, owner) = try setUp(owners: owners, people: count, deleting: deleted)
        var batch = BatchApplier(base)
        #expect(batch.apply(run) == nil)
        #expect(batch.finish() == nil)
        let (expected, problem) = oneByOne(base, run)
        #expect(problem == nil)
        #expect(batch.snapshot.hasSameContents(as: expected), "\(owners.prefix(20)), deleted \(String(describing: deleted))")
        #expect(batch.snapshot.invariantViolation() == nil)
        for person in checked {
            let keys = owners.indices.filter { owners[$0] == Int64(person) }.map { ObjectKey(Int64($0)) }
            #expect(batch.snapshot.backlinks(people, ObjectKey(Int64(person)), origin: dogs, property: owner) == keys, "person \(person)")
        }
    }

    @Test("a run's link column over several leaves (groups across a leaf's end, nulls, every person live or one deleted) gives each target the list the objects one by one give, or is refused at a deleted target")
    func ascendingTargetsAcrossLeaves() throws {
        let width = IntChunks.width
        // Ten dogs a person, with a null every 97th dog and a long run of
        // one person across the first leaf's end.
        var owners: [Int64] = []
        var person: Int64 = 0
        while owners.count < 2 * width + 300 {
            let length = owners.count < width && owners.count + 10 > width - 20 ? 60 : 10
            for _ in 0..<length { owners.append(owners.count % 97 == 96 ? -1 : person) }
            person += 1
        }
        let people = Int(person)
        for deleted: Int? in [nil, people + 5] {
            try Self.expectOneByOneBacklinks(owners: owners, people: people + 10, deleting: deleted, checking: [0, 1, people / 2, people - 1])
        }
        // A deleted person linked from the second leaf: refused, naming it,
        // with none of the first leaf's backlinks left behind.
        let (base, run, dogs, peopleTable, _) = try Self.setUp(owners: owners, people: people, deleting: people / 2)
        var batch = BatchApplier(base)
        #expect(batch.apply(run)?.contains("which is not a live object") == true)
        #expect(batch.snapshot.tables[dogs.index].alive.count == 0)
        let unlinked = batch.snapshot.tables[peopleTable.index].backlinks.allSatisfy { $0.isEmpty }
        #expect(unlinked)
        // Targets that ascend through the first leaf and then go back: the
        // groups added are taken back, and the objects one by one give
        // each person its dogs once, in order.
        var back = owners
        back[width + 50] = 1
        try Self.expectOneByOneBacklinks(owners: back, people: people + 10, deleting: nil, checking: [0, 1, 2, people / 2, people - 1])
    }

    @Test("a run's link column to an object that is not live, ascending or not, is refused with the link, and nothing of it is applied")
    func deadTarget() throws {
        for owners: [Int64] in [[0, 1, 3, 4], [0, 1, 9], [4, 3]] {
            let (base, run, dogs, people, _) = try Self.setUp(owners: owners)
            var batch = BatchApplier(base)
            let problem = batch.apply(run)
            #expect(problem?.contains("which is not a live object") == true, "\(String(describing: problem))")
            #expect(batch.snapshot.tables[dogs.index].alive.count == 0)
            let unlinked = batch.snapshot.tables[people.index].backlinks.allSatisfy { $0.isEmpty }
            #expect(unlinked)
        }
    }
}
