/// Key paths and collection operators:
///
/// ```
/// keyPathExpr := modifier? root step* ("." collectionOp | "[" "SIZE" "]")?
/// modifier    := "ANY" | "SOME" | "ALL" | "NONE"
/// root        := $variable | name | backlinks
/// step        := "." name | "[" subscript "]" | "." "@keys" | "." "@values" | "." backlinks
/// subscript   := string | index | "*" | "FIRST" | "LAST"
/// backlinks   := "@links" "." ClassName "." property
/// collectionOp:= ("@count" | "@size") | "@type"
///              | ("@min" | "@max" | "@sum" | "@avg") ("." name)? | "@links" "." "@count"
/// ```
///
/// `FIRST`, `LAST` and `SIZE` are written in capitals or in lower case, as
/// Realm's lexer takes them (`[first]`, `[SIZE]`); `[SIZE]` is `.@size`.
///
/// A name is an identifier, a `#`-escaped word or a `%K` argument. After a
/// dot any keyword is also a name (`owner.in` is unambiguous); at the start of
/// a path only the words Realm allows there (`BEGINSWITH`, `ENDSWITH`,
/// `CONTAINS`, `LIKE`, `BETWEEN`) are.
extension PredicateParser {
    mutating func parseKeyPathExpression(
        modifier: PredicateTree.CollectionModifier?, modifierToken: PredicateToken?
    ) throws(PredicateFormatError) -> PredicateTree.Expression {
        let start = modifierToken?.range.lowerBound ?? current.range.lowerBound
        var path = PredicateTree.KeyPath(components: [], modifier: modifier)
        var sources: [Range<Int>] = []

        let first = current
        switch first.kind {
        case .variable(let name):
            guard variables.contains(name) else {
                throw .at(first, "undeclared variable '$\(name)' (variables are declared by SUBQUERY)")
            }
            path.root = .variable(name)
            advance()
        case .collectionOperator("@links"):
            if let count = try parseBacklinks(&path, &sources) {
                return try collectionOperation(.count, path, sources, start: start, operatorToken: count, modifierToken)
            }
        case .collectionOperator(let name) where ["@count", "@size", "@min", "@max", "@sum", "@avg"].contains(name):
            // Realm's words (QueryTests.m testInvalidQueries).
            throw .at(first, "Invalid keypath '\(name)': collection operation '\(name)' must be applied to a collection")
        default:
            guard let name = Self.propertyName(first, afterDot: false) else {
                throw .expected(modifier == nil ? "a property name" : "a key path", after: previous, found: first)
            }
            path.components.append(.property(name))
            sources.append(first.range)
            advance()
        }

        while true {
            if current.kind == .leftBracket {
                if case .identifier(let word) = peek(1).kind, Self.sizeWords.contains(word), peek(2).kind == .rightBracket {
                    // Realm's `[SIZE]`: `.@size` written as a subscript, ending the key path.
                    let open = current
                    advance()
                    let size = current
                    advance()
                    advance()
                    return try collectionOperation(.count, path, sources, start: start, operatorToken: size, modifierToken,
                        ending: open.range.lowerBound..<previous!.range.upperBound)
                }
                try parseSubscript(&path, &sources)
                continue
            }
            guard current.kind == .dot else { break }
            advance()
            let step = current
            guard case .collectionOperator(let name) = step.kind else {
                guard let name = Self.propertyName(step, afterDot: true) else {
                    throw .expected("a property name", after: previous, found: step)
                }
                path.components.append(.property(name))
                sources.append(step.range)
                advance()
                continue
            }
            switch name {
            case "@links":
                if let count = try parseBacklinks(&path, &sources) {
                    return try collectionOperation(.count, path, sources, start: start, operatorToken: count, modifierToken)
                }
            case "@keys", "@values":
                path.components.append(name == "@keys" ? .keys : .values)
                sources.append(step.range)
                advance()
            case "@count", "@size", "@min", "@max", "@sum", "@avg", "@type":
                let function: PredicateTree.CollectionFunction =
                    switch name {
                    case "@type": .type
                    case "@min": .min
                    case "@max": .max
                    case "@sum": .sum
                    case "@avg": .average
                    default: .count
                    }
                advance()
                return try collectionOperation(function, path, sources, start: start, operatorToken: step, modifierToken)
            default:
                throw .at(
                    step,
                    "unknown collection operator '\(step.text)'"
                        + " (expected @count, @size, @min, @max, @sum, @avg, @type, @links, @keys or @values)"
                )
            }
        }
        path.source = start..<previous!.range.upperBound
        path.componentSources = sources
        return .keyPath(path)
    }

    /// The words Realm's lexer reads as `SIZE` in a subscript.
    static let sizeWords: Set<String> = ["SIZE", "size"]

    /// The property name `token` spells, if it can be one here.
    static func propertyName(_ token: PredicateToken, afterDot: Bool) -> String? {
        switch token.kind {
        case .identifier(let name):
            return name
        case .keyword(let keyword):
            if afterDot { return token.text }
            return keyword.comparisonOperator != nil && keyword != .in ? token.text : nil
        default:
            return nil
        }
    }

    /// `@links.ClassName.property`, appended to `path`; or `@links.@count`,
    /// whose `@count` token is returned. The current token is `@links`.
    private mutating func parseBacklinks(
        _ path: inout PredicateTree.KeyPath, _ sources: inout [Range<Int>]
    ) throws(PredicateFormatError) -> PredicateToken? {
        let start = current.range.lowerBound
        advance()
        try expect(.dot, "'.' and a class name")
        if current.kind == .collectionOperator("@count") || current.kind == .collectionOperator("@size") {
            let count = current
            path.components.append(.allBacklinks)
            sources.append(start..<previous!.range.upperBound)
            advance()
            return count
        }
        guard case .identifier(let className) = current.kind else {
            throw .expected("a class name or @count", after: previous, found: current)
        }
        advance()
        try expect(.dot, "'.' and a property name")
        guard let property = Self.propertyName(current, afterDot: true) else {
            throw .expected("a property name", after: previous, found: current)
        }
        advance()
        path.components.append(.backlinks(className: className, property: property))
        sources.append(start..<previous!.range.upperBound)
        return nil
    }

    /// `["key"]` or `[%@]` after a property: a map lookup (or a key of a
    /// dictionary nested in a mixed property); an integer, a position in a
    /// list nested in a mixed property; `[*]` or `[%K]` with `#any`, every
    /// element of a nested collection.
    private mutating func parseSubscript(
        _ path: inout PredicateTree.KeyPath, _ sources: inout [Range<Int>]
    ) throws(PredicateFormatError) {
        let open = current
        switch path.components.last {
        case .property?, .mapKey?, .mixedIndex?, .mixedLast?, .mixedAll?: break
        default: throw .at(open, "a subscript must follow a property name")
        }
        advance()
        let component: PredicateTree.Component
        switch current.kind {
        case .literal(.string(let string)): component = .mapKey(string)
        case .argument(_, .scalar(.string(let string))): component = .mapKey(string)
        case .literal(.int(let index)), .argument(_, .scalar(.int(let index))):
            // Realm's grammar takes only natural numbers here; the last element is `[LAST]`.
            guard index >= 0 else { throw .at(current, "a list index must not be negative (write LAST for the last element)") }
            component = .mixedIndex(Int(index))
        case .identifier(PredicateTree.Component.mixedAllName): component = .mixedAll
        case .identifier("FIRST"), .identifier("first"): component = .mixedIndex(0)
        case .identifier("LAST"), .identifier("last"): component = .mixedLast
        default: throw .expected("a string key, an index, '*', FIRST, LAST or SIZE", after: open, found: current)
        }
        advance()
        try expect(.rightBracket, "']'")
        path.components.append(component)
        sources.append(open.range.lowerBound..<previous!.range.upperBound)
    }

    /// The collection operation ending a key path; the current token follows the operator.
    private mutating func collectionOperation(
        _ function: PredicateTree.CollectionFunction,
        _ collection: PredicateTree.KeyPath,
        _ sources: [Range<Int>],
        start: Int,
        operatorToken: PredicateToken,
        _ modifierToken: PredicateToken?,
        ending: Range<Int>? = nil
    ) throws(PredicateFormatError) -> PredicateTree.Expression {
        let isCountOrType = function == .count || function == .type
        if !isCountOrType, let modifierToken {
            // Realm allows a modifier before @count and @size (`ANY dogs.toys.@count > 2`) but
            // not before an aggregate, which already reduces the collection to one value.
            throw .at(modifierToken, "'\(modifierToken.text)' cannot be combined with '\(operatorToken.text)'")
        }
        var collection = collection
        collection.source = start..<(sources.last?.upperBound ?? operatorToken.range.lowerBound)
        collection.componentSources = sources
        var operation = PredicateTree.CollectionOperation(function: function, collection: collection)
        if isCountOrType, current.kind == .dot {
            // Realm's words (QueryTests.m testCollectionOperatorErrors), with the whole key path.
            var bare = collection
            bare.modifier = nil
            var text = bare.description + (ending == nil ? "." + operatorToken.text : "[" + operatorToken.text + "]")
            while current.kind == .dot, Self.propertyName(peek(1), afterDot: true) != nil {
                advance()
                text += "." + current.text
                advance()
            }
            let written = ending == nil ? operatorToken.text : "[\(operatorToken.text)]"
            throw .at(operatorToken, "Invalid keypath '\(text)': \(written) must appear at the end of a keypath.")
        }
        if ending != nil, current.kind == .leftBracket {
            throw .at(current, "Invalid keypath: [\(operatorToken.text)] must appear at the end of a keypath.")
        }
        if !isCountOrType, current.kind == .dot, let name = Self.propertyName(peek(1), afterDot: true) {
            advance()
            operation.property = name
            operation.propertySource = current.range
            advance()
        }
        operation.source = start..<previous!.range.upperBound
        return .collectionOperation(operation)
    }
}
