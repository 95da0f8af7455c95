/// Realm's own refusals and conversions, checked before Shoal's type checks
/// so that a ported query fails with the message Realm gives.
extension QueryBinder {
    /// Refuses what Realm refuses (Realm's QueryTests): `LIKE` with `[d]`
    /// (testStringLike), `BETWEEN` on a non-numeric, non-date
    /// property (testQueryBetween), and an aggregate compared with an
    /// aggregate (testCountOnArrayCollection).
    func checkRealmRestrictions(_ op: PredicateTree.ComparisonOperator, _ lhs: Typed, _ rhs: Typed,
        _ comparison: PredicateTree.Comparison) throws(ShoalError)
    {
        if op == .like, comparison.options.contains(.diacriticInsensitive) {
            throw error("Operator 'LIKE' not supported with diacritic-insensitive modifier.", at: comparison.source)
        }
        if op == .between, let type = lhs.type, !lhs.operand.isAggregate {
            switch type {
            case .int, .float, .double, .decimal128, .date, .any: break
            default:
                throw error("Operator 'BETWEEN' not supported for type '\(type)'", at: comparison.source)
            }
        }
        if lhs.operand.isAggregate && rhs.operand.isAggregate {
            throw error("aggregate operations cannot be compared with other aggregate operations", at: comparison.source)
        }
    }

    /// Numeric constants converted to the property's type, as Realm converts
    /// them: a `float` property compares with `Float(1.1)`, not the double
    /// 1.1, so `floatCol IN {1.1}` finds a stored 1.1 (Realm's QueryTests
    /// testINPredicate).
    static func converted(_ operand: BoundOperand, to type: PropertyType?) -> BoundOperand {
        guard type == .float else { return operand }
        func toFloat(_ value: Value) -> Value {
            if case .double(let d) = value { return .float(Float(d)) }
            return value
        }
        switch operand {
        case .constant(let value): return .constant(toFloat(value))
        case .list(let values): return .list(values.map(toFloat))
        default: return operand
        }
    }
}

extension BoundOperand {
    /// Whether the operand is an aggregate over a collection (`@count`, `@sum`, a subquery's count…).
    var isAggregate: Bool {
        switch self {
        case .aggregate, .subqueryCount: true
        default: false
        }
    }
}
