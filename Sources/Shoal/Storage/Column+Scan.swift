import Foundation

extension Column {
    /// The live slots whose value `matcher` passes, in slot order: the scan
    /// of a comparison of one column with constants.
    ///
    /// `alive` is the table's liveness, or `nil` when every slot holds a
    /// live object (no slot is then looked up). Integer comparisons with integer
    /// constants and exact string equality run over the typed leaves with
    /// no `Value` built, and any comparison of coded strings tests each
    /// distinct string once, then the codes; other comparisons build a
    /// `Value` per live slot.
    func slots(matching matcher: ValueMatcher, alive: Chunks<Bool>?) -> [ObjectKey] {
        @inline(__always) func isLive(_ slot: Int) -> Bool { alive?[slot] ?? true }
        var keys: [ObjectKey] = []
        if nulls == nil, kind == .int, let test = IntegerTest(matcher) {
            ints.forEachLeaf { base, leaf in
                for (offset, x) in leaf.enumerated() where test.passes(x) && isLive(base &+ offset) {
                    keys.append(ObjectKey(Int64(base &+ offset)))
                }
            }
            return keys
        }
        if kind == .codedString, let passing = passingCodes(matcher, tests: count) {
            // The codes read where they are packed, in the loop typed by
            // their width, with no leaf unpacked first.
            passing.withUnsafeBufferPointer { passing in
                var slot = 0
                ints.forEach(from: 0, through: count - 1) { code in
                    if passing[Int(code &+ 1)] && isLive(slot) { keys.append(ObjectKey(Int64(slot))) }
                    slot &+= 1
                    return true
                }
            }
            return keys
        }
        if nulls == nil, kind == .string, let wanted = StringEquality(matcher) {
            forEachSlot(passing: wanted, alive: alive) { keys.append(ObjectKey(Int64($0))) }
            return keys
        }
        for slot in 0..<count where isLive(slot) && matcher.matches(self[slot]) {
            keys.append(ObjectKey(Int64(slot)))
        }
        return keys
    }
}

extension Column {
    /// The number of live slots ``slots(matching:alive:)`` gives, counted
    /// where the values are, with no key listed: for integer comparisons
    /// with integer constants, coded strings, and exact string equality on
    /// plain strings; `nil` for the other comparisons.
    func countSlots(matching matcher: ValueMatcher, alive: Chunks<Bool>?) -> Int? {
        guard count > 0 else { return 0 }
        if nulls == nil, kind == .int, let test = IntegerTest(matcher) {
            guard let alive else { return ints.count(from: 0, through: count - 1, where: test.passes) }
            var matched = 0
            for slot in 0..<count where test.passes(ints[slot]) && alive[slot] { matched &+= 1 }
            return matched
        }
        if nulls == nil, kind == .string, let wanted = StringEquality(matcher) {
            var matched = 0
            forEachSlot(passing: wanted, alive: alive) { _ in matched &+= 1 }
            return matched
        }
        guard kind == .codedString, let passing = passingCodes(matcher, tests: count) else { return nil }
        return passing.withUnsafeBufferPointer { passing in
            if alive == nil, let only = Self.onlyPassing(passing) {
                // One code passes (equality with a string, the usual
                // count): its copies counted in a loop that vectorizes.
                return only < -1 ? 0 : ints.count(equalTo: only)
            }
            guard let alive else { return ints.count(from: 0, through: count - 1) { passing[Int($0 &+ 1)] } }
            var matched = 0
            for slot in 0..<count where passing[Int(ints[slot] &+ 1)] && alive[slot] { matched &+= 1 }
            return matched
        }
    }
}

extension Column {
    /// Calls `found` with each live slot of a plain string column whose
    /// value `wanted` passes, in slot order, reading the bytes in place.
    @inline(__always)
    private func forEachSlot(passing wanted: StringEquality, alive: Chunks<Bool>?, _ found: (Int) -> Void) {
        for (n, leaf) in bytes.leaves.enumerated() {
            let base = n &<< Chunks<UInt8>.bits
            leaf.bytes.withUnsafeBytes { bytes in
                leaf.withEnds { Self.scan(bytes, $0, base: base, wanted, alive, found) } short: { Self.scan(bytes, $0, base: base, wanted, alive, found) }
            }
        }
    }

    /// Calls `found` with the live slots of one string leaf (its first slot
    /// `base`) whose value `wanted` passes, reading the leaf's ends of
    /// either width.
    @inline(__always)
    private static func scan<End: FixedWidthInteger>(
        _ bytes: UnsafeRawBufferPointer, _ ends: UnsafeBufferPointer<End>, base: Int, _ wanted: StringEquality,
        _ alive: Chunks<Bool>?, _ found: (Int) -> Void
    ) {
        var start = 0
        if let (operand, negated) = wanted.single {
            // One constant: lengths first, bytes only when they agree.
            operand.withUnsafeBytes { operand in
                for (offset, end) in ends.enumerated() {
                    let length = Int(end) &- start
                    let equal = length == operand.count
                        && (length == 0 || memcmp(bytes.baseAddress! + start, operand.baseAddress!, length) == 0)
                    start = Int(end)
                    if equal != negated && alive?[base &+ offset] ?? true { found(base &+ offset) }
                }
            }
            return
        }
        for (offset, end) in ends.enumerated() {
            let value = UnsafeRawBufferPointer(rebasing: bytes[start..<Int(end)])
            start = Int(end)
            if wanted.passes(value) && alive?[base &+ offset] ?? true { found(base &+ offset) }
        }
    }
}

extension Column {
    /// The keys among `keys` (live objects) whose value `matcher` passes,
    /// in their order, when the typed leaves can answer (integers compared
    /// with integer constants, exact string equality, no nulls; any
    /// comparison of coded strings, when the keys are at least as many as
    /// the distinct strings); `nil` otherwise, for the caller to test
    /// values one by one.
    func filter(_ keys: [ObjectKey], matching matcher: ValueMatcher) -> [ObjectKey]? {
        if kind == .codedString {
            guard let passing = passingCodes(matcher, tests: keys.count) else { return nil }
            return keys.filter { passing[Int(ints[$0.slot] &+ 1)] }
        }
        guard nulls == nil else { return nil }
        if kind == .int, let test = IntegerTest(matcher) {
            return keys.filter { test.passes(ints[$0.slot]) }
        }
        if kind == .string, let wanted = StringEquality(matcher) {
            return keys.filter { key in bytes.withBytes(key.slot) { wanted.passes($0) } }
        }
        return nil
    }
}

extension Column {
    /// The code (from -1, null) of the one entry of `passing` (by code + 1)
    /// that is true; -2 when none is, `nil` when several are.
    private static func onlyPassing(_ passing: UnsafeBufferPointer<Bool>) -> Int64? {
        var only: Int64 = -2
        for (i, passes) in passing.enumerated() where passes {
            guard only == -2 else { return nil }
            only = Int64(i) - 1
        }
        return only
    }

    /// Whether `matcher` passes each code of a coded string column, by code
    /// + 1 (index 0 is null): the matcher's own decision, made once per
    /// distinct string. `nil` when the dictionary holds more strings than
    /// the `tests` values a scan would test one by one.
    fileprivate func passingCodes(_ matcher: ValueMatcher, tests: Int) -> [Bool]? {
        guard let dictionary, dictionary.count <= tests else { return nil }
        return [matcher.matches(.null)] + dictionary.passing(matcher.matches)
    }
}

/// A comparison of integers with integer constants, as ``ValueMatcher``
/// decides it for `.int` values: the typed form a column scan runs.
struct IntegerTest {
    private let op: PredicateTree.ComparisonOperator
    private let operands: [Int64]

    /// The test `matcher` makes of integers, or `nil` when it is not one of
    /// integer constants (or has options, or an empty list).
    init?(_ matcher: ValueMatcher) {
        guard matcher.options.isEmpty, !matcher.operands.isEmpty else { return nil }
        var operands: [Int64] = []
        for v in matcher.operands {
            guard case .int(let n) = v else { return nil }
            operands.append(n)
        }
        switch matcher.op {
        case .equal, .notEqual, .in, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual: break
        case .between: guard operands.count == 2 else { return nil }
        default: return nil
        }
        self.op = matcher.op
        self.operands = operands
    }

    @inline(__always)
    func passes(_ x: Int64) -> Bool {
        switch op {
        case .equal: x == operands[0]
        case .notEqual: x != operands[0]
        case .in: operands.contains(x)
        case .lessThan: x < operands[0]
        case .lessThanOrEqual: x <= operands[0]
        case .greaterThan: x > operands[0]
        case .greaterThanOrEqual: x >= operands[0]
        case .between: x >= operands[0] && x <= operands[1]
        default: false
        }
    }
}

/// Exact (byte) equality of strings with string constants, as
/// ``ValueMatcher`` decides `==`, `!=` and `IN` without options.
struct StringEquality {
    private let negated: Bool
    private let operands: [[UInt8]]

    init?(_ matcher: ValueMatcher) {
        guard matcher.options.isEmpty, !matcher.operands.isEmpty else { return nil }
        switch matcher.op {
        case .equal, .in: negated = false
        case .notEqual: negated = true
        default: return nil
        }
        var operands: [[UInt8]] = []
        for v in matcher.operands.prefix(matcher.op == .in ? matcher.operands.count : 1) {
            guard case .string(let s) = v else { return nil }
            operands.append(Array(s.utf8))
        }
        self.operands = operands
    }

    /// The one constant and whether the test is `!=`, when there is one
    /// constant.
    var single: (operand: [UInt8], negated: Bool)? {
        operands.count == 1 ? (operands[0], negated) : nil
    }

    @inline(__always)
    func passes(_ value: UnsafeRawBufferPointer) -> Bool {
        var equal = false
        for operand in operands where operand.count == value.count {
            if operand.isEmpty || operand.withUnsafeBytes({ memcmp($0.baseAddress!, value.baseAddress!, value.count) == 0 }) {
                equal = true
                break
            }
        }
        return equal != negated
    }
}
