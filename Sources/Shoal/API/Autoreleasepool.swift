#if !canImport(ObjectiveC)
    /// Runs `body` and returns its result: Realm's idiom for background
    /// threads (`autoreleasepool { let realm = try! Realm(); ... }`), which
    /// Foundation on Linux lacks. Linux has no autorelease pools: objects
    /// are released when their last reference goes, so there is nothing to
    /// drain.
    ///
    /// ```swift
    /// DispatchQueue(label: "background").async {
    ///     autoreleasepool {
    ///         let realm = try! Realm()
    ///         try! realm.write { realm.create(Dog.self, value: ["name": "Rex"]) }
    ///     }
    /// }
    /// ```
    public func autoreleasepool<Result>(invoking body: () throws -> Result) rethrows -> Result {
        try body()
    }
#endif
