/// The routing index: from what a commit changed to the notifiers it may
/// affect, without looking at any other notifier.
///
/// - Results over a table are indexed by that table: by the value of an
///   equality on a to-one path when their predicate has one (`owner.id ==
///   k`: an object can only matter if its value there, before or after the
///   commit, is `k`), or else by a range on such a path (`owner.id >= a AND
///   owner.id < b`: its value there, before or after, is in the range),
///   otherwise by the root columns they depend on (and all of them for
///   insertions and deletions). Either way a changed object's value on the
///   path is read once per snapshot, whatever the number of notifiers.
/// - Collections of one object, and objects, are indexed by that object.
/// - Changes of related objects travel to the roots along the reverse link
///   edges the registered notifiers declared (bottom-up: the cost is the
///   fan-in of what changed, never rows times fan-out), up to the longest
///   path any of them follows.
struct TrackerRoutes {
    private struct TableRoutes {
        /// Equality paths, each with its notifiers by value.
        var anchored: [[BoundProperty]: [Value: Set<Int>]] = [:]
        /// Range paths, each with its notifiers by range.
        var ranged: [[BoundProperty]: RangeRoutes] = [:]
        var byColumn: [RouteColumn: Set<Int>] = [:]
        var anyColumn: Set<Int> = []
        var unanchored: Set<Int> = []

        var isEmpty: Bool { anchored.isEmpty && ranged.isEmpty && byColumn.isEmpty && anyColumn.isEmpty && unanchored.isEmpty }
    }

    private var tables: [TableKey: TableRoutes] = [:]
    private var objects: [Link: Set<Int>] = [:]
    private var edges: [TableKey: [ReverseEdge: Int]] = [:]
    private var hops: [Int: Int] = [:]
    private var registered: [Int: Dependencies] = [:]

    private var maxHops: Int { hops.keys.max() ?? 0 }

    /// The slots the index's tables hold, used or not: what it keeps in memory.
    var capacity: Int {
        var total = registered.capacity + objects.capacity + edges.capacity + hops.capacity + tables.capacity
        for routes in tables.values {
            total += routes.ranged.capacity + routes.ranged.values.reduce(0) { $0 + $1.capacity }
            total += routes.anchored.capacity + routes.byColumn.capacity + routes.anyColumn.capacity + routes.unanchored.capacity
            for byValue in routes.anchored.values { total += byValue.capacity + byValue.values.reduce(0) { $0 + $1.capacity } }
            total += routes.byColumn.values.reduce(0) { $0 + $1.capacity }
        }
        total += objects.values.reduce(0) { $0 + $1.capacity }
        return total
    }

    mutating func add(_ id: Int, notifier: Notifier, schema: Schema) {
        let deps = notifier.dependencies(schema: schema)
        registered[id] = deps
        for edge in deps.edges { edges[edge.from, default: [:]][edge, default: 0] += 1 }
        hops[deps.maxHops, default: 0] += 1
        switch notifier.anchor {
        case .object(let link): objects[link, default: []].insert(id)
        case .table(let table, let equality, let range):
            var routes = tables[table] ?? TableRoutes()
            if let equality {
                for value in equality.values { routes.anchored[equality.path, default: [:]][value, default: []].insert(id) }
            } else if let range {
                routes.ranged[range.path, default: RangeRoutes()].insert(id, range)
            } else {
                routes.unanchored.insert(id)
                if deps.anyColumn { routes.anyColumn.insert(id) }
                for column in deps.columns { routes.byColumn[column, default: []].insert(id) }
            }
            tables[table] = routes
        }
    }

    mutating func remove(_ id: Int, notifier: Notifier, schema: Schema) {
        guard let deps = registered.removeValue(forKey: id) else { return }
        registered.releaseUnusedCapacity()
        for edge in deps.edges {
            edges[edge.from]?[edge]! -= 1
            if edges[edge.from]?[edge] == 0 { edges[edge.from]?[edge] = nil }
            if edges[edge.from]?.isEmpty == true { edges[edge.from] = nil }
        }
        hops[deps.maxHops]! -= 1
        if hops[deps.maxHops] == 0 { hops[deps.maxHops] = nil }
        switch notifier.anchor {
        case .object(let link):
            objects[link]?.remove(id)
            if objects[link]?.isEmpty == true { objects[link] = nil }
            objects.releaseUnusedCapacity()
        case .table(let table, let equality, let range):
            guard var routes = tables.removeValue(forKey: table) else { return }
            if equality == nil, let range {
                routes.ranged[range.path]?.remove(id, range)
                if routes.ranged[range.path]?.isEmpty == true { routes.ranged[range.path] = nil }
                routes.ranged.releaseUnusedCapacity()
            } else if let equality {
                for value in equality.values {
                    routes.anchored[equality.path]?[value]?.remove(id)
                    if routes.anchored[equality.path]?[value]?.isEmpty == true { routes.anchored[equality.path]?[value] = nil }
                    routes.anchored[equality.path]?.releaseUnusedCapacity()
                }
                if routes.anchored[equality.path]?.isEmpty == true { routes.anchored[equality.path] = nil }
            } else {
                routes.unanchored.remove(id)
                routes.unanchored.releaseUnusedCapacity()
                routes.anyColumn.remove(id)
                routes.anyColumn.releaseUnusedCapacity()
                for column in deps.columns {
                    routes.byColumn[column]?.remove(id)
                    routes.byColumn[column]?.releaseUnusedCapacity()
                    if routes.byColumn[column]?.isEmpty == true { routes.byColumn[column] = nil }
                }
            }
            if !routes.isEmpty { tables[table] = routes }
        }
    }

    /// The notifiers a commit may affect, each with its candidate objects
    /// (root objects for results; the anchor object otherwise).
    func affected(by digest: ChangeDigest) -> [Int: Set<ObjectKey>] {
        guard !registered.isEmpty else { return [:] }
        var changed: [Link: Set<RouteColumn>] = [:]
        for (table, summary) in digest.summary {
            for key in summary.insertions { changed[Link(table: table, key: key)] = [] }
            for key in summary.deletions { changed[Link(table: table, key: key)] = [] }
            for (key, properties) in summary.modifications {
                changed[Link(table: table, key: key), default: []].formUnion(properties.map(RouteColumn.property))
            }
        }
        for (link, columns) in digest.backlinkChanges { changed[link, default: []].formUnion(columns) }
        reach(from: &changed, digest)
        var out: [Int: Set<ObjectKey>] = [:]
        for (link, columns) in changed {
            if let ids = objects[link] { for id in ids { out[id, default: []].insert(link.key) } }
            guard let routes = tables[link.table] else { continue }
            let membership = digest.isInserted(link) || digest.isDeleted(link)
            // A modification reaches only notifiers that depend on one of its columns.
            func reaches(_ id: Int) -> Bool {
                membership || registered[id].map({ $0.anyColumn || !$0.columns.isDisjoint(with: columns) }) == true
            }
            for (path, byValue) in routes.anchored {
                for snapshot in [digest.before, digest.after] {
                    guard let value = Self.value(path, of: link, in: snapshot), let ids = byValue[value] else { continue }
                    for id in ids where reaches(id) { out[id, default: []].insert(link.key) }
                }
            }
            for (path, ranges) in routes.ranged {
                for snapshot in [digest.before, digest.after] {
                    guard let value = Self.value(path, of: link, in: snapshot) else { continue }
                    ranges.forEach(containing: value) { id in
                        if reaches(id) { out[id, default: []].insert(link.key) }
                    }
                }
            }
            if membership {
                for id in routes.unanchored { out[id, default: []].insert(link.key) }
            } else if !columns.isEmpty {
                for id in routes.anyColumn { out[id, default: []].insert(link.key) }
                for column in columns {
                    for id in routes.byColumn[column] ?? [] { out[id, default: []].insert(link.key) }
                }
            }
        }
        return out
    }

    /// Adds the objects that reach changed ones along registered reverse
    /// edges, with the column of the first step they reach them through.
    private func reach(from changed: inout [Link: Set<RouteColumn>], _ digest: ChangeDigest) {
        var frontier = Array(changed.keys)
        var seen = Set(frontier)
        for _ in 0..<maxHops {
            var next: [Link] = []
            for link in frontier {
                for edge in (edges[link.table] ?? [:]).keys {
                    let reached: [(Link, RouteColumn)]
                    switch edge {
                    case .backlinks(_, let origin, let property):
                        var keys = digest.before.isAlive(link.table, link.key)
                            ? digest.before.backlinks(link.table, link.key, origin: origin, property: property) : []
                        if digest.after.isAlive(link.table, link.key) {
                            keys += digest.after.backlinks(link.table, link.key, origin: origin, property: property)
                        }
                        reached = keys.map { (Link(table: origin, key: $0), .property(property)) }
                    case .forward(let from, let property):
                        reached = (digest.targets(link, property: property, in: digest.before)
                            + digest.targets(link, property: property, in: digest.after)).map { ($0, .backlink(from, property)) }
                    }
                    for (target, column) in reached {
                        changed[target, default: []].insert(column)
                        if seen.insert(target).inserted { next.append(target) }
                    }
                }
            }
            if next.isEmpty { break }
            frontier = next
        }
    }

    /// The value an equality path reaches from `link`, or `nil` when the
    /// object does not exist there; a null link on the way reads as null.
    static func value(_ path: [BoundProperty], of link: Link, in snapshot: Snapshot) -> Value? {
        guard snapshot.isAlive(link.table, link.key) else { return nil }
        var current = Value.link(link)
        for step in path {
            guard case .link(let l) = current else { return .null }
            current = snapshot.value(step.table, l.key, step.index)
        }
        return current
    }
}
