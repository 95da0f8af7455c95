import OrderedCollections

/// A bound predicate prepared for one run: comparisons against constants
/// carry a ready ``ValueMatcher``.
indirect enum CompiledPredicate: Sendable {
    case constant(Bool)
    case and([CompiledPredicate])
    case or([CompiledPredicate])
    case not(CompiledPredicate)
    /// The left side's values tested against constants.
    case test(BoundOperand, multiValued: Bool, PredicateTree.CollectionModifier, ValueMatcher)
    /// A comparison whose right side depends on the object (a key path or aggregate).
    case dynamic(BoundComparison)

    init(_ predicate: BoundPredicate) {
        switch predicate {
        case .constant(let value): self = .constant(value)
        case .and(let operands): self = .and(operands.map(CompiledPredicate.init))
        case .or(let operands): self = .or(operands.map(CompiledPredicate.init))
        case .not(let operand): self = .not(CompiledPredicate(operand))
        case .comparison(let c):
            let multi = c.lhs.isMultiValued
            switch c.rhs {
            case .constant(let value): self = .test(c.lhs, multiValued: multi, c.modifier, ValueMatcher(c.op, [value], options: c.options))
            case .list(let values): self = .test(c.lhs, multiValued: multi, c.modifier, ValueMatcher(c.op, values, options: c.options))
            default: self = .dynamic(c)
            }
        }
    }
}

/// Evaluates predicates, key paths and aggregates on one snapshot.
struct QueryEvaluator {
    let snapshot: Snapshot

    func matches(_ predicate: CompiledPredicate, _ object: Value) -> Bool {
        var variables: [Value] = []
        return matches(predicate, object, &variables)
    }

    func matches(_ predicate: CompiledPredicate, _ object: Value, _ variables: inout [Value]) -> Bool {
        switch predicate {
        case .constant(let value): return value
        case .and(let operands):
            for operand in operands where !matches(operand, object, &variables) { return false }
            return true
        case .or(let operands):
            for operand in operands where matches(operand, object, &variables) { return true }
            return false
        case .not(let operand): return !matches(operand, object, &variables)
        case .test(let lhs, let multi, let modifier, let matcher):
            if !multi, case .path(let path) = lhs, path.steps.count == 1, path.root == 0,
                case .property(let property) = path.steps[0], case .link(let link) = object
            {
                return matcher.matches(snapshot.value(property.table, link.key, property.index))
            }
            let values = self.values(of: lhs, object, &variables)
            return Self.quantify(values, multi: multi, modifier) { matcher.matches($0) }
        case .dynamic(let c):
            let lhs = values(of: c.lhs, object, &variables)
            let rhs = values(of: c.rhs, object, &variables)
            let multi = c.lhs.isMultiValued
            if c.op == .in {
                let matcher = ValueMatcher(.in, rhs, options: c.options)
                return Self.quantify(lhs, multi: multi, c.modifier) { matcher.matches($0) }
            }
            let matchers = rhs.map { ValueMatcher(c.op, [$0], options: c.options) }
            return Self.quantify(lhs, multi: multi, c.modifier) { value in matchers.contains { $0.matches(value) } }
        }
    }

    /// Applies `ANY`, `ALL` or `NONE` to the values of a multi-valued side;
    /// a single-valued side holds exactly one value.
    static func quantify(_ values: [Value], multi: Bool, _ modifier: PredicateTree.CollectionModifier,
        _ test: (Value) -> Bool) -> Bool
    {
        guard multi else { return values.first.map(test) ?? false }
        switch modifier {
        case .anyOf: return values.contains(where: test)
        case .allOf: return values.allSatisfy(test)
        case .noneOf: return !values.contains(where: test)
        }
    }

    // MARK: Operands

    func values(of operand: BoundOperand, _ object: Value, _ variables: inout [Value]) -> [Value] {
        switch operand {
        case .constant(let value): return [value]
        case .list(let values): return values
        case .path(let path): return values(of: path, object, variables)
        case .aggregate(.type, let path, _):
            return values(of: path, object, variables).map { .int(MixedTypeName.bit(of: $0)) }
        case .aggregate(let function, let path, let property):
            var elements = values(of: path, object, variables)
            if function == .count { return [.int(Int64(elements.count))] }
            if let property { elements = elements.map { column(property, of: $0) } }
            return [ValueAggregate.compute(function, elements) ?? .null]
        case .subqueryCount(let path, let predicate):
            let compiled = CompiledPredicate(predicate)
            var count = 0
            for element in values(of: path, object, variables) {
                variables.append(element)
                if matches(compiled, object, &variables) { count += 1 }
                variables.removeLast()
            }
            return [.int(Int64(count))]
        }
    }

    /// The values a key path reaches from the object (or from a subquery variable).
    func values(of path: BoundPath, _ object: Value, _ variables: [Value]) -> [Value] {
        let start = path.root == 0 ? object : variables[path.root - 1]
        var out: [Value] = []
        walk(path.steps[...], start, &out)
        return out
    }

    /// One stored property of the object `value` links to; `null` for a null link.
    func column(_ property: BoundProperty, of value: Value) -> Value {
        guard case .link(let link) = value else { return .null }
        return snapshot.value(property.table, link.key, property.index)
    }

    /// Appends the values `steps` reach from `value` to `out`, in the order
    /// a depth-first walk reaches them (each element's values before the
    /// next element's). A null link on the way reaches a null value, as in
    /// Realm (`owner.name == nil`), and no elements of a collection.
    ///
    /// Iterative, so a path of any length runs in the same stack: a key
    /// path has no length limit (a format string of 10,000 hops through a
    /// cycle of links answers). It follows a single value in place while
    /// the steps are to-one, and a list of reached values (in order, those a
    /// null link ended kept as they are) from the first step that fans out.
    private func walk(_ steps: ArraySlice<PathStep>, _ value: Value, _ out: inout [Value]) {
        var current = value
        var index = steps.startIndex
        // To-one steps, one value.
        while index < steps.endIndex {
            let step = steps[index]
            if step.isMixed {
                guard let next = step.mixedValue(of: current) else { break }
                current = next
                index += 1
                continue
            }
            guard case .link(let link) = current else {
                if step.isToOne { out.append(.null) }
                return
            }
            guard let next = toOne(step, link) else { break }
            current = next
            index += 1
        }
        guard index < steps.endIndex else { return out.append(current) }
        // From the first step that fans out: the values reached so far, in
        // order, each with whether a null link has already ended it.
        var reached: [(value: Value, ended: Bool)] = [(current, false)]
        for step in steps[index...] {
            var next: [(value: Value, ended: Bool)] = []
            next.reserveCapacity(reached.count)
            for (value, ended) in reached {
                if ended {
                    next.append((value, true))
                    continue
                }
                if step.isMixed {
                    if let one = step.mixedValue(of: value) { next.append((one, false)) }
                    // `[*]`: a nested collection's elements; nothing for other values.
                    else { for element in value.nestedElements { next.append((element, false)) } }
                    continue
                }
                guard case .link(let link) = value else {
                    if step.isToOne { next.append((.null, true)) }
                    continue
                }
                if let one = toOne(step, link) {
                    next.append((one, false))
                } else {
                    forEachElement(step, link) { next.append(($0, false)) }
                }
            }
            reached = next
        }
        out.reserveCapacity(out.count + reached.count)
        for (value, _) in reached { out.append(value) }
    }

    /// The value a to-one step reaches from the object `link` names; `nil`
    /// for a step that fans out. Fields are read through the snapshot's
    /// accessors, which read the table in place: copying `Table` retains
    /// every column and index.
    private func toOne(_ step: PathStep, _ link: Link) -> Value? {
        switch step {
        case .property(let property): snapshot.value(link.table, link.key, property.index)
        case .mapValue(let property, let key): snapshot.map(link.table, link.key, property.index)[key] ?? .null
        default: nil
        }
    }

    /// Calls `body` with each value a step that fans out reaches from the object `link` names.
    private func forEachElement(_ step: PathStep, _ link: Link, _ body: (Value) -> Void) {
        let (t, k) = (link.table, link.key)
        switch step {
        case .property, .mapValue, .mixedIndex, .mixedLast, .mixedKey, .mixedAll:
            break
        case .elements(let property, let kind):
            if kind == .list {
                for element in snapshot.list(t, k, property.index) { body(element) }
            } else {
                for element in snapshot.set(t, k, property.index) { body(element) }
            }
        case .mapValues(let property):
            for element in snapshot.map(t, k, property.index).values { body(element) }
        case .mapKeys(let property):
            for key in snapshot.map(t, k, property.index).keys { body(.string(key)) }
        case .backlinks(let origin, let property):
            for key in snapshot.backlinks(t, k, origin: origin, property: property) {
                body(.link(Link(table: origin, key: key)))
            }
        case .allBacklinks:
            for backlink in snapshot.withTable(t, { $0.pointee.backlinks[k.slot] }) {
                body(.link(Link(table: backlink.origin, key: backlink.key)))
            }
        }
    }
}

extension PathStep {
    /// Whether the step reaches one value (a property or a map's value for
    /// a key), which is null past a null link.
    fileprivate var isToOne: Bool {
        switch self {
        case .property, .mapValue, .mixedIndex, .mixedLast, .mixedKey: true
        default: false
        }
    }
}
