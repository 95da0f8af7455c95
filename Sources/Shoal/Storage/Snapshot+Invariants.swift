import Foundation
import OrderedCollections

/// A structure that can check its own invariants.
protocol InvariantChecking {
    /// The first broken invariant, or `nil` when the structure is consistent.
    func invariantViolation() -> String?
}

extension InvariantChecking {
    /// Stops on a broken invariant. Active only when built with
    /// `SHOAL_INTERNAL_CHECKS`; otherwise free.
    func _checkInvariants() {
        #if SHOAL_INTERNAL_CHECKS
            if let problem = invariantViolation() { preconditionFailure("\(Self.self) invariant violated: \(problem)") }
        #endif
    }
}

extension Snapshot: InvariantChecking {
    /// Every derived structure agrees with the columns: live counts, primary
    /// and secondary indexes (each a valid tree), and backlinks (one
    /// per link, in both directions), and each embedded object has exactly
    /// one owner. The first that does not, or `nil`.
    func invariantViolation() -> String? {
        var expectedBacklinks: [Link: [Backlink]] = [:]
        for table in tables {
            let schema = self.schema[table.key]
            let live = table.liveKeys
            if live.count != table.count { return "\(schema.className): count \(table.count) but \(live.count) live slots" }
            var primary: [Value: ObjectKey] = [:]
            var secondary: [Int: [Value: Set<ObjectKey>]] = [:]
            for key in live {
                for (p, property) in schema.properties.enumerated() where property.isStored {
                    let value = table.scalars[p][key.slot]
                    if property.collection == .none {
                        if property.isPrimary { primary[value] = key } else if table.hasSecondaryIndex(p) { secondary[p, default: [:]][value, default: []].insert(key) }
                    }
                    var targets: [Value] = [value]
                    targets += collectionElements(table.key, key, p)
                    for target in targets {
                        guard let link = target.linkValue else { continue }
                        if !isAlive(link.table, link.key) { return "\(schema.className).\(property.name) of \(key) links to dead \(link)" }
                        expectedBacklinks[link, default: []].append(Backlink(origin: table.key, property: p, key: key))
                    }
                }
            }
            for (p, column) in table.scalars.enumerated() {
                if let problem = column.invariantViolation() { return "\(schema.className).\(schema.properties[p].name): \(problem)" }
            }
            if let index = table.primaryIndex {
                if let problem = index.invariantViolation() { return "\(schema.className): primary key index: \(problem)" }
                if index.count != primary.count || primary.contains(where: { index[$0.key] != $0.value }) {
                    return "\(schema.className): primary key index disagrees with the column"
                }
            }
            let indexed = Set(schema.properties.indices.filter { schema.properties[$0].isIndexed && !schema.properties[$0].isPrimary && schema.properties[$0].collection == .none })
            if Set(table.secondaryIndexes.keys) != indexed {
                return "\(schema.className): secondary indexes for properties \(table.secondaryIndexes.keys.sorted()), indexed \(indexed.sorted())"
            }
            if table.indexedProperties != indexed.sorted() {
                return "\(schema.className): indexed properties listed as \(table.indexedProperties), indexed \(indexed.sorted())"
            }
            for (p, index) in table.secondaryIndexes {
                let name = "\(schema.className).\(schema.properties[p].name)"
                if let problem = index.invariantViolation() { return "\(name): secondary index: \(problem)" }
                for (value, bucket) in index {
                    if bucket.isEmpty { return "\(name): secondary index holds an empty bucket for \(value)" }
                    if let problem = bucket.invariantViolation() { return "\(name): bucket of \(value): \(problem)" }
                }
                let expected = secondary[p] ?? [:]
                if index.count != expected.count || expected.contains(where: { Set(index[$0.key].map { Array($0.keys) } ?? []) != $0.value }) {
                    return "\(name): secondary index disagrees with the column"
                }
            }
        }
        for table in tables {
            for key in table.liveKeys {
                let actual = table.backlinks[key.slot]
                let expected = expectedBacklinks[Link(table: table.key, key: key)] ?? []
                if actual.count != expected.count || Dictionary(grouping: actual, by: { $0 }).mapValues(\.count) != Dictionary(grouping: expected, by: { $0 }).mapValues(\.count) {
                    return "\(self.schema[table.key].className) \(key): backlinks \(Array(actual)) but links \(expected)"
                }
                if self.schema[table.key].isEmbedded, actual.count != 1 {
                    return "embedded \(self.schema[table.key].className) \(key) has \(actual.count) owners, not 1"
                }
            }
        }
        return nil
    }

    /// Whether two snapshots hold exactly the same data (values compared with
    /// their kinds, so `1` and `1.0` differ, in columns of the same storage
    /// kind, so that a bulk path cannot fall back to tagged values unseen),
    /// version, indexes and backlinks.
    func hasSameContents(as other: Snapshot) -> Bool {
        guard version == other.version, schema == other.schema, tables.count == other.tables.count else { return false }
        for (a, b) in zip(tables, other.tables) {
            guard a.count == b.count, Array(a.alive) == Array(b.alive), Array(a.backlinks) == Array(b.backlinks),
                Table.sameIndexes(a, b)
            else { return false }
            for (ca, cb) in zip(a.scalars, b.scalars) where ca.count != cb.count || ca.storageKind != cb.storageKind || !(0..<ca.count).allSatisfy({ ca[$0].isIdentical(to: cb[$0]) }) { return false }
            for (p, la) in a.lists where !zip(la, b.lists[p]!).allSatisfy({ $0.count == $1.count && zip($0, $1).allSatisfy { $0.isIdentical(to: $1) } }) { return false }
            for (p, sa) in a.sets where Array(sa) != Array(b.sets[p]!) { return false }
            for (p, ma) in a.maps where Array(ma) != Array(b.maps[p]!) { return false }
        }
        return true
    }
}

extension Table {
    /// Whether two tables' indexes hold the same entries: the same values
    /// (of the same kinds, as first stored) and the same objects.
    fileprivate static func sameIndexes(_ a: Table, _ b: Table) -> Bool {
        switch (a.primaryIndex, b.primaryIndex) {
        case (nil, nil): break
        case (let x?, let y?): guard x.elementsEqual(y, by: { $0.key.isIdentical(to: $1.key) && $0.payload == $1.payload }) else { return false }
        default: return false
        }
        guard Set(a.secondaryIndexes.keys) == Set(b.secondaryIndexes.keys) else { return false }
        for (p, x) in a.secondaryIndexes {
            guard x.elementsEqual(b.secondaryIndexes[p]!, by: { $0.key.isIdentical(to: $1.key) && $0.payload.keys.elementsEqual($1.payload.keys) })
            else { return false }
        }
        return true
    }
}

extension Value {
    /// Equal and of the same kind (`==` treats numbers of different kinds as equal).
    func isIdentical(to other: Value) -> Bool { self == other && kindName == other.kindName }
}
