/// A typed query over the properties of `T`, as `where { }` builds it.
///
/// ```swift
/// let puppies = realm.objects(Dog.self).where {
///     $0.age < 2 && $0.name.starts(with: "R", options: .caseInsensitive)
/// }
/// let owned = realm.objects(Dog.self).where { $0.owner.name == "Ann" || $0.tags.contains("good") }
/// let busy = realm.objects(Person.self).where { $0.dogs.count > 2 && $0.dogs.age > 10 }
/// ```
///
/// Member access follows `@Persisted` properties (and links, and the
/// elements of lists and sets, where a comparison means "any element"); the
/// operators `==`, `!=`, `<`, `<=`, `>`, `>=`, `&&`, `||` and `!` and the
/// methods below build the predicate, which runs like a format string's.
///
/// A chain of `&&`s, or of `||`s, is flat however long it is (`a && b && c`
/// is one `AND` of three terms), and so is `a && b || c && d` as Swift's
/// precedence groups it. Each `!`, and each `||` that an `&&` holds (which a
/// format string writes in parentheses), nests a level; a query nested
/// deeper than a format string may be (100 levels) stops when run, with a
/// ``ShoalError`` of code `.invalidQuery`, rather than overflow the stack.
/// Alternating `&&` and `||` on the running result of a loop
/// (`q = q && a`, then `q = q || b`, ...) nests a level each time an `&&`
/// takes the `||` before it, which no regrouping removes.
///
/// - Note: Differs from Realm: the operators accept any persistable value
///   rather than Realm's narrower per-operator protocols, so a comparison
///   Realm rejects at compile time (`$0.name > 3`) stops at run time with a
///   type-mismatch message instead.
@dynamicMemberLookup
public struct Query<T> {
    enum Node {
        case keyPath(PredicateTree.KeyPath)
        case expression(PredicateTree.Expression)
        /// A predicate and its ``PredicateTree/nestingDepth``, kept so that
        /// `&&`, `||` and `!` know the depth of what they make without
        /// walking it.
        case predicate(PredicateTree, depth: Int)
        /// A flat `&&` (`isConjunction`) or `||` of the first `count` trees
        /// of `operands` (two or more, none of them of the chain's own
        /// kind), and its nesting depth.
        case chain(isConjunction: Bool, ChainOperands, count: Int, depth: Int)
        /// What `&&`, `||` or `!` would have made past
        /// ``PredicateTree/maximumDepth``: the error the query stops with
        /// when run. Combining it gives it again, so no deeper tree is made.
        case tooDeep(ShoalError)
    }

    let node: Node

    init(_ node: Node) { self.node = node }

    /// The query's root: the tested object or value.
    init() { node = .keyPath(PredicateTree.KeyPath(components: [])) }

    var keyPath: PredicateTree.KeyPath {
        guard case .keyPath(let path) = node else {
            shoalPrecondition(ShoalError(.invalidQuery, "Only a key path can be followed or compared here, not \(self)"))
        }
        return path
    }

    func appending(_ components: [PredicateTree.Component]) -> PredicateTree.KeyPath {
        var path = keyPath
        path.components += components
        return path
    }

    /// The node as one side of a comparison.
    var expression: PredicateTree.Expression {
        switch node {
        case .keyPath(var path):
            if path.components.isEmpty { path.components = [.property("self")] }
            return .keyPath(path)
        case .expression(let expression): return expression
        case .predicate, .chain:
            shoalPrecondition(ShoalError(.invalidQuery, "A predicate (\(self)) cannot be compared with a value"))
        case .tooDeep(let error): shoalPrecondition(error)
        }
    }

    /// The node as a predicate, with its nesting depth: a Boolean key path
    /// means `== true`. Fails for a predicate nested too deeply.
    var logical: Result<(tree: PredicateTree, depth: Int), ShoalError> {
        switch node {
        case .predicate(let tree, let depth): .success((tree, depth))
        case .chain(let isConjunction, let operands, let count, let depth):
            .success((isConjunction ? .and(Array(operands.trees[..<count])) : .or(Array(operands.trees[..<count])), depth))
        case .tooDeep(let error): .failure(error)
        default: .success((.comparison(PredicateTree.Comparison(lhs: expression, op: .equal, rhs: .constant(.init(value: .bool(true))))), 1))
        }
    }

    /// The predicate the query builds, for the binder.
    ///
    /// - Throws: ``ShoalError`` `.invalidQuery` when `&&`, `||` and `!`
    ///   nested it deeper than ``PredicateTree/maximumDepth`` levels (as a
    ///   format string counts them: each `!`, and each `||` inside an `&&`,
    ///   adds one; a chain of `&&`s or of `||`s of any length is one).
    func predicateTree() throws(ShoalError) -> PredicateTree {
        try logical.get().tree
    }

    /// The predicate `make` builds from the predicates of `operands` and
    /// their depths, with the depth it gives; the error of an operand nested
    /// too deeply, or of the result when its depth passes
    /// ``PredicateTree/maximumDepth``, instead.
    static func logical(_ operands: [Query<Bool>],
        _ make: ([(tree: PredicateTree, depth: Int)]) -> (tree: PredicateTree, depth: Int)) -> Query<Bool>
    {
        var parts: [(tree: PredicateTree, depth: Int)] = []
        for operand in operands {
            switch operand.logical {
            case .success(let part): parts.append(part)
            case .failure(let error): return Query<Bool>(.tooDeep(error))
            }
        }
        let made = make(parts)
        guard made.depth <= PredicateTree.maximumDepth else { return Query<Bool>(.tooDeep(tooDeepError)) }
        return Query<Bool>(.predicate(made.tree, depth: made.depth))
    }

    /// The error of a typed query nested past ``PredicateTree/maximumDepth``.
    static var tooDeepError: ShoalError {
        PredicateTree.tooDeepError(format: nil, kind: "typed query", hint: "each '!', and each '||' inside an '&&', adds a level")
    }

    /// `lhs && rhs` (`conjunction`) or `lhs || rhs`, as one flat chain: the
    /// terms of either side that is a chain of the same kind are the chain's.
    /// The left side's operands are extended in place when no other query
    /// has extended them already (see ``ChainOperands``).
    static func chained(conjunction: Bool, _ lhs: Query<Bool>, _ rhs: Query<Bool>) -> Query<Bool> {
        let operands: ChainOperands
        let count: Int
        var depth: Int
        if case .chain(conjunction, let shared, let lhsCount, let lhsDepth) = lhs.node {
            operands = shared.trees.count == lhsCount ? shared : ChainOperands(Array(shared.trees[..<lhsCount]))
            (count, depth) = (lhsCount, lhsDepth)
        } else {
            guard case .success(let part) = lhs.logical else { return lhs }
            operands = ChainOperands(part.tree.chainTerms(conjunction: conjunction))
            count = operands.trees.count
            depth = part.tree.depthInChain(part.depth, conjunction: conjunction)
        }
        let right: ArraySlice<PredicateTree>
        if case .chain(conjunction, let shared, let rhsCount, let rhsDepth) = rhs.node {
            right = shared.trees[..<rhsCount]
            depth = Swift.max(depth, rhsDepth)
        } else {
            guard case .success(let part) = rhs.logical else { return rhs }
            right = part.tree.chainTerms(conjunction: conjunction)[...]
            depth = Swift.max(depth, part.tree.depthInChain(part.depth, conjunction: conjunction))
        }
        guard depth <= PredicateTree.maximumDepth else { return Query<Bool>(.tooDeep(tooDeepError)) }
        operands.trees += right
        return Query<Bool>(.chain(isConjunction: conjunction, operands, count: count + right.count, depth: depth))
    }

    static func comparison(_ lhs: PredicateTree.Expression, _ op: PredicateTree.ComparisonOperator,
        _ rhs: PredicateTree.Expression, _ options: StringOptions = []) -> Query<Bool>
    {
        let tree = PredicateTree.comparison(PredicateTree.Comparison(lhs: lhs, op: op, rhs: rhs, options: options.tree))
        // A subquery nests its predicate a few levels down (PredicateTree.subqueryLevels).
        guard case .subqueryCount = lhs else {
            guard case .subqueryCount = rhs else { return Query<Bool>(.predicate(tree, depth: 1)) }
            return measured(tree)
        }
        return measured(tree)
    }

    /// `tree`, a comparison with a subquery, with its nesting depth, or the
    /// error of one nested too deeply.
    private static func measured(_ tree: PredicateTree) -> Query<Bool> {
        let depth = tree.nestingDepth
        guard depth <= PredicateTree.maximumDepth else { return Query<Bool>(.tooDeep(tooDeepError)) }
        return Query<Bool>(.predicate(tree, depth: depth))
    }

    static func constant<V: PersistableValue>(_ value: V) -> PredicateTree.Expression {
        .constant(PredicateTree.Constant(value: value.queryValue))
    }

    // MARK: Member access

    /// The query of property `name` (dotted for a nested key path) of what
    /// this query reaches. A path that reaches a collection for the first
    /// time records where that collection ends (``PredicateTree/KeyPath/collectionPrefix``),
    /// which a subquery's `.count` splits the path at.
    func member<V>(_ name: String, as _: V.Type) -> Query<V> {
        var path = appending(name.split(separator: ".").map { .property(String($0)) })
        if path.collectionPrefix == nil, V.self is any RealmCollection.Type || V.self is any RealmKeyedCollection.Type {
            path.collectionPrefix = path.components.count
        }
        return Query<V>(.keyPath(path))
    }

    /// A property of an object.
    public subscript<V>(dynamicMember keyPath: KeyPath<T, V>) -> Query<V> where T: Object {
        member(KeyPathTracer.name(of: keyPath), as: V.self)
    }

    /// A property of an optional link.
    public subscript<W: Object, V>(dynamicMember keyPath: KeyPath<W, V>) -> Query<V> where T == W? {
        member(KeyPathTracer.name(of: keyPath), as: V.self)
    }

    /// A property of the objects in a list, set or linking objects: a
    /// comparison on it matches when any element matches.
    public subscript<V>(dynamicMember keyPath: KeyPath<T.Element, V>) -> Query<V>
    where T: RealmCollection, T.Element: Object {
        member(KeyPathTracer.name(of: keyPath), as: V.self)
    }

    /// A ``RealmProperty`` of an object, compared through its value:
    /// `where { $0.age > 18 }` for `let age = RealmProperty<Int?>()`.
    ///
    /// Shoal's addition: Realm's typed queries have no comparison for a
    /// `RealmProperty` (only its format strings query one).
    public subscript<V>(dynamicMember keyPath: KeyPath<T, RealmProperty<V>>) -> Query<V> where T: Object {
        member(Self.realmPropertyName(keyPath, on: T.self), as: V.self)
    }

    /// A ``RealmProperty`` of an optional link, compared through its value.
    public subscript<W: Object, V>(dynamicMember keyPath: KeyPath<W, RealmProperty<V>>) -> Query<V> where T == W? {
        member(Self.realmPropertyName(keyPath, on: W.self), as: V.self)
    }

    /// The name `keyPath` (which reads a ``RealmProperty``) is declared
    /// with on `type`: the property of a stand-in object that is the
    /// instance the key path reads there.
    private static func realmPropertyName<V>(_ keyPath: KeyPath<some Object, RealmProperty<V>>, on type: Object.Type) -> String {
        let object = type.init(_shoalMetatype: ())
        let property = object[keyPath: keyPath as AnyKeyPath] as AnyObject
        guard let name = ClassRegistry.children(of: object).first(where: { ($0.value as AnyObject) === property })?.label else {
            shoalPrecondition(ShoalError(.invalidKeyPath,
                "Key path \(keyPath) does not read a RealmProperty declared by '\(Object.className(of: type))'.",
                context: ["class": Object.className(of: type)]))
        }
        return name
    }
}

/// Options for string comparisons in ``Query``: `[c]` and `[d]`.
public struct StringOptions: OptionSet, Sendable {
    public let rawValue: UInt8
    /// Creates options from their raw value.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Compare without regard to case, as `[c]` does.
    public static let caseInsensitive = StringOptions(rawValue: 1)
    /// Compare without regard to diacritics, as `[d]` does.
    public static let diacriticInsensitive = StringOptions(rawValue: 2)

    var tree: PredicateTree.ComparisonOptions {
        var options: PredicateTree.ComparisonOptions = []
        if contains(.caseInsensitive) { options.insert(.caseInsensitive) }
        if contains(.diacriticInsensitive) { options.insert(.diacriticInsensitive) }
        return options
    }
}

extension Query: CustomStringConvertible {
    /// The query in predicate format syntax.
    public var description: String {
        switch node {
        case .keyPath(let path): path.description
        case .expression(let expression): expression.description
        case .predicate(let tree, _): tree.description
        case .chain: (try? predicateTree())?.description ?? ""
        case .tooDeep(let error): error.message
        }
    }
}

// MARK: - Comparisons

extension Query where T: PersistableValue {
    /// Equal to a value (`nil` for an optional property).
    public static func == (lhs: Query, rhs: T) -> Query<Bool> { comparison(lhs.expression, .equal, constant(rhs)) }
    /// Not equal to a value.
    public static func != (lhs: Query, rhs: T) -> Query<Bool> { comparison(lhs.expression, .notEqual, constant(rhs)) }
    /// Less than a value.
    public static func < (lhs: Query, rhs: T) -> Query<Bool> { comparison(lhs.expression, .lessThan, constant(rhs)) }
    /// Less than or equal to a value.
    public static func <= (lhs: Query, rhs: T) -> Query<Bool> { comparison(lhs.expression, .lessThanOrEqual, constant(rhs)) }
    /// Greater than a value.
    public static func > (lhs: Query, rhs: T) -> Query<Bool> { comparison(lhs.expression, .greaterThan, constant(rhs)) }
    /// Greater than or equal to a value.
    public static func >= (lhs: Query, rhs: T) -> Query<Bool> { comparison(lhs.expression, .greaterThanOrEqual, constant(rhs)) }

    /// Equal to another property.
    public static func == (lhs: Query, rhs: Query) -> Query<Bool> { comparison(lhs.expression, .equal, rhs.expression) }
    /// Not equal to another property.
    public static func != (lhs: Query, rhs: Query) -> Query<Bool> { comparison(lhs.expression, .notEqual, rhs.expression) }
    /// Less than another property.
    public static func < (lhs: Query, rhs: Query) -> Query<Bool> { comparison(lhs.expression, .lessThan, rhs.expression) }
    /// Greater than another property.
    public static func > (lhs: Query, rhs: Query) -> Query<Bool> { comparison(lhs.expression, .greaterThan, rhs.expression) }

    /// One of the given values: `$0.name.in(["Rex", "Fido"])`.
    public func `in`<S: Sequence>(_ values: S) -> Query<Bool> where S.Element == T {
        let list = PredicateTree.ConstantList(elements: values.map { PredicateTree.Constant(value: $0.queryValue) })
        return Self.comparison(expression, .in, .list(list))
    }

    /// Between two values, both included: `$0.age.between(3, 5)`.
    public func between(_ low: T, _ high: T) -> Query<Bool> {
        let list = PredicateTree.ConstantList(elements: [.init(value: low.queryValue), .init(value: high.queryValue)])
        return Self.comparison(expression, .between, .list(list))
    }

    /// Within a closed range: `$0.age.contains(3...5)`.
    public func contains(_ range: ClosedRange<T>) -> Query<Bool> where T: Comparable {
        between(range.lowerBound, range.upperBound)
    }
}


extension Query where T: StringQueryable {
    /// Contains a substring: `$0.name.contains("ex", options: .caseInsensitive)`.
    public func contains(_ value: String, options: StringOptions = []) -> Query<Bool> {
        Self.comparison(expression, .contains, Self.constant(value), options)
    }
    /// Starts with a prefix.
    public func starts(with value: String, options: StringOptions = []) -> Query<Bool> {
        Self.comparison(expression, .beginsWith, Self.constant(value), options)
    }
    /// Ends with a suffix.
    public func ends(with value: String, options: StringOptions = []) -> Query<Bool> {
        Self.comparison(expression, .endsWith, Self.constant(value), options)
    }
    /// Matches a wildcard pattern (`*` any run of characters, `?` one character).
    public func like(_ pattern: String, caseInsensitive: Bool = false) -> Query<Bool> {
        Self.comparison(expression, .like, Self.constant(pattern), caseInsensitive ? .caseInsensitive : [])
    }
    /// Equal to a string, with options: `$0.name.equals("rex", options: .caseInsensitive)`.
    public func equals(_ value: String, options: StringOptions = []) -> Query<Bool> {
        Self.comparison(expression, .equal, Self.constant(value), options)
    }
}

/// `String` and `String?`: the types ``Query``'s string methods apply to.
public protocol StringQueryable {}
extension String: StringQueryable {}
extension Optional: StringQueryable where Wrapped == String {}

// MARK: - Logic

extension Query where T == Bool {
    /// Both predicates match.
    public static func && (lhs: Query, rhs: Query) -> Query { chained(conjunction: true, lhs, rhs) }
    /// Either predicate matches.
    public static func || (lhs: Query, rhs: Query) -> Query { chained(conjunction: false, lhs, rhs) }
    /// The predicate does not match.
    public static prefix func ! (query: Query) -> Query {
        logical([query]) { parts in (.not(parts[0].tree), parts[0].depth + 1 + parts[0].tree.parenthesizedAfterNot) }
    }
}

// MARK: - Collections

extension Query where T: RealmCollection {
    /// The number of elements: `$0.dogs.count > 2`.
    public var count: Query<Int> {
        Query<Int>(.expression(.collectionOperation(PredicateTree.CollectionOperation(function: .count, collection: keyPath))))
    }

    /// The elements, quantified with `ANY` (what a comparison on a collection means anyway).
    public var any: Query<T.Element> {
        var path = keyPath
        path.modifier = .anyOf
        return Query<T.Element>(.keyPath(path))
    }

    /// Whether the collection holds a value or object: `$0.tags.contains("good")`.
    public func contains(_ element: T.Element) -> Query<Bool> {
        Self.comparison(.constant(PredicateTree.Constant(value: element.queryValue)), .in, expression)
    }

    /// The smallest element: `$0.scores.min > 3` (values only).
    public var min: Query<T.Element> { aggregate(.min) }
    /// The largest element.
    public var max: Query<T.Element> { aggregate(.max) }
    /// The sum of the elements.
    public var sum: Query<T.Element> { aggregate(.sum) }
    /// The average of the elements.
    public var avg: Query<T.Element> { aggregate(.average) }

    private func aggregate(_ function: PredicateTree.CollectionFunction) -> Query<T.Element> {
        Query<T.Element>(.expression(.collectionOperation(PredicateTree.CollectionOperation(function: function, collection: keyPath))))
    }
}

extension Query {
    /// The value for a key of a map: `$0.scores["math"] > 3`.
    public subscript<V>(_ key: String) -> Query<V?> where T == Map<String, V> {
        Query<V?>(.keyPath(appending([.mapKey(key)])))
    }
}

extension Query where T == AnyRealmValue {
    /// The element at a position of a list nested in the mixed value:
    /// `$0.anyCol[0] == .int(1)` (nothing matches where there is none).
    public subscript(position: Int) -> Query<AnyRealmValue> {
        Query<AnyRealmValue>(.keyPath(appending([.mixedIndex(position)])))
    }

    /// The value for a key of a dictionary nested in the mixed value:
    /// `$0.anyCol["name"] == .string("x")`.
    public subscript(key: String) -> Query<AnyRealmValue> {
        Query<AnyRealmValue>(.keyPath(appending([.mapKey(key)])))
    }

    /// Every element of a list or value of a dictionary nested in the mixed
    /// value, as `anyCol[*]`: a comparison matches when any of them matches.
    public var any: Query<AnyRealmValue> {
        Query<AnyRealmValue>(.keyPath(appending([.mixedAll])))
    }
}

/// The operands of a flat `&&` or `||` chain of a typed query. The queries
/// a chain's links make share one buffer, each seeing its first `count`
/// operands: `q || x` appends `x` in place when no other query has appended
/// past `q`'s end, so a chain of n terms built one operator at a time, as a
/// loop builds it, costs O(n) rather than a copy of the operands per link.
final class ChainOperands {
    var trees: [PredicateTree]

    init(_ trees: [PredicateTree]) { self.trees = trees }
}

extension PredicateTree {
    /// The tree as terms of an `AND` (`conjunction`) or `OR`: its operands
    /// when it is one of that kind, else itself.
    fileprivate func chainTerms(conjunction: Bool) -> [PredicateTree] {
        switch (self, conjunction) {
        case (.and(let operands), true), (.or(let operands), false): operands
        default: [self]
        }
    }

    /// The nesting depth of the tree, of depth `depth`, as a term of an
    /// `AND` (`conjunction`, which puts an `OR` in parentheses) or an `OR`.
    fileprivate func depthInChain(_ depth: Int, conjunction: Bool) -> Int {
        conjunction ? depth + parenthesizedInAnd : depth
    }
}
