import Foundation

/// A format argument converted to predicate values.
enum PredicateArgument: Equatable, Sendable {
    /// One value, for `%@`, `%d`, `%f` or `$0`.
    case scalar(Value)
    /// An array or set, for `IN %@` and `BETWEEN %@`.
    case list([Value])
}

/// Lets a type from a higher layer (an `Object`, a collection of objects) be
/// passed for `%@` without this layer knowing it.
protocol PredicateArgumentConvertible {
    var predicateArgument: PredicateArgument { get }
}

/// Matches a format string's placeholders to its arguments, before parsing.
///
/// `%@`, `%K`, `%d`, `%i`, `%u` and `%f` take the arguments in order, as
/// `String(format:)` does; `$0`, `$1` name one by index, as Realm's query
/// language does; both may appear in one format. Each placeholder becomes an
/// `.argument` token carrying its converted value, except `%K`, which becomes
/// the identifier and `.` tokens of the key path it names (so a property
/// named like a keyword can still be queried). Placeholders inside quotes are
/// text, not placeholders.
///
/// - Note: Differs from Realm: an argument that no placeholder uses is an
///   error, because it almost always means a placeholder was forgotten.
struct PredicateArguments {
    let arguments: [Any]

    /// The tokens with every placeholder bound to its argument.
    static func bind(_ tokens: [PredicateToken], to arguments: [Any]) throws(PredicateFormatError)
        -> [PredicateToken]
    {
        let binder = PredicateArguments(arguments: arguments)
        var used = Array(repeating: false, count: arguments.count)
        var nextSequential = 0
        var bound: [PredicateToken] = []
        bound.reserveCapacity(tokens.count)
        for token in tokens {
            guard let (index, specifier) = placeholder(token.kind, sequential: &nextSequential) else {
                bound.append(token)
                continue
            }
            guard index < arguments.count else {
                let given = arguments.count == 1 ? "1 argument given" : "\(arguments.count) arguments given"
                throw .at(token, "missing argument \(index) for '\(token.text)' (\(given))", argumentIndex: index)
            }
            used[index] = true
            if specifier == .keyPath {
                bound += try binder.keyPathTokens(index, for: token)
            } else {
                let value = try binder.convert(index, for: specifier, at: token)
                bound.append(PredicateToken(kind: .argument(index: index, value: value), range: token.range, text: token.text))
            }
        }
        if let unused = used.firstIndex(of: false) {
            let total = arguments.count == 1 ? "1 argument given" : "\(arguments.count) arguments given"
            throw PredicateFormatError(
                reason: "argument \(unused) (\(Self.typeName(Self.unwrap(arguments[unused])))) is not used by any placeholder"
                    + " (\(total), \(used.filter { $0 }.count) used)",
                argumentIndex: unused
            )
        }
        return bound
    }

    /// The argument a placeholder token takes and how it converts it, or
    /// `nil` for a token that is not a placeholder. `%@`, `%K`, `%d` and
    /// `%f` take the next of `sequential`; `$n` names argument `n`.
    static func placeholder(_ kind: PredicateToken.Kind, sequential: inout Int)
        -> (index: Int, specifier: FormatSpecifier)?
    {
        switch kind {
        case .formatSpecifier(let specifier):
            defer { sequential += 1 }
            return (sequential, specifier)
        case .positionalArgument(let index):
            return (index, .object)
        default:
            return nil
        }
    }

    /// The key path a `%K` argument names, if it is a string.
    static func keyPathString(_ argument: Any) -> String? {
        switch unwrap(argument) {
        case let s as String: s
        case let s as Substring: String(s)
        default: nil
        }
    }

    /// The tokens of the key path a `%K` argument names: `"owner.name"`
    /// becomes `owner`, `.`, `name`; `"dogs.@count"` ends with `@count`.
    private func keyPathTokens(_ index: Int, for token: PredicateToken) throws(PredicateFormatError)
        -> [PredicateToken]
    {
        guard let path = Self.keyPathString(arguments[index]) else {
            throw .at(
                token, "argument \(index) for '%K' must be a key path string, not \(Self.typeName(Self.unwrap(arguments[index])))",
                argumentIndex: index
            )
        }
        let names = path.split(separator: ".", omittingEmptySubsequences: false)
        guard !names.contains(where: { $0.isEmpty || $0 == "@" }) else {
            throw .at(token, "argument \(index) for '%K' is not a key path: '\(path)'", argumentIndex: index)
        }
        var tokens: [PredicateToken] = []
        for (offset, name) in names.enumerated() {
            if offset > 0 { tokens.append(PredicateToken(kind: .dot, range: token.range, text: token.text)) }
            let kind: PredicateToken.Kind =
                name.hasPrefix("@") ? .collectionOperator(name.lowercased()) : .identifier(String(name))
            tokens.append(PredicateToken(kind: kind, range: token.range, text: token.text))
        }
        return tokens
    }

    /// The argument at `index` converted for `specifier`.
    func convert(_ index: Int, for specifier: FormatSpecifier, at token: PredicateToken)
        throws(PredicateFormatError) -> PredicateArgument
    {
        // The commonest arguments first, by their exact type: the checks
        // against `any BinaryInteger` and the optional and sequence
        // protocols below look up conformances at run time, which cost more
        // than parsing the whole format. (Not by casts: `as Int` also takes
        // an `NSNumber`, a boolean one included, which the path below
        // converts by its kind.)
        let given = arguments[index]
        let type = Swift.type(of: given)
        if type == Int.self, specifier != .floatingPoint { return .scalar(.int(Int64(given as! Int))) }
        if type == Double.self, specifier != .integer { return .scalar(.double(given as! Double)) }
        if type == String.self, specifier == .object { return .scalar(.string(given as! String)) }
        let argument = Self.unwrap(arguments[index])
        let ok: Bool
        switch specifier {
        case .integer: ok = argument is any BinaryInteger
        case .floatingPoint: ok = argument is any BinaryFloatingPoint
        case .object, .keyPath: ok = true
        }
        guard ok else {
            let wanted = specifier == .integer ? "an integer" : "a floating-point number"
            throw .at(
                token, "argument \(index) for '\(token.text)' must be \(wanted), not \(Self.typeName(argument))",
                argumentIndex: index
            )
        }
        do throws(ConversionFailure) {
            return try Self.convert(argument)
        } catch {
            throw .at(token, "argument \(index) for '\(token.text)' \(error.reason)", argumentIndex: index)
        }
    }

    // MARK: Converting Swift values

    struct ConversionFailure: Error {
        var reason: String
    }

    /// A Swift value as a predicate argument: a scalar, or a list for any
    /// sequence that is not itself a scalar (`String` and `Data` are scalars).
    static func convert(_ argument: Any) throws(ConversionFailure) -> PredicateArgument {
        let argument = unwrap(argument)
        if let value = try scalar(argument) { return .scalar(value) }
        if let convertible = argument as? any PredicateArgumentConvertible { return convertible.predicateArgument }
        if let raw = argument as? any RawRepresentable { return try convert(raw.rawValue) }
        if let sequence = argument as? any Sequence {
            var values: [Value] = []
            for (offset, element) in elements(of: sequence).enumerated() {
                let element = unwrap(element)
                if let value = try scalar(element) {
                    values.append(value)
                } else if let raw = element as? any RawRepresentable, case .scalar(let value) = try convert(raw.rawValue) {
                    values.append(value)
                } else if let convertible = element as? any PredicateArgumentConvertible,
                    case .scalar(let value) = convertible.predicateArgument
                {
                    values.append(value)
                } else {
                    throw ConversionFailure(
                        reason: "has an element of unsupported type \(typeName(element)) at index \(offset)"
                    )
                }
            }
            return .list(values)
        }
        throw ConversionFailure(reason: "has unsupported type \(typeName(argument))")
    }

    /// The value of a scalar argument, or `nil` if `argument` is not of a scalar type.
    private static func scalar(_ argument: Any) throws(ConversionFailure) -> Value? {
        func integer<T: BinaryInteger>(_ value: T) throws(ConversionFailure) -> Value {
            guard let exact = Int64(exactly: value) else {
                throw ConversionFailure(reason: "is out of the range of Int64: \(value)")
            }
            return .int(exact)
        }
        // Foundation's objects first: an `NSNumber` 1 would also cast to `Bool`.
        if let bridged = Value.bridging(argument) { return bridged.storable }
        switch argument {
        case let value as Value: return value
        case is NSNull: return .null
        case let value as Bool: return .bool(value)
        case let value as Int: return .int(Int64(value))
        case let value as Int8: return .int(Int64(value))
        case let value as Int16: return .int(Int64(value))
        case let value as Int32: return .int(Int64(value))
        case let value as Int64: return .int(value)
        case let value as UInt8: return .int(Int64(value))
        case let value as UInt16: return .int(Int64(value))
        case let value as UInt32: return .int(Int64(value))
        case let value as UInt: return try integer(value)
        case let value as UInt64: return try integer(value)
        case let value as Double: return .double(value)
        case let value as Float: return .float(value)
        case let value as CGFloat: return .double(Double(value))
        case let value as Decimal128: return .decimal(value)
        case let value as Decimal: return .decimal(Decimal128(value))
        case let value as String: return .string(value)
        case let value as Substring: return .string(String(value))
        case let value as Date: return Value.date(value).storable  // NaN is the epoch, as Realm stores it
        case let value as Data: return .data(value)
        case let value as UUID: return .uuid(value)
        case let value as ObjectId: return .objectId(value)
        default: return nil
        }
    }

    private static func elements<S: Sequence>(of sequence: S) -> [Any] {
        sequence.map { $0 }
    }

    /// The value inside any number of `Optional` layers; `.none` becomes `Value.null`.
    static func unwrap(_ argument: Any) -> Any {
        guard let optional = argument as? any OptionalArgument else { return argument }
        guard let wrapped = optional.wrappedArgument else { return Value.null }
        return unwrap(wrapped)
    }

    static func typeName(_ argument: Any) -> String {
        if case .null? = argument as? Value { return "nil" }
        return String(describing: type(of: argument))
    }
}

/// Lets `unwrap` see through an `Optional` stored in an `Any`.
protocol OptionalArgument {
    var wrappedArgument: Any? { get }
}

extension Optional: OptionalArgument {
    var wrappedArgument: Any? { self.map { $0 } }
}
