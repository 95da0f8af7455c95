/// A query predicate written as a format string, as `Results.filter(_:_:)` takes it.
///
/// NSPredicate does not exist on Linux, so Shoal parses Realm's predicate
/// syntax itself. Placeholders are filled from the arguments:
///
/// ```swift
/// let adults = try PredicateFormat("age >= %@ AND name BEGINSWITH[c] %@", 18, "r")
/// let named = try PredicateFormat("%K IN %@", "name", ["Rex", "Fido"])
/// let recent = try PredicateFormat("born > $0 AND owner.name == $1", someDate, "Ana")
/// print(adults)  // age >= 18 AND name BEGINSWITH[c] "r"
/// ```
///
/// The syntax:
///
/// - **Comparisons**: `==` (or `=`), `!=` (or `<>`), `<`, `<=` (or `=<`), `>`,
///   `>=` (or `=>`), `BETWEEN {low, high}`, `IN`, `BEGINSWITH`, `ENDSWITH`,
///   `CONTAINS`, `LIKE` (`*` and `?` wildcards); `[c]`, `[d]` or `[cd]` after
///   `==`, `!=`, `IN` or a string operator for case- and diacritic-insensitive
///   comparison.
/// - **Logic**: `NOT` (`!`) binds tighter than `AND` (`&&`), which binds
///   tighter than `OR` (`||`); parentheses group; `TRUEPREDICATE`, `FALSEPREDICATE`.
/// - **Key paths**: `owner.name`, `ANY`/`SOME`/`ALL`/`NONE dogs.age`,
///   `scores['math']`, `scores.@keys`, `scores.@values`,
///   `@links.Person.dogs.name`, `dogs.@count` (or `@size`), `dogs.@min.age`,
///   `@max`, `@sum`, `@avg`, and
///   `SUBQUERY(dogs, $dog, $dog.age > 3 AND $dog.name BEGINSWITH 'R').@count > 0`.
///   A property named like a keyword is written `#in`, or passed with `%K`.
/// - **Literals**: `42`, `-7`, `0x1F`, `1.5`, `1e-3`, `2.5f` (a `Float`),
///   `inf`, `nan`; `'text'` or `"text"` with backslash escapes;
///   `true`/`false`/`YES`/`NO`; `nil`/`NULL`; dates `T1570000000:0` (seconds
///   and nanoseconds since 1970) and `2021-02-20@17:30:15:0` (UTC);
///   `uuid(…)`, `oid(…)`, `B64"…"`; lists `{1, 2, 3}`. Keywords match in any case.
/// - **Placeholders**: `%@` (any supported value, or an array for `IN`
///   and `BETWEEN`), `%K` (a key path string), `%d`/`%i`/`%u` (an integer),
///   `%f` (a floating-point number) take the arguments in order; `$0`, `$1`
///   take them by index. Supported values are integers of every width,
///   `Double`, `Float`, `CGFloat`, `Bool`, `String`, `Date`, `Data`, `UUID`,
///   ``ObjectId``, ``Decimal128``, `Decimal`, `nil`, `RawRepresentable`
///   values of those, and arrays and sets of them.
///
/// - Note: Differs from Realm: an argument that no placeholder uses is an
///   error rather than ignored. Arithmetic (`age + 1 > 3`), `@type`,
///   geospatial operators, `SORT`/`DISTINCT`/`LIMIT` suffixes and `obj(…)`
///   link literals are not supported.
public struct PredicateFormat: Sendable, CustomStringConvertible {
    /// The format string as written.
    let format: String
    /// The parsed predicate, with its placeholders filled in.
    let tree: PredicateTree

    /// Parses a predicate format string, filling its placeholders from `arguments`.
    ///
    /// ```swift
    /// let predicate = try PredicateFormat("age > %@ AND name == %@", 3, "Rex")
    /// ```
    ///
    /// - Parameters:
    ///   - format: The predicate, in Realm's query syntax.
    ///   - arguments: The values for its placeholders, in order.
    /// - Throws: ``ShoalError`` with code `.invalidQuery` when the format does
    ///   not parse, or an argument is missing, unused or of the wrong type. The
    ///   message names the 0-based position (in Unicode scalars), the offending
    ///   token and what was expected; so does the error's `context`
    ///   (`position`, `token`, `expected`, `argument`, `predicate`).
    public init(_ format: String, _ arguments: Any...) throws {
        try self.init(format, argumentArray: arguments)
    }

    /// Parses a predicate format string, filling its placeholders from an array.
    ///
    /// ```swift
    /// let predicate = try PredicateFormat("name IN %@", argumentArray: [["Rex", "Fido"]])
    /// ```
    ///
    /// - Parameters:
    ///   - format: The predicate, in Realm's query syntax.
    ///   - argumentArray: The values for its placeholders, in order.
    /// - Throws: ``ShoalError`` with code `.invalidQuery`, as ``init(_:_:)`` does.
    public init(_ format: String, argumentArray: [Any]) throws {
        do throws(PredicateFormatError) {
            tree = try PredicateParser.parse(format, arguments: argumentArray)
        } catch {
            throw error.shoalError(format: format)
        }
        self.format = format
    }

    /// A predicate built by another front end, with its canonical text as its format.
    init(tree: PredicateTree) {
        self.tree = tree
        self.format = tree.description
    }

    /// The predicate in canonical form: keywords in capitals, strings in
    /// double quotes, arguments replaced by their values, redundant
    /// parentheses removed. Parsing it again gives the same predicate.
    public var description: String { tree.description }
}
