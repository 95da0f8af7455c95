public import Foundation

// Range-replaceable and offset editing, as Realm's List has them. Each is
// built on the single-element edits, so a managed list records the same
// changes those would, and needs a write transaction as they do.

extension List: MutableCollection {
    /// Reads the elements in `bounds`, or replaces them with other elements
    /// (which may be more or fewer).
    ///
    /// ```swift
    /// try realm.write { person.dogs[0..<2] = person.dogs[2..<4] }
    /// ```
    public subscript(bounds: Range<Int>) -> Slice<List> {
        get { Slice(base: self, bounds: bounds) }
        set { replaceSubrange(bounds, with: Array(newValue)) }
    }
}

extension List {
    /// Replaces the elements in `subrange` with `newElements`.
    ///
    /// ```swift
    /// try realm.write { list.replaceSubrange(1..<3, with: [7, 8, 9]) }
    /// ```
    public func replaceSubrange<C: Collection, R: RangeExpression>(_ subrange: R, with newElements: C)
    where C.Element == Element, R.Bound == Int {
        let range = checkedRange(subrange)
        let replacements = Array(newElements)
        let common = Swift.min(range.count, replacements.count)
        for offset in 0..<common { replace(index: range.lowerBound + offset, object: replacements[offset]) }
        for _ in common..<range.count { remove(at: range.lowerBound + common) }
        for offset in common..<replacements.count { insert(replacements[offset], at: range.lowerBound + offset) }
    }

    /// Removes the elements in `bounds`; linked objects stay in the Realm.
    ///
    /// ```swift
    /// try realm.write { list.removeSubrange(0..<2) }
    /// ```
    public func removeSubrange<R: RangeExpression>(_ bounds: R) where R.Bound == Int {
        let range = checkedRange(bounds)
        for _ in range { remove(at: range.lowerBound) }
    }

    /// Inserts the elements of a collection at `index`, in order.
    ///
    /// ```swift
    /// try realm.write { list.insert(contentsOf: [1, 2], at: 0) }
    /// ```
    public func insert<C: Collection>(contentsOf newElements: C, at index: Int) where C.Element == Element {
        checkOffset(index, "index", limit: count)
        for (offset, element) in newElements.enumerated() { insert(element, at: index + offset) }
    }

    /// Removes the first `number` elements.
    ///
    /// Stops, as Realm does, when `number` is negative or larger than the list.
    /// ```swift
    /// try realm.write { list.removeFirst(2) }
    /// ```
    public func removeFirst(_ number: Int) {
        checkRemovable(number)
        for _ in 0..<number { remove(at: 0) }
    }

    /// Removes the last `number` elements.
    ///
    /// Stops, as Realm does, when `number` is negative or larger than the list.
    /// ```swift
    /// try realm.write { list.removeLast(2) }
    /// ```
    public func removeLast(_ number: Int) {
        checkRemovable(number)
        for _ in 0..<number { remove(at: count - 1) }
    }

    /// Removes the elements at the given offsets (SwiftUI's `onDelete`).
    ///
    /// ```swift
    /// try realm.write { list.remove(atOffsets: IndexSet([0, 2])) }
    /// ```
    public func remove(atOffsets offsets: IndexSet) {
        for offset in offsets.reversed() { remove(at: offset) }
    }

    /// Moves the elements at `offsets` to before `destination`, keeping their
    /// order (SwiftUI's `onMove`), as `Array.move(fromOffsets:toOffset:)` does.
    ///
    /// ```swift
    /// try realm.write { list.move(fromOffsets: IndexSet([0]), toOffset: 3) }
    /// ```
    public func move(fromOffsets offsets: IndexSet, toOffset destination: Int) {
        checkOffset(destination, "toOffset", limit: count)
        // The order wanted, as positions of the current elements; then each
        // position is filled by moving its element there.
        var order = Array(indices)
        let moving = offsets.map { order[$0] }
        let before = offsets.count { $0 < destination }
        order.removeAll { offsets.contains($0) }
        order.insert(contentsOf: moving, at: destination - before)
        var current = Array(indices)
        for (target, wanted) in order.enumerated() {
            let from = current.firstIndex(of: wanted)!
            if from != target {
                move(from: from, to: target)
                current.insert(current.remove(at: from), at: target)
            }
        }
    }

    /// `bounds` as a range of this list, stopping with Realm's messages when it is not one.
    private func checkedRange<R: RangeExpression>(_ bounds: R) -> Range<Int> where R.Bound == Int {
        let range = bounds.relative(to: 0..<Swift.max(count, Int.max / 2))
        checkOffset(range.lowerBound, "index", limit: count)
        checkOffset(range.upperBound, "index", limit: count)
        return range
    }

    private func checkOffset(_ offset: Int, _ name: String, limit: Int) {
        if offset < 0 {
            shoalPrecondition(ShoalError(.indexOutOfBounds, "Cannot pass a negative value for '\(name)'."))
        }
        if offset > limit {
            shoalPrecondition(ShoalError(.indexOutOfBounds, "Index \(offset) is out of bounds (must be less than \(limit + 1))."))
        }
    }

    private func checkRemovable(_ number: Int) {
        checkOffset(number, "index", limit: Int.max)
        if number > count {
            shoalPrecondition(ShoalError(.indexOutOfBounds,
                "It is not possible to remove more objects (\(number)) from a list than it already contains (\(count))."))
        }
    }
}
