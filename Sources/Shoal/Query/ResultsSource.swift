import OrderedCollections

/// Where a `Results`' elements come from, and the query applied to them.
indirect enum ResultsSource {
    /// Every object of the table, in key order.
    case table
    /// The elements of one object's collection property (list, set, map
    /// values or linking objects), in collection order. For a map of
    /// objects, its non-null values.
    case collection(owner: Link, property: Int)
    /// A base filtered, then sorted and made distinct.
    case query(ResultsSource, QueryDescriptor)

    /// What the elements are: objects of a table, or primitive values.
    func root(table: TableKey, schema: Schema) -> QueryBinder.Root {
        switch self {
        case .table: return .table(table)
        case .collection(let owner, let index):
            let property = schema[owner.table].properties[index]
            if property.type == .object || property.type == .linkingObjects,
                let target = schema.tableByName[property.objectClassName ?? ""]
            {
                return .table(target)
            }
            return .primitive(property.type)
        case .query(let base, _): return base.root(table: table, schema: schema)
        }
    }

    /// The source with `predicate` ANDed into its query; sort and distinct are kept.
    func filtered(_ predicate: BoundPredicate) -> ResultsSource {
        guard case .query(let base, var descriptor) = self else {
            return .query(self, QueryDescriptor(predicate: predicate))
        }
        descriptor.predicate = descriptor.predicate.map { .conjunction($0, predicate) } ?? predicate
        return .query(base, descriptor)
    }

    /// The source with an ordering step added after the existing ones.
    func ordered(_ step: OrderingStep) -> ResultsSource {
        guard case .query(let base, var descriptor) = self else {
            return .query(self, QueryDescriptor(ordering: [step]))
        }
        descriptor.ordering.append(step)
        return .query(base, descriptor)
    }

    /// The elements evaluated on `snapshot`, as keys where they are the
    /// objects of `table` in table order (the table, or a query on it with
    /// no sort or distinct), else as values.
    func evaluateElements(table: TableKey, snapshot: Snapshot) -> StoredElements {
        switch self {
        case .table:
            return .objects(table, Self.keys(table, matching: nil, snapshot: snapshot))
        case .query(.table, let descriptor) where descriptor.ordering.isEmpty:
            return .objects(table, Self.keys(table, matching: descriptor.predicate, snapshot: snapshot))
        default:
            return .values(evaluate(table: table, snapshot: snapshot))
        }
    }

    /// The number of elements on `snapshot`, counted without listing them
    /// when one typed column answers a filter of the table; otherwise the
    /// elements, evaluated (by the same plan), for the caller to count and keep.
    func countOrElements(table: TableKey, snapshot: Snapshot) -> CountOrElements {
        guard case .query(.table, let descriptor) = self, descriptor.ordering.isEmpty, let predicate = descriptor.predicate else {
            return .elements(evaluateElements(table: table, snapshot: snapshot))
        }
        let plan = QueryPlan(table: table, predicate: predicate, snapshot: snapshot, useIndexes: true)
        if let count = plan.count(on: snapshot) { return .count(count) }
        return .elements(.objects(table, plan.run(on: snapshot)))
    }

    /// What ``countOrElements(table:snapshot:)`` made.
    enum CountOrElements {
        case count(Int)
        case elements(StoredElements)
    }

    /// The objects of `table` matching `predicate` (all with none), in table order.
    private static func keys(_ table: TableKey, matching predicate: BoundPredicate?, snapshot: Snapshot, useIndexes: Bool = true) -> [ObjectKey] {
        guard let predicate else { return snapshot.tables[table.index].liveKeys }
        return QueryPlan(table: table, predicate: predicate, snapshot: snapshot, useIndexes: useIndexes).run(on: snapshot)
    }

    /// The elements in stored form, evaluated on `snapshot`.
    func evaluate(table: TableKey, snapshot: Snapshot, useIndexes: Bool = true) -> [Value] {
        switch self {
        case .table:
            return Self.keys(table, matching: nil, snapshot: snapshot).map { .link(Link(table: table, key: $0)) }
        case .collection(let owner, let index):
            guard snapshot.isAlive(owner.table, owner.key) else { return [] }
            let property = snapshot.schema[owner.table].properties[index]
            if property.type == .linkingObjects {
                guard let origin = snapshot.schema.tableByName[property.objectClassName ?? ""],
                    let originIndex = snapshot.schema[origin].indexByName[property.linkOriginPropertyName ?? ""]
                else { return [] }
                return snapshot.backlinks(owner.table, owner.key, origin: origin, property: originIndex)
                    .map { .link(Link(table: origin, key: $0)) }
            }
            switch property.collection {
            case .list: return snapshot.list(owner.table, owner.key, index)
            case .set: return Array(snapshot.set(owner.table, owner.key, index))
            case .map:
                // A map of objects may hold null values; a query over its
                // objects skips them, as Realm's (over the map's links) does.
                let values = snapshot.map(owner.table, owner.key, index).values
                return property.type == .object ? values.filter { !$0.isNull } : Array(values)
            case .none: return []
            }
        case .query(let base, let descriptor):
            var elements: [Value]
            if let predicate = descriptor.predicate {
                if case .table = base {
                    elements = Self.keys(table, matching: predicate, snapshot: snapshot, useIndexes: useIndexes).map { .link(Link(table: table, key: $0)) }
                } else {
                    let evaluator = QueryEvaluator(snapshot: snapshot)
                    let compiled = CompiledPredicate(predicate)
                    elements = base.evaluate(table: table, snapshot: snapshot).filter { evaluator.matches(compiled, $0) }
                }
            } else {
                elements = base.evaluate(table: table, snapshot: snapshot, useIndexes: useIndexes)
            }
            return OrderingStep.apply(descriptor.ordering, to: elements, snapshot: snapshot)
        }
    }

    /// A description of how the source is evaluated on `snapshot`.
    func explain(table: TableKey, snapshot: Snapshot) -> String {
        switch self {
        case .table: return "all objects of \(snapshot.schema[table].className)"
        case .collection(let owner, let index):
            return "elements of \(snapshot.schema[owner.table].className).\(snapshot.schema[owner.table].properties[index].name)"
        case .query(let base, let descriptor):
            var text: String
            if let predicate = descriptor.predicate {
                if case .table = base {
                    text = QueryPlan(table: table, predicate: predicate, snapshot: snapshot).explanation
                } else {
                    text = base.explain(table: table, snapshot: snapshot) + "; then test \(predicate)"
                }
            } else {
                text = base.explain(table: table, snapshot: snapshot)
            }
            for step in descriptor.ordering {
                switch step {
                case .sort(let keys): text += "; sort by " + keys.map { "\($0.path.text) \($0.ascending ? "ascending" : "descending")" }.joined(separator: ", ")
                case .distinct(let paths): text += "; distinct by " + paths.map(\.text).joined(separator: ", ")
                }
            }
            return text
        }
    }
}

/// A query on a `Results`' base: one predicate (later filters are ANDed
/// in), then sort and distinct steps in the order they were added.
struct QueryDescriptor {
    var predicate: BoundPredicate?
    var ordering: [OrderingStep] = []
}
