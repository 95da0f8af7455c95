/// Key-value coding and `index(matching:)` on every collection kind.
extension RealmCollection {
    /// The value of a property for each element, in order; `"self"` gives the elements.
    ///
    /// ```swift
    /// let names = realm.objects(Dog.self).value(forKey: "name") as? [String]
    /// ```
    ///
    /// - Note: Differs from Realm: returns a Swift array of optionals rather
    ///   than an `NSArray` (a `nil` property is `nil`, not `NSNull`).
    public func value(forKey key: String) -> [Any?] {
        if key == "self" { return map { $0 } }
        return map { element -> Any? in
            guard let object = element as? Object else {
                shoalPrecondition(ShoalError(.invalidKeyPath, "Invalid key '\(key)' for a collection of values: only 'self' applies."))
            }
            return object[key]
        }
    }

    /// The value at a key path: a property path for each element, or a
    /// collection operator: `@count`, `@min.age`, `@max.age`, `@sum.age`,
    /// `@avg.age`, and the union operators Foundation's key-value coding
    /// has: `@unionOfObjects.name` (the values, nils left out),
    /// `@distinctUnionOfObjects.name` (each value once),
    /// `@unionOfArrays.dogs` and `@distinctUnionOfArrays.dogs` (the
    /// elements of collection properties, joined).
    ///
    /// ```swift
    /// realm.objects(Dog.self).value(forKeyPath: "@count") as? Int
    /// realm.objects(Dog.self).value(forKeyPath: "@avg.age") as? Double
    /// realm.objects(Dog.self).value(forKeyPath: "owner.name")   // [Any?]
    /// ```
    ///
    /// Stops for an unknown operator, and for a dotted path after an operator
    /// (`"Nested key paths are not supported yet for KVC collection operators."`).
    public func value(forKeyPath keyPath: String) -> Any? {
        guard keyPath.hasPrefix("@") else {
            let names = keyPath.split(separator: ".").map(String.init)
            return map { Object.value(following: names, from: $0) }
        }
        let parts = keyPath.split(separator: ".", maxSplits: 1).map(String.init)
        if parts[0] == "@count" { return count }
        if let union = KVCUnion(rawValue: parts[0]) {
            guard parts.count > 1 else {
                shoalPrecondition(ShoalError(.invalidKeyPath, "\(parts[0]) needs a key path after it, as in '\(parts[0]).name'."))
            }
            return union.apply(to: value(forKeyPath: parts[1]) as? [Any?] ?? [])
        }
        let function: PredicateTree.CollectionFunction
        switch parts[0] {
        case "@min": function = .min
        case "@max": function = .max
        case "@sum": function = .sum
        case "@avg": function = .average
        default:
            shoalPrecondition(ShoalError(.invalidKeyPath, "Unsupported KVC collection operator found in key path '\(keyPath)'"))
        }
        let property = parts.count > 1 ? parts[1] : "self"
        if property.contains(".") {
            shoalPrecondition(ShoalError(.invalidKeyPath, "Nested key paths are not supported yet for KVC collection operators."))
        }
        guard let value = aggregate(function, property) ?? (function == .sum ? .int(0) : nil) else { return nil }
        switch value {
        case .int(let v): return Int(v)
        case .float(let v): return v
        case .double(let v): return v
        case .decimal(let v): return v
        case .date(let v): return v
        default: return nil
        }
    }

    /// Sets a property on every element, as the elements are when called.
    ///
    /// ```swift
    /// try realm.write { realm.objects(Dog.self).filter("age > 10").setValue("senior", forKey: "breed") }
    /// ```
    ///
    /// Every object that matched when called is updated, even when the
    /// update removes it from a filtered collection. Stops outside a write
    /// transaction with `"Cannot modify Results outside of a write transaction."`.
    public func setValue(_ value: Any?, forKey key: String) {
        if let instance = managedInstance, instance.transaction == nil {
            shoalPrecondition(ShoalError(.notInWriteTransaction, "Cannot modify \(kindName) outside of a write transaction."))
        }
        for element in Array(self) {
            guard let object = element as? Object else {
                shoalPrecondition(ShoalError(.invalidKeyPath, "setValue(_:forKey:) needs a collection of objects."))
            }
            object[key] = value
        }
    }

    /// The index of the first element matching a predicate format string, in current order.
    ///
    /// ```swift
    /// let i = realm.objects(Dog.self).sorted(byKeyPath: "age").index(matching: "name BEGINSWITH %@", "R")
    /// ```
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        do { return index(matching: try PredicateFormat(predicateFormat, argumentArray: args)) } catch { shoalPrecondition(error) }
    }

    /// The index of the first element matching a parsed predicate, in current order.
    public func index(matching predicate: PredicateFormat) -> Int? {
        firstIndex(predicate.tree, format: predicate.format)
    }

    /// The index of the first element matching a typed query, in current order.
    ///
    /// ```swift
    /// let i = person.dogs.index(matching: { $0.age > 3 })
    /// ```
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        do { return firstIndex(try isIncluded(Query<Element>()).predicateTree(), format: nil) } catch { shoalPrecondition(error) }
    }

    func firstIndex(_ tree: PredicateTree, format: String?) -> Int? {
        if kindName == "MutableSet" {
            shoalPrecondition(ShoalError(.unsupported, "index(matching:) is not available on an unordered MutableSet."))
        }
        if resultsBase == nil, kindName == "List" {
            if let objects = unmanagedElements as? [Object], let type = Element.self as? Object.Type {
                return InMemoryQuery.firstIndex(of: objects, type: type, tree, format: format)
            }
            return InMemoryQuery.firstIndex(of: unmanagedElements, tree, format: format)
        }
        let base = queryBase()
        do {
            let root = base.source.root(table: base.table, schema: base.instance.schema)
            let bound = try QueryBinder.bind(tree, schema: base.instance.schema, root: root, format: format)
            let evaluator = QueryEvaluator(snapshot: base.instance.current)
            let compiled = CompiledPredicate(bound)
            return storedElements().firstIndex { evaluator.matches(compiled, $0) }
        } catch { shoalPrecondition(error) }
    }
}

extension Object {
    /// The value reached from `start` by following property names through
    /// objects, as key-value coding does; `nil` when a value on the way is
    /// not an object.
    static func value(following names: some Sequence<String>, from start: Any?) -> Any? {
        var current = start
        for name in names {
            guard let object = current as? Object else { return nil }
            current = object[name]
        }
        return current
    }
}
