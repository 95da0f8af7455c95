/// A problem in a predicate format string, located in it.
///
/// The lexer and parser throw this concrete type (typed throws); the public
/// entry point, ``PredicateFormat``, turns it into a ``ShoalError`` with code
/// `.invalidQuery` and a message such as
/// `Invalid predicate 'age >': expected a value after '>' at position 5 (end of input)`.
///
/// A later stage reports problems the same way, from a node's source range:
///
/// ```swift
/// let error = PredicateFormatError(
///     reason: "unknown property 'nmae' on class 'Dog'",
///     range: keyPath.source(ofComponent: 1), in: format.format)
/// throw error.shoalError(format: format.format, code: .invalidKeyPath)
/// // Invalid predicate 'owner.nmae == 1': unknown property 'nmae' on class 'Dog' at position 6 (found 'nmae')
/// ```
struct PredicateFormatError: Error, Hashable, Sendable {
    /// What is wrong, without the location: "expected a value after '>'".
    var reason: String
    /// The 0-based offset, in Unicode scalars, of the offending token; `nil`
    /// for problems that have no place in the string (an unused argument).
    var position: Int?
    /// The offending token's text; `nil` at the end of input.
    var token: String?
    /// What the parser expected instead, for "expected …" errors.
    var expected: String?
    /// The argument involved, for argument errors.
    var argumentIndex: Int?

    init(reason: String, position: Int? = nil, token: String? = nil, expected: String? = nil, argumentIndex: Int? = nil) {
        self.reason = reason
        self.position = position
        self.token = token
        self.expected = expected
        self.argumentIndex = argumentIndex
    }

    /// A problem with the text at `range` of `format` (a node's source range); unlocated if `range` is `nil`.
    init(reason: String, range: Range<Int>?, in format: String) {
        self.init(reason: reason)
        guard let range else { return }
        let scalars = Array(format.unicodeScalars)
        position = range.lowerBound
        let clamped = range.clamped(to: 0..<scalars.count)
        if !clamped.isEmpty {
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars[clamped])
            token = text
        }
    }

    /// "expected `expected` [after 'previous']", at `token`.
    static func expected(_ expected: String, after previous: PredicateToken?, found token: PredicateToken)
        -> PredicateFormatError
    {
        var reason = "expected \(expected)"
        if let previous { reason += " after '\(previous.text)'" }
        return PredicateFormatError(
            reason: reason,
            position: token.range.lowerBound,
            token: token.kind == .end ? nil : token.text,
            expected: expected
        )
    }

    /// A problem located at a token.
    static func at(_ token: PredicateToken, _ reason: String, argumentIndex: Int? = nil) -> PredicateFormatError {
        PredicateFormatError(
            reason: reason,
            position: token.range.lowerBound,
            token: token.kind == .end ? nil : token.text,
            argumentIndex: argumentIndex
        )
    }

    /// The public error for this problem in `format`: `Invalid predicate '<format>': <reason>`,
    /// then `at position <n> (found '<token>')` or `(end of input)` when located.
    func shoalError(format: String, code: ShoalError.Code = .invalidQuery) -> ShoalError {
        var message = "Invalid predicate '\(format)': \(reason)"
        var context = ["predicate": format]
        if let position {
            message += " at position \(position)"
            context["position"] = String(position)
            if let token {
                message += " (found '\(token)')"
                context["token"] = token
            } else {
                message += " (end of input)"
                context["token"] = ""
            }
        }
        if let expected { context["expected"] = expected }
        if let argumentIndex { context["argument"] = String(argumentIndex) }
        return ShoalError(code, message, context: context)
    }
}
