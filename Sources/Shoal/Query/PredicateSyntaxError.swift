/// A problem found while lexing or parsing a predicate format string, or
/// while matching its arguments to its placeholders.
///
/// The lexer and parser throw this concrete type (typed throws); the public
/// entry point, ``PredicateFormat``, turns it into a ``ShoalError`` with code
/// `.invalidQuery` and a message such as
/// `Invalid predicate 'age >': expected a value after '>' at position 5 (end of input)`.
struct PredicateSyntaxError: Error, Hashable, Sendable {
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

    /// "expected `expected` [after 'previous']", at `token`.
    static func expected(_ expected: String, after previous: PredicateToken?, found token: PredicateToken)
        -> PredicateSyntaxError
    {
        var reason = "expected \(expected)"
        if let previous { reason += " after '\(previous.text)'" }
        return PredicateSyntaxError(
            reason: reason,
            position: token.range.lowerBound,
            token: token.kind == .end ? nil : token.text,
            expected: expected
        )
    }

    /// A problem located at a token.
    static func at(_ token: PredicateToken, _ reason: String, argumentIndex: Int? = nil) -> PredicateSyntaxError {
        PredicateSyntaxError(
            reason: reason,
            position: token.range.lowerBound,
            token: token.kind == .end ? nil : token.text,
            argumentIndex: argumentIndex
        )
    }

    /// The public error for this problem in `format`.
    func shoalError(format: String) -> ShoalError {
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
        return ShoalError(.invalidQuery, message, context: context)
    }
}
