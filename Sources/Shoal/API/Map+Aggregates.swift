/// Aggregates over a map's values, with Realm's rules: `nil` values are
/// ignored; `min`, `max` and `average` of nothing are `nil`; `sum` of
/// nothing is `0`; numbers (and `AnyRealmValue`) for all four, dates for
/// `min` and `max`, anything else stops with "Operation 'sum' not supported
/// for string property 'Dog.name'".
///
/// As in Realm, they work on unmanaged maps too, reading the values in memory.
extension Map {
    /// The smallest value of a property among the objects, or `nil` when there is none.
    ///
    /// ```swift
    /// let youngest: Int? = kennel.byName.min(ofProperty: "age")
    /// ```
    ///
    /// - Parameter property: The name of a numeric or date property of the objects.
    /// - Returns: The smallest non-`nil` value, or `nil` when there is none.
    public func min<T: MinMaxType>(ofProperty property: String) -> T? { valueCollection.min(ofProperty: property) }

    /// The largest value of a property among the objects, or `nil` when there is none.
    ///
    /// ```swift
    /// let oldest: Int? = kennel.byName.max(ofProperty: "age")
    /// ```
    ///
    /// - Parameter property: The name of a numeric or date property of the objects.
    /// - Returns: The largest non-`nil` value, or `nil` when there is none.
    public func max<T: MinMaxType>(ofProperty property: String) -> T? { valueCollection.max(ofProperty: property) }

    /// The sum of a numeric property over the objects; `0` when there are none.
    ///
    /// ```swift
    /// let years: Int = kennel.byName.sum(ofProperty: "age")
    /// ```
    ///
    /// - Parameter property: The name of a numeric property of the objects.
    /// - Returns: The sum of the non-`nil` values.
    public func sum<T: AddableType>(ofProperty property: String) -> T { valueCollection.sum(ofProperty: property) }

    /// The average of a numeric property over the objects, or `nil` when there are none.
    ///
    /// ```swift
    /// let mean: Double? = kennel.byName.average(ofProperty: "age")
    /// ```
    ///
    /// - Parameter property: The name of a numeric property of the objects.
    /// - Returns: The average of the non-`nil` values, or `nil` when there is none.
    public func average<T: AddableType>(ofProperty property: String) -> T? { valueCollection.average(ofProperty: property) }

    /// The smallest value of a property key path among the objects of a map
    /// of objects, or `nil` when there is none.
    ///
    /// ```swift
    /// let youngest = kennel.byName.min(of: \.age)
    /// ```
    ///
    /// - Parameter keyPath: A numeric or date property of the objects.
    /// - Returns: The smallest non-`nil` value, or `nil` when there is none.
    public func min<W: Object, T: MinMaxType>(of keyPath: KeyPath<W, T>) -> T? where Value == W? {
        min(ofProperty: KeyPathTracer.name(of: keyPath))
    }

    /// The largest value of a property key path among the objects of a map
    /// of objects, or `nil` when there is none.
    ///
    /// ```swift
    /// let oldest = kennel.byName.max(of: \.age)
    /// ```
    ///
    /// - Parameter keyPath: A numeric or date property of the objects.
    /// - Returns: The largest non-`nil` value, or `nil` when there is none.
    public func max<W: Object, T: MinMaxType>(of keyPath: KeyPath<W, T>) -> T? where Value == W? {
        max(ofProperty: KeyPathTracer.name(of: keyPath))
    }

    /// The sum of a property key path over the objects of a map of objects;
    /// `0` when there are none.
    ///
    /// ```swift
    /// let years = kennel.byName.sum(of: \.age)
    /// ```
    ///
    /// - Parameter keyPath: A numeric property of the objects.
    /// - Returns: The sum of the non-`nil` values.
    public func sum<W: Object, T: AddableType>(of keyPath: KeyPath<W, T>) -> T where Value == W? {
        sum(ofProperty: KeyPathTracer.name(of: keyPath))
    }

    /// The average of a property key path over the objects of a map of
    /// objects, or `nil` when there are none.
    ///
    /// ```swift
    /// let mean = kennel.byName.average(of: \.age)
    /// ```
    ///
    /// - Parameter keyPath: A numeric property of the objects.
    /// - Returns: The average of the non-`nil` values, or `nil` when there is none.
    public func average<W: Object, T: AddableType>(of keyPath: KeyPath<W, T>) -> T? where Value == W? {
        average(ofProperty: KeyPathTracer.name(of: keyPath))
    }

    /// The smallest value of a map of numbers or dates, or `nil` when it has none.
    ///
    /// ```swift
    /// let worst = dog.scores.min()
    /// ```
    ///
    /// - Returns: The smallest non-`nil` value, or `nil` when there is none.
    public func min() -> Value? where Value: MinMaxType { valueCollection.min() }

    /// The largest value of a map of numbers or dates, or `nil` when it has none.
    ///
    /// ```swift
    /// let best = dog.scores.max()
    /// ```
    ///
    /// - Returns: The largest non-`nil` value, or `nil` when there is none.
    public func max() -> Value? where Value: MinMaxType { valueCollection.max() }

    /// The sum of a map of numbers; `0` when it has none.
    ///
    /// ```swift
    /// let total = dog.scores.sum()
    /// ```
    ///
    /// - Returns: The sum of the non-`nil` values.
    public func sum() -> Value where Value: AddableType { valueCollection.sum() }

    /// The average of a map of numbers, or `nil` when it has none.
    ///
    /// ```swift
    /// let mean: Double? = dog.scores.average()
    /// ```
    ///
    /// - Returns: The average of the non-`nil` values, or `nil` when there is none.
    public func average<T: AddableType>() -> T? where Value: AddableType { valueCollection.average() }
}
