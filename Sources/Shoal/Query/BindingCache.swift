import Foundation

/// Bound predicates kept by the shape of the tree they were bound from: a
/// query whose tree differs from one bound before only in its constants'
/// values, kind for kind (the same format run again with new arguments, as
/// in a loop), is not bound again. Its bound predicate is the kept one with
/// the new values put in.
///
/// Binding depends on a constant only through its kind (``Value/kindName``,
/// and for an object the table its link names): the kind decides which type
/// checks pass, where `typeOf` takes a list's type from (its first value
/// that is not null), and whether a `double` becomes a `float` (when a
/// `float` property takes it). Every other part of the tree (key paths,
/// operators, options, subqueries, aggregates) is compared whole. So a kept
/// predicate serves exactly the trees that would bind to it, and a tree
/// that would fail to bind is never kept (binding throws first).
///
/// One cache belongs to each ``RealmCoordinator``: binding also depends on
/// the schema, which is the coordinator's for its whole life. A kept
/// predicate holds no string or data value of the tree it came from (they
/// are emptied), and trees with many constants (a long `IN` list) are not
/// kept, so the cache keeps no large value alive.
final class BindingCache: Sendable {
    /// Most predicates kept: the cache empties when it reaches this many, so
    /// that trees made anew each time cannot grow it without bound.
    let capacity: Int
    /// Most constants (list elements included) in a tree whose binding is kept.
    let maximumConstants: Int
    private let cache = Locked<[Key: BoundPredicate]>([:])

    /// A tree's shape and what it is bound against.
    private struct Key: Hashable, Sendable {
        let shape: PredicateShape
        let root: QueryBinder.Root
    }

    init(capacity: Int = 256, maximumConstants: Int = 64) {
        self.capacity = capacity
        self.maximumConstants = maximumConstants
    }

    /// The bound form of `tree` against `root`: the kept predicate of its
    /// shape with `tree`'s values put in, or else what `bind` gives (kept
    /// for the next tree of the shape).
    func bound(_ tree: PredicateTree, root: QueryBinder.Root,
        bind: () throws(ShoalError) -> BoundPredicate) throws(ShoalError) -> BoundPredicate
    {
        let shape = PredicateShape(tree)
        guard shape.constantCount <= maximumConstants else { return try bind() }
        let key = Key(shape: shape, root: root)
        if let kept = cache.withLock({ $0[key] }), let bound = kept.substituting(tree) { return bound }
        let bound = try bind()
        let stored = Key(shape: PredicateShape(tree.withValuesEmptied()), root: root)
        let template = bound.withValuesEmptied()
        cache.withLock { cache in
            if cache[stored] == nil, cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
            cache[stored] = template
        }
        return bound
    }

    /// The number of predicates kept.
    var count: Int { cache.withLock { $0.count } }

    /// The kept predicates, in no order (for tests).
    var kept: [BoundPredicate] { cache.withLock { Array($0.values) } }
}

/// A predicate tree compared and hashed with each constant taken by its
/// kind only (see ``BindingCache``).
struct PredicateShape: Hashable, Sendable {
    let tree: PredicateTree
    /// The constants the tree holds, list elements included.
    let constantCount: Int

    init(_ tree: PredicateTree) {
        self.tree = tree
        constantCount = tree.constantCount
    }

    static func == (lhs: PredicateShape, rhs: PredicateShape) -> Bool {
        lhs.constantCount == rhs.constantCount && lhs.tree.hasShape(of: rhs.tree)
    }

    func hash(into hasher: inout Hasher) {
        tree.hashShape(into: &hasher)
    }
}

extension Value {
    /// What binding depends on of this value: its kind, and for an object
    /// the table its link names (the binder checks the class).
    fileprivate var bindingKind: Int {
        if case .link(let link) = self { return 16 + link.table.index }
        return switch self {
        case .null: 0
        case .bool: 1
        case .int: 2
        case .float: 3
        case .double: 4
        case .string: 5
        case .data: 6
        case .date: 7
        case .objectId: 8
        case .decimal: 9
        case .uuid: 10
        case .link: 11
        }
    }

    /// The value with what it holds on the heap dropped, kind kept: what a
    /// kept shape or predicate holds.
    fileprivate var emptied: Value {
        switch self {
        case .string: .string("")
        case .data: .data(Data())
        default: self
        }
    }

    /// This value as binding would leave `given`, a value of the tree's of
    /// the same kind as the one this (bound) value came from: as it is, or
    /// a `double` made `float` where the binder made this one `float`.
    /// `nil` when the two do not correspond.
    fileprivate func bindingSubstitute(_ given: Value) -> Value? {
        if given.bindingKind == bindingKind { return given }
        if case .float = self, case .double(let d) = given { return .float(Float(d)) }
        return nil
    }
}

extension PredicateTree {
    fileprivate var constantCount: Int {
        switch self {
        case .truePredicate, .falsePredicate: 0
        case .and(let operands), .or(let operands): operands.reduce(0) { $0 + $1.constantCount }
        case .not(let operand): operand.constantCount
        case .comparison(let c): c.lhs.constantCount + c.rhs.constantCount
        }
    }

    fileprivate func hasShape(of other: PredicateTree) -> Bool {
        switch (self, other) {
        case (.truePredicate, .truePredicate), (.falsePredicate, .falsePredicate): true
        case (.and(let a), .and(let b)), (.or(let a), .or(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.hasShape(of: $1) }
        case (.not(let a), .not(let b)): a.hasShape(of: b)
        case (.comparison(let a), .comparison(let b)):
            a.op == b.op && a.options == b.options && a.lhs.hasShape(of: b.lhs) && a.rhs.hasShape(of: b.rhs)
        default: false
        }
    }

    fileprivate func hashShape(into hasher: inout Hasher) {
        switch self {
        case .truePredicate: hasher.combine(0)
        case .falsePredicate: hasher.combine(1)
        case .and(let operands), .or(let operands):
            if case .and = self { hasher.combine(2) } else { hasher.combine(3) }
            hasher.combine(operands.count)
            for operand in operands { operand.hashShape(into: &hasher) }
        case .not(let operand):
            hasher.combine(4)
            operand.hashShape(into: &hasher)
        case .comparison(let c):
            hasher.combine(5)
            hasher.combine(c.op)
            hasher.combine(c.options.rawValue)
            c.lhs.hashShape(into: &hasher)
            c.rhs.hashShape(into: &hasher)
        }
    }

    /// The tree with its string and data constants emptied (see ``Value/emptied``).
    fileprivate func withValuesEmptied() -> PredicateTree {
        switch self {
        case .truePredicate, .falsePredicate: return self
        case .and(let operands): return .and(operands.map { $0.withValuesEmptied() })
        case .or(let operands): return .or(operands.map { $0.withValuesEmptied() })
        case .not(let operand): return .not(operand.withValuesEmptied())
        case .comparison(var c):
            c.lhs = c.lhs.withValuesEmptied()
            c.rhs = c.rhs.withValuesEmptied()
            return .comparison(c)
        }
    }
}

extension PredicateTree.Expression {
    fileprivate var constantCount: Int {
        switch self {
        case .constant: 1
        case .list(let list): list.elements.count
        case .keyPath, .collectionOperation: 0
        case .subqueryCount(let subquery): subquery.predicate.constantCount
        }
    }

    fileprivate func hasShape(of other: PredicateTree.Expression) -> Bool {
        switch (self, other) {
        case (.constant(let a), .constant(let b)): a.value.bindingKind == b.value.bindingKind
        case (.list(let a), .list(let b)):
            a.elements.count == b.elements.count
                && zip(a.elements, b.elements).allSatisfy { $0.value.bindingKind == $1.value.bindingKind }
        case (.keyPath(let a), .keyPath(let b)): a == b
        case (.collectionOperation(let a), .collectionOperation(let b)): a == b
        case (.subqueryCount(let a), .subqueryCount(let b)):
            a.collection == b.collection && a.variable == b.variable && a.predicate.hasShape(of: b.predicate)
        default: false
        }
    }

    fileprivate func hashShape(into hasher: inout Hasher) {
        switch self {
        case .constant(let constant):
            hasher.combine(0)
            hasher.combine(constant.value.bindingKind)
        case .list(let list):
            hasher.combine(1)
            hasher.combine(list.elements.count)
            for element in list.elements { hasher.combine(element.value.bindingKind) }
        case .keyPath(let keyPath):
            hasher.combine(2)
            hasher.combine(keyPath)
        case .collectionOperation(let operation):
            hasher.combine(3)
            hasher.combine(operation)
        case .subqueryCount(let subquery):
            hasher.combine(4)
            hasher.combine(subquery.collection)
            hasher.combine(subquery.variable)
            subquery.predicate.hashShape(into: &hasher)
        }
    }

    fileprivate func withValuesEmptied() -> PredicateTree.Expression {
        switch self {
        case .constant(var constant):
            constant.value = constant.value.emptied
            return .constant(constant)
        case .list(var list):
            for i in list.elements.indices { list.elements[i].value = list.elements[i].value.emptied }
            return .list(list)
        case .keyPath, .collectionOperation: return self
        case .subqueryCount(var subquery):
            subquery.predicate = subquery.predicate.withValuesEmptied()
            return .subqueryCount(subquery)
        }
    }

    /// Whether binding moves this operand to the right of its comparison.
    fileprivate var isConstant: Bool {
        switch self {
        case .constant, .list: true
        default: false
        }
    }
}

extension BoundPredicate {
    /// This predicate, bound from a tree of `tree`'s shape, with `tree`'s
    /// values where that tree's were, as binding `tree` would give it; `nil`
    /// if the two do not correspond (which a shape's equality rules out).
    ///
    /// Binding keeps the tree's structure: a comparison's sides stay in
    /// place unless the left one is a constant, which moves right.
    fileprivate func substituting(_ tree: PredicateTree) -> BoundPredicate? {
        switch (self, tree) {
        case (.constant(true), .truePredicate), (.constant(false), .falsePredicate): return self
        case (.and(let bound), .and(let trees)), (.or(let bound), .or(let trees)):
            guard bound.count == trees.count else { return nil }
            var operands: [BoundPredicate] = []
            operands.reserveCapacity(bound.count)
            for (b, t) in zip(bound, trees) {
                guard let operand = b.substituting(t) else { return nil }
                operands.append(operand)
            }
            if case .and = self { return .and(operands) }
            return .or(operands)
        case (.not(let bound), .not(let tree)): return bound.substituting(tree).map { .not($0) }
        case (.comparison(var bound), .comparison(let tree)):
            let (left, right) = tree.lhs.isConstant ? (tree.rhs, tree.lhs) : (tree.lhs, tree.rhs)
            guard let lhs = bound.lhs.substituting(left), let rhs = bound.rhs.substituting(right) else { return nil }
            bound.lhs = lhs
            bound.rhs = rhs
            return .comparison(bound)
        default: return nil
        }
    }

    /// The predicate with its string and data constants emptied.
    fileprivate func withValuesEmptied() -> BoundPredicate {
        switch self {
        case .constant: return self
        case .and(let operands): return .and(operands.map { $0.withValuesEmptied() })
        case .or(let operands): return .or(operands.map { $0.withValuesEmptied() })
        case .not(let operand): return .not(operand.withValuesEmptied())
        case .comparison(var c):
            c.lhs = c.lhs.withValuesEmptied()
            c.rhs = c.rhs.withValuesEmptied()
            return .comparison(c)
        }
    }
}

extension BoundOperand {
    fileprivate func substituting(_ tree: PredicateTree.Expression) -> BoundOperand? {
        switch (self, tree) {
        case (.constant(let bound), .constant(let given)):
            return bound.bindingSubstitute(given.value).map { .constant($0) }
        case (.list(let bound), .list(let given)):
            guard bound.count == given.elements.count else { return nil }
            var values: [Value] = []
            values.reserveCapacity(bound.count)
            for (b, g) in zip(bound, given.elements) {
                guard let value = b.bindingSubstitute(g.value) else { return nil }
                values.append(value)
            }
            return .list(values)
        case (.path, .keyPath), (.aggregate, .collectionOperation): return self
        case (.subqueryCount(let path, let bound), .subqueryCount(let given)):
            return bound.substituting(given.predicate).map { .subqueryCount(path, $0) }
        default: return nil
        }
    }

    fileprivate func withValuesEmptied() -> BoundOperand {
        switch self {
        case .constant(let value): .constant(value.emptied)
        case .list(let values): .list(values.map(\.emptied))
        case .path, .aggregate: self
        case .subqueryCount(let path, let predicate): .subqueryCount(path, predicate.withValuesEmptied())
        }
    }
}
