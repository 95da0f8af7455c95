import Foundation
import GRDB

extension GRDBEngine {
    /// W4 / W5 / W8: an in-memory `DatabaseQueue` seeded with `data`, with
    /// `ValueObservation`s delivering on one serial queue.
    ///
    /// `dog.ownerId` gets an index here, as an app filtering on its foreign
    /// key would have (without one each observer's fetch scans every dog).
    public static func makeObserved(_ data: Dataset) throws -> any ObservedStore {
        let queue = try open(.memory, path: "")
        try queue.write { db in
            try add(data, to: db)
            try db.execute(sql: "CREATE INDEX dog_owner ON dog(ownerId)")
        }
        return GRDBObserved(queue: queue)
    }
}

/// A `DatabaseQueue` written from the runner's thread and observed with
/// `ValueObservation`, GRDB's change observation: after each commit that
/// touches an observation's region, its value is fetched again on the
/// writer, compared with the previous one, and delivered if different.
final class GRDBObserved: ObservedStore {
    let queue = DispatchQueue(label: "grdb.bench.observers")
    private let database: DatabaseQueue
    private var cancellables: [AnyDatabaseCancellable] = []

    init(queue database: DatabaseQueue) { self.database = database }

    func observeOwners(_ owners: Range<Int>, nameOnly: Bool, onUpdate: @escaping @Sendable (Int, Int) -> Void) throws {
        let initial = InitialCallbacks(expecting: owners.count)
        // A constant region (GRDB's cheapest tracking): the columns read and
        // filtered on, so that `nameOnly` observers skip `age` changes.
        cancellables.reserveCapacity(cancellables.count + owners.count)
        for k in owners {
            let seen = Seen()
            let onChange: @Sendable (Int) -> Void = { count in
                if seen.first([]) { initial.arrived() } else { onUpdate(k, count) }
            }
            let onError: @Sendable (any Error) -> Void = { error in fatalError("GRDB observer of owner \(k): \(error)") }
            if nameOnly {
                let observation = ValueObservation.trackingConstantRegion { db in
                    try DogName.fetchAll(db.cachedStatement(sql: "SELECT id, name FROM dog WHERE ownerId = ?"), arguments: [k])
                }.removeDuplicates()
                cancellables.append(observation.start(in: database, scheduling: .async(onQueue: queue), onError: onError,
                    onChange: { onChange($0.count) }))
            } else {
                let observation = ValueObservation.trackingConstantRegion { db in
                    try DogRecord.fetchAll(db.cachedStatement(sql: "SELECT * FROM dog WHERE ownerId = ?"), arguments: [k])
                }.removeDuplicates()
                cancellables.append(observation.start(in: database, scheduling: .async(onQueue: queue), onError: onError,
                    onChange: { onChange($0.count) }))
            }
        }
        initial.wait("GRDB, \(owners.count) owner observers")
    }

    func observeSorted(onUpdate: @escaping @Sendable (Int) -> Void) throws {
        let initial = InitialCallbacks(expecting: 1)
        let seen = Seen()
        let observation = ValueObservation.trackingConstantRegion { db in
            try DogRecord.fetchAll(db.cachedStatement(sql: "SELECT * FROM dog ORDER BY age, name"))
        }
        cancellables.append(observation.start(
            in: database, scheduling: .async(onQueue: queue),
            onError: { error in fatalError("GRDB sorted observer: \(error)") },
            onChange: { dogs in
                // GRDB hands over the whole value: the changeset is the diff
                // of the old and new id arrays (W5 counts its time).
                let ids = dogs.map(\.id)
                let old = seen.ids
                if seen.first(ids) {
                    initial.arrived()
                } else {
                    let difference = ids.difference(from: old)
                    onUpdate(difference.removals.count + difference.insertions.count)
                }
            }))
        initial.wait("GRDB, sorted observer")
    }

    func observeSections(recompute: Bool, onUpdate: @escaping @Sendable (Int) -> Void) throws {
        let initial = InitialCallbacks(expecting: 1)
        let seen = SeenSections()
        let observation = ValueObservation.trackingConstantRegion { db in
            try DogName.fetchAll(db.cachedStatement(sql: "SELECT id, name FROM dog ORDER BY name, id"))
        }
        cancellables.append(observation.start(
            in: database, scheduling: .async(onQueue: queue),
            onError: { error in fatalError("GRDB sections observer: \(error)") },
            onChange: { dogs in
                // GRDB hands over the whole value: group it into sections by
                // first letter, and diff the old and new sections (W7 counts it).
                var keys: [String] = []
                var rows: [String: [Int]] = [:]
                for dog in dogs {
                    let key = dog.name.first.map(String.init) ?? ""
                    if rows[key] == nil { keys.append(key) }
                    rows[key, default: []].append(dog.id)
                }
                if let old = seen.replace(keys: keys, rows: rows) {
                    var changed = keys.difference(from: old.keys).count
                    for key in keys {
                        let difference = rows[key, default: []].difference(from: old.rows[key, default: []])
                        changed += difference.count
                    }
                    onUpdate(changed)
                } else {
                    initial.arrived()
                }
            }))
        initial.wait("GRDB, sections observer")
    }

    func rename(_ id: Int, to name: String) throws {
        try database.write { db in
            try db.cachedStatement(sql: "UPDATE dog SET name = ? WHERE id = ?").execute(arguments: [name, id])
        }
    }

    func bumpAge(_ id: Int) throws {
        try database.write { db in
            let select = try db.cachedStatement(sql: "SELECT * FROM dog WHERE id = ?")
            var dog = try DogRecord.fetchOne(select, arguments: [id])!
            dog.age = (dog.age + 1) % 16
            try db.cachedStatement(sql: "UPDATE dog SET age = ? WHERE id = ?").execute(arguments: [dog.age, dog.id])
        }
    }

    /// Fetches run on the writer within each commit; what remains is each
    /// observation's comparison (on its own reduce queue) and delivery.
    func drain() throws {
        try database.read { _ in }
        queue.sync {}
    }

    func close() throws {
        for cancellable in cancellables { cancellable.cancel() }
        cancellables.removeAll()
        queue.sync {}
        try database.close()
    }
}

/// W8's value: the columns a list of names shows.
struct DogName: FetchableRecord, Sendable, Equatable {
    var id: Int
    var name: String

    init(row: Row) {
        id = row[0]
        name = row[1]
    }
}

/// One observation's previous value, on the observers' queue.
final class Seen: @unchecked Sendable {
    // Safe because: only used on the observers' serial queue.
    private(set) var ids: [Int] = []
    private var initial = true

    /// Keeps `ids`; true on the first call (the initial value).
    func first(_ ids: [Int]) -> Bool {
        self.ids = ids
        defer { initial = false }
        return initial
    }
}

/// W7: the sections last delivered, on the observers' queue.
final class SeenSections: @unchecked Sendable {
    // Safe because: only used on the observers' serial queue.
    private var last: (keys: [String], rows: [String: [Int]])?

    /// Keeps the new sections; returns the previous ones (`nil` the first time).
    func replace(keys: [String], rows: [String: [Int]]) -> (keys: [String], rows: [String: [Int]])? {
        defer { last = (keys, rows) }
        return last
    }
}
