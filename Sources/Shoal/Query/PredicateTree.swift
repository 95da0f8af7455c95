import Foundation

/// The one predicate tree that every query front end compiles to.
///
/// Format strings (``PredicateFormat``), the typed `where { $0.age > 3 }`
/// builder and Foundation `#Predicate` all produce this tree; the binder then
/// resolves its key paths against a class schema, and the planner and
/// evaluator work on the bound result. The tree is purely syntactic: it
/// records what was written (a key path is a list of names, a modifier is the
/// one the user typed, a constant is the value as parsed) and decides nothing
/// that needs a schema, such as an implicit `ANY` over a list or the column
/// type a number literal must be converted to.
///
/// Nodes built from a format string keep their source ranges (offsets in
/// Unicode scalars of the format string), so a later stage can report
/// "unknown property 'nmae' on class 'Dog' at position 6". Other front ends
/// leave them `nil`. Source ranges and argument indices are annotations: they
/// take no part in equality or hashing, so `age > %@` with `3` equals `age > 3`.
indirect enum PredicateTree: Hashable, Sendable {
    /// `TRUEPREDICATE`: matches every object.
    case truePredicate
    /// `FALSEPREDICATE`: matches no object.
    case falsePredicate
    /// All operands match. Always holds two or more operands, none of them an `and`.
    case and([PredicateTree])
    /// At least one operand matches. Always holds two or more operands, none of them an `or`.
    case or([PredicateTree])
    /// The operand does not match.
    case not(PredicateTree)
    /// Two expressions compared with an operator.
    case comparison(Comparison)
}

extension PredicateTree {
    /// All of `operands`, keeping the `and` invariants: nested `and`s are
    /// flattened, one operand is returned as is, none gives `TRUEPREDICATE`.
    /// `Results.filter` uses it to AND a new predicate into an existing one.
    static func conjunction(_ operands: [PredicateTree]) -> PredicateTree {
        let flat = operands.flatMap { operand -> [PredicateTree] in
            if case .and(let inner) = operand { return inner }
            return [operand]
        }
        switch flat.count {
        case 0: return .truePredicate
        case 1: return flat[0]
        default: return .and(flat)
        }
    }

    /// Any of `operands`, keeping the `or` invariants: nested `or`s are
    /// flattened, one operand is returned as is, none gives `FALSEPREDICATE`.
    static func disjunction(_ operands: [PredicateTree]) -> PredicateTree {
        let flat = operands.flatMap { operand -> [PredicateTree] in
            if case .or(let inner) = operand { return inner }
            return [operand]
        }
        switch flat.count {
        case 0: return .falsePredicate
        case 1: return flat[0]
        default: return .or(flat)
        }
    }
}

extension PredicateTree {
    /// The deepest nesting a predicate may have, counted as ``nestingDepth``
    /// counts it. Every front end stops there (the parser, the typed query
    /// builder, the `#Predicate` translator, and the binder for any other
    /// tree), so every later walk of a tree (binding, planning, evaluation,
    /// description, equality, hashing, even its release) recurses at most
    /// this many levels and fits a thread's stack of 1 MB. It is Realm's
    /// limit for format strings; a flat run of `AND`s or `OR`s is one level
    /// however long it is.
    static let maximumDepth = 100

    /// The levels a `SUBQUERY` counts for: parsing, binding and evaluating
    /// one take about four times the stack a parenthesis takes (a thread of
    /// 1 MB parses 45 nested subqueries, not 100, in a debug build), so 24
    /// nested subqueries are the most a predicate may hold.
    static let subqueryLevels = 4

    /// Why a predicate nested past ``maximumDepth`` is refused, in the
    /// words every front end uses.
    static let tooDeepReason =
        "the predicate nests more than \(maximumDepth) levels deep (parentheses, NOT, and SUBQUERY, which counts \(subqueryLevels))"

    /// The error for a predicate nested past ``maximumDepth``, code
    /// `.invalidQuery`: `Invalid predicate '<format>': <reason>`, as the
    /// parser words it, or `Invalid <kind>: <reason>` for a predicate with
    /// no text (a tree that deep is not described: its description would
    /// recurse as deeply). `hint` says how the front end's syntax nests.
    static func tooDeepError(format: String?, kind: String = "predicate", hint: String? = nil) -> ShoalError {
        var reason = tooDeepReason
        if let hint { reason += "; " + hint }
        var context = ["maximumDepth": String(maximumDepth)]
        if let format {
            context["predicate"] = format
            return ShoalError(.invalidQuery, "Invalid \(kind) '\(format)': \(reason)", context: context)
        }
        return ShoalError(.invalidQuery, "Invalid \(kind): \(reason)", context: context)
    }

    /// How many levels deep the tree nests, counted as the parser counts
    /// the tree's ``description``: the whole predicate is one level, each
    /// `NOT` and each parenthesized group (an `OR` inside an `AND`, an `AND`
    /// or `OR` after a `NOT`) adds one, and each `SUBQUERY` adds
    /// ``subqueryLevels``. A tree
    /// the parser made is never deeper than the format string it came from.
    ///
    /// Computed with a work list, not by recursion, so that a tree of any
    /// depth can be measured before anything recursive walks it.
    var nestingDepth: Int {
        var deepest = 0
        var pending: [(tree: PredicateTree, level: Int)] = [(self, 1)]
        while let (tree, level) = pending.popLast() {
            deepest = max(deepest, level)
            switch tree {
            case .truePredicate, .falsePredicate: break
            case .and(let operands):
                for operand in operands { pending.append((operand, level + operand.parenthesizedInAnd)) }
            case .or(let operands):
                for operand in operands { pending.append((operand, level)) }
            case .not(let operand):
                pending.append((operand, level + 1 + operand.parenthesizedAfterNot))
            case .comparison(let comparison):
                for side in [comparison.lhs, comparison.rhs] {
                    if case .subqueryCount(let subquery) = side {
                        pending.append((subquery.predicate, level + Self.subqueryLevels))
                    }
                }
            }
        }
        return deepest
    }

    /// 1 when the tree, as an operand of `AND`, is written in parentheses (an `OR`).
    var parenthesizedInAnd: Int {
        if case .or = self { 1 } else { 0 }
    }

    /// 1 when the tree, after `NOT`, is written in parentheses (an `AND` or an `OR`).
    var parenthesizedAfterNot: Int {
        switch self {
        case .and, .or: 1
        default: 0
        }
    }
}

extension PredicateTree {
    /// `lhs op[options] rhs`, for example `name BEGINSWITH[c] "R"`.
    struct Comparison: Hashable, Sendable {
        var lhs: Expression
        var op: ComparisonOperator
        var rhs: Expression
        var options: ComparisonOptions = []
        /// Where the operator was written.
        @IgnoredByEquality var source: Range<Int>? = nil
    }

    /// The operators a comparison can use; the raw value is the canonical spelling.
    enum ComparisonOperator: String, Hashable, Sendable, CaseIterable {
        case equal = "=="
        case notEqual = "!="
        case lessThan = "<"
        case lessThanOrEqual = "<="
        case greaterThan = ">"
        case greaterThanOrEqual = ">="
        /// `x BETWEEN {low, high}`, both bounds inclusive.
        case between = "BETWEEN"
        case `in` = "IN"
        case beginsWith = "BEGINSWITH"
        case endsWith = "ENDSWITH"
        case contains = "CONTAINS"
        /// A wildcard match: `*` matches any run of characters, `?` one character.
        case like = "LIKE"

        /// Whether `[c]` and `[d]` may follow the operator (as in Realm, not on
        /// ordering operators).
        var acceptsOptions: Bool {
            switch self {
            case .equal, .notEqual, .in, .beginsWith, .endsWith, .contains, .like: true
            case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .between: false
            }
        }
    }

    /// The string comparison options written after an operator: `[c]`, `[d]`, `[cd]`.
    struct ComparisonOptions: OptionSet, Hashable, Sendable {
        let rawValue: UInt8
        /// `[c]`: compare without regard to case.
        static let caseInsensitive = ComparisonOptions(rawValue: 1 << 0)
        /// `[d]`: compare without regard to diacritics.
        static let diacriticInsensitive = ComparisonOptions(rawValue: 1 << 1)
    }

    /// One side of a comparison.
    enum Expression: Hashable, Sendable {
        /// A single value: a literal or a scalar argument.
        case constant(Constant)
        /// A list of values: `{1, 2, 3}` or an array argument.
        case list(ConstantList)
        /// A property path, possibly rooted at a subquery variable.
        case keyPath(KeyPath)
        /// `@count`, `@min`, `@max`, `@sum` or `@avg` applied to a collection.
        case collectionOperation(CollectionOperation)
        /// `SUBQUERY(collection, $var, predicate).@count`.
        case subqueryCount(Subquery)
    }

    /// A value written in the predicate or passed as an argument.
    struct Constant: Hashable, Sendable {
        var value: Value
        /// The index of the argument the value came from, `nil` for a literal.
        @IgnoredByEquality var argumentIndex: Int? = nil
        @IgnoredByEquality var source: Range<Int>? = nil

        /// Constants are equal when they hold the same kind of value and the
        /// values are equal; unlike `Value`'s own `==`, `3` is not `3.0`, and
        /// NaN equals NaN, because the tree records what was written.
        static func == (lhs: Constant, rhs: Constant) -> Bool {
            guard lhs.value.kindName == rhs.value.kindName else { return false }
            if let a = lhs.value.doubleValue, let b = rhs.value.doubleValue, a.isNaN, b.isNaN { return true }
            return lhs.value == rhs.value
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(value.kindName)
            hasher.combine(value)
        }
    }

    /// A list of values: `{1, 2, 3}`, or an array passed for `%@`.
    struct ConstantList: Hashable, Sendable {
        var elements: [Constant]
        @IgnoredByEquality var argumentIndex: Int? = nil
        @IgnoredByEquality var source: Range<Int>? = nil
    }

    /// A path of property names from the queried object, or from a subquery
    /// variable, for example `owner.name`, `ANY dogs.age`, `$dog.age`,
    /// `scores["math"]`, `@links.Person.dogs.name`.
    struct KeyPath: Hashable, Sendable {
        var root: Root = .object
        var components: [Component]
        /// The modifier as written; `nil` when none was (the binder decides
        /// whether the path implies `ANY` by crossing a collection).
        var modifier: CollectionModifier? = nil
        /// Where the whole path (including its modifier) was written.
        @IgnoredByEquality var source: Range<Int>? = nil
        /// Where each component was written; empty, or one range per component.
        @IgnoredByEquality var componentSources: [Range<Int>] = []
        /// How many leading components name the first collection the path
        /// crosses, when the typed query builder made it (`$0.dogs.age` is
        /// 1): where a typed subquery splits the path into its collection
        /// and the part read from each element. `nil` from the other front
        /// ends and for a path through no collection; the binder ignores it.
        @IgnoredByEquality var collectionPrefix: Int? = nil

        /// The source range of component `index`, if known.
        func source(ofComponent index: Int) -> Range<Int>? {
            componentSources.indices.contains(index) ? componentSources[index] : nil
        }
    }

    /// Where a key path starts.
    enum Root: Hashable, Sendable {
        /// The object being tested.
        case object
        /// A `SUBQUERY` variable, named without its `$`.
        case variable(String)
    }

    /// One step of a key path.
    enum Component: Hashable, Sendable {
        /// A property name: `owner`.
        case property(String)
        /// A map lookup written as a subscript: `scores["math"]` (or a key
        /// of a dictionary nested in a mixed property).
        case mapKey(String)
        /// A position in a list nested in a mixed property: `anyCol[0]`.
        case mixedIndex(Int)
        /// `[LAST]`: the last element of a list nested in a mixed property.
        case mixedLast
        /// Every element of a collection nested in a mixed property:
        /// `anyCol[*]`, or `anyCol[%K]` with `#any`.
        case mixedAll
        /// `@keys`: the keys of a map.
        case keys
        /// `@values`: the values of a map.
        case values
        /// `@links.ClassName.property`: the objects of `className` whose
        /// `property` links here.
        case backlinks(className: String, property: String)
        /// `@links` followed by `@count`: every object linking here, through any property.
        case allBacklinks

        /// The name `[*]` and `[%K]` with `#any` subscript with.
        static let mixedAllName = "#any"
    }

    /// `ANY`/`SOME`, `ALL` or `NONE` in front of a key path. The cases are not
    /// named `any`/`none` so that they cannot be confused with `Optional.none`.
    enum CollectionModifier: String, Hashable, Sendable, CaseIterable {
        case anyOf = "ANY"
        case allOf = "ALL"
        case noneOf = "NONE"
    }

    /// A collection operator applied to the collection at the end of a key path:
    /// `dogs.@count`, `scores.@max`, `dogs.@avg.age`.
    struct CollectionOperation: Hashable, Sendable {
        var function: CollectionFunction
        var collection: KeyPath
        /// The property aggregated over each element, for `dogs.@max.age`.
        var property: String? = nil
        /// Where the whole expression was written.
        @IgnoredByEquality var source: Range<Int>? = nil
        /// Where the property after the operator was written.
        @IgnoredByEquality var propertySource: Range<Int>? = nil
    }

    /// The collection operators; `@size` is a synonym of `@count`, as in Realm.
    enum CollectionFunction: String, Hashable, Sendable, CaseIterable {
        case count = "@count"
        case min = "@min"
        case max = "@max"
        case sum = "@sum"
        case average = "@avg"
        /// Realm's `@type`: the type of each value a mixed key path reaches,
        /// compared with type names (``MixedTypeName``).
        case type = "@type"
    }

    /// `SUBQUERY(collection, $variable, predicate)`, compared through its `@count`.
    struct Subquery: Hashable, Sendable {
        var collection: KeyPath
        /// The variable's name without its `$`.
        var variable: String
        var predicate: PredicateTree
        @IgnoredByEquality var source: Range<Int>? = nil
    }
}

extension PredicateTree.Expression {
    /// Where the expression was written, if known.
    var source: Range<Int>? {
        switch self {
        case .constant(let constant): constant.source
        case .list(let list): list.source
        case .keyPath(let keyPath): keyPath.source
        case .collectionOperation(let operation): operation.source
        case .subqueryCount(let subquery): subquery.source
        }
    }
}

/// Keeps an annotation (a source range, an argument index) out of the
/// synthesized `==` and `hash(into:)` of the type that stores it: two trees
/// that say the same thing are equal wherever they were written.
@propertyWrapper
struct IgnoredByEquality<Wrapped: Sendable>: Hashable, Sendable {
    var wrappedValue: Wrapped

    init(wrappedValue: Wrapped) { self.wrappedValue = wrappedValue }

    static func == (lhs: Self, rhs: Self) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}
