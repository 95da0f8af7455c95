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
        // By prefix first, with a stable LSD radix sort (a byte a pass, a
        // pass skipped where every prefix has the same byte): equal
        // prefixes stay in collection order. A comparison sort spent
        // about 150 ns an element here.
        var order = Self.radixOrder(entries.map { ascending ? $0.prefix : ~$0.prefix })
        // Then each run of equal prefixes by the rest of the bytes.
        flat.withUnsafeBufferPointer { flat in
            let base = flat.baseAddress
            order.withUnsafeMutableBufferPointer { order in
                var start = 0
                while start < order.count {
                    let prefix = entries[Int(order[start])].prefix
                    var end = start + 1
                    while end < order.count && entries[Int(order[end])].prefix == prefix { end += 1 }
                    if end - start > 1 {
                        var run = UnsafeMutableBufferPointer(rebasing: order[start..<end])
                        run.sort { i, j in
                            let a = entries[Int(i)], b = entries[Int(j)]
                            let n = Swift.min(a.count, b.count)
                            var order = n <= 8 ? 0 : Int(memcmp(base! + a.start + 8, base! + b.start + 8, n - 8))
                            if order == 0 { order = a.count < b.count ? -1 : (a.count == b.count ? 0 : 1) }
                            if order == 0 { return a.position < b.position }
                            return (order < 0) == ascending
                        }
                    }
                    start = end
                }
            }
        }
        return order.map { elements[Int($0)] }
    }

    /// The positions of `keys` in ascending key order, equal keys in
    /// position order: a least-significant-byte-first radix sort.
    static func radixOrder(_ keys: [UInt64]) -> [Int32] {
        var order = (0..<Int32(keys.count)).map { $0 }
        var scratch = order
        keys.withUnsafeBufferPointer { keys in
            for shift in stride(from: 0, to: 64, by: 8) {
                var counts = [Int](repeating: 0, count: 257)
                for key in keys { counts[Int((key &>> UInt64(shift)) & 0xff) + 1] += 1 }
                // One bucket holding everything: this byte orders nothing.
                if counts.contains(keys.count) { continue }
                for b in 1..<257 { counts[b] += counts[b - 1] }
                for i in order {
                    let b = Int((keys[Int(i)] &>> UInt64(shift)) & 0xff)
                    scratch[counts[b]] = i
                    counts[b] += 1
                }
                swap(&order, &scratch)
            }
        }
        return order
    }
}

