import Foundation

/// `@min`, `@max`, `@sum` and `@avg` over values, with Realm's rules: nulls
/// are ignored (and not counted by `@avg`), integers sum exactly, floats and
/// doubles sum as doubles, anything with a decimal sums as decimals.
enum ValueAggregate {
    /// The aggregate of `values`; `nil` for `@min`, `@max` and `@avg` of no
    /// (non-null) values. `@sum` of nothing is `0`.
    static func compute(_ function: PredicateTree.CollectionFunction, _ values: [Value]) -> Value? {
        let present = values.filter { !$0.isNull }
        switch function {
        case .count: return .int(Int64(values.count))
        case .type: return nil
        case .min: return present.min { Value.compare($0, $1) == .orderedAscending }
        case .max: return present.max { Value.compare($0, $1) == .orderedAscending }
        case .sum: return sum(present)
        case .average:
            guard !present.isEmpty, let total = sum(present) else { return nil }
            if case .decimal(let d) = total { return .decimal(d / Decimal128(present.count)) }
            return .double((total.doubleValue ?? 0) / Double(present.count))
        }
    }

    /// The sum of numeric values; `nil` if one is not a number.
    static func sum(_ values: [Value]) -> Value? {
        var ints: Int64 = 0
        var doubles = 0.0
        var decimal: Decimal128?
        var sawFloating = false
        for value in values {
            switch value {
            case .int(let v): ints &+= v
            case .float(let v):
                doubles += Double(v)
                sawFloating = true
            case .double(let v):
                doubles += v
                sawFloating = true
            case .decimal(let v): decimal = (decimal ?? 0) + v
            case .null: continue
            default: return nil
            }
        }
        if let decimal { return .decimal(decimal + Decimal128(Int(ints)) + Decimal128(doubles)) }
        if sawFloating { return .double(doubles + Double(ints)) }
        return .int(ints)
    }
}
