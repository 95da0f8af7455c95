/// Parsed predicates of formats read lately, by format and by the shape of
/// their arguments: a query run again with new arguments (the same format,
/// as in a loop) is neither lexed, bound nor parsed again. Its tree is the
/// kept one with the new values put where the arguments' values go.
///
/// Parsing depends on an argument's value only through:
/// - whether it is one value or a list (a list cannot sit in a list);
/// - the length of a list `BETWEEN` takes (two);
/// - the key path a `%K` argument names, which becomes tokens;
/// - the string a map subscript such as `scores[%@]` takes, which becomes a
///   key path component.
///
/// A template's ``Part``s record exactly those, and a template is kept only
/// for arguments that parsed, so a tree from the cache equals the one binding
/// and parsing would give. Anything irregular (a missing argument, one that
/// does not convert, one that `%K` and a value both take) takes the full
/// path, which gives the error. A kept tree, and a kept binding of it (see
/// ``BoundTemplate``), holds no argument's value (they are nulled), so the
/// cache keeps no large list or string alive.
final class PredicateTemplates: Sendable {
    /// What parsing depends on of one placeholder's argument.
    enum Part: Equatable {
        /// One value, held by the tree as a constant.
        case value
        /// A list, held by the tree as a constant list; its length only
        /// where `BETWEEN` takes it.
        case list(count: Int?)
        /// The key path a `%K` names, by its UTF-8 bytes (`String`'s `==`
        /// takes two spellings of "é" as equal; the parse keeps the one given).
        case keyPath([UInt8])
        /// The key a map subscript takes.
        case mapKey(Value)
    }

    /// A placeholder of a format, in the order written.
    struct Placeholder {
        /// The argument it takes.
        var index: Int
        var specifier: FormatSpecifier
        /// Whether it is a map subscript's key (`scores[%@]`).
        var isMapKey: Bool
        /// Whether `BETWEEN` takes it, which needs a list of two.
        var isBetweenOperand: Bool
        /// The placeholder's token, for conversion (whose errors the full path gives).
        var token: PredicateToken
    }

    /// The tree a format parsed to with arguments of one shape, and the
    /// bindings made of it.
    struct Template {
        var argumentCount: Int
        var parts: [Part]
        var tree: PredicateTree
        /// The tree bound for the schemas, roots and argument types seen,
        /// the latest last (see ``BoundTemplate``).
        var bindings: [BoundTemplate] = []
    }

    /// One format's placeholders and the trees it parsed to.
    struct Entry {
        var placeholders: [Placeholder]
        /// A tree for each shape of arguments seen, the latest last.
        var templates: [Template] = []
    }

    /// The cache every parse uses.
    static let shared = PredicateTemplates()

    /// Most formats kept: the cache empties when it reaches this many, so
    /// that formats made anew each time cannot grow it without bound.
    let capacity: Int
    /// Most shapes kept per format; the oldest goes first.
    let shapesPerFormat: Int
    private let cache = Locked<[String: Entry]>([:])

    init(capacity: Int = 256, shapesPerFormat: Int = 8) {
        self.capacity = capacity
        self.shapesPerFormat = shapesPerFormat
    }

    /// The tree of `format` with `arguments`, if a template of their shape
    /// is kept.
    func tree(_ format: String, _ arguments: [Any]) -> PredicateTree? {
        guard let (template, values) = template(format, arguments) else { return nil }
        return Self.holdsValues(values) ? template.tree.substituting(values) : template.tree
    }

    /// The kept template `format` parsed to with arguments of the shape of
    /// `arguments`, and their values.
    func template(_ format: String, _ arguments: [Any]) -> (Template, [PredicateArgument?])? {
        guard let entry = cache.withLock({ $0[format] }), !entry.templates.isEmpty,
            let values = PredicateArguments(arguments: arguments).values(for: entry.placeholders)
        else { return nil }
        for template in entry.templates.reversed()
        where template.argumentCount == arguments.count && Self.matches(template.parts, entry.placeholders, values, arguments) {
            return (template, values)
        }
        return nil
    }

    /// Changes the kept template of `format` whose parts are `parts`, if
    /// it is still kept.
    func updateTemplate(_ format: String, parts: [Part], argumentCount: Int, _ body: (inout Template) -> Void) {
        cache.withLock { cache in
            guard let i = cache[format]?.templates.lastIndex(where: { $0.argumentCount == argumentCount && $0.parts == parts })
            else { return }
            body(&cache[format]!.templates[i])
        }
    }

    /// Keeps the tree `format` (lexed to `tokens`) parsed to with `arguments`.
    func store(_ tree: PredicateTree, _ format: String, tokens: [PredicateToken], arguments: [Any]) {
        let placeholders = Self.placeholders(tokens)
        guard let values = PredicateArguments(arguments: arguments).values(for: placeholders),
            let parts = Self.parts(placeholders, values, arguments)
        else { return }
        // The arguments' values nulled: substitution replaces every one.
        let template = Self.holdsValues(values) ? tree.substituting(values.map { $0?.nulled }) : tree
        cache.withLock { cache in
            if cache[format] == nil, cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
            var entry = cache[format] ?? Entry(placeholders: placeholders)
            if entry.templates.count >= shapesPerFormat { entry.templates.removeFirst() }
            entry.templates.append(Template(argumentCount: arguments.count, parts: parts, tree: template))
            cache[format] = entry
        }
    }

    /// The number of formats with templates kept.
    var count: Int { cache.withLock { $0.count } }

    /// The trees kept for `format`, oldest first.
    func trees(_ format: String) -> [PredicateTree] { cache.withLock { $0[format]?.templates.map(\.tree) ?? [] } }

    /// Whether any argument is a value the tree holds (not only `%K`
    /// paths): a format with none, such as one with its values written
    /// in, has nothing to put in or null.
    private static func holdsValues(_ values: [PredicateArgument?]) -> Bool {
        values.contains { $0 != nil }
    }

    /// The placeholders among `tokens`, in order.
    private static func placeholders(_ tokens: [PredicateToken]) -> [Placeholder] {
        var placeholders: [Placeholder] = []
        var nextSequential = 0
        for (offset, token) in tokens.enumerated() {
            guard let (index, specifier) = PredicateArguments.placeholder(token.kind, sequential: &nextSequential) else { continue }
            let previous = offset > 0 ? tokens[offset - 1].kind : nil
            placeholders.append(Placeholder(index: index, specifier: specifier, isMapKey: previous == .leftBracket,
                isBetweenOperand: previous == .keyword(.between), token: token))
        }
        return placeholders
    }

    /// The parts of arguments whose `values` convert for `placeholders`, or
    /// `nil` when no template can serve them: a `%K` argument that is not a
    /// string, or one that another placeholder takes as a value.
    private static func parts(_ placeholders: [Placeholder], _ values: [PredicateArgument?], _ arguments: [Any]) -> [Part]? {
        var parts: [Part] = []
        parts.reserveCapacity(placeholders.count)
        for placeholder in placeholders {
            if placeholder.specifier == .keyPath {
                guard values[placeholder.index] == nil, let path = PredicateArguments.keyPathString(arguments[placeholder.index])
                else { return nil }
                parts.append(.keyPath(Array(path.utf8)))
                continue
            }
            switch values[placeholder.index] {
            case .scalar(let value)?: parts.append(placeholder.isMapKey ? .mapKey(value) : .value)
            case .list(let list)?: parts.append(.list(count: placeholder.isBetweenOperand ? list.count : nil))
            case nil: return nil
            }
        }
        return parts
    }

    /// Whether arguments with `values` have `parts`.
    private static func matches(_ parts: [Part], _ placeholders: [Placeholder], _ values: [PredicateArgument?], _ arguments: [Any]) -> Bool {
        guard parts.count == placeholders.count else { return false }
        for (part, placeholder) in zip(parts, placeholders) {
            switch (part, values[placeholder.index]) {
            case (.value, .scalar?): continue
            case (.mapKey(let key), .scalar(let value)?) where key == value: continue
            case (.list(nil), .list?): continue
            case (.list(let count?), .list(let list)?) where count == list.count: continue
            case (.keyPath(let path), nil):
                guard let given = PredicateArguments.keyPathString(arguments[placeholder.index]),
                    given.utf8.elementsEqual(path)
                else { return false }
            default: return false
            }
        }
        return true
    }
}

extension PredicateArgument {
    /// The argument with its values null: what a template keeps.
    var nulled: PredicateArgument {
        switch self {
        case .scalar: .scalar(.null)
        case .list(let values): .list(Array(repeating: .null, count: values.count))
        }
    }
}

extension PredicateArguments {
    /// The arguments converted for `placeholders`, by argument index (`nil`
    /// for one only `%K` takes), or `nil` when binding them would fail; then
    /// the full path binds and gives the error. Each placeholder converts
    /// its argument, since each checks it against its own specifier; a
    /// conversion that passes gives the same value whatever the specifier.
    func values(for placeholders: [PredicateTemplates.Placeholder]) -> [PredicateArgument?]? {
        var values = [PredicateArgument?](repeating: nil, count: arguments.count)
        for placeholder in placeholders where placeholder.specifier != .keyPath {
            guard placeholder.index < arguments.count,
                let value = try? convert(placeholder.index, for: placeholder.specifier, at: placeholder.token)
            else { return nil }
            values[placeholder.index] = value
        }
        return values
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
                // A list argument's elements, as parsing makes them (its
                // length may differ from the template's, except for BETWEEN).
                list.elements = given.map {
                    PredicateTree.Constant(value: $0, argumentIndex: index, source: list.source)
                }
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
            // part of the template's shape.
            return self
        case .subqueryCount(var subquery):
            subquery.predicate = subquery.predicate.substituting(values)
            return .subqueryCount(subquery)
        }
    }
}
