import Foundation

/// Tests values against one operator and its constant operands, with
/// Realm's rules: numbers compare across kinds, `null` equals only `null`
/// and is never ordered against anything, values of unrelated kinds are
/// never equal or ordered, `[c]` and `[d]` fold case and diacritics, `LIKE`
/// takes `*` and `?` wildcards. Constants are prepared once (folded,
/// split into characters) so a scan pays only for the tested values.
struct ValueMatcher: Sendable {
    let op: PredicateTree.ComparisonOperator
    let options: PredicateTree.ComparisonOptions
    let operands: [Value]
    private let foldedOperands: [String?]
    private let patterns: [[Character]]

    init(_ op: PredicateTree.ComparisonOperator, _ operands: [Value], options: PredicateTree.ComparisonOptions) {
        self.op = op
        self.options = options
        self.operands = operands
        let folded = operands.map { value -> String? in
            if case .string(let s) = value { return Self.fold(s, options) }
            return nil
        }
        self.foldedOperands = folded
        self.patterns = op == .like ? folded.map { Array($0 ?? "") } : []
    }

    /// Whether `value` passes. Against an empty list (`name == {}`, `age < {}`,
    /// `name IN {}`, `%@` bound to `[]`) nothing passes: a list on the right is
    /// tested element by element, any one sufficing, as in Realm.
    func matches(_ value: Value) -> Bool {
        if operands.isEmpty { return false }
        switch op {
        case .equal: return equalsOperand(value, 0)
        case .notEqual: return !equalsOperand(value, 0)
        case .in: return operands.indices.contains { equalsOperand(value, $0) }
        case .lessThan: return Self.order(value, operands[0]).map { $0 == .orderedAscending } ?? false
        case .lessThanOrEqual: return Self.order(value, operands[0]).map { $0 != .orderedDescending } ?? false
        case .greaterThan: return Self.order(value, operands[0]).map { $0 == .orderedDescending } ?? false
        case .greaterThanOrEqual: return Self.order(value, operands[0]).map { $0 != .orderedAscending } ?? false
        case .between:
            guard let low = Self.order(value, operands[0]), let high = Self.order(value, operands[1]) else { return false }
            return low != .orderedAscending && high != .orderedDescending
        case .beginsWith, .endsWith, .contains, .like:
            return stringMatch(value)
        }
    }

    private func equalsOperand(_ value: Value, _ index: Int) -> Bool {
        if !options.isEmpty, case .string(let s) = value, let folded = foldedOperands[index] {
            return Self.fold(s, options) == folded
        }
        return value == operands[index]
    }

    /// The order of two values, or `nil` when they cannot be ordered (a null, or unrelated kinds).
    static func order(_ lhs: Value, _ rhs: Value) -> ComparisonResult? {
        if lhs.isNull || rhs.isNull || lhs.kindRank != rhs.kindRank { return nil }
        if case .double(let d) = lhs, d.isNaN { return nil }
        if case .double(let d) = rhs, d.isNaN { return nil }
        return Value.compare(lhs, rhs)
    }

    /// As Realm (after Foundation): `BEGINSWITH`, `ENDSWITH` and `CONTAINS`
    /// with an empty or null operand match nothing (Realm's QueryTests
    /// testQueryOnNullableStringColumn), and `LIKE NULL` matches null.
    private func stringMatch(_ value: Value) -> Bool {
        if op == .like, operands[0].isNull { return value.isNull }
        switch value {
        case .string(let s):
            guard let needle = foldedOperands[0] else { return false }
            if needle.isEmpty && op != .like { return false }
            let haystack = Self.fold(s, options)
            switch op {
            case .beginsWith: return haystack.hasPrefix(needle)
            case .endsWith: return haystack.hasSuffix(needle)
            case .contains: return haystack.contains(needle)
            default: return Self.like(Array(haystack)[...], patterns[0][...])
            }
        case .data(let d):
            let needle: Data
            switch operands[0] {
            case .data(let n): needle = n
            case .string(let s): needle = Data(s.utf8)
            default: return false
            }
            if needle.isEmpty { return false }
            switch op {
            case .beginsWith: return d.starts(with: needle)
            case .endsWith: return d.reversed().starts(with: needle.reversed())
            case .contains: return d.range(of: needle) != nil
            default: return false
            }
        default:
            return false
        }
    }

    /// A string with case and/or diacritics folded away, as `[c]` and `[d]` ask.
    static func fold(_ string: String, _ options: PredicateTree.ComparisonOptions) -> String {
        var compareOptions: String.CompareOptions = []
        if options.contains(.caseInsensitive) { compareOptions.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { compareOptions.insert(.diacriticInsensitive) }
        return compareOptions.isEmpty ? string : string.folding(options: compareOptions, locale: nil)
    }

    /// Wildcard matching: `*` matches any run of characters, `?` exactly one.
    static func like(_ text: ArraySlice<Character>, _ pattern: ArraySlice<Character>) -> Bool {
        var t = text.startIndex, p = pattern.startIndex
        var starPattern: Int?
        var starText = text.startIndex
        while t < text.endIndex {
            if p < pattern.endIndex && (pattern[p] == "?" || pattern[p] == text[t]) {
                t += 1
                p += 1
            } else if p < pattern.endIndex && pattern[p] == "*" {
                starPattern = p
                starText = t
                p += 1
            } else if let star = starPattern {
                p = star + 1
                starText += 1
                t = starText
            } else {
                return false
            }
        }
        while p < pattern.endIndex && pattern[p] == "*" { p += 1 }
        return p == pattern.endIndex
    }
}
