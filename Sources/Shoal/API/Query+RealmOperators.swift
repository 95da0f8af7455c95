// Typed-query operators Realm has beside the comparison operators.

extension Query where T: PersistableValue {
    /// Within a half-open range: `$0.age.contains(3..<5)` is `age >= 3 AND age < 5`.
    ///
    /// ```swift
    /// let young = realm.objects(Dog.self).where { $0.age.contains(0..<3) }
    /// ```
    public func contains(_ range: Range<T>) -> Query<Bool> where T: Comparable {
        (self >= range.lowerBound) && (self < range.upperBound)
    }
}

extension Query where T: StringQueryable & PersistableValue {
    /// Not equal to a string, with options: `$0.name.notEquals("rex", options: .caseInsensitive)`.
    ///
    /// ```swift
    /// let others = realm.objects(Dog.self).where { $0.name.notEquals("REX", options: [.caseInsensitive]) }
    /// ```
    public func notEquals(_ value: T, options: StringOptions = []) -> Query<Bool> {
        Self.comparison(expression, .notEqual, Self.constant(value), options)
    }
}

extension Query where T: RealmCollection {
    /// Whether the collection holds any of the given values or objects:
    /// `ANY tags IN {"a", "b"}`.
    ///
    /// ```swift
    /// let tagged = realm.objects(Dog.self).where { $0.tags.containsAny(in: ["good", "fluffy"]) }
    /// ```
    public func containsAny<U: Sequence>(in collection: U) -> Query<Bool> where U.Element == T.Element {
        let list = PredicateTree.ConstantList(elements: collection.map { PredicateTree.Constant(value: $0.queryValue) })
        return Self.comparison(any.expression, .in, .list(list))
    }
}

// MARK: - Collections: comparisons, ranges

extension Query where T: RealmCollection {
    /// Any element equals a value: `$0.scores == 3` is `ANY scores == 3`.
    ///
    /// ```swift
    /// let hasThree = realm.objects(Player.self).where { $0.scores == 3 }
    /// ```
    public static func == (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { comparison(lhs.expression, .equal, constant(rhs)) }
    /// Any element differs from a value: `ANY scores != 3`.
    public static func != (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { comparison(lhs.expression, .notEqual, constant(rhs)) }
}

extension Query where T: RealmCollection, T.Element: MinMaxType {
    /// Any element is greater than a value: `ANY scores > 3`.
    public static func > (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { comparison(lhs.expression, .greaterThan, constant(rhs)) }
    /// Any element is greater than or equal to a value.
    public static func >= (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { comparison(lhs.expression, .greaterThanOrEqual, constant(rhs)) }
    /// Any element is less than a value.
    public static func < (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { comparison(lhs.expression, .lessThan, constant(rhs)) }
    /// Any element is less than or equal to a value.
    public static func <= (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { comparison(lhs.expression, .lessThanOrEqual, constant(rhs)) }
}

extension Query {
    /// `collection.@min >= low AND collection.@max <= high` (`<` for a
    /// half-open range): every element lies in the range, and there is one.
    static func rangeContains(_ collection: PredicateTree.KeyPath, _ low: Value, _ high: Value, closed: Bool) -> Query<Bool> {
        var path = collection
        path.modifier = nil
        let min = PredicateTree.Expression.collectionOperation(.init(function: .min, collection: path))
        let max = PredicateTree.Expression.collectionOperation(.init(function: .max, collection: path))
        let lower = PredicateTree.Comparison(lhs: min, op: .greaterThanOrEqual, rhs: .constant(.init(value: low)))
        let upper = PredicateTree.Comparison(lhs: max, op: closed ? .lessThanOrEqual : .lessThan, rhs: .constant(.init(value: high)))
        return Query<Bool>(.predicate(.and([.comparison(lower), .comparison(upper)]), depth: 1))
    }
}

extension Query where T: RealmCollection, T.Element: Comparable {
    /// Every element lies in a half-open range, as Realm tests it:
    /// `scores.@min >= low AND scores.@max < high` (an empty collection
    /// does not match).
    ///
    /// ```swift
    /// let allLow = realm.objects(Player.self).where { $0.scores.contains(0..<5) }
    /// ```
    public func contains(_ range: Range<T.Element>) -> Query<Bool> {
        Self.rangeContains(keyPath, range.lowerBound.queryValue, range.upperBound.queryValue, closed: false)
    }

    /// Every element lies in a closed range: `scores.@min >= low AND
    /// scores.@max <= high` (an empty collection does not match).
    ///
    /// ```swift
    /// let allLow = realm.objects(Player.self).where { $0.scores.contains(1...5) }
    /// ```
    public func contains(_ range: ClosedRange<T.Element>) -> Query<Bool> {
        Self.rangeContains(keyPath, range.lowerBound.queryValue, range.upperBound.queryValue, closed: true)
    }
}

extension Query where T: RealmCollection {
    /// Every element of a collection of optionals lies in a half-open range:
    /// `scores.@min >= low AND scores.@max < high`.
    public func contains<W: Comparable & PersistableValue>(_ range: Range<W>) -> Query<Bool> where T.Element == W? {
        Self.rangeContains(keyPath, range.lowerBound.queryValue, range.upperBound.queryValue, closed: false)
    }

    /// Every element of a collection of optionals lies in a closed range.
    public func contains<W: Comparable & PersistableValue>(_ range: ClosedRange<W>) -> Query<Bool> where T.Element == W? {
        Self.rangeContains(keyPath, range.lowerBound.queryValue, range.upperBound.queryValue, closed: true)
    }
}

// MARK: - Aggregates over a property of a collection's objects

extension Query where T: MinMaxType {
    /// The smallest value of this property among the objects of the
    /// collection the key path crosses: `$0.dogs.age.min` is `dogs.@min.age`.
    ///
    /// ```swift
    /// let withPuppy = realm.objects(Person.self).where { $0.dogs.age.min < 2 }
    /// ```
    public var min: Query { propertyAggregate(.min) }
    /// The largest value of this property among the collection's objects: `dogs.@max.age`.
    public var max: Query { propertyAggregate(.max) }
    /// The average of this property over the collection's objects: `dogs.@avg.age`.
    ///
    /// ```swift
    /// let olderDogs = realm.objects(Person.self).where { $0.dogs.age.avg >= 5 }
    /// ```
    public var avg: Query { propertyAggregate(.average) }
    /// The sum of this property over the collection's objects: `dogs.@sum.age`.
    public var sum: Query { propertyAggregate(.sum) }

    /// `collection.@function.property` for a key path `collection.property`;
    /// a path of one property aggregates it as a collection, which the
    /// binder refuses with Realm's message when it is not one.
    private func propertyAggregate(_ function: PredicateTree.CollectionFunction) -> Query {
        var path = keyPath
        path.modifier = nil
        guard path.components.count > 1, case .property(let name) = path.components.last else {
            return Query(.expression(.collectionOperation(.init(function: function, collection: path))))
        }
        path.components.removeLast()
        path.collectionPrefix = path.collectionPrefix.map { Swift.min($0, path.components.count) }
        return Query(.expression(.collectionOperation(.init(function: function, collection: path, property: name))))
    }
}

// MARK: - Maps

extension Query where T: RealmKeyedCollection {
    /// The number of entries: `$0.scores.count > 2` is `scores.@count > 2`.
    ///
    /// ```swift
    /// let busy = realm.objects(Player.self).where { $0.scores.count > 2 }
    /// ```
    public var count: Query<Int> { mapOperation(.count) }

    /// Whether any value of the map is the given one: `%@ IN scores`.
    ///
    /// ```swift
    /// let perfect = realm.objects(Player.self).where { $0.scores.contains(10) }
    /// ```
    public func contains(_ value: T.Value) -> Query<Bool> {
        var path = keyPath
        path.modifier = nil
        return Self.comparison(.constant(PredicateTree.Constant(value: value.queryValue)), .in, .keyPath(path))
    }

    /// Whether the map holds any of the given values: `ANY scores.@values IN {1, 2}`.
    ///
    /// ```swift
    /// let some = realm.objects(Dog.self).where { $0.scores.containsAny(in: [1.0, 2.0]) }
    /// ```
    public func containsAny<U: Sequence>(in collection: U) -> Query<Bool> where U.Element == T.Value {
        var path = appending([.values])
        path.modifier = .anyOf
        let list = PredicateTree.ConstantList(elements: collection.map { PredicateTree.Constant(value: $0.queryValue) })
        return Self.comparison(.keyPath(path), .in, .list(list))
    }

    /// The values of the map, compared as with `ANY`: `$0.scores.values > 3`.
    ///
    /// ```swift
    /// let high = realm.objects(Player.self).where { $0.scores.values > 8 }
    /// ```
    public var values: Query<T.Value> { Query<T.Value>(.keyPath(appending([.values]))) }

    fileprivate func mapOperation(_ function: PredicateTree.CollectionFunction) -> Query<Int> {
        var path = keyPath
        path.modifier = nil
        return Query<Int>(.expression(.collectionOperation(.init(function: function, collection: path))))
    }

    fileprivate func mapAggregate(_ function: PredicateTree.CollectionFunction) -> Query<T.Value> {
        var path = keyPath
        path.modifier = nil
        return Query<T.Value>(.expression(.collectionOperation(.init(function: function, collection: path))))
    }
}

extension Query where T: RealmKeyedCollection, T.Key == String {
    /// The keys of the map, compared as with `ANY`: `$0.scores.keys == "math"`.
    ///
    /// ```swift
    /// let takesMath = realm.objects(Player.self).where { $0.scores.keys == "math" }
    /// ```
    public var keys: Query<String> { Query<String>(.keyPath(appending([.keys]))) }
}

extension Query where T: RealmKeyedCollection, T.Value: MinMaxType {
    /// The smallest value of the map: `scores.@min`.
    ///
    /// ```swift
    /// let allPass = realm.objects(Player.self).where { $0.scores.min >= 5 }
    /// ```
    public var min: Query<T.Value> { mapAggregate(.min) }
    /// The largest value of the map: `scores.@max`.
    public var max: Query<T.Value> { mapAggregate(.max) }
    /// The average of the map's values: `scores.@avg`.
    public var avg: Query<T.Value> { mapAggregate(.average) }
    /// The sum of the map's values: `scores.@sum`.
    public var sum: Query<T.Value> { mapAggregate(.sum) }
}

extension Query where T: RealmKeyedCollection, T.Value: Comparable {
    /// Every value of the map lies in a half-open range:
    /// `scores.@min >= low AND scores.@max < high`.
    ///
    /// ```swift
    /// let allLow = realm.objects(Player.self).where { $0.scores.contains(0..<5) }
    /// ```
    public func contains(_ range: Range<T.Value>) -> Query<Bool> {
        Self.rangeContains(keyPath, range.lowerBound.queryValue, range.upperBound.queryValue, closed: false)
    }

    /// Every value of the map lies in a closed range:
    /// `scores.@min >= low AND scores.@max <= high`.
    public func contains(_ range: ClosedRange<T.Value>) -> Query<Bool> {
        Self.rangeContains(keyPath, range.lowerBound.queryValue, range.upperBound.queryValue, closed: true)
    }
}

// MARK: - Subqueries

extension Query where T == Bool {
    /// The number of elements of a collection that match this predicate: a
    /// `SUBQUERY`. Every key path of the predicate through the collection
    /// is read from each element; key paths through no collection stay on
    /// the queried object.
    ///
    /// ```swift
    /// // SUBQUERY(dogs, $col1, $col1.age > 3 AND $col1.name == "Rex").@count > 1
    /// let people = realm.objects(Person.self).where { ($0.dogs.age > 3 && $0.dogs.name == "Rex").count > 1 }
    /// ```
    ///
    /// Stops, with Realm's message, for a predicate with no key path
    /// through a collection, and for one whose key paths cross two
    /// different collections.
    public var count: Query<Int> {
        let tree: PredicateTree
        switch logical {
        case .success(let part): tree = part.tree
        case .failure(let error): return Query<Int>(.tooDeep(error))
        }
        var rewriter = SubqueryRewriter()
        rewriter.findNestedVariables(tree)
        let predicate = rewriter.rewrite(tree)
        guard let collection = rewriter.collection else {
            shoalPrecondition(ShoalError(.invalidQuery, "Subqueries must contain a keypath starting with a collection.",
                context: ["query": tree.description]))
        }
        let subquery = PredicateTree.Subquery(collection: collection, variable: rewriter.variable, predicate: predicate)
        return Query<Int>(.expression(.subqueryCount(subquery)))
    }
}

/// Makes the predicate of a typed subquery: each key path through a
/// collection (one whose ``PredicateTree/KeyPath/collectionPrefix`` is
/// set) is split there, its collection becoming the subquery's and the
/// rest read from the subquery's variable. A subquery already inside the
/// predicate is kept as it is: its key paths start at the queried object.
struct SubqueryRewriter {
    /// The collection the predicate's key paths cross.
    private(set) var collection: PredicateTree.KeyPath?
    /// `col1`, or one more than the subqueries nested in the predicate use.
    private(set) var variable = "col1"

    /// Names the variable after those of the subqueries already nested in
    /// `tree` (`col2` around one that uses `col1`), so that a description
    /// reads without shadowing.
    mutating func findNestedVariables(_ tree: PredicateTree) {
        var deepest = 0
        var pending = [tree]
        while let next = pending.popLast() {
            switch next {
            case .truePredicate, .falsePredicate: break
            case .and(let operands), .or(let operands): pending += operands
            case .not(let operand): pending.append(operand)
            case .comparison(let comparison):
                for case .subqueryCount(let subquery) in [comparison.lhs, comparison.rhs] {
                    if subquery.variable.hasPrefix("col"), let n = Int(subquery.variable.dropFirst(3)) { deepest = Swift.max(deepest, n) }
                }
            }
        }
        variable = "col\(deepest + 1)"
    }

    mutating func rewrite(_ tree: PredicateTree) -> PredicateTree {
        switch tree {
        case .truePredicate, .falsePredicate: return tree
        case .and(let operands): return .and(operands.map { rewrite($0) })
        case .or(let operands): return .or(operands.map { rewrite($0) })
        case .not(let operand): return .not(rewrite(operand))
        case .comparison(var comparison):
            comparison.lhs = rewrite(comparison.lhs)
            comparison.rhs = rewrite(comparison.rhs)
            return .comparison(comparison)
        }
    }

    private mutating func rewrite(_ expression: PredicateTree.Expression) -> PredicateTree.Expression {
        switch expression {
        case .constant, .list, .subqueryCount: return expression
        case .keyPath(let path): return .keyPath(rewrite(path))
        case .collectionOperation(var operation):
            operation.collection = rewrite(operation.collection)
            return .collectionOperation(operation)
        }
    }

    private mutating func rewrite(_ path: PredicateTree.KeyPath) -> PredicateTree.KeyPath {
        guard path.root == .object, let prefix = path.collectionPrefix else { return path }
        let crossed = PredicateTree.KeyPath(components: Array(path.components[..<prefix]))
        if let collection, collection != crossed {
            shoalPrecondition(ShoalError(.invalidQuery,
                "A subquery may reference only one collection, and this one references '\(collection)' and '\(crossed)'.",
                context: ["collections": "\(collection), \(crossed)"]))
        }
        collection = crossed
        return PredicateTree.KeyPath(root: .variable(variable), components: Array(path.components[prefix...]))
    }
}
