public import Foundation

/// Filtering and sorting a map's values, as Realm's `Map` offers them: each
/// returns live ``Results`` of the values (not of the key-value pairs), in
/// entry order unless sorted. They run on the implementation every
/// collection kind shares (see ``RealmCollection``).
///
/// As in Realm, they need a managed map: on an unmanaged one they stop with
/// Realm's "This method may only be called on RLMDictionary instances retrieved from an RLMRealm".
/// Filters and sorts over a map of objects skip its `nil` values, as Realm's
/// do; a sort over a map of values keeps them, first when ascending.
///
/// Realm's `Map` has no `filter(_:_:)` taking a format string and
/// arguments (only `filter(NSPredicate)`, which `filter(_: PredicateFormat)`
/// stands for here), no `distinct(by:)` and no `index(matching:)`; neither
/// does Shoal's. Sort first to reach them: `map.sorted(byKeyPath: "age").distinct(by: ["age"])`.
extension Map {
    /// The values matching a parsed predicate, Shoal's counterpart of
    /// Realm's `filter(NSPredicate)`.
    ///
    /// ```swift
    /// let old = kennel.byName.filter(try PredicateFormat("age > %@", 10))
    /// ```
    ///
    /// Stops when the predicate does not fit the value class (check with
    /// ``PredicateFormat/validate(for:)`` to get that as an error). A map of
    /// values is filtered with `self`: `scores.filter(try PredicateFormat("self > 3"))`.
    ///
    /// - Note: Differs from Realm, which can only filter maps of objects
    ///   ("Querying is currently only implemented for dictionaries of Realm
    ///   Objects"); Shoal filters maps of values as it filters lists of them.
    /// - Parameter predicate: The predicate the values must match.
    /// - Returns: Live results of the matching values, in entry order.
    public func filter(_ predicate: PredicateFormat) -> Results<Value> {
        valueCollection.filter(predicate)
    }

    /// The values matching a typed query.
    ///
    /// ```swift
    /// let puppies = kennel.byName.where { $0.age < 2 }
    /// ```
    ///
    /// - Parameter isIncluded: Builds the query from the value's properties.
    /// - Returns: Live results of the matching values, in entry order.
    public func `where`(_ isIncluded: (Query<Value>) -> Query<Bool>) -> Results<Value> {
        valueCollection.where(isIncluded)
    }

    /// The values matching a Foundation `#Predicate`.
    ///
    /// ```swift
    /// let rexes = kennel.byName.filter(#Predicate<Dog?> { $0?.name == "Rex" })
    /// ```
    ///
    /// Stops with a message naming the expression when the predicate uses
    /// something Shoal cannot translate.
    ///
    /// - Note: Differs from Realm, which has no `#Predicate` filters: Shoal
    ///   offers them on every collection kind.
    /// - Parameter predicate: The predicate the values must match.
    /// - Returns: Live results of the matching values, in entry order.
    public func filter(_ predicate: Predicate<Value>) -> Results<Value> {
        valueCollection.filter(predicate)
    }

    /// The values sorted by a key path of the objects (to-one links, then a
    /// value), or by `"self"` for a map of values.
    ///
    /// ```swift
    /// let byAge = kennel.byName.sorted(byKeyPath: "age", ascending: false)
    /// ```
    ///
    /// Stops with Realm's message for a key path that cannot be sorted on.
    ///
    /// - Parameters:
    ///   - keyPath: The property to sort by.
    ///   - ascending: The direction to sort in.
    /// - Returns: Live results of the values, sorted; ties keep entry order.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Value> {
        valueCollection.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The values sorted by several key paths, the first one primary.
    ///
    /// ```swift
    /// let dogs = kennel.byName.sorted(by: [SortDescriptor(keyPath: "age"), "name"])
    /// ```
    ///
    /// - Parameter sortDescriptors: The key paths and directions, primary first.
    /// - Returns: Live results of the values, sorted; ties keep entry order.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Value> where S.Element == SortDescriptor {
        valueCollection.sorted(by: sortDescriptors)
    }

    /// The values of a map of values, sorted by themselves.
    ///
    /// ```swift
    /// let lowToHigh = dog.scores.sorted()
    /// ```
    ///
    /// `nil` values sort first when ascending, last when descending.
    ///
    /// - Parameter ascending: The direction to sort in.
    /// - Returns: Live results of the values, sorted.
    public func sorted(ascending: Bool = true) -> Results<Value> {
        valueCollection.sorted(ascending: ascending)
    }

    /// The values of a map of objects, sorted by a property key path.
    ///
    /// ```swift
    /// let byAge = kennel.byName.sorted(by: \.age)
    /// ```
    ///
    /// - Note: Differs from Realm only in giving `ascending` a default
    ///   (`true`), as the other collections' `sorted(by:ascending:)` do.
    /// - Parameters:
    ///   - keyPath: The property of the objects to sort by.
    ///   - ascending: The direction to sort in.
    /// - Returns: Live results of the non-`nil` values, sorted.
    public func sorted<W: Object, T>(by keyPath: KeyPath<W, T>, ascending: Bool = true) -> Results<Value> where Value == W? {
        sorted(byKeyPath: KeyPathTracer.name(of: keyPath), ascending: ascending)
    }
}
