/// Resolves a ``PredicateTree`` against a class schema: key paths become
/// ``BoundPath``s (through to-one links, lists, sets, maps, backlinks and
/// linking objects), an implicit `ANY` is added where a path crosses a
/// collection, constants are checked against the property types, and a
/// constant on the left is mirrored to the right.
///
/// Errors are ``ShoalError``s: `.invalidKeyPath` for a key path that names
/// nothing (with the class, the property, and its position in the format
/// string), `.invalidQuery` for a type mismatch (naming both types) or an
/// operator that does not apply.
struct QueryBinder {
    /// What the predicate tests: objects of a table, or primitive values (`self`).
    enum Root: Equatable, Sendable {
        case table(TableKey)
        case primitive(PropertyType)
        /// Objects of any class (after `@links`): only `@count` may follow.
        case unknown
    }

    let schema: Schema
    /// The format string the tree came from, or the tree's description.
    let format: String
    let root: Root
    /// The `SUBQUERY` variables in scope, outermost first.
    var scopes: [(name: String, root: Root)] = []
    /// For each comparison bound, in order, the type its constants were
    /// converted to: what a prepared predicate converts new values to
    /// (see ``BoundTemplate``).
    var conversions: [PropertyType?] = []

    init(schema: Schema, root: Root, format: String) {
        self.schema = schema
        self.root = root
        self.format = format
    }

    /// A binder for `tree`, once it is known to nest at most
    /// ``PredicateTree/maximumDepth`` levels (measured without recursion):
    /// its description (made here when `format` is `nil`), binding,
    /// planning and evaluation all recurse as deeply as it nests. The front
    /// ends stop there already; this stops a tree made any other way.
    ///
    /// - Throws: ``ShoalError`` `.invalidQuery` for a tree nested deeper.
    init(schema: Schema, root: Root, tree: PredicateTree, format: String?) throws(ShoalError) {
        guard tree.nestingDepth <= PredicateTree.maximumDepth else { throw PredicateTree.tooDeepError(format: format) }
        self.init(schema: schema, root: root, format: format ?? tree.description)
    }

    /// Binds `tree` for objects of `table`.
    static func bind(_ tree: PredicateTree, schema: Schema, root: Root, format: String? = nil) throws(ShoalError)
        -> BoundPredicate
    {
        var binder = try QueryBinder(schema: schema, root: root, tree: tree, format: format)
        return try binder.bind(tree)
    }

    mutating func bind(_ tree: PredicateTree) throws(ShoalError) -> BoundPredicate {
        switch tree {
        case .truePredicate: return .constant(true)
        case .falsePredicate: return .constant(false)
        case .and(let operands):
            var bound: [BoundPredicate] = []
            for operand in operands { bound.append(try bind(operand)) }
            return .and(bound)
        case .or(let operands):
            var bound: [BoundPredicate] = []
            for operand in operands { bound.append(try bind(operand)) }
            return .or(bound)
        case .not(let operand): return .not(try bind(operand))
        case .comparison(let comparison): return try bind(comparison)
        }
    }

    func error(_ reason: String, at range: Range<Int>?, code: ShoalError.Code = .invalidQuery) -> ShoalError {
        PredicateFormatError(reason: reason, range: range, in: format).shoalError(format: format, code: code)
    }

    // MARK: Operands

    /// A bound operand with what the binder knows of its values.
    struct Typed {
        var operand: BoundOperand
        /// The values' type; `nil` for `nil` or an empty list.
        var type: PropertyType?
        var className: String?
        var isMultiValued = false
        var modifier: PredicateTree.CollectionModifier?
        /// The operand as written. Its text is made only for an error
        /// message, which almost no query gives.
        var written: PredicateTree.Expression
        var source: Range<Int>?

        /// The operand's text, for messages.
        var text: String { written.description }
    }

    mutating func operand(_ expression: PredicateTree.Expression) throws(ShoalError) -> Typed {
        switch expression {
        case .constant(let constant):
            let (type, className) = typeOf(constant.value)
            return Typed(operand: .constant(constant.value), type: type, className: className,
                written: expression, source: constant.source)
        case .list(let list):
            let values = list.elements.map(\.value)
            let first = values.first { !$0.isNull }.map(typeOf)
            return Typed(operand: .list(values), type: first?.0, className: first?.1, written: expression, source: list.source)
        case .keyPath(let keyPath):
            let resolved = try resolve(keyPath)
            if let modifier = keyPath.modifier, !resolved.path.isMultiValued {
                throw error("'\(modifier.rawValue)' needs a key path through a collection, and '\(resolved.path.text)' is not one",
                    at: keyPath.source)
            }
            if case .unknown = resolved.elementRoot {
                throw error("'@links' may only be followed by '@count'", at: keyPath.source, code: .invalidKeyPath)
            }
            return Typed(operand: .path(resolved.path), type: resolved.type, className: resolved.className,
                isMultiValued: resolved.path.isMultiValued, modifier: keyPath.modifier, written: expression,
                source: keyPath.source)
        case .collectionOperation(let operation):
            return try aggregate(operation)
        case .subqueryCount(let subquery):
            let resolved = try resolve(subquery.collection)
            guard resolved.path.isMultiValued else {
                throw error("SUBQUERY needs a collection, and '\(resolved.path.text)' is not one",
                    at: subquery.collection.source)
            }
            scopes.append((subquery.variable, resolved.elementRoot))
            defer { scopes.removeLast() }
            let predicate = try bind(subquery.predicate)
            return Typed(operand: .subqueryCount(resolved.path, predicate), type: .int, written: expression,
                source: subquery.source)
        }
    }

    private mutating func aggregate(_ operation: PredicateTree.CollectionOperation) throws(ShoalError) -> Typed {
        var resolved = try resolve(operation.collection)
        let name = operation.function.rawValue
        if operation.function == .type {
            guard resolved.type == .any else {
                // Realm refuses `@type` on a typed property ("Comparison between two constants is not supported").
                throw error("'@type' needs a mixed (AnyRealmValue) value, and '\(resolved.path.text)' is of type '\(resolved.typeName)'",
                    at: operation.source)
            }
            return Typed(operand: .aggregate(.type, resolved.path, property: nil), type: .string,
                isMultiValued: resolved.path.isMultiValued, modifier: operation.collection.modifier,
                written: .collectionOperation(operation), source: operation.source)
        }
        if !resolved.path.isMultiValued && resolved.followsMixedValue {
            // A mixed value's collection operation ranges over the collection
            // nested in it (none for other values).
            resolved.path.steps.append(.mixedAll)
            resolved.path.isMultiValued = true
        }
        guard resolved.path.isMultiValued else {
            if case .property(let last)? = resolved.path.steps.last, resolved.type != .object {
                // Realm's words (QueryTests.m testInvalidQueries).
                let table = schema[last.table]
                throw error("Invalid keypath '\(resolved.path.text).\(name)': Property '\(table.className).\(table.properties[last.index].name)'"
                    + " is not a link or collection and can only appear at the end of a keypath.", at: operation.source)
            }
            throw error("'\(name)' needs a collection, and '\(resolved.path.text)' is of type '\(resolved.typeName)'",
                at: operation.source)
        }
        if operation.function == .count {
            return Typed(operand: .aggregate(.count, resolved.path, property: nil), type: .int,
                written: .collectionOperation(operation), source: operation.source)
        }
        var elementType = resolved.type
        var property: BoundProperty?
        if let propertyName = operation.property {
            guard case .table(let table) = resolved.elementRoot else {
                throw error("'\(name).\(propertyName)' needs a collection of objects", at: operation.propertySource,
                    code: .invalidKeyPath)
            }
            let objectSchema = schema[table]
            guard let index = objectSchema.indexByName[propertyName] else {
                throw error("unknown property '\(propertyName)' on class '\(objectSchema.className)'",
                    at: operation.propertySource, code: .invalidKeyPath)
            }
            let p = objectSchema.properties[index]
            guard p.collection == .none, p.type != .object, p.type != .linkingObjects else {
                throw error("'\(name)' cannot aggregate property '\(propertyName)' of type '\(p.typeName)'",
                    at: operation.propertySource)
            }
            property = BoundProperty(table: table, index: index)
            elementType = p.type
        } else if case .table = resolved.elementRoot {
            throw error("'\(name)' over objects needs a property, as in '\(resolved.path.text).\(name).age'",
                at: operation.source)
        }
        let numeric = elementType.map(Self.isNumeric) ?? false
        let allowed = operation.function == .min || operation.function == .max ? numeric || elementType == .date || elementType == .any : numeric || elementType == .any
        guard allowed else {
            throw error("'\(name)' is not supported for values of type '\(elementType?.description ?? "unknown")'",
                at: operation.source)
        }
        let type: PropertyType? = operation.function == .average && elementType != .decimal128 ? .double : elementType
        return Typed(operand: .aggregate(operation.function, resolved.path, property: property), type: type,
            written: .collectionOperation(operation), source: operation.source)
    }

    func typeOf(_ value: Value) -> (PropertyType?, String?) {
        switch value {
        case .null: (nil, nil)
        case .bool: (.bool, nil)
        case .int: (.int, nil)
        case .float: (.float, nil)
        case .double: (.double, nil)
        case .decimal: (.decimal128, nil)
        case .string: (.string, nil)
        case .data: (.data, nil)
        case .date: (.date, nil)
        case .objectId: (.objectId, nil)
        case .uuid: (.uuid, nil)
        case .link(let link): (.object, link.table.index < schema.objectSchema.count ? schema[link.table].className : nil)
        case .list, .dictionary: (.any, nil)
        }
    }

    static func isNumeric(_ type: PropertyType) -> Bool {
        switch type {
        case .int, .float, .double, .decimal128: true
        default: false
        }
    }
}
