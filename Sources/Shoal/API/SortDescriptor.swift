/// A key path and a direction to sort a collection by.
///
/// ```swift
/// let dogs = realm.objects(Dog.self).sorted(by: [
///     SortDescriptor(keyPath: "age", ascending: false),
///     SortDescriptor(keyPath: "owner.name"),
/// ])
/// ```
///
/// The key path names single-valued properties: to-one links followed by a
/// final non-link property.
public struct SortDescriptor: Sendable, Hashable, CustomStringConvertible {
    /// The key path to sort by, such as `"owner.name"`.
    public let keyPath: String
    /// Whether smaller values come first.
    public let ascending: Bool

    /// Creates a sort descriptor from a key path string.
    ///
    /// ```swift
    /// SortDescriptor(keyPath: "name", ascending: true)
    /// ```
    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    /// Creates a sort descriptor from a key path of an object class.
    ///
    /// ```swift
    /// SortDescriptor(keyPath: \Dog.owner?.name, ascending: false)
    /// ```
    public init<Root: Object, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool = true) {
        self.init(keyPath: KeyPathTracer.name(of: keyPath), ascending: ascending)
    }

    /// A copy with the sort order reversed, as Realm's `reversed()`.
    ///
    /// ```swift
    /// let newestFirst = SortDescriptor(keyPath: "date").reversed()
    /// ```
    public func reversed() -> SortDescriptor { SortDescriptor(keyPath: keyPath, ascending: !ascending) }

    /// Realm's form: `SortDescriptor(keyPath: age, direction: ascending)`.
    public var description: String { "SortDescriptor(keyPath: \(keyPath), direction: \(ascending ? "ascending" : "descending"))" }
}

extension SortDescriptor: ExpressibleByStringLiteral {
    /// An ascending sort descriptor: `["name", "age"]` reads as sort descriptors.
    public init(stringLiteral keyPath: String) {
        self.init(keyPath: keyPath)
    }
}
