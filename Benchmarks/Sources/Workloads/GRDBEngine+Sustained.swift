import Foundation
import GRDB

extension GRDBEngine {
    /// W12: a `DatabasePool` (WAL, `synchronous = FULL`, as W2's durable
    /// store) at `path`, seeded with `data`, with an index on `dog.ownerId`
    /// (as W4's).
    ///
    /// A pool, not a queue: GRDB's guidance for concurrent writers and
    /// observers. Its `ValueObservation`s fetch on reader connections,
    /// concurrently with the writer, and a change that arrives while a fetch
    /// runs is folded into the next fetch; on a `DatabaseQueue` every
    /// observation would fetch on the writer after each commit.
    public static func makeSustained(_ data: Dataset, path: String) throws -> any SustainedStore {
        let pool = try DatabasePool(path: path, configuration: Configuration())
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = 2")  // FULL
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode")
            let sync = try Int.fetchOne(db, sql: "PRAGMA synchronous")
            precondition(mode == "wal" && sync == 2, "SQLite set-up: journal_mode \(mode ?? "?"), synchronous \(sync ?? -1)")
        }
        try pool.write { db in
            try db.execute(sql: """
                CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT NOT NULL);
                CREATE TABLE dog(
                    id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, breed TEXT NOT NULL,
                    ownerId INTEGER REFERENCES person(id));
                CREATE INDEX dog_age ON dog(age);
                CREATE INDEX dog_owner ON dog(ownerId);
                """)
            try add(data, to: db)
        }
        return GRDBSustained(pool: pool)
    }
}

final class GRDBSustained: SustainedStore {
    private let pool: DatabasePool
    private var cancellables: [AnyDatabaseCancellable] = []
    private var tasks: [Task<Void, Never>] = []

    init(pool: DatabasePool) { self.pool = pool }

    /// The observation of `observer`'s query, as the highest age it returns.
    private static func observation(_ observer: SustainedObserver) -> ValueObservation<ValueReducers.RemoveDuplicates<ValueReducers.Fetch<Int>>> {
        switch observer {
        case .filtered(let owner), .asyncSequence(let owner), .actor(let owner):
            return ValueObservation.trackingConstantRegion { db in
                highest(try DogRecord.fetchAll(db.cachedStatement(sql: "SELECT * FROM dog WHERE ownerId = ?"), arguments: [owner]).lazy.map(\.age))
            }.removeDuplicates()
        case .sorted(let breed):
            return ValueObservation.trackingConstantRegion { db in
                try DogRecord.fetchAll(db.cachedStatement(sql: "SELECT * FROM dog WHERE breed = ? ORDER BY age DESC, id"), arguments: [breed])
                    .first?.age ?? 0
            }.removeDuplicates()
        case .object(let id):
            return ValueObservation.trackingConstantRegion { db in
                try DogRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM dog WHERE id = ?"), arguments: [id])!.age
            }.removeDuplicates()
        case .list(let owner):
            return ValueObservation.trackingConstantRegion { db in
                highest(try DogRecord.fetchAll(db.cachedStatement(sql: "SELECT * FROM dog WHERE ownerId = ? ORDER BY id"), arguments: [owner])
                    .lazy.map(\.age))
            }.removeDuplicates()
        case .sectioned(let owners):
            return ValueObservation.trackingConstantRegion { db in
                let dogs = try DogRecord.fetchAll(db.cachedStatement(sql: "SELECT * FROM dog WHERE ownerId BETWEEN ? AND ? ORDER BY name, id"),
                    arguments: [owners.lowerBound, owners.upperBound - 1])
                // The sections an app would show: rows grouped by first letter.
                var sections: [String: [DogRecord]] = [:]
                for dog in dogs { sections[dog.name.first.map(String.init) ?? "", default: []].append(dog) }
                return highest(sections.values.lazy.map { highest($0.lazy.map(\.age)) })
            }.removeDuplicates()
        }
    }

    func observe(_ observers: [SustainedObserver], queues: [DispatchQueue], recorder: SustainRecorder) throws {
        for (i, observer) in observers.enumerated() {
            let queue = queues[i % queues.count]
            let initial = Seen()
            let observation = Self.observation(observer)
            let onError: @Sendable (any Error) -> Void = { error in fatalError("W12 GRDB \(observer): \(error)") }
            switch observer {
            case .filtered, .sorted, .object, .list, .sectioned:
                cancellables.append(observation.start(in: pool, scheduling: .async(onQueue: queue), onError: onError) { value in
                    if initial.first([]) { recorder.initialArrived() } else { recorder.saw(i, value) }
                })
            case .asyncSequence, .actor:
                // The newest value only: a slow consumer takes the latest
                // value, as Shoal's sequences merge what piled up.
                let values = observation.values(in: pool, bufferingPolicy: .bufferingNewest(1))
                let actor: SeenActor? = if case .actor = observer { SeenActor() } else { nil }
                tasks.append(Task.detached {
                    do {
                        for try await value in values {
                            if initial.first([]) {
                                recorder.initialArrived()
                            } else if let actor {
                                await actor.saw(recorder, i, value)
                            } else {
                                recorder.saw(i, value)
                            }
                        }
                    } catch is CancellationError {
                    } catch {
                        onError(error)
                    }
                })
            }
        }
        recorder.waitForInitialCallbacks("W12 GRDB, \(observers.count) observers")
    }

    func makeWriter() throws -> any SustainedWriter { GRDBSustainedWriter(pool: pool) }

    func close() throws {
        for cancellable in cancellables { cancellable.cancel() }
        cancellables.removeAll()
        for task in tasks { task.cancel() }
        tasks.removeAll()
        try pool.close()
    }
}

final class GRDBSustainedWriter: SustainedWriter {
    private let pool: DatabasePool

    init(pool: DatabasePool) { self.pool = pool }

    func setAge(_ id: Int, next: () -> Int) throws -> Int {
        try pool.write { db in
            let value = next()
            try db.cachedStatement(sql: "UPDATE dog SET age = ? WHERE id = ?").execute(arguments: [value, id])
            return value
        }
    }
}
