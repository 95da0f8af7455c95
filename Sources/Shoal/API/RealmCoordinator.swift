import Dispatch
import Foundation

/// The one shared store behind every `Realm` opened on the same in-memory
/// identifier or file in this process: it owns the latest committed snapshot
/// and serialises writers.
///
/// Readers take the latest snapshot under a short lock and then read it
/// without any lock; a writer holds the write semaphore from `beginWrite`
/// to commit or cancel, so there is one writer at a time and it never blocks
/// readers.
final class RealmCoordinator: Sendable {
    let identifier: String
    let schema: Schema
    /// The Swift class for each table, by table index.
    let classes: [Object.Type]
    /// The table of each class, by the class's identity.
    private let tableByType: [ObjectIdentifier: TableKey]
    private let latestSnapshot: Locked<Snapshot>
    /// The writer lock: held from `beginWrite` to commit or cancel.
    private let writeLock = DispatchSemaphore(value: 1)

    private static let registry = Locked<[String: WeakCoordinator]>([:])

    private init(identifier: String, schema: Schema, classes: [Object.Type]) {
        self.identifier = identifier
        self.schema = schema
        self.classes = classes
        var tables: [ObjectIdentifier: TableKey] = [:]
        for type in classes { tables[ObjectIdentifier(type)] = schema.tableByName[Object.className(of: type)] }
        self.tableByType = tables
        self.latestSnapshot = Locked(Snapshot(schema: schema))
    }

    /// The coordinator for `identifier`, created on first use. A second opener
    /// must declare the same schema.
    static func coordinator(for identifier: String, classes: [Object.Type]) throws(ShoalError) -> RealmCoordinator {
        let schema = Schema(classes.map { ClassRegistry.info(for: $0).schema })
        try schema.validate()
        let result: Result<RealmCoordinator, ShoalError> = registry.withLock { registry in
            if let existing = registry[identifier]?.value {
                guard existing.schema == schema else {
                    let diffs = existing.schema.differences(to: schema)
                    return .failure(ShoalError(.schemaMismatch,
                        "The schema declared for '\(identifier)' differs from the schema it is open with in this process: \(diffs.joined(separator: " "))",
                        context: ["path": identifier, "differences": diffs.joined(separator: "\n")]))
                }
                return .success(existing)
            }
            let created = RealmCoordinator(identifier: identifier, schema: schema, classes: classes)
            registry[identifier] = WeakCoordinator(value: created)
            return .success(created)
        }
        return try result.get()
    }

    /// The latest committed snapshot.
    var latest: Snapshot { latestSnapshot.withLock { $0 } }

    /// Waits for the write lock, then returns the latest snapshot to build on.
    func beginWrite() -> Snapshot {
        writeLock.wait()
        return latest
    }

    /// Publishes the transaction's result as the next version and releases
    /// the write lock. An empty transaction publishes nothing.
    func commit(_ transaction: WriteTransaction) -> Snapshot {
        defer { writeLock.signal() }
        guard !transaction.record.isEmpty else { return transaction.base }
        var next = transaction.working
        next.version = transaction.base.version + 1
        next._checkInvariants()
        latestSnapshot.withLock { $0 = next }
        return next
    }

    /// Releases the write lock without publishing anything.
    func cancelWrite() {
        writeLock.signal()
    }

    func tableKey(for type: Object.Type) -> TableKey? {
        tableByType[ObjectIdentifier(type)]
    }
}

private struct WeakCoordinator {
    weak var value: RealmCoordinator?
}
