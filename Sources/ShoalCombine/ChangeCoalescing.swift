import Shoal

/// Merging of changes kept while a subscriber has no demand: two changes in
/// a row become the one change from the state before the first to the state
/// after the second, as the notification engine itself coalesces commits.
enum ChangeCoalescing {
    /// A collection change kept for later, with the collection's count when
    /// it arrived (needed to line up the index spaces of the next change).
    struct CollectionBuffer<C: RealmCollection> {
        var change: RealmCollectionChange<C>
        var count: Int
    }

    /// Index changes in Realm's spaces: deletions and modifications in the
    /// old indices, insertions in the new ones.
    struct Indices: Equatable {
        var deletions: [Int]
        var insertions: [Int]
        var modifications: [Int]
    }

    static func merge<C>(_ first: CollectionBuffer<C>, _ second: CollectionBuffer<C>) -> CollectionBuffer<C> {
        switch (first.change, second.change) {
        case (.error, _):
            return first
        case (_, .error):
            return second
        case (.initial, .initial(let c)), (.initial, .update(let c, _, _, _)):
            // The subscriber has not seen the collection yet: the first thing
            // it sees is still its initial state, now the later one.
            return CollectionBuffer(change: .initial(c), count: second.count)
        case (.update(_, let d1, let i1, let m1), .update(let c, let d2, let i2, let m2)):
            let merged = indices(Indices(deletions: d1, insertions: i1, modifications: m1), countAfter: first.count,
                then: Indices(deletions: d2, insertions: i2, modifications: m2))
            return CollectionBuffer(change: .update(c, deletions: merged.deletions, insertions: merged.insertions,
                modifications: merged.modifications), count: second.count)
        case (.update, .initial):
            return second
        }
    }

    /// The change from before `first` to after `then`, where `countAfter`
    /// is the collection's count between the two.
    static func indices(_ first: Indices, countAfter middleCount: Int, then second: Indices) -> Indices {
        let oldCount = middleCount - first.insertions.count + first.deletions.count
        // Each position holds the old index of its element, or -1 for one
        // inserted since.
        let middle = apply(first, to: Array(0..<oldCount))
        var modified = Set(first.modifications)
        for index in second.modifications where middle[index] >= 0 { modified.insert(middle[index]) }
        let final = apply(second, to: middle)
        let kept = Set(final.filter { $0 >= 0 })
        return Indices(deletions: (0..<oldCount).filter { !kept.contains($0) },
            insertions: final.indices.filter { final[$0] < 0 },
            modifications: modified.filter(kept.contains).sorted())
    }

    private static func apply(_ change: Indices, to elements: [Int]) -> [Int] {
        let deleted = Set(change.deletions)
        var survivors = elements.indices.lazy.filter { !deleted.contains($0) }.map { elements[$0] }.makeIterator()
        let inserted = Set(change.insertions)
        let count = elements.count - change.deletions.count + change.insertions.count
        return (0..<count).map { inserted.contains($0) ? -1 : (survivors.next() ?? -1) }
    }

    static func merge<Key, Value>(_ first: RealmMapChange<Map<Key, Value>>, _ second: RealmMapChange<Map<Key, Value>>)
        -> RealmMapChange<Map<Key, Value>>
    {
        switch (first, second) {
        case (.error, _): return first
        case (_, .error): return second
        case (.initial, .initial(let map)), (.initial, .update(let map, _, _, _)): return .initial(map)
        case (.update, .initial): return second
        case (.update(_, let d1, let i1, let m1), .update(let map, let d2, let i2, let m2)):
            var state: [Key: KeyChange] = [:]
            for key in d1 { state[key] = .deleted }
            for key in i1 { state[key] = .inserted }
            for key in m1 { state[key] = .modified }
            for key in d2 { state[key] = state[key] == .inserted ? nil : .deleted }
            for key in i2 { state[key] = state[key] == .deleted ? .modified : .inserted }
            for key in m2 where state[key] != .inserted { state[key] = .modified }
            func keys(_ change: KeyChange) -> [Key] { state.filter { $0.value == change }.map(\.key).sorted() }
            return .update(map, deletions: keys(.deleted), insertions: keys(.inserted), modifications: keys(.modified))
        }
    }

    private enum KeyChange { case deleted, inserted, modified }

    static func merge<T>(_ first: ObjectChange<T>, _ second: ObjectChange<T>) -> ObjectChange<T> {
        guard case .change(_, let earlier) = first, case .change(let object, let later) = second else {
            if case .error = first { return first }
            return second
        }
        var merged = earlier
        for change in later {
            if let at = merged.firstIndex(where: { $0.name == change.name }) {
                merged[at] = PropertyChange(merging: merged[at], with: change)
            } else {
                merged.append(change)
            }
        }
        return .change(object, merged)
    }
}
