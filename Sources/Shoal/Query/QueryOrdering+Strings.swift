import Foundation

extension OrderingStep {
    /// Objects sorted by one string property of their own table with no
    /// nulls, compared in place in the column's bytes: the fast form of
    /// ``sort(_:_:_:)`` for the usual `sorted(byKeyPath: "name")`, which
    /// builds no `String`. `nil` when the sort is not of that shape.
    ///
    /// Each object's first eight bytes, big-endian in an integer, decide
    /// most comparisons; equal prefixes compare the whole bytes (shorter
    /// first on a common prefix, as `Value.compareStrings` does), and equal
    /// strings keep their order.
    static func sortByStringColumn(_ elements: [Value], _ key: SortKey, _ snapshot: Snapshot) -> [Value]? {
        guard key.path.steps.count == 1, let step = key.path.steps.first else { return nil }
        let column = snapshot.withTable(step.table) { $0.pointee.scalars[step.index] }
        guard column.nulls == nil, column.kind == .string else { return nil }
        let strings = column.bytes
        var entries: [(prefix: UInt64, slot: Int32, position: Int32)] = []
        entries.reserveCapacity(elements.count)
        for (position, element) in elements.enumerated() {
            guard case .link(let link) = element, link.table == step.table, link.key.slot < strings.count,
                  link.key.slot <= Int(Int32.max), position <= Int(Int32.max)
            else { return nil }
            let prefix = strings.withBytes(link.key.slot) { bytes -> UInt64 in
                var p: UInt64 = 0
                for i in 0..<8 { p = p << 8 | UInt64(i < bytes.count ? bytes[i] : 0) }
                return p
            }
            entries.append((prefix, Int32(link.key.slot), Int32(position)))
        }
        let ascending = key.ascending
        entries.sort { a, b in
            if a.prefix != b.prefix { return (a.prefix < b.prefix) == ascending }
            let order = strings.withBytes(Int(a.slot)) { x in
                strings.withBytes(Int(b.slot)) { y in
                    let n = Swift.min(x.count, y.count)
                    let c = n == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, n)
                    return c != 0 ? c : (x.count < y.count ? -1 : (x.count == y.count ? 0 : 1))
                }
            }
            if order == 0 { return a.position < b.position }
            return (order < 0) == ascending
        }
        return entries.map { elements[Int($0.position)] }
    }
}
