import Foundation

extension Value: Hashable {
    /// Equality as Realm's `Mixed` defines it: numbers are equal when their
    /// numeric values are equal, whatever their kind; strings when their
    /// UTF-8 bytes are (Realm compares strings as bytes, so precomposed and
    /// decomposed "é" differ, where Swift's `String ==` equates them).
    static func == (lhs: Value, rhs: Value) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.string(let a), .string(let b)):
            // The byte counts first (O(1)): most unequal strings differ there.
            return a.utf8.count == b.utf8.count && compareStrings(a, b) == .orderedSame
        case (.data(let a), .data(let b)): return a == b
        case (.date(let a), .date(let b)): return a == b
        case (.objectId(let a), .objectId(let b)): return a == b
        case (.uuid(let a), .uuid(let b)): return a == b
        case (.link(let a), .link(let b)): return a == b
        case (.list(let a), .list(let b)): return a.count == b.count && zip(a, b).allSatisfy { $0 == $1 && $0.kindRank == $1.kindRank }
        case (.dictionary(let a), .dictionary(let b)):
            return a.count == b.count && a.allSatisfy { key, v in b[key].map { v == $0 && v.kindRank == $0.kindRank } ?? false }
        default:
            if lhs.kindRank == 2 && rhs.kindRank == 2 {
                return Value.compareNumbers(lhs, rhs) == .orderedSame
            }
            return false
        }
    }

    func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let v): hasher.combine(v)
        case .int(let v): hasher.combine(Double(v))
        case .float(let v): hasher.combine(Self.hashable(Double(v)))
        case .double(let v): hasher.combine(Self.hashable(v))
        case .decimal(let v): hasher.combine(Self.hashable(v.doubleValue))
        case .string(let v):
            // The bytes, consistent with `==` (`String`'s own hash normalises).
            var v = v
            v.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .data(let v): hasher.combine(v)
        case .date(let v): hasher.combine(v)
        case .objectId(let v): hasher.combine(v)
        case .uuid(let v): hasher.combine(v)
        case .link(let v): hasher.combine(v)
        case .list(let v):
            hasher.combine(v.count)
            for element in v { hasher.combine(element) }
        case .dictionary(let v):
            hasher.combine(v.count)
            for key in v.keys.sorted() { hasher.combine(key); hasher.combine(v[key]!) }
        }
    }

    /// `d`, with every NaN made the same: `==` holds between any two NaNs,
    /// whose bits (sign, payload) differ and so do `Double`'s own hashes.
    private static func hashable(_ d: Double) -> Double { d.isNaN ? .nan : d }

    /// Orders two values with Realm's rules: nulls first, numbers across
    /// kinds by value, strings by Unicode scalar order, unrelated kinds by rank.
    static func compare(_ lhs: Value, _ rhs: Value) -> ComparisonResult {
        let lr = lhs.kindRank, rr = rhs.kindRank
        if lr != rr { return lr < rr ? .orderedAscending : .orderedDescending }
        switch (lhs, rhs) {
        case (.null, .null): return .orderedSame
        case (.bool(let a), .bool(let b)): return order(a ? 1 : 0, b ? 1 : 0)
        case (.string(let a), .string(let b)): return compareStrings(a, b)
        case (.data(let a), .data(let b)):
            return a.lexicographicallyPrecedes(b) ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
        case (.date(let a), .date(let b)): return order(a, b)
        case (.objectId(let a), .objectId(let b)): return order(a, b)
        case (.uuid(let a), .uuid(let b)): return order(a.uuidString, b.uuidString)
        case (.link(let a), .link(let b)):
            return a.table != b.table ? order(a.table, b.table) : order(a.key, b.key)
        case (.list(let a), .list(let b)): return compareSequences(a, b)
        case (.dictionary(let a), .dictionary(let b)):
            // Entries in key order, each key before its value.
            let flatten = { (d: [String: Value]) in d.keys.sorted().flatMap { [Value.string($0), d[$0]!] } }
            return compareSequences(flatten(a), flatten(b))
        default: return compareNumbers(lhs, rhs)
        }
    }

    /// Strings compare by their UTF-8 bytes, as Realm compares them (which
    /// is also Unicode scalar order).
    static func compareStrings(_ a: String, _ b: String) -> ComparisonResult {
        var a = a, b = b
        return a.withUTF8 { pa in
            b.withUTF8 { pb in
                let n = Swift.min(pa.count, pb.count)
                let c = n == 0 ? 0 : memcmp(pa.baseAddress!, pb.baseAddress!, n)
                if c != 0 { return c < 0 ? .orderedAscending : .orderedDescending }
                return pa.count == pb.count ? .orderedSame : (pa.count < pb.count ? .orderedAscending : .orderedDescending)
            }
        }
    }

    /// Element by element, then the shorter first: an order that makes a
    /// sort over nested collections total (Realm does not sort by them).
    private static func compareSequences(_ a: [Value], _ b: [Value]) -> ComparisonResult {
        for (x, y) in zip(a, b) {
            let c = compare(x, y)
            if c != .orderedSame { return c }
        }
        return order(a.count, b.count)
    }

    private static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
        a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
    }

    /// Numeric comparison across int, float, double and decimal. Integers
    /// compare exactly with each other; anything involving a decimal compares
    /// as decimals; otherwise as doubles (NaN sorts before other numbers).
    static func compareNumbers(_ lhs: Value, _ rhs: Value) -> ComparisonResult {
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)): return order(a, b)
        case (.decimal, _), (_, .decimal):
            // An infinite double is past every decimal: compared as doubles.
            if lhs.doubleValue?.isInfinite == true || rhs.doubleValue?.isInfinite == true,
                let a = lhs.doubleValue, let b = rhs.doubleValue
            {
                return order(a, b)
            }
            guard let a = lhs.decimalValue, let b = rhs.decimalValue else { return .orderedSame }
            return order(a, b)
        default:
            guard let a = lhs.doubleValue, let b = rhs.doubleValue else { return .orderedSame }
            if a.isNaN || b.isNaN { return a.isNaN == b.isNaN ? .orderedSame : (a.isNaN ? .orderedAscending : .orderedDescending) }
            return order(a, b)
        }
    }

    var doubleValue: Double? {
        switch self {
        case .int(let v): Double(v)
        case .float(let v): Double(v)
        case .double(let v): v
        case .decimal(let v): v.doubleValue
        default: nil
        }
    }

    var decimalValue: Decimal128? {
        switch self {
        case .int(let v): Decimal128(Int(v))
        case .float(let v): Decimal128(Double(v))
        case .double(let v): Decimal128(v)
        case .decimal(let v): v
        default: nil
        }
    }
}

extension Value: CustomStringConvertible {
    var description: String {
        switch self {
        case .null: "null"
        case .bool(let v): "\(v)"
        case .int(let v): "\(v)"
        case .float(let v): "\(v)"
        case .double(let v): "\(v)"
        case .string(let v): "\"\(v)\""
        case .data(let v): "<\(v.count) bytes>"
        case .date(let v): Self.describe(v)
        case .objectId(let v): "oid(\(v))"
        case .decimal(let v): "\(v)"
        case .uuid(let v): "uuid(\(v.uuidString))"
        case .link(let v): "\(v.table)/\(v.key)"
        case .list(let v): "[\(v.map(\.description).joined(separator: ", "))]"
        case .dictionary(let v): "[\(v.keys.sorted().map { "\"\($0)\": \(v[$0]!)" }.joined(separator: ", "))]"
        }
    }
}
