import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

extension Dog {
    /// The first letter of the name: a computed section key reading `name`.
    var firstLetter: String { name.first.map(String.init) ?? "" }
}

/// Sections written as keys and element ids, for exact comparisons.
struct SectionSnapshot: Equatable, CustomStringConvertible {
    var keys: [String]
    var ids: [[Int]]

    init(keys: [String], ids: [[Int]]) {
        self.keys = keys
        self.ids = ids
    }

    init<K>(_ sections: SectionedResults<K, Dog>) {
        keys = sections.allKeys.map { "\($0)" }
        ids = sections.map { $0.map(\.id) }
    }

    var description: String { zip(keys, ids).map { "\($0): \($1)" }.joined(separator: ", ") }

    /// The sections after a changeset, applied as a table view applies
    /// batch updates: rows deleted at old paths, sections deleted, sections
    /// inserted, rows inserted at new paths (their ids from `new`).
    func applying(deletions: [IndexPath], insertions: [IndexPath], sectionsToInsert: IndexSet, sectionsToDelete: IndexSet,
        new: SectionSnapshot) -> SectionSnapshot
    {
        var keys = self.keys, ids = self.ids
        for path in deletions.sorted().reversed() { ids[path.section].remove(at: path.item) }
        for section in sectionsToDelete.reversed() {
            keys.remove(at: section)
            ids.remove(at: section)
        }
        for section in sectionsToInsert {
            keys.insert(new.keys[section], at: section)
            ids.insert([], at: section)
        }
        for path in insertions.sorted() { ids[path.section].insert(new.ids[path.section][path.item], at: path.item) }
        return SectionSnapshot(keys: keys, ids: ids)
    }
}

/// One delivered sectioned change.
enum SectionedEvent: Equatable, CustomStringConvertible {
    case initial(SectionSnapshot)
    case update(SectionSnapshot, deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath],
        sectionsToInsert: [Int], sectionsToDelete: [Int])

    var description: String {
        switch self {
        case .initial(let s): ".initial(\(s))"
        case let .update(s, d, i, m, si, sd): ".update(\(s), deletions: \(d), insertions: \(i), modifications: \(m), sectionsToInsert: \(si), sectionsToDelete: \(sd))"
        }
    }
}

/// Records sectioned changes (of whole sectioned results or of one section).
final class SectionRecorder: @unchecked Sendable {
    // Safe because: `events` is guarded by the lock.
    private let lock = NSLock()
    private var events: [SectionedEvent] = []

    func take() -> [SectionedEvent] {
        lock.lock()
        defer { lock.unlock() }
        defer { events = [] }
        return events
    }

    private func append(_ event: SectionedEvent) {
        lock.lock()
        events.append(event)
        lock.unlock()
    }

    func handle<K>(_ change: SectionedResultsChange<SectionedResults<K, Dog>>) {
        switch change {
        case .initial(let s): append(.initial(SectionSnapshot(s)))
        case let .update(s, d, i, m, si, sd):
            append(.update(SectionSnapshot(s), deletions: d, insertions: i, modifications: m, sectionsToInsert: Array(si), sectionsToDelete: Array(sd)))
        }
    }

    /// A section's change, its collection written as the section alone
    /// (no keys and no ids while it is invalidated).
    func handleSection<K>(_ change: SectionedResultsChange<ResultsSection<K, Dog>>) {
        func snapshot(_ s: ResultsSection<K, Dog>) -> SectionSnapshot {
            s.isInvalidated ? SectionSnapshot(keys: [], ids: []) : SectionSnapshot(keys: ["\(s.key)"], ids: [s.map(\.id)])
        }
        switch change {
        case .initial(let s): append(.initial(snapshot(s)))
        case let .update(s, d, i, m, si, sd):
            append(.update(snapshot(s), deletions: d, insertions: i, modifications: m, sectionsToInsert: Array(si), sectionsToDelete: Array(sd)))
        }
    }
}

extension Fixture {
    /// A Realm holding dogs with the given names, ids 1, 2, … in order.
    static func named(_ names: [String]) throws -> Realm {
        let realm = try makeRealm()
        try realm.write {
            for (i, name) in names.enumerated() { realm.create(Dog.self, value: ["id": i + 1, "name": name, "age": i + 1]) }
        }
        return realm
    }
}

/// Shorthand for an index path: `ip(section, item)`.
func ip(_ section: Int, _ item: Int) -> IndexPath { IndexPath(item: item, section: section) }
