import Foundation

/// The canonical text of a predicate tree: the format syntax with keywords
/// in capitals, strings in double quotes, `@size` written `@count`, `SOME`
/// written `ANY`, arguments replaced by their values, and only the
/// parentheses precedence needs. Parsing the text gives an equal tree, except
/// for values that have no literal form (`Decimal128` prints as a number, a
/// link as a debug form, a non-finite `Float` as a `Double`) and for property
/// names that are not identifiers (possible only through `%K`), which print
/// as they are.
extension PredicateTree: CustomStringConvertible {
    var description: String {
        switch self {
        case .truePredicate: "TRUEPREDICATE"
        case .falsePredicate: "FALSEPREDICATE"
        case .and(let operands): operands.map { $0.operandDescription(inside: "AND") }.joined(separator: " AND ")
        case .or(let operands): operands.map { $0.operandDescription(inside: "OR") }.joined(separator: " OR ")
        case .not(let operand): "NOT " + operand.operandDescription(inside: "NOT")
        case .comparison(let comparison): comparison.description
        }
    }

    /// The text of this tree as an operand of `parent`, parenthesized when it binds more loosely.
    private func operandDescription(inside parent: String) -> String {
        switch (self, parent) {
        case (.or, "AND"), (.or, "NOT"), (.and, "NOT"): "(\(description))"
        default: description
        }
    }
}

extension PredicateTree.Comparison: CustomStringConvertible {
    var description: String {
        var options = ""
        if self.options.contains(.caseInsensitive) { options += "c" }
        if self.options.contains(.diacriticInsensitive) { options += "d" }
        if !options.isEmpty { options = "[\(options)]" }
        return "\(lhs) \(op.rawValue)\(options) \(rhs)"
    }
}

extension PredicateTree.Expression: CustomStringConvertible {
    var description: String {
        switch self {
        case .constant(let constant): constant.value.predicateLiteral
        case .list(let list): list.description
        case .keyPath(let keyPath): keyPath.description
        case .collectionOperation(let operation): operation.description
        case .subqueryCount(let subquery): subquery.description
        }
    }
}

extension PredicateTree.ConstantList: CustomStringConvertible {
    var description: String {
        "{" + elements.map(\.value.predicateLiteral).joined(separator: ", ") + "}"
    }
}

extension PredicateTree.KeyPath: CustomStringConvertible {
    var description: String {
        var text = modifier.map { $0.rawValue + " " } ?? ""
        var needsDot = false
        if case .variable(let name) = root {
            text += "$" + name
            needsDot = true
        }
        for component in components {
            if case .mapKey(let key) = component {
                text += "[" + Value.string(key).predicateLiteral + "]"
                continue
            }
            if case .mixedIndex(let index) = component {
                text += "[\(index)]"
                continue
            }
            if component == .mixedLast {
                text += "[LAST]"
                continue
            }
            if component == .mixedAll {
                text += "[*]"
                continue
            }
            if needsDot { text += "." }
            needsDot = true
            switch component {
            case .property(let name): text += Self.escaped(name)
            case .mapKey, .mixedIndex, .mixedLast, .mixedAll: break
            case .keys: text += "@keys"
            case .values: text += "@values"
            case .backlinks(let className, let property): text += "@links.\(Self.escaped(className)).\(Self.escaped(property))"
            case .allBacklinks: text += "@links"
            }
        }
        return text
    }

    /// `name`, or `#name` when it would otherwise read as a keyword.
    static func escaped(_ name: String) -> String {
        guard let first = name.unicodeScalars.first, first.isWordStart,
            name.unicodeScalars.allSatisfy(\.isWordContinue)
        else { return name }
        return PredicateKeyword(word: name) == nil ? name : "#" + name
    }
}

extension PredicateTree.CollectionOperation: CustomStringConvertible {
    var description: String {
        var text = collection.description
        text += text.isEmpty || text.hasSuffix(" ") ? function.rawValue : "." + function.rawValue
        if let property { text += "." + PredicateTree.KeyPath.escaped(property) }
        return text
    }
}

extension PredicateTree.Subquery: CustomStringConvertible {
    var description: String {
        "SUBQUERY(\(collection), $\(variable), \(predicate)).@count"
    }
}

extension Value {
    /// The value as a literal of the predicate format syntax.
    var predicateLiteral: String {
        switch self {
        case .null: "nil"
        case .bool(let value): value ? "true" : "false"
        case .int(let value): String(value)
        case .double(let value): Self.literal(value)
        case .float(let value): value.isFinite ? "\(value)f" : Self.literal(Double(value))
        case .string(let value): Self.quoted(value)
        case .data(let value): "B64\"\(value.base64EncodedString())\""
        case .date(let value): Self.timestamp(value)
        case .objectId(let value): "oid(\(value.stringValue))"
        case .decimal(let value): value.description
        case .uuid(let value): "uuid(\(value.uuidString))"
        case .link(let value): "\(value.table)/\(value.key)"
        case .list(let values): "{\(values.map(\.predicateLiteral).joined(separator: ", "))}"
        case .dictionary: description
        }
    }

    private static func literal(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        return "\(value)"
    }

    /// `"…"` with the escapes the lexer reads back.
    static func quoted(_ string: String) -> String {
        var text = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }

    /// `T<seconds>:<nanoseconds>`, both with the sign of the time interval;
    /// dates out of `Timestamp`'s range as Realm stores them (``Value/timestamp(of:)``).
    private static func timestamp(_ date: Date) -> String {
        let (seconds, nanoseconds) = Value.timestamp(of: date)
        return "T\(seconds):\(nanoseconds)"
    }
}
