/// A recursive-descent parser from predicate tokens to a ``PredicateTree``.
///
/// The grammar, loosest binding first (keywords match in any case):
///
/// ```
/// predicate   := or END
/// or          := and (("OR" | "||") and)*
/// and         := not (("AND" | "&&") not)*
/// not         := ("NOT" | "!") not | primary
/// primary     := "(" or ")" | "TRUEPREDICATE" | "FALSEPREDICATE" | comparison
/// comparison  := operand operator options? operand
/// operator    := "==" | "=" | "!=" | "<>" | "<" | "<=" | "=<" | ">" | ">=" | "=>"
///              | "IN" | "BETWEEN" | "BEGINSWITH" | "ENDSWITH" | "CONTAINS" | "LIKE"
/// options     := "[c]" | "[d]" | "[cd]"
/// operand     := constant | list | argument | keyPathExpr | subquery
/// list        := "{" (constant ("," constant)*)? "}"
/// keyPathExpr := modifier? path ("." collectionOp)?      (see PredicateParser+KeyPaths.swift)
/// subquery    := "SUBQUERY" "(" path "," $variable "," or ")" "." ("@count" | "@size")
/// ```
///
/// Errors say what was expected, after which token, at which position.
struct PredicateParser {
    private(set) var tokens: [PredicateToken]
    private(set) var index = 0
    /// The `SUBQUERY` variables in scope, innermost last.
    var variables: [String] = []
    /// How deeply the predicate being parsed nests: parentheses, `NOT`s and
    /// subqueries (``PredicateTree/subqueryLevels`` each).
    private var depth = 0
    /// The deepest nesting a predicate may have (``PredicateTree/maximumDepth``).
    /// A deeper one is refused rather than overflow the stack of the thread
    /// that parses, binds, describes or evaluates it (a fuzzer finding: 4,700
    /// opening parentheses overflowed the parser's).
    static let maximumDepth = PredicateTree.maximumDepth

    init(tokens: [PredicateToken]) {
        precondition(tokens.last?.kind == .end, "a token stream ends with .end")
        self.tokens = tokens
    }

    /// Lexes `format`, binds its placeholders to `arguments` and parses it.
    ///
    /// A format parsed lately with arguments of the same shape is not bound
    /// or parsed again: `templates` puts the new values into the tree it gave.
    static func parse(_ format: String, arguments: [Any] = [], templates: PredicateTemplates = .shared)
        throws(PredicateFormatError) -> PredicateTree
    {
        if let tree = templates.tree(format, arguments) { return tree }
        let tokens = try PredicateLexer.cachedTokens(format)
        var parser = PredicateParser(tokens: try PredicateArguments.bind(tokens, to: arguments))
        let tree = try parser.parsePredicate()
        templates.store(tree, format, tokens: tokens, arguments: arguments)
        return tree
    }

    /// A whole predicate, up to the end of input.
    mutating func parsePredicate() throws(PredicateFormatError) -> PredicateTree {
        let tree = try parseOr()
        guard current.kind == .end else {
            throw .expected("AND, OR or the end of the predicate", after: previous, found: current)
        }
        return tree
    }

    // MARK: Token access

    var current: PredicateToken { tokens[index] }
    var previous: PredicateToken? { index > 0 ? tokens[index - 1] : nil }

    func peek(_ offset: Int) -> PredicateToken { tokens[min(index + offset, tokens.count - 1)] }

    mutating func advance() {
        if index < tokens.count - 1 { index += 1 }
    }

    /// Consumes a token of `kind`, or throws "expected `description`".
    @discardableResult
    mutating func expect(_ kind: PredicateToken.Kind, _ description: String) throws(PredicateFormatError)
        -> PredicateToken
    {
        guard current.kind == kind else { throw .expected(description, after: previous, found: current) }
        defer { advance() }
        return current
    }

    // MARK: Logical operators

    /// Enters `levels` more levels of nesting, or throws past ``maximumDepth``.
    private mutating func nest(_ levels: Int = 1) throws(PredicateFormatError) {
        depth += levels
        guard depth <= Self.maximumDepth else {
            throw .at(current, PredicateTree.tooDeepReason)
        }
    }

    private mutating func parseOr() throws(PredicateFormatError) -> PredicateTree {
        try nest()
        defer { depth -= 1 }
        var operands = [try parseAnd()]
        while current.kind == .or || current.kind == .keyword(.or) {
            advance()
            operands.append(try parseAnd())
        }
        return .disjunction(operands)
    }

    private mutating func parseAnd() throws(PredicateFormatError) -> PredicateTree {
        var operands = [try parseNot()]
        while current.kind == .and || current.kind == .keyword(.and) {
            advance()
            operands.append(try parseNot())
        }
        return .conjunction(operands)
    }

    private mutating func parseNot() throws(PredicateFormatError) -> PredicateTree {
        // A chain of NOTs in a loop, each a level of the tree.
        var nots = 0
        while current.kind == .not || current.kind == .keyword(.not) {
            try nest()
            advance()
            nots += 1
        }
        defer { depth -= nots }
        var tree = try parsePrimary()
        for _ in 0..<nots { tree = .not(tree) }
        return tree
    }

    private mutating func parsePrimary() throws(PredicateFormatError) -> PredicateTree {
        switch current.kind {
        case .leftParen:
            advance()
            let tree = try parseOr()
            try expect(.rightParen, "')'")
            return tree
        case .keyword(.truePredicate):
            advance()
            return .truePredicate
        case .keyword(.falsePredicate):
            advance()
            return .falsePredicate
        default:
            return .comparison(try parseComparison())
        }
    }

    // MARK: Comparisons

    private mutating func parseComparison() throws(PredicateFormatError) -> PredicateTree.Comparison {
        let lhs = try parseOperand(expected: "a predicate")
        let opToken = current
        let op: PredicateTree.ComparisonOperator
        switch opToken.kind {
        case .comparison(let symbol): op = symbol
        case .keyword(let keyword) where keyword.comparisonOperator != nil: op = keyword.comparisonOperator!
        default: throw .expected("a comparison operator", after: previous, found: opToken)
        }
        advance()
        var options: PredicateTree.ComparisonOptions = []
        if case .options(let written) = current.kind {
            guard op.acceptsOptions else {
                throw .at(
                    current,
                    "'\(current.text)' cannot follow '\(opToken.text)'"
                        + " (options apply to ==, !=, IN, BEGINSWITH, ENDSWITH, CONTAINS and LIKE)"
                )
            }
            options = written
            advance()
        }
        let rhsToken = current
        let rhs = try parseOperand(expected: op == .between ? "a list of two values" : "a value")
        if op == .between {
            guard case .list(let list) = rhs else {
                throw .expected("a list of two values", after: opToken, found: rhsToken)
            }
            guard list.elements.count == 2 else {
                throw .at(rhsToken, "BETWEEN needs a list of exactly two values, not \(list.elements.count)")
            }
        }
        return PredicateTree.Comparison(lhs: lhs, op: op, rhs: rhs, options: options, source: opToken.range)
    }

    /// One side of a comparison; `expected` names it in the error when none is there.
    private mutating func parseOperand(expected: String) throws(PredicateFormatError) -> PredicateTree.Expression {
        let token = current
        switch token.kind {
        case .literal(let value):
            advance()
            return .constant(PredicateTree.Constant(value: value, source: token.range))
        case .argument(let argumentIndex, .scalar(let value)):
            advance()
            return .constant(PredicateTree.Constant(value: value, argumentIndex: argumentIndex, source: token.range))
        case .argument(let argumentIndex, .list(let values)):
            advance()
            let elements = values.map {
                PredicateTree.Constant(value: $0, argumentIndex: argumentIndex, source: token.range)
            }
            return .list(PredicateTree.ConstantList(elements: elements, argumentIndex: argumentIndex, source: token.range))
        case .leftBrace:
            return .list(try parseListLiteral())
        case .keyword(let keyword):
            if let value = keyword.constant {
                advance()
                return .constant(PredicateTree.Constant(value: value, source: token.range))
            }
            if let modifier = keyword.modifier {
                advance()
                return try parseKeyPathExpression(modifier: modifier, modifierToken: token)
            }
            if keyword == .subquery { return .subqueryCount(try parseSubquery()) }
            // As in Realm, the string operators and BETWEEN may name a property.
            if keyword.comparisonOperator != nil && keyword != .in {
                return try parseKeyPathExpression(modifier: nil, modifierToken: nil)
            }
        case .identifier, .variable, .collectionOperator:
            return try parseKeyPathExpression(modifier: nil, modifierToken: nil)
        default:
            break
        }
        throw .expected(expected, after: previous, found: token)
    }

    /// `{}`, `{1}`, `{"a", %@, nil}`: constants and scalar arguments only.
    private mutating func parseListLiteral() throws(PredicateFormatError) -> PredicateTree.ConstantList {
        let open = try expect(.leftBrace, "'{'")
        var elements: [PredicateTree.Constant] = []
        if current.kind == .rightBrace {
            advance()
            return PredicateTree.ConstantList(elements: [], source: open.range.lowerBound..<previous!.range.upperBound)
        }
        while true {
            let token = current
            switch token.kind {
            case .literal(let value):
                elements.append(PredicateTree.Constant(value: value, source: token.range))
            case .argument(let argumentIndex, .scalar(let value)):
                elements.append(PredicateTree.Constant(value: value, argumentIndex: argumentIndex, source: token.range))
            case .argument(let argumentIndex, .list):
                throw .at(token, "argument \(argumentIndex) is a list, and lists cannot be nested", argumentIndex: argumentIndex)
            case .keyword(let keyword) where keyword.constant != nil:
                elements.append(PredicateTree.Constant(value: keyword.constant!, source: token.range))
            default:
                throw .expected("a constant", after: previous, found: token)
            }
            advance()
            if current.kind == .rightBrace { break }
            try expect(.comma, "',' or '}'")
        }
        advance()
        return PredicateTree.ConstantList(elements: elements, source: open.range.lowerBound..<previous!.range.upperBound)
    }

    /// `SUBQUERY(collection, $variable, predicate).@count`; the current token is `SUBQUERY`.
    private mutating func parseSubquery() throws(PredicateFormatError) -> PredicateTree.Subquery {
        let start = current.range.lowerBound
        advance()
        try expect(.leftParen, "'('")
        let collectionToken = current
        guard case .keyPath(let collection) = try parseKeyPathExpression(modifier: nil, modifierToken: nil)
        else { throw .expected("a key path to a collection", after: tokens[index - 1], found: collectionToken) }
        try expect(.comma, "','")
        guard case .variable(let variable) = current.kind else {
            throw .expected("a variable such as '$item'", after: previous, found: current)
        }
        if variables.contains(variable) {
            throw .at(current, "variable '$\(variable)' is already declared by an enclosing SUBQUERY")
        }
        advance()
        try expect(.comma, "','")
        // A SUBQUERY counts for `subqueryLevels` levels, the last of them its predicate's.
        try nest(PredicateTree.subqueryLevels - 1)
        defer { depth -= PredicateTree.subqueryLevels - 1 }
        variables.append(variable)
        let predicate = try parseOr()
        variables.removeLast()
        try expect(.rightParen, "')'")
        try expect(.dot, "'.@count'")
        guard current.kind == .collectionOperator("@count") || current.kind == .collectionOperator("@size") else {
            throw .expected("@count", after: previous, found: current)
        }
        advance()
        return PredicateTree.Subquery(
            collection: collection, variable: variable, predicate: predicate,
            source: start..<previous!.range.upperBound
        )
    }
}
