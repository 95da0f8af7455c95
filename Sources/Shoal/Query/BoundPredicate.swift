/// A predicate whose key paths are resolved against a schema: what the
/// planner and the evaluator run. ``QueryBinder`` makes it from a
/// ``PredicateTree``.
indirect enum BoundPredicate: Sendable {
    case constant(Bool)
    case and([BoundPredicate])
    case or([BoundPredicate])
    case not(BoundPredicate)
    case comparison(BoundComparison)
}

extension BoundPredicate {
    /// `lhs` and `rhs` in one flat `and`: an operand that is an `and`
    /// already gives its operands. `Results.filter` ANDs each new predicate
    /// in this way, so a chain of any number of filters nests one level
    /// (a nested `and` per filter would nest as many levels as filters,
    /// and every walk of it would recurse that deep), and the planner sees
    /// every filter's terms as conjuncts, to drive from an index.
    static func conjunction(_ lhs: BoundPredicate, _ rhs: BoundPredicate) -> BoundPredicate {
        var operands: [BoundPredicate] = []
        for side in [lhs, rhs] {
            if case .and(let inner) = side { operands += inner } else { operands.append(side) }
        }
        return .and(operands)
    }
}

/// A comparison with resolved operands. A constant is always on the right
/// (the binder mirrors `3 < age` into `age > 3`).
struct BoundComparison: Sendable {
    var lhs: BoundOperand
    var op: PredicateTree.ComparisonOperator
    var rhs: BoundOperand
    var options: PredicateTree.ComparisonOptions
    /// How a multi-valued left side is quantified (`ANY` when none was written).
    var modifier: PredicateTree.CollectionModifier
}

/// One side of a bound comparison.
enum BoundOperand: Sendable {
    case constant(Value)
    case list([Value])
    case path(BoundPath)
    /// `@count`, `@min`, `@max`, `@sum` or `@avg` over the elements a path
    /// reaches; `property` is the aggregated property of object elements.
    case aggregate(PredicateTree.CollectionFunction, BoundPath, property: BoundProperty?)
    /// `SUBQUERY(path, $v, predicate).@count`: the predicate sees each element
    /// as the innermost variable.
    case subqueryCount(BoundPath, BoundPredicate)

    /// Whether the operand stands for each of the values a path through a
    /// collection reaches (a key path, or the `@type` of each value).
    var isMultiValued: Bool {
        switch self {
        case .path(let path), .aggregate(.type, let path, _): path.isMultiValued
        default: false
        }
    }

    var isConstant: Bool {
        switch self {
        case .constant, .list: true
        default: false
        }
    }
}

/// A property of a table, by index.
struct BoundProperty: Hashable, Sendable {
    var table: TableKey
    var index: Int
}

/// A resolved key path: the steps from its root to the values it reaches.
struct BoundPath: Sendable {
    /// 0 for the object being tested; `n` for the `n`th enclosing subquery variable (1 = outermost).
    var root: Int
    var steps: [PathStep]
    /// Whether the path can reach more than one value (it crosses a collection).
    var isMultiValued: Bool
    /// The path as written, kept for messages and plans; its text is made
    /// only when one is given.
    var written: PredicateTree.KeyPath

    /// The written form, for messages and plans.
    var text: String { written.description }

    /// The root property, when the path is a single step through a plain
    /// column of the queried object: what indexes and column scans serve.
    var rootColumn: BoundProperty? {
        guard root == 0, steps.count == 1, case .property(let property) = steps[0] else { return nil }
        return property
    }
}

/// One step of a resolved key path.
enum PathStep: Hashable, Sendable {
    /// A single-valued property (a value, or a to-one link to follow).
    case property(BoundProperty)
    /// The elements of a list or set.
    case elements(BoundProperty, CollectionKind)
    /// The values of a map.
    case mapValues(BoundProperty)
    /// The keys of a map, as strings.
    case mapKeys(BoundProperty)
    /// The value for one key of a map, `null` when absent.
    case mapValue(BoundProperty, key: String)
    /// The objects of `origin` whose property `property` links here.
    case backlinks(origin: TableKey, property: Int)
    /// Every object linking here, through any property.
    case allBacklinks
    /// The element at a position of a list nested in a mixed value, `null`
    /// when there is none.
    case mixedIndex(Int)
    /// The last element of a list nested in a mixed value, `null` when
    /// there is none.
    case mixedLast
    /// The value for a key of a dictionary nested in a mixed value, `null`
    /// when there is none.
    case mixedKey(String)
    /// Every element of a list or value of a dictionary nested in a mixed value.
    case mixedAll
}

extension PathStep {
    /// Whether the step goes into a collection nested in a mixed value
    /// (within the property the path has reached).
    var isMixed: Bool {
        switch self {
        case .mixedIndex, .mixedLast, .mixedKey, .mixedAll: true
        default: false
        }
    }

    /// The value a to-one step into a nested collection reaches from `value`
    /// (`null` when there is none); `nil` for other steps.
    func mixedValue(of value: Value) -> Value? {
        switch (self, value) {
        case (.mixedIndex(let i), .list(let elements)): i >= 0 && i < elements.count ? elements[i] : .null
        case (.mixedKey(let key), .dictionary(let entries)): entries[key] ?? .null
        case (.mixedLast, .list(let elements)): elements.last ?? .null
        case (.mixedIndex, _), (.mixedLast, _), (.mixedKey, _): .null
        default: nil
        }
    }
}
