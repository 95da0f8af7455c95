extension Map {
    /// Adds the entries of a sequence of key-value pairs, calling `combine`
    /// for a key the map already has to choose the value kept.
    ///
    /// ```swift
    /// try realm.write {
    ///     scores.merge([(key: "math", value: 3.0)], uniquingKeysWith: { old, new in Swift.max(old, new) })
    /// }
    /// ```
    public func merge<S: Sequence>(_ sequence: S, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows
    where S.Element == (key: Key, value: Value) {
        for (key, value) in sequence {
            if let existing = self[key] {
                updateValue(try combine(existing, value), forKey: key)
            } else {
                updateValue(value, forKey: key)
            }
        }
    }

    /// Adds the entries of another map, calling `combine` for a key this map
    /// already has to choose the value kept.
    ///
    /// ```swift
    /// try realm.write { person.scores.merge(other.scores) { old, _ in old } }
    /// ```
    public func merge(_ other: Map<Key, Value>, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows {
        try merge(Array(other.asKeyValueSequence()), uniquingKeysWith: combine)
    }

    /// A map viewed as a sequence of `(key: Key, value: Value)` pairs.
    public struct KeyValueSequence: Sequence {
        private let entries: [(key: Key, value: Value)]
        fileprivate init(_ map: Map<Key, Value>) { entries = Array(map) }

        /// Iterates over the entries as they were when the sequence was made.
        public func makeIterator() -> IndexingIterator<[(key: Key, value: Value)]> { entries.makeIterator() }
    }

    /// The map as a sequence of `(key: Key, value: Value)` pairs, for code
    /// written against Realm (where a map iterates over entries of another type).
    ///
    /// ```swift
    /// for (key, value) in person.scores.asKeyValueSequence() { print(key, value) }
    /// ```
    public func asKeyValueSequence() -> KeyValueSequence { KeyValueSequence(self) }
}
