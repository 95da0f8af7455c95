/// One step of a key path an observer depends on, from the table it starts at.
struct PathComponent: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
        /// A property of the table (a value, a link, or a collection).
        case property(Int)
        /// The objects of `origin` whose `property` links here (a linking
        /// objects property, or `@links.Origin.property` in a predicate).
        case backlinks(origin: TableKey, property: Int)
        /// Every object linking here.
        case allBacklinks
    }
    var table: TableKey
    var kind: Kind
    /// The table the step leads to, when it reaches objects.
    var target: TableKey?
    /// The property of `table` the step was named by, when it has one (a
    /// linking objects property for a backlinks step).
    var declared: Int? = nil

    /// The routing column a change of this step is noted under on `table`.
    var routeColumn: RouteColumn? {
        switch kind {
        case .property(let p): .property(p)
        case .backlinks(let origin, let property): .backlink(origin, property)
        case .allBacklinks: nil
        }
    }
}

/// Which changes to a collection's elements (or an object) count as a
/// modification for one subscription.
enum ModificationFilter: Hashable, Sendable {
    /// Any property of the object itself: unfiltered object observation.
    case shallow
    /// Any property of the element, or of an object reachable from it by
    /// forward links within the given number of hops: unfiltered collections.
    case deep(Int)
    /// Exactly these key paths (Realm's key-path filters).
    case paths([[PathComponent]])
    /// What either filter observes: a sectioned observation's own filter
    /// and its section key's dependencies, which one notifier serves.
    indirect case union(ModificationFilter, ModificationFilter)

    /// The key paths this filter follows, for routing.
    var paths: [[PathComponent]] {
        switch self {
        case .paths(let paths): paths
        case .union(let a, let b): a.paths + b.paths
        case .shallow, .deep: []
        }
    }
}

/// A way a change travels from a changed object towards the objects that
/// depend on it: the reverse of one link step of some observed path.
enum ReverseEdge: Hashable, Sendable {
    /// A change to an object of `from` reaches the objects of `origin`
    /// whose `property` links to it.
    case backlinks(from: TableKey, origin: TableKey, property: Int)
    /// A change to an object of `from` reaches the targets of its `property`
    /// (the reverse of a backlinks step), noted there as `.backlink(from, property)`.
    case forward(from: TableKey, property: Int)

    var from: TableKey {
        switch self {
        case .backlinks(let from, _, _), .forward(let from, _): from
        }
    }
}

/// What one notifier depends on: the columns of its root objects that can
/// change what it shows, and the reverse link edges that bring changes of
/// related objects back to those roots. Computed once, at registration.
struct Dependencies: Sendable {
    var columns: Set<RouteColumn> = []
    /// Any column of a root object matters (unfiltered observation).
    var anyColumn = false
    var edges: [ReverseEdge] = []
    var maxHops = 0

    /// Adds a path of steps from the root table.
    mutating func add(_ path: [PathComponent]) {
        guard let first = path.first else { return }
        if let column = first.routeColumn { columns.insert(column) } else { anyColumn = true }
        maxHops = max(maxHops, path.count - 1)
        for step in path.dropLast() {
            guard let target = step.target else { continue }
            switch step.kind {
            case .property(let p): edges.append(.backlinks(from: target, origin: step.table, property: p))
            case .backlinks(let origin, let property): edges.append(.forward(from: origin, property: property))
            case .allBacklinks: anyColumn = true
            }
        }
    }

    /// Adds unfiltered interest: every column of the root, and forward links
    /// from it to `depth` hops.
    mutating func addDeep(from root: TableKey, depth: Int, schema: Schema) {
        anyColumn = true
        maxHops = max(maxHops, depth)
        var frontier: Set<TableKey> = [root]
        var seen: Set<ReverseEdge> = []
        for _ in 0..<depth {
            var next: Set<TableKey> = []
            for table in frontier {
                for (index, p) in schema[table].properties.enumerated() where p.type == .object {
                    guard let target = schema.tableByName[p.objectClassName ?? ""] else { continue }
                    let edge = ReverseEdge.backlinks(from: target, origin: table, property: index)
                    if seen.insert(edge).inserted { edges.append(edge) }
                    next.insert(target)
                }
            }
            frontier = next
        }
    }

    /// What a collection property of one object depends on: the property
    /// itself, and its elements' changes under `filter`, one hop further
    /// (through the elements' backlinks to the owner).
    static func collection(_ owner: Link, property: Int, elements: TableKey?, filter: ModificationFilter, schema: Schema) -> Dependencies {
        var d = Dependencies()
        d.columns.insert(.property(property))
        if let elements {
            d.edges.append(.backlinks(from: elements, origin: owner.table, property: property))
            var inner = Dependencies()
            inner.add(filter, root: elements, schema: schema)
            d.edges += inner.edges
            d.maxHops = inner.maxHops + 1
        }
        return d
    }

    mutating func add(_ filter: ModificationFilter, root: TableKey, schema: Schema) {
        switch filter {
        case .shallow: anyColumn = true
        case .deep(let depth): addDeep(from: root, depth: depth, schema: schema)
        case .paths(let paths): for path in paths { add(path) }
        case .union(let a, let b):
            add(a, root: root, schema: schema)
            add(b, root: root, schema: schema)
        }
    }
}

/// Turns key-path filters, predicates and sort keys into ``PathComponent``s.
enum DependencyCompiler {
    /// Resolves Realm key-path filter strings against `root`, as Realm does:
    /// a link, a collection of objects or linking objects is followed into
    /// its class; any other property must end the path.
    ///
    /// - Throws: `invalidKeyPath` naming the property and class.
    static func resolve(_ keyPaths: [String], root: TableKey, schema: Schema) throws(ShoalError) -> [[PathComponent]] {
        var out: [[PathComponent]] = []
        for keyPath in keyPaths {
            var table = root
            var path: [PathComponent] = []
            let names = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            for (offset, name) in names.enumerated() {
                let objectSchema = schema[table]
                guard let index = objectSchema.indexByName[name] else {
                    throw ShoalError(.invalidKeyPath,
                        "Invalid property name: property '\(name)' not found in object of type '\(objectSchema.className)'",
                        context: ["keyPath": keyPath, "class": objectSchema.className, "property": name])
                }
                let property = objectSchema.properties[index]
                let target = schema.tableByName[property.objectClassName ?? ""]
                if property.type == .linkingObjects, let target,
                    let originIndex = schema[target].indexByName[property.linkOriginPropertyName ?? ""]
                {
                    path.append(PathComponent(table: table, kind: .backlinks(origin: target, property: originIndex), target: target,
                        declared: index))
                } else {
                    path.append(PathComponent(table: table, kind: .property(index), target: property.type == .object ? target : nil,
                        declared: index))
                }
                if offset < names.count - 1 {
                    guard let target, property.type == .object || property.type == .linkingObjects else {
                        throw ShoalError(.invalidKeyPath,
                            "Property '\(name)' in key path '\(keyPath)' is not a collection of objects or an object reference, so it cannot be used as an intermediate keypath element.",
                            context: ["keyPath": keyPath, "class": objectSchema.className, "property": name])
                    }
                    table = target
                }
            }
            out.append(path)
        }
        return out
    }

    /// The paths a bound predicate reads, from the object it tests.
    static func paths(of predicate: BoundPredicate, root: TableKey, schema: Schema) -> [[PathComponent]] {
        var out: [[PathComponent]] = []
        func visit(_ p: BoundPredicate, prefix: [PathComponent]) {
            switch p {
            case .constant: break
            case .and(let ops), .or(let ops): for op in ops { visit(op, prefix: prefix) }
            case .not(let op): visit(op, prefix: prefix)
            case .comparison(let c):
                operand(c.lhs, prefix: prefix)
                operand(c.rhs, prefix: prefix)
            }
        }
        func operand(_ o: BoundOperand, prefix: [PathComponent]) {
            switch o {
            case .constant, .list: break
            case .path(let path): out.append(extend(path, prefix))
            case .aggregate(_, let path, let property):
                var steps = extend(path, prefix)
                if let property, let c = component(.property(property), from: property.table, schema: schema) { steps.append(c) }
                out.append(steps)
            case .subqueryCount(let path, let inner):
                let steps = extend(path, prefix)
                out.append(steps)
                visit(inner, prefix: steps)
            }
        }
        func extend(_ path: BoundPath, _ prefix: [PathComponent]) -> [PathComponent] {
            // A path from a subquery variable continues the collection it ranges over.
            var steps = path.root == 0 ? [] : prefix
            var table = path.root == 0 ? root : (prefix.last?.target ?? root)
            for step in path.steps {
                // A step into a nested collection stays within the property before it.
                guard let c = component(step, from: table, schema: schema) else { continue }
                steps.append(c)
                table = c.target ?? table
            }
            return steps
        }
        visit(predicate, prefix: [])
        return out
    }

    /// The paths sort or distinct keys read.
    static func paths(of ordering: [OrderingStep]) -> [[PathComponent]] {
        var out: [[PathComponent]] = []
        func add(_ path: SortPath) {
            out.append(path.steps.enumerated().map { offset, step in
                let next = offset + 1 < path.steps.count ? path.steps[offset + 1].table : nil
                return PathComponent(table: step.table, kind: .property(step.index), target: next)
            })
        }
        for step in ordering {
            switch step {
            case .sort(let keys): for key in keys { add(key.path) }
            case .distinct(let paths): for path in paths { add(path) }
            }
        }
        return out.filter { !$0.isEmpty }
    }

    private static func component(_ step: PathStep, from table: TableKey, schema: Schema) -> PathComponent? {
        func target(_ p: BoundProperty) -> TableKey? {
            let property = schema[p.table].properties[p.index]
            return property.type == .object ? schema.tableByName[property.objectClassName ?? ""] : nil
        }
        switch step {
        case .property(let p), .elements(let p, _), .mapValues(let p), .mapValue(let p, _):
            return PathComponent(table: p.table, kind: .property(p.index), target: target(p))
        case .mapKeys(let p):
            return PathComponent(table: p.table, kind: .property(p.index), target: nil)
        case .backlinks(let origin, let property):
            return PathComponent(table: table, kind: .backlinks(origin: origin, property: property), target: origin)
        case .mixedIndex, .mixedLast, .mixedKey, .mixedAll:
            return nil
        case .allBacklinks:
            return PathComponent(table: table, kind: .allBacklinks, target: nil)
        }
    }
}
