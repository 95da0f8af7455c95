/// The values of one property for a run of inserted objects (an insert run
/// of the log, a run of a snapshot), held in pieces of ``PersistentVector``'s
/// leaf width.
///
/// Appended to a column at a leaf boundary, which is where bulk inserts and
/// loaded snapshots append, the pieces become the column's leaves as they
/// are (``PersistentVector/append(leaves:)``): no value is copied, and none
/// is destroyed when the run is done with.
struct RunColumn: RandomAccessCollection, MutableCollection, Equatable, Sendable, ExpressibleByArrayLiteral {
    private static var bits: Int { PersistentVector<Value>.bits }
    private static var mask: Int { PersistentVector<Value>.mask }

    /// The values in order, in pieces of the leaf width (the last may be
    /// shorter).
    private(set) var leaves: [ContiguousArray<Value>] = []
    private(set) var count = 0
    /// The values as a typed column, when a decoder made them so
    /// (``isTyped``; `leaves` is then empty): appended to the table's
    /// column leaf by leaf, with no `Value` made per value. (Optional, so
    /// that a run column made otherwise does not make an empty column: a
    /// column's many empty vectors made a measurable part of decoding.)
    private var typedColumn: Column?

    /// The typed column; only when ``isTyped``.
    var typed: Column { typedColumn! }
    var isTyped: Bool { typedColumn != nil }

    init() {}

    /// A run column holding `column`'s values, in its typed form.
    init(typed column: consuming Column) {
        typedColumn = column
        count = column.count
    }

    init(arrayLiteral values: Value...) { self.init(values) }

    init(_ values: some Sequence<Value>) {
        for v in values { append(v) }
    }

    init(repeating value: Value, count: Int) {
        leaves.reserveCapacity((count + Self.mask) >> Self.bits)
        var left = count
        while left > 0 {
            let n = Swift.min(left, Self.mask + 1)
            leaves.append(ContiguousArray(repeating: value, count: n))
            left -= n
        }
        self.count = count
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(i: Int) -> Value {
        get {
            precondition(i >= 0 && i < count, "run column index \(i) out of range 0..<\(count)")
            if isTyped { return typedColumn![i] }
            return leaves[i >> Self.bits][i & Self.mask]
        }
        set {
            precondition(i >= 0 && i < count, "run column index \(i) out of range 0..<\(count)")
            if isTyped {
                typedColumn!.set(i, newValue)
                return
            }
            leaves[i >> Self.bits][i & Self.mask] = newValue
        }
    }

    /// Whether a value may be a link: a scan of the values, or only the
    /// typed column's kind.
    var mayHoldLinks: Bool {
        if isTyped { return typedColumn!.kind == .link || typedColumn!.kind == .values }
        return contains { $0.linkValue != nil }
    }

    /// Turns a typed run column into pieces of values, before a change
    /// other than a set.
    private mutating func makeUntyped() {
        guard isTyped else { return }
        let column = typed
        self = RunColumn()
        for i in 0..<column.count { append(column[i]) }
    }

    mutating func append(_ value: Value) {
        makeUntyped()
        if count & Self.mask == 0 {
            var leaf = ContiguousArray<Value>()
            leaf.reserveCapacity(Self.mask + 1)
            leaves.append(leaf)
        }
        leaves[leaves.count - 1].append(value)
        count += 1
    }

    /// Appends a piece of values whole, where a piece starts (the count a
    /// multiple of the leaf width): the fast form of ``append(_:)`` for
    /// decoders, which fill a piece at a time.
    mutating func append(leaf: ContiguousArray<Value>) {
        makeUntyped()
        precondition(count & Self.mask == 0 && leaf.count <= Self.mask + 1, "a piece of \(leaf.count) appended at \(count)")
        guard !leaf.isEmpty else { return }
        leaves.append(leaf)
        count += leaf.count
    }

    /// The leaf width: the most values a piece holds.
    static var leafWidth: Int { mask + 1 }

    @discardableResult
    mutating func removeLast() -> Value {
        precondition(count > 0, "removeLast on an empty run column")
        makeUntyped()
        count -= 1
        let value = leaves[leaves.count - 1].removeLast()
        if leaves[leaves.count - 1].isEmpty { leaves.removeLast() }
        return value
    }

    static func == (a: RunColumn, b: RunColumn) -> Bool {
        a.count == b.count && a.elementsEqual(b)
    }
}
