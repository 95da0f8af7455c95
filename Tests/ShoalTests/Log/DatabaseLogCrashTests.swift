import Testing

@testable import Shoal

/// Power loss at every persistence point of compactions and of a migration on
/// open (PERSISTENCE.md §9, after CrashMonkey), through ``DatabaseLog`` and a
/// ``FaultyFileIO``: every crash image must open, to a committed state that
/// holds every durable commit, and keep accepting commits; a migration is found
/// done or not done, never half.
@Suite struct DatabaseLogCrashTests {
    static let directory = "/db"
    static let v0 = Schema([ObjectSchema(className: "A", properties: [Property(name: "n", type: .int)])])
    /// Version 1 adds `m`, which the migration fills with 7.
    static let v1 = Schema([ObjectSchema(className: "A", properties: [Property(name: "n", type: .int), Property(name: "m", type: .int)])])

    static func migrate(_ old: Snapshot) throws(ShoalError) -> Snapshot {
        try old.migrated(to: v1, schemaVersion: 1, defaults: ["A": [.int(0), .int(7)]])
    }

    /// Commits one insert of `A` durably and returns the state after it.
    static func commit(_ log: DatabaseLog, _ state: Snapshot, _ n: Int) throws -> Snapshot {
        var record = ChangeRecord(baseVersion: state.version)
        let table = state.schema.tableByName["A"]!
        var values: [Value] = [.int(Int64(n))]
        if state.schema[table].properties.count == 2 { values.append(.int(Int64(n) * 10)) }
        record.ops = [.insert(table, ObjectKey(Int64(state.tables[table.index].alive.count)), values)]
        try log.waitUntilDurable(try log.enqueue(record, version: state.version + 1, schemaFingerprint: state.schema.fingerprint))
        var next = state
        next.apply(record.ops[0])
        next.version += 1
        return next
    }

    /// Opens a crash image and checks it against the committed states (by
    /// version): the state recovered is one of them, at least the durable one;
    /// the database then takes one more commit, which a second open finds.
    /// Returns the version recovered and whether this open migrated.
    @discardableResult
    static func check(
        _ image: FaultyFileIO, schema: Schema, schemaVersion: UInt64, states: [UInt64: Snapshot], durable: UInt64,
        _ label: String
    ) -> (version: UInt64, migrated: Bool)? {
        do {
            let opened = try DatabaseLog.open(
                directory: directory, schema: schema, schemaVersion: schemaVersion, durability: .durable, io: image,
                migrate: migrate)
            let state = opened.snapshot
            #expect(state.version >= durable, "\(label): recovered version \(state.version), \(durable) was durable")
            if let expected = states[state.version] {
                #expect(state.hasSameContents(as: expected) && state.schemaVersion == expected.schemaVersion,
                    "\(label): version \(state.version) differs from what was committed")
            } else {
                Issue.record("\(label): recovered version \(state.version), which was never committed")
            }
            let next = try commit(opened.log, state, 1_000)
            opened.log.close()
            let reopened = try DatabaseLog.open(
                directory: directory, schema: schema, schemaVersion: schemaVersion, durability: .durable, io: image)
            #expect(reopened.snapshot.hasSameContents(as: next), "\(label): the commit after recovery is lost")
            reopened.log.close()
            return (state.version, opened.warnings.contains { $0.hasPrefix("Migrated") })
        } catch {
            Issue.record("\(label): \(error)")
            return nil
        }
    }

    /// Every crash image of every capture of `io`, checked; returns what each recovered.
    static func sweep(
        _ io: FaultyFileIO, schema: Schema, schemaVersion: UInt64, states: [UInt64: Snapshot]
    ) -> [(version: UInt64, migrated: Bool)] {
        var outcomes: [(version: UInt64, migrated: Bool)] = []
        for capture in io.captures {
            let pending = capture.model.pendingOperations.count
            for kept in 0...pending {
                for fate in kept == pending ? [.persisted] : LogWriterCrashTests.fates {
                    for keepDirectoryChanges in [false, true] {
                        let image = FaultyFileIO.crashImage(
                            of: capture.model, keptPending: kept, then: fate, keepDirectoryChanges: keepDirectoryChanges)
                        let outcome = check(
                            image, schema: schema, schemaVersion: schemaVersion, states: states, durable: UInt64(capture.marker),
                            "\(capture.label), kept \(kept) then \(fate), directory changes \(keepDirectoryChanges ? "kept" : "lost")")
                        if let outcome { outcomes.append(outcome) }
                    }
                }
            }
        }
        return outcomes
    }

    @Test("power loss at each persistence point of three compactions (one with nothing new) keeps every durable commit and opens to a committed state")
    func compactionSweep() throws {
        let io = FaultyFileIO(captureSyncPoints: true)
        let opened = try DatabaseLog.open(directory: Self.directory, schema: Self.v0, durability: .durable, io: io)
        var state = opened.snapshot
        var states = [state.version: state]
        io.mark(Int(state.version))
        for n in 0..<7 {
            state = try Self.commit(opened.log, state, n)
            states[state.version] = state
            io.mark(Int(state.version))
            if n == 2 || n == 5 { try opened.log.compact(state) }
            // Again with nothing committed since: the snapshot on disk is kept.
            if n == 5 { try opened.log.compact(state) }
        }
        io.capture("end")
        opened.log.close()
        #expect(io.captures.count(where: { $0.label.contains(".snap") }) >= 2)
        let outcomes = Self.sweep(io, schema: Self.v0, schemaVersion: 0, states: states)
        #expect(outcomes.count > 100)
        // Some images lost the unsynced part of a commit (the sweep reaches
        // inside commits), and every committed version was recovered by some.
        #expect(Set(outcomes.map(\.version)) == Set(states.keys))
    }

    @Test("power loss at each persistence point of a migration on open finds it done or not done, and keeps every durable commit")
    func migrationSweep() throws {
        let io = FaultyFileIO()
        let first = try DatabaseLog.open(directory: Self.directory, schema: Self.v0, durability: .durable, io: io)
        var state = first.snapshot
        for n in 0..<4 {
            state = try Self.commit(first.log, state, n)
            if n == 1 { try first.log.compact(state) }
        }
        first.log.close()
        var states = [state.version: state]
        io.model.withLock {
            $0.captureSyncPoints = true
            $0.marker = Int(state.version)
        }
        let second = try DatabaseLog.open(
            directory: Self.directory, schema: Self.v1, schemaVersion: 1, durability: .durable, io: io, migrate: Self.migrate)
        var migrated = second.snapshot
        #expect(migrated.schemaVersion == 1 && migrated.version == state.version + 1)
        #expect(migrated.hasSameContents(as: try Self.migrate(state)))
        states[migrated.version] = migrated
        io.mark(Int(migrated.version))
        // Compacting right after the migration (as `shouldCompactOnLaunch` does) keeps its snapshot.
        try second.log.compact(migrated)
        for n in 4..<6 {
            migrated = try Self.commit(second.log, migrated, n)
            states[migrated.version] = migrated
            io.mark(Int(migrated.version))
        }
        io.capture("end")
        second.log.close()
        // Every image opens under the new schema: one the migration had not
        // reached migrates again, to the same state.
        let outcomes = Self.sweep(io, schema: Self.v1, schemaVersion: 1, states: states)
        #expect(outcomes.count > 50)
        #expect(outcomes.contains { $0.migrated } && outcomes.contains { !$0.migrated })
    }
}
