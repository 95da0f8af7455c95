/// Giving back the storage of tables that grew and then emptied.
///
/// A Swift `Dictionary`, `Set` or `Array` keeps its capacity when elements
/// are removed: registering a million observations and ending them would
/// leave the engine's tables sized for a million. Each removal path calls
/// `releaseUnusedCapacity()`, which rebuilds the table at its count once
/// fewer than a quarter of its capacity is in use; a rebuild of `n`
/// elements follows at least `3n` removals, so this is O(1) per removal,
/// amortised.
extension Dictionary {
    mutating func releaseUnusedCapacity() {
        guard capacity > 16, count < capacity / 4 else { return }
        var rebuilt = Self(minimumCapacity: count)
        for (key, value) in self { rebuilt[key] = value }
        self = rebuilt
    }
}

extension Set {
    mutating func releaseUnusedCapacity() {
        guard capacity > 16, count < capacity / 4 else { return }
        var rebuilt = Self(minimumCapacity: count)
        for element in self { rebuilt.insert(element) }
        self = rebuilt
    }
}

extension Array {
    mutating func releaseUnusedCapacity() {
        guard capacity > 16, count < capacity / 4 else { return }
        self = Array(self)
    }
}
