import Foundation

extension OrderingStep {
    /// Objects sorted by one string property of their own table with no
    /// nulls, compared in place in the column's bytes: the fast form of
    /// ``sort(_:_:_:)`` for the usual `sorted(byKeyPath: "name")`, which
    /// builds no `String`. `nil` when the sort is not of that shape.
    ///
    /// A coded column sorts by rank (`sortByCodes`). Of a plain one, the bytes are taken eight at a time, big-endian in an integer (zero
    /// past a string's end), and radix sorted a level at a time (see
    /// `sortLevel`); small runs of equal bytes compare the whole bytes
    /// (shorter first on a common prefix, as `Value.compareStrings` does),
    /// and equal strings keep their order.
    static func sortByStringColumn(_ elements: [Value], _ key: SortKey, _ snapshot: Snapshot) -> [Value]? {
        guard key.path.steps.count == 1, let step = key.path.steps.first else { return nil }
        let column = snapshot.withTable(step.table) { $0.pointee.scalars[step.index] }
        if column.kind == .codedString { return sortByCodes(elements, column, table: step.table, ascending: key.ascending) }
        guard column.nulls == nil, column.kind == .string else { return nil }
        let strings = column.bytes
        // Every element's bytes copied into one buffer, so that comparing
        // two reads one pointer, not two leaves through their arrays.
        // (Both bound as constants once filled: the closures below read
        // them per comparison, and a captured variable is checked for
        // exclusive access on every read.)
        let flat: [UInt8], entries: [(start: Int, count: Int)]
        do {
            var bytesSoFar: [UInt8] = []
            bytesSoFar.reserveCapacity(elements.count * 16)
            // Each element's bytes in `flat`, by position.
            var entriesSoFar: [(start: Int, count: Int)] = []
            entriesSoFar.reserveCapacity(elements.count)
            for element in elements {
                guard case .link(let link) = element, link.table == step.table, link.key.slot < strings.count else { return nil }
                let bytes = strings.unsafeBytes(link.key.slot)
                entriesSoFar.append((bytesSoFar.count, bytes.count))
                bytesSoFar.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
            }
            (flat, entries) = (bytesSoFar, entriesSoFar)
        }
        let ascending = key.ascending
        // (Every string empty: all equal, in their order.)
        guard elements.count > 1, !flat.isEmpty else { return elements }
        let before = { (i: Int32, j: Int32) -> Bool in
            // Two strings of one run: their first eight bytes are equal.
            let a = entries[Int(i)], b = entries[Int(j)]
            let n = Swift.min(a.count, b.count)
            var order = n <= 8 ? 0 : flat.withUnsafeBufferPointer { Int(memcmp($0.baseAddress! + a.start + 8, $0.baseAddress! + b.start + 8, n - 8)) }
            if order == 0 { order = a.count < b.count ? -1 : (a.count == b.count ? 0 : 1) }
            if order == 0 { return i < j }
            return (order < 0) == ascending
        }
        /// Eight bytes of the string at `a` in `flat` from `offset`, big-endian, zero past its end.
        func chunk(_ flat: UnsafePointer<UInt8>, _ a: (start: Int, count: Int), at offset: Int) -> UInt64 {
            if a.count >= offset + 8 { return UInt64(bigEndian: UnsafeRawPointer(flat + a.start + offset).loadUnaligned(as: UInt64.self)) }
            var p: UInt64 = 0
            for i in 0..<8 { p = p << 8 | UInt64(offset + i < a.count ? flat[a.start + offset + i] : 0) }
            return p
        }
        /// Sorts `run`, whose strings share their first `8 × depth` bytes,
        /// by the next eight with a stable radix sort; each run of those
        /// equal is sorted by comparing when it is small or has no more
        /// bytes, else left in `deeper` for the next level. A comparison
        /// sort spent about 150 ns an element here. The levels go through
        /// a work list, not recursion: strings sharing a prefix of n bytes
        /// take n / 8 levels, which would recurse past any thread's stack.
        func sortLevel(_ run: UnsafeMutableBufferPointer<Int32>, depth: Int,
            _ deeper: inout [(run: UnsafeMutableBufferPointer<Int32>, depth: Int)])
        {
            // (Both buffers bound once for the whole run, not per element.)
            var pairs = flat.withUnsafeBufferPointer { flat in
                entries.withUnsafeBufferPointer { entries in
                    run.map { i -> (key: UInt64, position: Int32) in
                        let key = chunk(flat.baseAddress!, entries[Int(i)], at: 8 * depth)
                        return (ascending ? key : ~key, i)
                    }
                }
            }
            // A radix sort costs its passes whatever the run's size: small
            // runs (the strings that share a prefix) compare instead.
            if pairs.count < 64 {
                pairs.sort { ($0.key, $0.position) < ($1.key, $1.position) }
            } else {
                Self.radixSort(&pairs)
            }
            var start = 0
            while start < pairs.count {
                var end = start + 1
                while end < pairs.count && pairs[end].key == pairs[start].key { end += 1 }
                for i in start..<end { run[i] = pairs[i].position }
                if end - start > 1 {
                    var equal = UnsafeMutableBufferPointer(rebasing: run[start..<end])
                    if end - start >= 16 && equal.contains(where: { entries[Int($0)].count > 8 * (depth + 1) }) {
                        deeper.append((equal, depth + 1))
                    } else {
                        equal.sort(by: before)
                    }
                }
                start = end
            }
        }
        var order = (0..<Int32(entries.count)).map { $0 }
        order.withUnsafeMutableBufferPointer { all in
            // Each run is its own part of `order`: they sort in any order.
            var pending = [(run: all, depth: 0)]
            while let (run, depth) = pending.popLast() { sortLevel(run, depth: depth, &pending) }
        }
        return order.map { elements[Int($0)] }
    }

    /// Objects sorted by a coded string column (``Column/Kind/codedString``)
    /// of their table: by the rank of each one's code in the dictionary's
    /// string order, with a radix sort of the ranks, equal strings keeping
    /// their order. `nil` when an element is not an object of `table` or
    /// holds null (which the general sort places), or when there are far
    /// fewer elements than distinct strings and no ranks yet (ranking the
    /// whole dictionary would cost more than comparing the elements' strings).
    private static func sortByCodes(_ elements: [Value], _ column: Column, table: TableKey, ascending: Bool) -> [Value]? {
        guard let dictionary = column.dictionary, dictionary.hasRanks || elements.count * 4 >= dictionary.count else { return nil }
        let ranks = dictionary.ranks()
        var pairs: [(key: UInt64, position: Int32)] = []
        pairs.reserveCapacity(elements.count)
        for (position, element) in elements.enumerated() {
            guard case .link(let link) = element, link.table == table, link.key.slot < column.count else { return nil }
            let code = column.ints[link.key.slot]
            guard code >= 0 else { return nil }
            let rank = UInt64(ranks[Int(code)])
            pairs.append((ascending ? rank : ~rank, Int32(position)))
        }
        radixSort(&pairs)
        return pairs.map { elements[Int($0.position)] }
    }

    /// Sorts `pairs` by key, stably: a least-significant-byte-first radix
    /// sort, a byte a pass, skipping each byte every key shares (found in
    /// one pass first).
    static func radixSort(_ pairs: inout [(key: UInt64, position: Int32)]) {
        let n = pairs.count
        guard n > 1 else { return }
        // The bits in which some key differs from the first.
        let varying = pairs.withUnsafeBufferPointer { pairs in
            pairs.reduce(UInt64(0)) { $0 | ($1.key ^ pairs[0].key) }
        }
        var scratch = pairs
        var counts = [Int](repeating: 0, count: 257)
        counts.withUnsafeMutableBufferPointer { counts in
            for shift in stride(from: UInt64(0), to: 64, by: 8) where (varying &>> shift) & 0xff != 0 {
                for b in 0..<257 { counts[b] = 0 }
                pairs.withUnsafeBufferPointer { from in
                    for pair in from { counts[Int((pair.key &>> shift) & 0xff) &+ 1] &+= 1 }
                }
                for b in 1..<257 { counts[b] &+= counts[b &- 1] }
                pairs.withUnsafeBufferPointer { from in
                    scratch.withUnsafeMutableBufferPointer { to in
                        for pair in from {
                            let b = Int((pair.key &>> shift) & 0xff)
                            to[counts[b]] = pair
                            counts[b] &+= 1
                        }
                    }
                }
                swap(&pairs, &scratch)
            }
        }
    }
}
