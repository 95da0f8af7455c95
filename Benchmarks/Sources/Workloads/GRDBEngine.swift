import Foundation
public import GRDB

/// The model of `shared/WORKLOADS.md` in SQLite, as GRDB records with
/// hand-written encoding and decoding (GRDB's fast path, as in its
/// `FetchRecordStructTests`/`FetchRecordOptimizedTests`).
public struct DogRecord: FetchableRecord, PersistableRecord, Sendable, Equatable {
    public static let databaseTableName = "dog"
    public var id: Int
    public var name: String
    public var age: Int
    public var breed: String
    public var ownerId: Int?

    public init(id: Int, name: String, age: Int, breed: String, ownerId: Int?) {
        self.id = id
        self.name = name
        self.age = age
        self.breed = breed
        self.ownerId = ownerId
    }

    public init(row: Row) {
        id = row[0]
        name = row[1]
        age = row[2]
        breed = row[3]
        ownerId = row[4]
    }

    public func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["name"] = name
        container["age"] = age
        container["breed"] = breed
        container["ownerId"] = ownerId
    }
}

public struct PersonRecord: FetchableRecord, PersistableRecord, Sendable {
    public static let databaseTableName = "person"
    public var id: Int
    public var name: String
    public var city: String

    public init(id: Int, name: String, city: String) {
        self.id = id
        self.name = name
        self.city = city
    }

    public init(row: Row) {
        id = row[0]
        name = row[1]
        city = row[2]
    }

    public func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["name"] = name
        container["city"] = city
    }
}

public enum GRDBEngine: Engine {
    public static let name = "GRDB"

    /// Opens a store; the schema is created if missing.
    public static func open(_ storage: Storage, path: String) throws -> DatabaseQueue {
        var config = Configuration()
        let queue: DatabaseQueue
        switch storage {
        case .memory:
            queue = try DatabaseQueue(configuration: config)
        case .durable, .relaxed:
            config.journalMode = .wal
            queue = try DatabaseQueue(path: path, configuration: config)
            // After the open: GRDB's WAL set-up itself sets `synchronous = NORMAL`,
            // overriding anything done in `prepareDatabase`.
            let synchronous = storage == .durable ? 2 : 1  // FULL : NORMAL
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
                let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode")
                let sync = try Int.fetchOne(db, sql: "PRAGMA synchronous")
                precondition(mode == "wal" && sync == synchronous, "SQLite set-up: journal_mode \(mode ?? "?"), synchronous \(sync ?? -1)")
            }
        }
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS person(id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS dog(
                    id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, breed TEXT NOT NULL,
                    ownerId INTEGER REFERENCES person(id));
                CREATE INDEX IF NOT EXISTS dog_age ON dog(age);
                """)
        }
        return queue
    }

    /// Inserts the data in the open transaction `db`, as an app would: records, then `insert`.
    static func add(_ data: Dataset, to db: Database) throws {
        for row in data.people {
            try PersonRecord(id: row.id, name: row.name, city: row.city).insert(db)
        }
        for row in data.dogs {
            try DogRecord(id: row.id, name: row.name, age: row.age, breed: row.breed, ownerId: row.ownerId).insert(db)
        }
    }

    public static func insertAll(_ data: Dataset, storage: Storage, path: String) throws -> Int64 {
        try scoped {
            let queue = try open(storage, path: path)
            try queue.write { db in try add(data, to: db) }
            try queue.close()
        }
        return storage == .memory ? 0 : Disk.bytes(path)
    }

    public static func makeCommitter(_ data: Dataset, storage: Storage, path: String) throws -> any Committer {
        try GRDBCommitter(data, queue: open(storage, path: path))
    }

    public static func makeQueries(_ data: Dataset) throws -> any Queries {
        let queue = try open(.memory, path: "")
        try queue.write { db in try add(data, to: db) }
        return GRDBQueries(queue: queue)
    }

    public static func populate(_ data: Dataset, path: String, compact: Bool) throws {
        let queue = try open(.durable, path: path)
        try queue.write { db in try add(data, to: db) }
        try queue.close()
    }

    public static func reopenAndCount(path: String, breed: String) throws -> Reopened {
        let start = Measure.now()
        let queue = try open(.durable, path: path)
        defer { try? queue.close() }
        return Reopened(count: try queue.read { db in try DogRecord.filter(Column("breed") == breed).fetchCount(db) }, since: start)
    }
}

final class GRDBCommitter: Committer {
    let queue: DatabaseQueue
    let count: Int

    init(_ data: Dataset, queue: DatabaseQueue) throws {
        self.queue = queue
        count = data.dogs.count
        try queue.write { db in try GRDBEngine.add(data, to: db) }
    }

    func commit(_ i: Int) throws {
        let id = i % count
        try queue.write { db in
            let select = try db.cachedStatement(sql: "SELECT * FROM dog WHERE id = ?")
            var dog = try DogRecord.fetchOne(select, arguments: [id])!
            dog.age = (dog.age + 1) % 16
            try db.cachedStatement(sql: "UPDATE dog SET age = ? WHERE id = ?").execute(arguments: [dog.age, dog.id])
        }
    }

    func close() throws { try queue.close() }
}

final class GRDBQueries: Queries {
    let queue: DatabaseQueue

    init(queue: DatabaseQueue) { self.queue = queue }

    func rangeSorted() throws -> Int {
        try queue.read { db in
            var total = 0
            let names = try String.fetchCursor(db, sql: "SELECT name FROM dog WHERE age BETWEEN 3 AND 5 ORDER BY name")
            while let name = try names.next() { total &+= name.utf8.count }
            return total
        }
    }

    func lookup(_ keys: [Int]) throws -> Int {
        try queue.read { db in
            var total = 0
            // A cached statement: GRDB's fast path (`DogRecord.fetchOne(db, key:)`
            // builds its SQL on every call and runs about 3x slower).
            let select = try db.cachedStatement(sql: "SELECT * FROM dog WHERE id = ?")
            for key in keys { total &+= try DogRecord.fetchOne(select, arguments: [key])!.name.utf8.count }
            return total
        }
    }

    func pkRange(_ low: Int, _ high: Int) throws -> Int {
        try queue.read { db in
            var total = 0
            let select = try db.cachedStatement(sql: "SELECT name FROM dog WHERE id BETWEEN ? AND ?")
            let names = try String.fetchCursor(select, arguments: [low, high])
            while let name = try names.next() { total &+= name.utf8.count }
            return total
        }
    }

    func countBreed(_ breed: String) throws -> Int {
        try queue.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM dog WHERE breed = ?", arguments: [breed])!
        }
    }
}
