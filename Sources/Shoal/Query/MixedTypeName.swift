/// Realm's `@type` names: the kind of a value, as a bit, and the type
/// names a query compares it with, as masks of those bits. A value of
/// type `t` matches a name whose mask holds `t`'s bit, so `'numeric'`
/// matches an int, a float, a double and a decimal, and `'collection'` a
/// nested list or dictionary. Names are matched ignoring case; the list
/// (and its order, which error messages show) is realm-core's.
enum MixedTypeName {
    static let null: Int64 = 0x0001
    static let int: Int64 = 0x0002
    static let double: Int64 = 0x0004
    static let float: Int64 = 0x0008
    static let bool: Int64 = 0x0010
    static let date: Int64 = 0x0020
    static let string: Int64 = 0x0040
    static let binary: Int64 = 0x0080
    static let uuid: Int64 = 0x0100
    static let objectId: Int64 = 0x0200
    static let decimal: Int64 = 0x0400
    static let link: Int64 = 0x0800
    static let dictionary: Int64 = 0x1000
    static let list: Int64 = 0x2000

    /// Every name with its mask, in realm-core's order. `'object'` is a
    /// nested dictionary, as in Realm; a link is `'objectlink'` or `'link'`.
    static let names: [(name: String, mask: Int64)] = [
        ("null", null), ("int", int), ("integer", int), ("int16", int), ("int32", int), ("int64", int),
        ("short", int), ("long", int), ("byte", int), ("char", int), ("bool", bool), ("boolean", bool),
        ("string", string), ("binary", binary), ("data", binary), ("bytearray", binary), ("byte[]", binary),
        ("date", date), ("datetimeoffset", date), ("timestamp", date), ("float", float), ("double", double),
        ("decimal128", decimal), ("decimal", decimal), ("objectlink", link), ("link", link),
        ("objectid", objectId), ("uuid", uuid), ("guid", uuid), ("numeric", int | double | float | decimal),
        ("bindata", binary), ("object", dictionary), ("dictionary", dictionary), ("array", list), ("list", list),
        ("collection", list | dictionary),
    ]

    /// The mask a type name stands for, ignoring case; `nil` for an unknown name.
    static func mask(named name: String) -> Int64? {
        let lower = name.lowercased()
        return names.first { $0.name == lower }?.mask
    }

    /// The names `mask(named:)` knows, for an error message.
    static var validNames: String { names.map(\.name).joined(separator: ", ") }

    /// The bit of `value`'s kind.
    static func bit(of value: Value) -> Int64 {
        switch value {
        case .null: null
        case .int: int
        case .double: double
        case .float: float
        case .bool: bool
        case .date: date
        case .string: string
        case .data: binary
        case .uuid: uuid
        case .objectId: objectId
        case .decimal: decimal
        case .link: link
        case .dictionary: dictionary
        case .list: list
        }
    }

    /// The single bits set in `mask`, as the values a value's `@type` is
    /// tested against.
    static func bits(of mask: Int64) -> [Value] {
        (0...list.trailingZeroBitCount).map { Int64(1) << $0 }.filter { mask & $0 != 0 }.map(Value.int)
    }
}

/// Binding `@type` comparisons. A value's `@type` is the bit of its kind
/// (``MixedTypeName``); `== 'numeric'` tests it against the bits of the
/// name's mask (`IN` against the union of the names'), and `!=` is the
/// negation of `==` under the opposite quantifier, so that
/// `ANY list.@type != 'int'` holds when some element is not an int.
extension QueryBinder {
    mutating func bindTypeComparison(_ op: PredicateTree.ComparisonOperator, _ lhs: Typed, _ rhs: Typed,
        _ comparison: PredicateTree.Comparison) throws(ShoalError) -> BoundPredicate
    {
        guard op == .equal || op == .notEqual || op == .in else {
            throw error("Unsupported comparison operator '\(op.rawValue)' against type '@type' (only ==, != and IN)",
                at: comparison.source)
        }
        guard comparison.options.isEmpty else {
            // Realm's words (realm-core test_parser.cpp, Parser_TypeOfValue).
            throw error("Unsupported comparison operator '\(op.rawValue)[\(comparison.options.contains(.caseInsensitive) ? "c" : "d")]' against type '@type', right side must be a string or binary type",
                at: comparison.source)
        }
        let names: [Value]
        switch rhs.operand {
        case .constant(let value): names = [value]
        case .list(let values): names = values
        default:
            throw error("'@type' can only be compared with type names, not with '\(rhs.text)'", at: rhs.source)
        }
        var mask: Int64 = 0
        for value in names {
            guard case .string(let name) = value else {
                // Realm's words (Parser_TypeOfValue).
                let (type, _) = typeOf(value)
                throw error("Unsupported comparison between @type and raw value: '@type' and '\(type?.description ?? "null")'",
                    at: rhs.source)
            }
            guard let named = MixedTypeName.mask(named: name) else {
                throw error("Unable to parse the type attribute string '\(name)', supported case insensitive values are: [\(MixedTypeName.validNames)]",
                    at: rhs.source)
            }
            mask |= named
        }
        let modifier = lhs.modifier ?? .anyOf
        let bits = BoundOperand.list(MixedTypeName.bits(of: mask))
        guard op == .notEqual else {
            return .comparison(BoundComparison(lhs: lhs.operand, op: .in, rhs: bits, options: [], modifier: modifier))
        }
        let opposite: PredicateTree.CollectionModifier =
            switch modifier {
            case .anyOf: .allOf
            case .allOf: .anyOf
            case .noneOf: .allOf
            }
        let inMask = BoundPredicate.comparison(BoundComparison(lhs: lhs.operand, op: .in, rhs: bits, options: [], modifier: opposite))
        return modifier == .noneOf ? inMask : .not(inMask)
    }
}
