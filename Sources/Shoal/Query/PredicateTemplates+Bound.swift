/// Prepared predicates: a format run again with new arguments (as in a
/// loop, `filter("id BETWEEN {%d, %d}", low, high)`) is neither parsed nor
/// bound again. Its kept template's binding, made the first time, takes the
/// new values, as a prepared SQL statement takes new parameters.
///
/// Binding depends on an argument's value only through its type (each
/// value is checked against the property it is compared with), its class
/// for a link, whether it is null, and a list's length. Those make the
/// binding's ``BoundTemplate/signature``; the schema and the root (what the
/// predicate tests) are kept beside it. With all three the same, binding
/// the new tree would check the same things and succeed the same way, and
/// would differ only in the constants, each converted to its property's
/// type as the binder converts it. Anything else (a first use, another
/// signature, a `SUBQUERY` with arguments inside) takes the full path.
struct BoundTemplate {
    let schema: Schema
    let root: QueryBinder.Root
    /// The types of the argument values bound (see ``signature(_:)``).
    let signature: [Int]
    /// The template's tree bound, its arguments' values nulled (every one
    /// is replaced when the binding is used).
    let predicate: BoundPredicate
    /// For each comparison, in the order the binder binds them, the type
    /// its constants were converted to (``QueryBinder/converted(_:to:)``).
    let conversions: [PropertyType?]

    /// Most bindings kept per template; the oldest goes first.
    static let perTemplate = 4

    /// Whether this binding serves arguments of `signature` for `schema` and `root`.
    func matches(_ signature: [Int], _ schema: Schema, _ root: QueryBinder.Root) -> Bool {
        self.signature == signature && self.root == root && self.schema == schema
    }

    /// The binding's argument types: for each argument by index, `-1` for
    /// one only `%K` takes, a value's type, or a list's length (as
    /// `-2 - length`) then each element's type. A value's type is its kind,
    /// and for a link its table too.
    static func signature(_ values: [PredicateArgument?]) -> [Int] {
        var signature: [Int] = []
        signature.reserveCapacity(values.count)
        for value in values {
            switch value {
            case nil: signature.append(-1)
            case .scalar(let value)?: signature.append(typeCode(value))
            case .list(let list)?:
                signature.append(-2 - list.count)
                for element in list { signature.append(typeCode(element)) }
            }
        }
        return signature
    }

    private static func typeCode(_ value: Value) -> Int {
        switch value {
        case .null: 0
        case .bool: 1
        case .int: 2
        case .float: 3
        case .double: 4
        case .string: 5
        case .data: 6
        case .date: 7
        case .objectId: 8
        case .decimal: 9
        case .uuid: 10
        case .list: 11
        case .dictionary: 12
        case .link(let link): 16 + link.table.index
        }
    }

    /// Whether `tree` can be bound by substitution: it holds no `SUBQUERY`,
    /// whose comparisons the binder binds inside another's, and no `@type`,
    /// whose type names the binder turns into other constants.
    static func isPreparable(_ tree: PredicateTree) -> Bool {
        switch tree {
        case .truePredicate, .falsePredicate: true
        case .and(let operands), .or(let operands): operands.allSatisfy(isPreparable)
        case .not(let operand): isPreparable(operand)
        case .comparison(let c):
            ![c.lhs, c.rhs].contains { side in
                switch side {
                case .subqueryCount: true
                case .collectionOperation(let operation): operation.function == .type
                default: false
                }
            }
        }
    }

    /// The binding of `tree` (this template's tree) with `values`, or `nil`
    /// when the two do not have the shape the binding was made from.
    func instantiate(_ tree: PredicateTree, _ values: [PredicateArgument?]) -> BoundPredicate? {
        var next = 0
        let bound = Self.substitute(tree, predicate, values, conversions, &next)
        return next == conversions.count ? bound : nil
    }

    private static func substitute(_ tree: PredicateTree, _ bound: BoundPredicate, _ values: [PredicateArgument?],
        _ conversions: [PropertyType?], _ next: inout Int) -> BoundPredicate?
    {
        switch (tree, bound) {
        case (.truePredicate, .constant), (.falsePredicate, .constant):
            return bound
        case (.and(let trees), .and(let bounds)):
            guard let operands = substitute(trees, bounds, values, conversions, &next) else { return nil }
            return .and(operands)
        case (.or(let trees), .or(let bounds)):
            guard let operands = substitute(trees, bounds, values, conversions, &next) else { return nil }
            return .or(operands)
        case (.not(let tree), .not(let bound)):
            return substitute(tree, bound, values, conversions, &next).map { .not($0) }
        case (.comparison(let comparison), .comparison(var bound)):
            guard next < conversions.count else { return nil }
            let type = conversions[next]
            next += 1
            // The constant side, which the binder put on the right.
            let constant = comparison.lhs.isConstantOperand ? comparison.lhs : comparison.rhs
            switch constant.substitution(values) {
            case .none: return .comparison(bound)
            case .operand(let operand):
                bound.rhs = QueryBinder.converted(operand, to: type)
                return .comparison(bound)
            case .mismatch: return nil
            }
        default:
            return nil
        }
    }

    private static func substitute(_ trees: [PredicateTree], _ bounds: [BoundPredicate], _ values: [PredicateArgument?],
        _ conversions: [PropertyType?], _ next: inout Int) -> [BoundPredicate]?
    {
        guard trees.count == bounds.count else { return nil }
        var operands: [BoundPredicate] = []
        operands.reserveCapacity(trees.count)
        for (tree, bound) in zip(trees, bounds) {
            guard let operand = substitute(tree, bound, values, conversions, &next) else { return nil }
            operands.append(operand)
        }
        return operands
    }
}

extension PredicateTree.Expression {
    /// Whether the expression is a constant or a list of constants.
    fileprivate var isConstantOperand: Bool {
        switch self {
        case .constant, .list: true
        default: false
        }
    }

    /// What putting arguments in a constant expression gives.
    fileprivate enum Substitution {
        /// It holds no argument: the binding's constant stays.
        case none
        /// The bound operand with the arguments' values in.
        case operand(BoundOperand)
        /// An argument whose value is not of the kind its place takes.
        case mismatch
    }

    /// This constant expression with the arguments' `values` put in, as
    /// ``PredicateTree/substituting(_:)`` puts them in the tree.
    fileprivate func substitution(_ values: [PredicateArgument?]) -> Substitution {
        switch self {
        case .constant(let constant):
            guard let index = constant.argumentIndex else { return .none }
            guard case .scalar(let value)? = values[index] else { return .mismatch }
            return .operand(.constant(value))
        case .list(let list):
            if let index = list.argumentIndex {
                guard case .list(let given)? = values[index] else { return .mismatch }
                return .operand(.list(given))
            }
            guard list.elements.contains(where: { $0.argumentIndex != nil }) else { return .none }
            var elements: [Value] = []
            elements.reserveCapacity(list.elements.count)
            for element in list.elements {
                if let index = element.argumentIndex {
                    guard case .scalar(let value)? = values[index] else { return .mismatch }
                    elements.append(value)
                } else {
                    elements.append(element.value)
                }
            }
            return .operand(.list(elements))
        default:
            return .none
        }
    }
}

extension PredicateTemplates {
    /// The binding of `template` with `values` for `schema` and `root`, if
    /// one with values of the same types is kept.
    static func bound(_ template: Template, _ values: [PredicateArgument?], schema: Schema, root: QueryBinder.Root)
        -> BoundPredicate?
    {
        guard !template.bindings.isEmpty else { return nil }
        let signature = BoundTemplate.signature(values)
        for binding in template.bindings.reversed() where binding.matches(signature, schema, root) {
            return binding.instantiate(template.tree, values)
        }
        return nil
    }

    /// Keeps `bound`, the binding of `format` with `arguments` for `schema`
    /// and `root`, whose comparisons' constants were converted to
    /// `conversions`, beside its template (kept when the format parsed).
    /// Its argument values are nulled first, as the template's are: the
    /// cache keeps no argument's value alive.
    func storeBound(_ format: String, _ arguments: [Any], schema: Schema, root: QueryBinder.Root, bound: BoundPredicate,
        conversions: [PropertyType?])
    {
        guard let (template, values) = template(format, arguments), BoundTemplate.isPreparable(template.tree) else { return }
        let signature = BoundTemplate.signature(values)
        let first = BoundTemplate(schema: schema, root: root, signature: signature, predicate: bound, conversions: conversions)
        guard let nulled = first.instantiate(template.tree, values.map { $0?.nulled }) else { return }
        let binding = BoundTemplate(schema: schema, root: root, signature: signature, predicate: nulled, conversions: conversions)
        updateTemplate(format, parts: template.parts, argumentCount: template.argumentCount) { template in
            template.bindings.removeAll { $0.matches(signature, schema, root) }
            if template.bindings.count >= BoundTemplate.perTemplate { template.bindings.removeFirst() }
            template.bindings.append(binding)
        }
    }
}
