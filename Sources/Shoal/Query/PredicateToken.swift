/// One token of a predicate format string, with where it was written.
struct PredicateToken: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        /// A property or class name: `age`, `#and` (escaped), or a name from `%K`.
        case identifier(String)
        /// A reserved word, matched without regard to case.
        case keyword(PredicateKeyword)
        /// A literal value: a number, string, date, `uuid(…)`, `oid(…)` or `B64"…"`.
        case literal(Value)
        /// `%@`, `%K`, `%d`, `%i`, `%u`, `%f` (before arguments are bound).
        case formatSpecifier(FormatSpecifier)
        /// `$0`, `$1`: an argument by index (before arguments are bound).
        case positionalArgument(Int)
        /// An argument matched to its placeholder (after binding).
        case argument(index: Int, value: PredicateArgument)
        /// `$name`: a `SUBQUERY` variable, named without its `$`.
        case variable(String)
        /// `@count`, `@links` …: the name with its `@`, lowercased.
        case collectionOperator(String)
        /// `==` `=`, `!=` `<>`, `<`, `<=` `=<`, `>`, `>=` `=>`.
        case comparison(PredicateTree.ComparisonOperator)
        /// `&&`
        case and
        /// `||`
        case or
        /// `!`
        case not
        /// `[c]`, `[d]`, `[cd]`.
        case options(PredicateTree.ComparisonOptions)
        case leftParen, rightParen, leftBrace, rightBrace, leftBracket, rightBracket, comma, dot
        case end
    }

    var kind: Kind
    /// Offsets in Unicode scalars of the format string.
    var range: Range<Int>
    /// The token as written; empty at the end of input.
    var text: String
}

/// The reserved words of the format syntax. NSPredicate and Realm match them
/// without regard to case; a property with such a name is written `#name` or
/// passed with `%K`.
enum PredicateKeyword: String, Sendable, CaseIterable {
    case and = "AND"
    case or = "OR"
    case not = "NOT"
    case any = "ANY"
    case some = "SOME"
    case all = "ALL"
    /// `NONE`; not named `none`, which would read as `Optional.none`.
    case noneOf = "NONE"
    case `in` = "IN"
    case between = "BETWEEN"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    case like = "LIKE"
    case truePredicate = "TRUEPREDICATE"
    case falsePredicate = "FALSEPREDICATE"
    case subquery = "SUBQUERY"
    case trueLiteral = "TRUE"
    case falseLiteral = "FALSE"
    case yesLiteral = "YES"
    case noLiteral = "NO"
    case nilLiteral = "NIL"
    case nullLiteral = "NULL"
    case inf = "INF"
    case infinity = "INFINITY"
    case nan = "NAN"

    /// The keyword spelled by `word`, in any case.
    init?(word: String) {
        self.init(rawValue: word.uppercased())
    }

    /// The operator this keyword spells, for `IN`, `BETWEEN` and the string operators.
    var comparisonOperator: PredicateTree.ComparisonOperator? {
        switch self {
        case .in: .in
        case .between: .between
        case .beginsWith: .beginsWith
        case .endsWith: .endsWith
        case .contains: .contains
        case .like: .like
        default: nil
        }
    }

    /// The constant this keyword spells, for `TRUE`, `NO`, `NULL`, `INF`, `NAN` and the like.
    var constant: Value? {
        switch self {
        case .trueLiteral, .yesLiteral: .bool(true)
        case .falseLiteral, .noLiteral: .bool(false)
        case .nilLiteral, .nullLiteral: .null
        case .inf, .infinity: .double(.infinity)
        case .nan: .double(.nan)
        default: nil
        }
    }

    /// The collection modifier this keyword spells (`SOME` is `ANY`).
    var modifier: PredicateTree.CollectionModifier? {
        switch self {
        case .any, .some: .anyOf
        case .all: .allOf
        case .noneOf: .noneOf
        default: nil
        }
    }
}

/// A `%` placeholder, consuming the next argument in order.
enum FormatSpecifier: Hashable, Sendable {
    /// `%@`: any supported value, or an array of them.
    case object
    /// `%K`: a key path given as a string.
    case keyPath
    /// `%d`, `%i`, `%u` (also with `l`, `ll`, `q`): an integer.
    case integer
    /// `%f` (also `%lf`): a floating-point number.
    case floatingPoint
}
