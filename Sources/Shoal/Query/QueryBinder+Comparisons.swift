/// Binding comparisons: a constant moves to the right, the operator is
/// checked against the operand types, and constants against the property type.
extension QueryBinder {
    mutating func bind(_ comparison: PredicateTree.Comparison) throws(ShoalError) -> BoundPredicate {
        var lhs = try operand(comparison.lhs)
        var rhs = try operand(comparison.rhs)
        var op = comparison.op
        if lhs.operand.isConstant && rhs.operand.isConstant {
            throw error("a comparison needs a key path on one side; '\(comparison)' compares two constants",
                at: comparison.source)
        }
        if lhs.operand.isConstant {
            switch op {
            case .equal, .notEqual: break
            case .lessThan: op = .greaterThan
            case .lessThanOrEqual: op = .greaterThanOrEqual
            case .greaterThan: op = .lessThan
            case .greaterThanOrEqual: op = .lessThanOrEqual
            case .in:
                // `'x' IN tags` is `ANY tags == 'x'`.
                guard rhs.isMultiValued else {
                    throw error("'IN' needs a list or a collection on its right, and '\(rhs.text)' is not one", at: rhs.source)
                }
                op = .equal
            default:
                throw error("the left side of '\(op.rawValue)' must be a key path, not the constant \(lhs.text)", at: lhs.source)
            }
            swap(&lhs, &rhs)
        }
        if op == .in {
            guard rhs.isMultiValued || { if case .list = rhs.operand { return true } else { return false } }() else {
                throw error("'IN' needs a list or a collection on its right, and '\(rhs.text)' is not one", at: rhs.source)
            }
        }
        if case .aggregate(.type, _, _) = lhs.operand { return try bindTypeComparison(op, lhs, rhs, comparison) }
        if case .aggregate(.type, _, _) = rhs.operand {
            throw error("'@type' can only be compared with type names, not with '\(lhs.text)'", at: lhs.source)
        }
        try checkRealmRestrictions(op, lhs, rhs, comparison)
        try checkOperator(op, lhs, rhs, comparison)
        try checkTypes(lhs, rhs, op: op)
        rhs.operand = Self.converted(rhs.operand, to: lhs.type)
        conversions.append(lhs.type)
        return .comparison(BoundComparison(lhs: lhs.operand, op: op, rhs: rhs.operand, options: comparison.options,
            modifier: lhs.modifier ?? .anyOf))
    }

    private func checkOperator(_ op: PredicateTree.ComparisonOperator, _ lhs: Typed, _ rhs: Typed,
        _ comparison: PredicateTree.Comparison) throws(ShoalError)
    {
        switch op {
        case .beginsWith, .endsWith, .contains, .like:
            for side in [lhs, rhs] {
                guard let type = side.type else {
                    if side.operand.isConstant { continue }
                    throw error("'\(op.rawValue)' needs string values", at: side.source)
                }
                guard type == .string || type == .data || type == .any else {
                    throw error("'\(op.rawValue)' needs string values, and '\(side.text)' is of type '\(type)'", at: side.source)
                }
            }
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .between:
            if let type = lhs.type, type == .bool || type == .object || type == .linkingObjects {
                throw error("'\(op.rawValue)' cannot order values of type '\(lhs.className ?? type.description)' ('\(lhs.text)')",
                    at: comparison.source)
            }
            if op == .between, case .list(let values) = rhs.operand, values.count != 2 {
                throw error("BETWEEN needs a list of exactly two values", at: rhs.source)
            }
        case .equal, .notEqual, .in:
            break
        }
    }

    /// Checks that the right side's values can be compared with the left side's.
    private func checkTypes(_ lhs: Typed, _ rhs: Typed, op: PredicateTree.ComparisonOperator) throws(ShoalError) {
        guard let lhsType = lhs.type else { return }
        let values: [Value]
        switch rhs.operand {
        case .constant(let value): values = [value]
        case .list(let list): values = list
        default:
            if let rhsType = rhs.type, !Self.compatible(lhsType, lhs.className, rhsType, rhs.className) {
                throw error(
                    "type mismatch: '\(lhs.text)' of type '\(lhs.className ?? lhsType.description)' cannot be compared with '\(rhs.text)' of type '\(rhs.className ?? rhsType.description)'",
                    at: rhs.source)
            }
            return
        }
        for value in values where !value.isNull {
            let (type, className) = typeOf(value)
            guard let type else { continue }
            if case .aggregate(.count, _, _) = lhs.operand, !Self.isNumeric(type) {
                // Realm's words (QueryTests.m testCollectionOperatorErrors).
                throw error("@count can only be compared with a numeric value", at: rhs.source)
            }
            let stringPattern = (op == .beginsWith || op == .endsWith || op == .contains || op == .like) && lhsType == .data && type == .string
            if !stringPattern && !Self.compatible(lhsType, lhs.className, type, className) {
                throw error(
                    "type mismatch: property '\(lhs.text)' of type '\(lhs.className ?? lhsType.description)' cannot be compared with \(value.predicateLiteral) of type '\(className ?? type.description)'",
                    at: rhs.source)
            }
        }
    }

    static func compatible(_ a: PropertyType, _ aClass: String?, _ b: PropertyType, _ bClass: String?) -> Bool {
        if a == .any || b == .any { return true }
        if isNumeric(a) && isNumeric(b) { return true }
        if a == .object && b == .object { return aClass == nil || bClass == nil || aClass == bClass }
        return a == b
    }
}
