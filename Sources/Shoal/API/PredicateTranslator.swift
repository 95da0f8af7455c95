public import Foundation

/// Translates a Foundation `#Predicate` into the predicate tree.
///
/// Foundation's `PredicateExpressions` types are public, so the translator
/// walks the expression: each supported expression type conforms to
/// ``TranslatablePredicateExpression``. Key paths are named with
/// ``KeyPathTracer``. Anything else is reported by its type name.
struct PredicateTranslator {
    /// What a translated sub-expression is.
    enum Fragment {
        case predicate(PredicateTree)
        case expression(PredicateTree.Expression)
        case range(lower: PredicateTree.Expression, upper: PredicateTree.Expression, closed: Bool)
    }

    var variables: [PredicateExpressions.VariableID: PredicateTree.KeyPath] = [:]
    private var subqueries = 0
    /// How many expressions enclose the one being translated.
    private var nesting = 0

    /// The deepest the translator follows a `#Predicate`'s expressions
    /// into each other. They nest more than the tree they make (a key path,
    /// a value, an optional chain and each `&&` of a chain are levels), so
    /// this is past ``PredicateTree/maximumDepth``; each level takes about
    /// 5 KB of stack in a debug build, so it stays within a thread's stack
    /// of 1 MB. A predicate written in source nests far less; one built at
    /// run time from `PredicateExpressions` may not, and is refused rather
    /// than overflow the stack.
    static let maximumExpressionDepth = 150

    /// The tree `predicate` means.
    ///
    /// - Throws: ``ShoalError`` `.invalidQuery` for an expression Shoal
    ///   cannot translate, expressions nested deeper than
    ///   ``maximumExpressionDepth``, or a tree nested deeper than
    ///   ``PredicateTree/maximumDepth`` (as a format string counts levels).
    static func translate<T>(_ predicate: Predicate<T>) throws(ShoalError) -> PredicateTree {
        var translator = PredicateTranslator()
        translator.variables[predicate.variable.key] = PredicateTree.KeyPath(components: [])
        let tree = try translator.predicate(predicate.expression)
        guard tree.nestingDepth <= PredicateTree.maximumDepth else {
            throw PredicateTree.tooDeepError(format: nil, kind: "#Predicate",
                hint: "each '!', each '||' inside an '&&', and each contains(where:) or allSatisfy adds a level")
        }
        return tree
    }

    mutating func fragment(_ expression: Any) throws(ShoalError) -> Fragment {
        guard nesting < Self.maximumExpressionDepth else {
            throw ShoalError(.invalidQuery,
                "Invalid #Predicate: its expressions nest more than \(Self.maximumExpressionDepth) levels deep.",
                context: ["maximumExpressionDepth": String(Self.maximumExpressionDepth)])
        }
        nesting += 1
        defer { nesting -= 1 }
        guard let translatable = expression as? any TranslatablePredicateExpression else {
            throw ShoalError(.invalidQuery,
                "Cannot translate the #Predicate expression '\(type(of: expression))' into a Shoal query.",
                context: ["expression": String(describing: type(of: expression))])
        }
        return try translatable.translate(&self)
    }

    mutating func predicate(_ expression: Any) throws(ShoalError) -> PredicateTree {
        switch try fragment(expression) {
        case .predicate(let tree): return tree
        case .expression(let e): return .comparison(.init(lhs: e, op: .equal, rhs: .constant(.init(value: .bool(true)))))
        case .range: throw ShoalError(.invalidQuery, "A range is not a predicate.")
        }
    }

    mutating func expression(_ expression: Any) throws(ShoalError) -> PredicateTree.Expression {
        guard case .expression(var e) = try fragment(expression) else {
            throw ShoalError(.invalidQuery, "Expected a value or key path in the #Predicate, found '\(type(of: expression))'.")
        }
        if case .keyPath(let path) = e, path.components.isEmpty, path.root == .object {
            e = .keyPath(PredicateTree.KeyPath(components: [.property("self")]))
        }
        return e
    }

    mutating func keyPath(_ expression: Any) throws(ShoalError) -> PredicateTree.KeyPath {
        guard case .expression(.keyPath(let path)) = try fragment(expression) else {
            throw ShoalError(.invalidQuery, "Expected a key path in the #Predicate, found '\(type(of: expression))'.")
        }
        return path
    }

    mutating func comparison(_ lhs: Any, _ op: PredicateTree.ComparisonOperator, _ rhs: Any) throws(ShoalError) -> Fragment {
        .predicate(.comparison(.init(lhs: try expression(lhs), op: op, rhs: try expression(rhs))))
    }

    /// `SUBQUERY(sequence, $v, test).@count` compared with zero.
    mutating func subquery(_ sequence: Any, _ variable: PredicateExpressions.VariableID, _ test: Any, all: Bool) throws(ShoalError) -> Fragment {
        let collection = try keyPath(sequence)
        subqueries += 1
        let name = "v\(subqueries)"
        variables[variable] = PredicateTree.KeyPath(root: .variable(name), components: [])
        var inner = try predicate(test)
        if all { inner = .not(inner) }
        let count = PredicateTree.Expression.subqueryCount(.init(collection: collection, variable: name, predicate: inner))
        return .predicate(.comparison(.init(lhs: count, op: all ? .equal : .greaterThan, rhs: .constant(.init(value: .int(0))))))
    }
}

/// A Foundation predicate expression Shoal can translate.
protocol TranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws(ShoalError) -> PredicateTranslator.Fragment
}

/// A collection type whose `count` key path a `#Predicate` may read.
protocol CountableQueryCollection {
    static var countKeyPath: AnyKeyPath { get }
}

extension List: CountableQueryCollection { static var countKeyPath: AnyKeyPath { \List<Element>.count } }
extension MutableSet: CountableQueryCollection { static var countKeyPath: AnyKeyPath { \MutableSet<Element>.count } }
extension LinkingObjects: CountableQueryCollection { static var countKeyPath: AnyKeyPath { \LinkingObjects<Element>.count } }

extension PredicateExpressions.Variable: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(ShoalError) -> PredicateTranslator.Fragment {
        guard let path = t.variables[key] else { throw ShoalError(.invalidQuery, "Unknown variable in the #Predicate.") }
        return .expression(.keyPath(path))
    }
}

extension PredicateExpressions.KeyPath: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(ShoalError) -> PredicateTranslator.Fragment {
        var path = try t.keyPath(root)
        if let collection = Root.Output.self as? any CountableQueryCollection.Type, keyPath == collection.countKeyPath {
            return .expression(.collectionOperation(.init(function: .count, collection: path)))
        }
        guard let objectType = Root.Output.self as? Object.Type else {
            throw ShoalError(.invalidQuery, "Cannot translate the #Predicate key path \(keyPath) on \(Root.Output.self) into a Shoal query.")
        }
        path.components += try KeyPathTracer.names(of: keyPath, on: objectType).map { .property($0) }
        return .expression(.keyPath(path))
    }
}

extension PredicateExpressions.Value: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(ShoalError) -> PredicateTranslator.Fragment {
        do throws(PredicateArguments.ConversionFailure) {
            switch try PredicateArguments.convert(value) {
            case .scalar(let v): return .expression(.constant(.init(value: v)))
            case .list(let values): return .expression(.list(.init(elements: values.map { .init(value: $0) })))
            }
        } catch {
            throw ShoalError(.invalidQuery, "The #Predicate value \(value) \(error.reason).")
        }
    }
}

extension PredicateExpressions.NilLiteral: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(ShoalError) -> PredicateTranslator.Fragment {
        .expression(.constant(.init(value: .null)))
    }
}

extension PredicateExpressions.Equal: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(ShoalError) -> PredicateTranslator.Fragment { try t.comparison(lhs, .equal, rhs) }
}

extension PredicateExpressions.NotEqual: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(ShoalError) -> PredicateTranslator.Fragment { try t.comparison(lhs, .notEqual, rhs) }
}

extension PredicateExpressions.Comparison: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(ShoalError) -> PredicateTranslator.Fragment {
        let mapped: PredicateTree.ComparisonOperator =
            switch op {
            case .lessThan: .lessThan
            case .lessThanOrEqual: .lessThanOrEqual
            case .greaterThan: .greaterThan
            case .greaterThanOrEqual: .greaterThanOrEqual
            }
        return try t.comparison(lhs, mapped, rhs)
    }
}

extension PredicateExpressions.Conjunction: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(ShoalError) -> PredicateTranslator.Fragment {
        .predicate(.conjunction([try t.predicate(lhs), try t.predicate(rhs)]))
    }
}

extension PredicateExpressions.Disjunction: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(ShoalError) -> PredicateTranslator.Fragment {
        .predicate(.disjunction([try t.predicate(lhs), try t.predicate(rhs)]))
    }
}

extension PredicateExpressions.Negation: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(ShoalError) -> PredicateTranslator.Fragment { .predicate(.not(try t.predicate(wrapped))) }
}

extension PredicateExpressions.SequenceStartsWith: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(ShoalError) -> PredicateTranslator.Fragment { try t.comparison(base, .beginsWith, prefix) }
}

extension PredicateExpressions.CollectionContainsCollection: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(ShoalError) -> PredicateTranslator.Fragment { try t.comparison(base, .contains, other) }
}

extension PredicateExpressions.SequenceContains: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(ShoalError) -> PredicateTranslator.Fragment { try t.comparison(element, .in, sequence) }
}

extension PredicateExpressions.SequenceContainsWhere: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(ShoalError) -> PredicateTranslator.Fragment {
        try t.subquery(sequence, variable.key, test, all: false)
    }
}

extension PredicateExpressions.SequenceAllSatisfy: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(ShoalError) -> PredicateTranslator.Fragment {
        try t.subquery(sequence, variable.key, test, all: true)
    }
}

extension PredicateExpressions.ClosedRange: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(ShoalError) -> PredicateTranslator.Fragment {
        .range(lower: try t.expression(lower), upper: try t.expression(upper), closed: true)
    }
}

extension PredicateExpressions.Range: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(ShoalError) -> PredicateTranslator.Fragment {
        .range(lower: try t.expression(lower), upper: try t.expression(upper), closed: false)
    }
}

extension PredicateExpressions.RangeExpressionContains: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(ShoalError) -> PredicateTranslator.Fragment {
        guard case .range(let lower, let upper, let closed) = try t.fragment(range),
            case .constant(let low) = lower, case .constant(let high) = upper
        else { throw ShoalError(.invalidQuery, "Only a range of constants can be tested in a #Predicate, not \(type(of: range)).") }
        let value = try t.expression(element)
        if closed {
            return .predicate(.comparison(.init(lhs: value, op: .between, rhs: .list(.init(elements: [low, high])))))
        }
        return .predicate(.conjunction([
            .comparison(.init(lhs: value, op: .greaterThanOrEqual, rhs: .constant(low))),
            .comparison(.init(lhs: value, op: .lessThan, rhs: .constant(high))),
        ]))
    }
}

extension PredicateExpressions.OptionalFlatMap: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(ShoalError) -> PredicateTranslator.Fragment {
        t.variables[variable.key] = try t.keyPath(wrapped)
        return try t.fragment(transform)
    }
}

extension PredicateExpressions.ForcedUnwrap: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(ShoalError) -> PredicateTranslator.Fragment { try t.fragment(inner) }
}
