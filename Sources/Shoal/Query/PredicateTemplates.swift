/// Parsed predicates of formats read lately, by format and by the shape of
/// their arguments: a query run again with new arguments (the same format,
/// as in a loop) is neither bound nor parsed again. Its tree is the cached
/// one with the new values put where the old ones were.
///
/// Parsing depends on an argument's value only through:
/// - whether it is one value or a list, and a list's length (`BETWEEN` takes
///   two; a list cannot sit in a list);
/// - the key path a `%K` argument names, which becomes tokens;
/// - the string a map subscript such as `scores[%@]` takes, which becomes a
///   key path component.
///
/// A ``Shape`` records exactly those, and a template is kept only for a
/// format that parsed, so a tree from the cache equals the one binding and
/// parsing would give. Anything irregular (a missing argument, one that does
/// not convert, two placeholders that convert one argument differently)
/// takes the full path, which gives the error.
enum PredicateTemplates {
    /// What parsing depends on of one placeholder's argument.
    enum Part: Hashable {
        /// One value, held by the tree as a constant.
        case value
        /// A list of `count` values, held by the tree as a constant list.
        case list(count: Int)
        /// The key path a `%K` names.
        case keyPath(String)
        /// The key a map subscript takes.
        case mapKey(Value)
    }

    /// A format's arguments as parsing sees them, with their converted values.
    struct Shape: Hashable {
        /// What parsing depends on, one part per placeholder, in order.
        var parts: [Part]
        /// How many arguments were given (an unused one is an error).
        var argumentCount: Int

        /// The converted value of each argument by index, `nil` for one that
        /// only `%K` or a map subscript uses. Not part of the key.
        var values: [PredicateArgument?] = []

        static func == (lhs: Shape, rhs: Shape) -> Bool {
            lhs.argumentCount == rhs.argumentCount && lhs.parts == rhs.parts
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(argumentCount)
            hasher.combine(parts)
        }

        /// Whether the tree holds any argument's value.
        var holdsValues: Bool {
            parts.contains { part in
                switch part {
                case .value, .list: true
                case .keyPath, .mapKey: false
                }
            }
        }
    }

    private struct Key: Hashable {
        var format: String
        var shape: Shape
    }

    /// Emptied when it reaches ``capacity`` templates, so that formats made
    /// anew each time cannot grow it without bound.
    private static let cache = Locked<[Key: PredicateTree]>([:])
    static let capacity = 256

    /// The tree of `format` for arguments of `shape`, if one is cached, with
    /// `shape`'s values in it.
    static func tree(_ format: String, _ shape: Shape) -> PredicateTree? {
        guard let template = cache.withLock({ $0[Key(format: format, shape: shape)] }) else { return nil }
        return shape.holdsValues ? template.substituting(shape.values) : template
    }

    /// Keeps the tree `format` parsed to with arguments of `shape`.
    static func store(_ tree: PredicateTree, _ format: String, _ shape: Shape) {
        var key = Key(format: format, shape: shape)
        key.shape.values = []
        cache.withLock { cache in
            if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
            cache[key] = tree
        }
    }

    /// The number of templates cached (for tests).
    static var count: Int { cache.withLock { $0.count } }
}

extension PredicateArguments {
    /// The shape of the arguments of a format with `tokens` (before binding),
    /// or `nil` when binding them would fail or be irregular; then the full
    /// path binds and gives the error.
    func shape(of tokens: [PredicateToken]) -> PredicateTemplates.Shape? {
        var shape = PredicateTemplates.Shape(
            parts: [], argumentCount: arguments.count, values: Array(repeating: nil, count: arguments.count))
        var nextSequential = 0
        var previous: PredicateToken.Kind?
        for token in tokens {
            defer { previous = token.kind }
            let index: Int
            let specifier: FormatSpecifier
            switch token.kind {
            case .formatSpecifier(let s):
                index = nextSequential
                nextSequential += 1
                specifier = s
            case .positionalArgument(let i):
                index = i
                specifier = .object
            default:
                continue
            }
            guard index < arguments.count else { return nil }
            if specifier == .keyPath {
                switch Self.unwrap(arguments[index]) {
                case let s as String: shape.parts.append(.keyPath(s))
                case let s as Substring: shape.parts.append(.keyPath(String(s)))
                default: return nil
                }
                continue
            }
            guard let value = try? convert(index, for: specifier, at: token) else { return nil }
            if let earlier = shape.values[index], earlier != value { return nil }
            shape.values[index] = value
            switch value {
            case .scalar(let scalar): shape.parts.append(previous == .leftBracket ? .mapKey(scalar) : .value)
            case .list(let list): shape.parts.append(.list(count: list.count))
            }
        }
        return shape
    }
}

extension PredicateTree {
    /// This tree with the constants that came from arguments holding
    /// `values`' instead (by argument index), as parsing would have made them.
    func substituting(_ values: [PredicateArgument?]) -> PredicateTree {
        switch self {
        case .truePredicate, .falsePredicate: return self
        case .and(let operands): return .and(operands.map { $0.substituting(values) })
        case .or(let operands): return .or(operands.map { $0.substituting(values) })
        case .not(let operand): return .not(operand.substituting(values))
        case .comparison(var comparison):
            comparison.lhs = comparison.lhs.substituting(values)
            comparison.rhs = comparison.rhs.substituting(values)
            return .comparison(comparison)
        }
    }
}

extension PredicateTree.Expression {
    /// This expression with argument values from `values` (see
    /// ``PredicateTree/substituting(_:)``).
    func substituting(_ values: [PredicateArgument?]) -> PredicateTree.Expression {
        switch self {
        case .constant(var constant):
            if let index = constant.argumentIndex, case .scalar(let value)? = values[index] { constant.value = value }
            return .constant(constant)
        case .list(var list):
            if let index = list.argumentIndex, case .list(let given)? = values[index] {
                // The shape fixed the length.
                for i in list.elements.indices { list.elements[i].value = given[i] }
            } else {
                for i in list.elements.indices {
                    if let index = list.elements[i].argumentIndex, case .scalar(let value)? = values[index] {
                        list.elements[i].value = value
                    }
                }
            }
            return .list(list)
        case .keyPath, .collectionOperation:
            // Key paths hold no argument values: `%K` paths and map keys are
            // part of the shape.
            return self
        case .subqueryCount(var subquery):
            subquery.predicate = subquery.predicate.substituting(values)
            return .subqueryCount(subquery)
        }
    }
}
