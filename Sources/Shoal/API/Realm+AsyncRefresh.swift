extension Realm {
    /// Moves to the latest committed version from an async function, as
    /// Realm's `asyncRefresh()`: returns whether anything changed.
    ///
    /// ```swift
    /// actor Store {
    ///     var realm: Realm!
    ///     func latest() async -> Int {
    ///         await realm.asyncRefresh()
    ///         return realm.objects(Dog.self).count
    ///     }
    /// }
    /// ```
    ///
    /// Runs on the caller's actor, the Realm's. Moving to a new version
    /// never waits for a commit in Shoal (commits publish their version
    /// before they return), so this does what ``refresh()`` does without
    /// blocking the caller's thread for longer than that.
    @discardableResult
    public func asyncRefresh(_isolation: isolated any Actor = #isolation) async -> Bool {
        refresh()
    }
}
