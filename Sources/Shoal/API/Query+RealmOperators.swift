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

extension Query {
    /// Whether the map holds any of the given values: `ANY scores.@values IN {1, 2}`.
    ///
    /// ```swift
    /// let some = realm.objects(Dog.self).where { $0.scores.containsAny(in: [1.0, 2.0]) }
    /// ```
    public func containsAny<V, U: Sequence>(in collection: U) -> Query<Bool> where T == Map<String, V>, U.Element == V {
        var path = appending([.values])
        path.modifier = .anyOf
        let list = PredicateTree.ConstantList(elements: collection.map { PredicateTree.Constant(value: $0.queryValue) })
        return Self.comparison(.keyPath(path), .in, .list(list))
    }
}
