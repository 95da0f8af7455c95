/// An ordered sequence stored as chunks of at most ``maxChunk`` elements,
/// so that inserting or removing in the middle moves one chunk's elements,
/// not the whole sequence: what a notifier's kept order and a section's
/// members need at a million elements.
///
/// Finding position `i` walks the chunks' counts (O(n / chunk size), a few
/// hundred integers at a million elements); editing costs that plus a move
/// inside one chunk.
struct ChunkedArray<Element>: Sequence {
    static var maxChunk: Int { 2048 }

    private(set) var chunks: [ContiguousArray<Element>] = []
    private(set) var count = 0

    init() {}

    init<S: Sequence>(_ elements: S) where S.Element == Element {
        var chunk = ContiguousArray<Element>()
        chunk.reserveCapacity(Self.maxChunk / 2)
        for element in elements {
            chunk.append(element)
            if chunk.count == Self.maxChunk / 2 {
                chunks.append(chunk)
                chunk = []
                chunk.reserveCapacity(Self.maxChunk / 2)
            }
        }
        if !chunk.isEmpty { chunks.append(chunk) }
        count = chunks.reduce(0) { $0 + $1.count }
    }

    var isEmpty: Bool { count == 0 }

    /// The chunk holding position `index` and the offset in it; for
    /// `index == count`, the end of the last chunk (or 0, 0 when empty).
    func locate(_ index: Int) -> (chunk: Int, offset: Int) {
        let (chunk, offset) = flatLocate(index, in: chunks) { $0.count }
        guard chunk == chunks.count else { return (chunk, offset) }
        return chunks.isEmpty ? (0, 0) : (chunks.count - 1, chunks[chunks.count - 1].count)
    }

    /// The position of the first element of chunk `chunk`.
    func start(ofChunk chunk: Int) -> Int {
        var position = 0
        for c in 0..<chunk { position += chunks[c].count }
        return position
    }

    subscript(index: Int) -> Element {
        let (c, offset) = locate(index)
        return chunks[c][offset]
    }

    mutating func insert(_ element: Element, at index: Int) {
        count += 1
        if chunks.isEmpty {
            chunks = [[element]]
            return
        }
        let (c, offset) = locate(index)
        chunks[c].insert(element, at: offset)
        if chunks[c].count > Self.maxChunk {
            let half = chunks[c].count / 2
            let tail = ContiguousArray(chunks[c][half...])
            chunks[c].removeSubrange(half...)
            chunks.insert(tail, at: c + 1)
        }
    }

    mutating func append(_ element: Element) { insert(element, at: count) }

    mutating func append<S: Sequence>(contentsOf elements: S) where S.Element == Element {
        for element in elements { append(element) }
    }

    @discardableResult
    mutating func remove(at index: Int) -> Element {
        let (c, offset) = locate(index)
        count -= 1
        let element = chunks[c].remove(at: offset)
        if chunks[c].isEmpty { chunks.remove(at: c) }
        return element
    }

    /// Removes and returns the elements from `index` on.
    mutating func removeSuffix(from index: Int) -> ChunkedArray {
        var tail = ChunkedArray()
        guard index < count else { return tail }
        let (c, offset) = locate(index)
        tail.chunks = [ContiguousArray(chunks[c][offset...])] + chunks[(c + 1)...]
        chunks.removeSubrange((c + 1)...)
        chunks[c].removeSubrange(offset...)
        if chunks[c].isEmpty { chunks.remove(at: c) }
        tail.count = count - index
        count = index
        return tail
    }

    /// Appends another chunked array's elements, chunk by chunk.
    mutating func append(contentsOf other: ChunkedArray) {
        chunks.append(contentsOf: other.chunks)
        count += other.count
    }

    func makeIterator() -> FlattenSequence<[ContiguousArray<Element>]>.Iterator { chunks.joined().makeIterator() }
}

extension ChunkedArray: Sendable where Element: Sendable {}

/// The part holding flat position `index` of parts laid end to end, and the
/// offset in it; past the end, `parts.count` and what is left of `index`.
func flatLocate<Part>(_ index: Int, in parts: [Part], count: (Part) -> Int) -> (part: Int, offset: Int) {
    var index = index
    var p = 0
    while p < parts.count {
        let n = count(parts[p])
        if index < n { return (p, index) }
        index -= n
        p += 1
    }
    return (parts.count, index)
}
