extension RealmCollection where Element: Hashable {
    /// The distinct values of a collection of values, each once, in the order
    /// they first appear (Realm's `distinct()` on collections of primitives).
    ///
    /// ```swift
    /// let uniqueScores = person.scores.distinct()
    /// ```
    public func distinct() -> Results<Element> {
        distinct(by: ["self"])
    }
}
