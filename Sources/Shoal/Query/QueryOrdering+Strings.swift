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
        // Every element's bytes copied into one buffer, so that comparing
        // two reads one pointer, not two leaves through their arrays.
        var flat: [UInt8] = []
        var entries: [(prefix: UInt64, start: Int, count: Int, position: Int)] = []
        entries.reserveCapacity(elements.count)
        for (position, element) in elements.enumerated() {
            guard case .link(let link) = element, link.table == step.table, link.key.slot < strings.count else { return nil }
            let start = flat.count
            let prefix = strings.withBytes(link.key.slot) { bytes -> UInt64 in
                flat.append(contentsOf: bytes)
                var p: UInt64 = 0
                for i in 0..<8 { p = p << 8 | UInt64(i < bytes.count ? bytes[i] : 0) }
                return p
            }
            entries.append((prefix, start, flat.count - start, position))
        }
        let ascending = key.ascending
        flat.withUnsafeBufferPointer { flat in
            let base = flat.baseAddress
            entries.sort { a, b in
                if a.prefix != b.prefix { return (a.prefix < b.prefix) == ascending }
                let n = Swift.min(a.count, b.count)
                var order = n <= 8 ? 0 : Int(memcmp(base! + a.start + 8, base! + b.start + 8, n - 8))
                if order == 0 { order = a.count < b.count ? -1 : (a.count == b.count ? 0 : 1) }
                if order == 0 { return a.position < b.position }
                return (order < 0) == ascending
            }
        }
        return entries.map { elements[$0.position] }
    }
}
