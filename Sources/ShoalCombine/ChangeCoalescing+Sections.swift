import Foundation
import Shoal

/// The shape of sectioned results at one version: the section keys in
/// order and the rows in each.
struct SectionShape: Equatable {
    var keys: [AnyHashable]
    var counts: [Int]
}

/// Sectioned results whose shape can be read (a single `ResultsSection`
/// cannot tell the sections around it).
protocol SectionShaped {
    var sectionShape: SectionShape? { get }
}

extension SectionedResults: SectionShaped {
    var sectionShape: SectionShape? {
        isInvalidated ? nil : SectionShape(keys: allKeys.map { AnyHashable($0) }, counts: map(\.count))
    }
}

extension ChangeCoalescing {
    /// A sectioned change kept for later, with the shapes before and after it.
    struct SectionBuffer<C> {
        var change: SectionedResultsChange<C>
        var before: SectionShape?
        var after: SectionShape?
    }

    /// Index paths and sections in Realm's spaces: deletions, modifications
    /// and `sectionsToDelete` old, insertions and `sectionsToInsert` new.
    struct SectionIndices: Equatable {
        var deletions: [IndexPath] = []
        var insertions: [IndexPath] = []
        var modifications: [IndexPath] = []
        var sectionsToInsert: [Int] = []
        var sectionsToDelete: [Int] = []
    }

    static func merge<C>(_ first: SectionBuffer<C>, _ second: SectionBuffer<C>) -> SectionBuffer<C> {
        let collection = second.change.collection
        let reload = SectionBuffer(change: .initial(collection), before: first.before, after: second.after)
        guard case .update(_, let d1, let i1, let m1, let si1, let sd1) = first.change,
            case .update(_, let d2, let i2, let m2, let si2, let sd2) = second.change,
            let s0 = first.before, let s1 = first.after, let s2 = second.after,
            let merged = indices(SectionIndices(deletions: d1, insertions: i1, modifications: m1, sectionsToInsert: Array(si1),
                sectionsToDelete: Array(sd1)), from: s0, to: s1,
                then: SectionIndices(deletions: d2, insertions: i2, modifications: m2, sectionsToInsert: Array(si2),
                    sectionsToDelete: Array(sd2)), to: s2)
        else { return reload }   // an initial not yet seen, or shapes that do not line up: the subscriber reloads
        return SectionBuffer(change: .update(collection, deletions: merged.deletions, insertions: merged.insertions,
            modifications: merged.modifications, sectionsToInsert: IndexSet(merged.sectionsToInsert),
            sectionsToDelete: IndexSet(merged.sectionsToDelete)), before: s0, after: s2)
    }

    /// The change from `s0` to `s2` made of `first` (`s0` to `s1`) and
    /// `second` (`s1` to `s2`), following the rules of Shoal's sectioned
    /// changesets: rows of deleted sections are not listed, and a modified
    /// row stays a modification only if it keeps its section and row.
    /// `nil` when the changes do not fit the shapes.
    static func indices(_ first: SectionIndices, from s0: SectionShape, to s1: SectionShape, then second: SectionIndices,
        to s2: SectionShape) -> SectionIndices?
    {
        // Each row holds an id for an element of `s0` (its flat position
        // there), or -1 for one that came in since.
        var start: [[Int]] = []
        var next = 0
        for count in s0.counts {
            start.append(Array(next..<next + count))
            next += count
        }
        guard let middle = apply(first, to: start, from: s0, to: s1), let end = apply(second, to: middle, from: s1, to: s2) else {
            return nil
        }
        var modified = Set(first.modifications.map { start[$0.section][$0.item] })
        for path in second.modifications where middle[path.section][path.item] >= 0 { modified.insert(middle[path.section][path.item]) }

        var out = SectionIndices()
        let oldSection = Dictionary(uniqueKeysWithValues: s0.keys.enumerated().map { ($1, $0) })
        let newSection = Dictionary(uniqueKeysWithValues: s2.keys.enumerated().map { ($1, $0) })
        out.sectionsToDelete = s0.keys.indices.filter { newSection[s0.keys[$0]] == nil }
        out.sectionsToInsert = s2.keys.indices.filter { oldSection[s2.keys[$0]] == nil }
        for (new, key) in s2.keys.enumerated() {
            guard let old = oldSection[key] else {
                out.insertions += end[new].indices.map { IndexPath(item: $0, section: new) }
                continue
            }
            let oldRows = Dictionary(uniqueKeysWithValues: start[old].enumerated().map { ($1, $0) })
            var kept = Set<Int>()
            for (row, id) in end[new].enumerated() {
                guard let oldRow = oldRows[id] else {
                    out.insertions.append(IndexPath(item: row, section: new))
                    continue
                }
                kept.insert(id)
                guard modified.contains(id) else { continue }
                if oldRow == row {
                    out.modifications.append(IndexPath(item: oldRow, section: old))
                } else {
                    out.deletions.append(IndexPath(item: oldRow, section: old))
                    out.insertions.append(IndexPath(item: row, section: new))
                }
            }
            out.deletions += start[old].enumerated().filter { !kept.contains($1) }.map { IndexPath(item: $0.offset, section: old) }
        }
        out.deletions.sort()
        out.insertions.sort()
        out.modifications.sort()
        return out
    }

    /// The rows after `change`, from the rows before it; `nil` when they do
    /// not fit the shapes.
    private static func apply(_ change: SectionIndices, to rows: [[Int]], from before: SectionShape, to after: SectionShape)
        -> [[Int]]?
    {
        guard rows.map(\.count) == before.counts else { return nil }
        let oldSection = Dictionary(uniqueKeysWithValues: before.keys.enumerated().map { ($1, $0) })
        let deleted = Dictionary(grouping: change.deletions, by: \.section).mapValues { Set($0.map(\.item)) }
        let inserted = Dictionary(grouping: change.insertions, by: \.section).mapValues { Set($0.map(\.item)) }
        var out: [[Int]] = []
        for (new, key) in after.keys.enumerated() {
            let count = after.counts[new]
            guard let old = oldSection[key], !change.sectionsToInsert.contains(new) else {
                out.append(Array(repeating: -1, count: count))
                continue
            }
            let gone = deleted[old] ?? []
            var survivors = rows[old].enumerated().lazy.filter { !gone.contains($0.offset) }.map(\.element).makeIterator()
            let added = inserted[new] ?? []
            var section: [Int] = []
            for row in 0..<count {
                if added.contains(row) {
                    section.append(-1)
                } else {
                    guard let id = survivors.next() else { return nil }
                    section.append(id)
                }
            }
            guard survivors.next() == nil else { return nil }
            out.append(section)
        }
        return out
    }
}
