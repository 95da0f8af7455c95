/// Splits a predicate format string into tokens.
///
/// The lexer works on Unicode scalars rather than `Character`s, so a
/// combining mark after a quote cannot merge with it into one grapheme and
/// hide the quote; token ranges, and so the positions in error messages,
/// count scalars (for ASCII text, characters).
///
/// Literals are decoded here (numbers, strings with escapes, dates, `uuid(…)`,
/// `oid(…)`, `B64"…"`; see `PredicateLexer+Literals.swift`), so a malformed
/// literal is reported at its own position. Words are classified as keywords
/// or identifiers; which keywords may still serve as property names is the
/// parser's decision.
struct PredicateLexer {
    let scalars: [Unicode.Scalar]
    var position = 0
    /// The kind of the token returned last, to tell `a.5` (a path step) from `.5` (a number).
    private var previousKind: PredicateToken.Kind?

    init(_ source: String) {
        scalars = Array(source.unicodeScalars)
    }

    /// The tokens of formats read lately, by format: a query run again with
    /// new arguments (the same format string, as in a loop) is not read
    /// again. Emptied when it reaches ``tokenCacheCapacity`` formats, so
    /// that formats made anew each time cannot grow it without bound.
    private static let tokenCache = Locked<[String: [PredicateToken]]>([:])
    static let tokenCacheCapacity = 256

    /// ``tokenize(_:)``'s tokens for `source`, from the cache when it was
    /// read lately. Only formats that read without error are kept.
    static func cachedTokens(_ source: String) throws(PredicateFormatError) -> [PredicateToken] {
        if let tokens = tokenCache.withLock({ $0[source] }) { return tokens }
        let tokens = try tokenize(source)
        tokenCache.withLock { cache in
            if cache.count >= tokenCacheCapacity { cache.removeAll(keepingCapacity: true) }
            cache[source] = tokens
        }
        return tokens
    }

    /// The number of formats whose tokens are cached (for tests).
    static var cachedFormatCount: Int { tokenCache.withLock { $0.count } }

    /// All tokens of `source`, ending with an `.end` token.
    static func tokenize(_ source: String) throws(PredicateFormatError) -> [PredicateToken] {
        var lexer = PredicateLexer(source)
        var tokens: [PredicateToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    /// The next token.
    mutating func next() throws(PredicateFormatError) -> PredicateToken {
        let token = try lexToken()
        previousKind = token.kind
        return token
    }

    private mutating func lexToken() throws(PredicateFormatError) -> PredicateToken {
        while let c = peek(), c.properties.isWhitespace { position += 1 }
        let start = position
        guard let c = peek() else { return PredicateToken(kind: .end, range: start..<start, text: "") }

        switch c {
        case "(": return single(.leftParen)
        case ")": return single(.rightParen)
        case "{": return single(.leftBrace)
        case "}": return single(.rightBrace)
        case "]": return single(.rightBracket)
        case ",": return single(.comma)
        case "[": return lexBracket()
        case "=":
            switch peek(1) {
            case "=": return symbol(.comparison(.equal), length: 2)
            case "<": return symbol(.comparison(.lessThanOrEqual), length: 2)
            case ">": return symbol(.comparison(.greaterThanOrEqual), length: 2)
            default: return symbol(.comparison(.equal), length: 1)
            }
        case "!":
            return peek(1) == "=" ? symbol(.comparison(.notEqual), length: 2) : symbol(.not, length: 1)
        case "<":
            switch peek(1) {
            case "=": return symbol(.comparison(.lessThanOrEqual), length: 2)
            case ">": return symbol(.comparison(.notEqual), length: 2)
            default: return symbol(.comparison(.lessThan), length: 1)
            }
        case ">":
            return peek(1) == "="
                ? symbol(.comparison(.greaterThanOrEqual), length: 2) : symbol(.comparison(.greaterThan), length: 1)
        case "&", "|":
            guard peek(1) == c else {
                throw invalid(start, length: 1, "invalid character '\(c)' (did you mean '\(c)\(c)'?)")
            }
            return symbol(c == "&" ? .and : .or, length: 2)
        case "\"", "'":
            return try lexString(quote: c)
        case "%":
            return try lexFormatSpecifier()
        case "$":
            return try lexDollar()
        case "@":
            position += 1
            guard let name = readWord() else { throw invalid(start, length: 1, "expected a name after '@'") }
            return token(.collectionOperator("@" + name.lowercased()), from: start)
        case "*" where position > 0 && scalars[position - 1] == "[" && peek(1) == "]":
            // `[*]`: every element of a mixed collection, as `[%K]` with `#any`.
            return single(.identifier(PredicateTree.Component.mixedAllName))
        case "#":
            position += 1
            guard let name = readWord() else { throw invalid(start, length: 1, "expected a property name after '#'") }
            return token(.identifier(name), from: start)
        case ".":
            if let next = peek(1), next.isDigit, !previousEndsPathStep { return try lexNumber() }
            return single(.dot)
        case "+", "-":
            if startsSignedNumber() { return try lexNumber() }
            throw invalid(start, length: 1, "invalid character '\(c)'")
        default:
            if c.isDigit {
                if let date = try lexDateTime() { return date }
                return try lexNumber()
            }
            if c.isWordStart { return try lexWord() }
            throw invalid(start, length: 1, "invalid character '\(c)'")
        }
    }

    // MARK: Symbols and words

    private mutating func single(_ kind: PredicateToken.Kind) -> PredicateToken {
        symbol(kind, length: 1)
    }

    private mutating func symbol(_ kind: PredicateToken.Kind, length: Int) -> PredicateToken {
        let start = position
        position += length
        return token(kind, from: start)
    }

    /// `[c]`, `[d]`, `[cd]`, `[dc]` (any case) are comparison options; any other `[` opens a subscript.
    private mutating func lexBracket() -> PredicateToken {
        let start = position
        var options: PredicateTree.ComparisonOptions = []
        var offset = 1
        while let c = peek(offset) {
            switch c {
            case "c", "C": options.insert(.caseInsensitive)
            case "d", "D": options.insert(.diacriticInsensitive)
            case "]" where offset > 1:
                position += offset + 1
                return token(.options(options), from: start)
            default:
                return single(.leftBracket)
            }
            offset += 1
        }
        return single(.leftBracket)
    }

    /// A word: a keyword, an identifier, or the start of `uuid(…)`, `oid(…)`,
    /// `B64"…"` or a `T<seconds>:<nanoseconds>` date.
    private mutating func lexWord() throws(PredicateFormatError) -> PredicateToken {
        let start = position
        if peek() == "T", let date = try lexTimestamp() { return date }
        let word = readWord() ?? ""
        switch (word.lowercased(), peek()) {
        case ("uuid", "("): return try lexUUID(from: start)
        case ("oid", "("): return try lexObjectId(from: start)
        case ("b64", "\""): return try lexBase64(from: start)
        default: break
        }
        if let keyword = PredicateKeyword(word: word) { return token(.keyword(keyword), from: start) }
        return token(.identifier(word), from: start)
    }

    /// Reads an identifier-like word at the current position, if one starts there.
    mutating func readWord() -> String? {
        guard let first = peek(), first.isWordStart else { return nil }
        let start = position
        position += 1
        while let c = peek(), c.isWordContinue { position += 1 }
        return text(start..<position)
    }

    /// `%@`, `%K`, `%d`, `%i`, `%u`, `%f`, with the length modifiers `l`, `ll`
    /// and `q` that format strings written for C also carry.
    private mutating func lexFormatSpecifier() throws(PredicateFormatError) -> PredicateToken {
        let start = position
        position += 1
        switch peek() {
        case "@":
            position += 1
            return token(.formatSpecifier(.object), from: start)
        case "K":
            position += 1
            return token(.formatSpecifier(.keyPath), from: start)
        default: break
        }
        var modifier = ""
        while let c = peek(), c == "l" || c == "q", modifier.unicodeScalars.count < 2 {
            modifier.unicodeScalars.append(c)
            position += 1
        }
        switch (peek(), modifier) {
        case ("d", "" ), ("d", "l"), ("d", "ll"), ("d", "q"),
            ("i", ""), ("i", "l"), ("i", "ll"), ("i", "q"),
            ("u", ""), ("u", "l"), ("u", "ll"), ("u", "q"):
            position += 1
            return token(.formatSpecifier(.integer), from: start)
        case ("f", ""), ("f", "l"):
            position += 1
            return token(.formatSpecifier(.floatingPoint), from: start)
        default:
            let end = min(position + 1, scalars.count)
            throw invalid(
                start, length: end - start,
                "unsupported format specifier '\(text(start..<end))' (expected %@, %K, %d, %i, %u or %f)"
            )
        }
    }

    /// `$0` (an argument by index) or `$name` (a subquery variable).
    private mutating func lexDollar() throws(PredicateFormatError) -> PredicateToken {
        let start = position
        position += 1
        if let c = peek(), c.isDigit {
            while let d = peek(), d.isDigit { position += 1 }
            guard let index = Int(text(start + 1..<position)) else {
                throw invalid(start, length: position - start, "argument index out of range")
            }
            return token(.positionalArgument(index), from: start)
        }
        guard let name = readWord() else {
            throw invalid(start, length: 1, "expected an argument index or a variable name after '$'")
        }
        return token(.variable(name), from: start)
    }

    // MARK: Helpers

    /// Whether the previous token can be followed by a `.` that continues a key path.
    private var previousEndsPathStep: Bool {
        switch previousKind {
        case .identifier?, .variable?, .collectionOperator?, .rightBracket?, .rightParen?: true
        default: false
        }
    }

    func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        let index = position + offset
        return index < scalars.count ? scalars[index] : nil
    }

    func text(_ range: Range<Int>) -> String {
        var result = ""
        result.unicodeScalars.append(contentsOf: scalars[range])
        return result
    }

    func token(_ kind: PredicateToken.Kind, from start: Int) -> PredicateToken {
        PredicateToken(kind: kind, range: start..<position, text: text(start..<position))
    }

    /// An error at `start`, naming the `length` scalars there as the offending token.
    func invalid(_ start: Int, length: Int, _ reason: String) -> PredicateFormatError {
        let end = min(start + max(length, 1), scalars.count)
        return PredicateFormatError(reason: reason, position: start, token: start < end ? text(start..<end) : nil)
    }
}

extension Unicode.Scalar {
    var isDigit: Bool { ("0"..."9").contains(self) }
    var isHexDigit: Bool { isDigit || ("a"..."f").contains(self) || ("A"..."F").contains(self) }
    /// Property names follow Swift's identifier rules: a letter or `_`, then letters, digits or `_`.
    var isWordStart: Bool { self == "_" || properties.isXIDStart }
    var isWordContinue: Bool { properties.isXIDContinue }
}
