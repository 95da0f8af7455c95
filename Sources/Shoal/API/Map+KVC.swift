/// Key-value coding on a map, with Realm's `Map` semantics: a key names an
/// entry (not a property of every value, as on the other collections), and
/// the collection operators run over the values.
extension Map {
    /// The value of the entry for a key, or `nil` when there is none.
    ///
    /// ```swift
    /// dog.scores.value(forKey: "math") as? Double   // the same as dog.scores["math"]
    /// ```
    ///
    /// - Note: Differs from Realm only in returning `Any?` rather than
    ///   `AnyObject?`; a `nil` value reads as `nil`, not `NSNull`.
    /// - Parameter key: The entry's key.
    /// - Returns: The entry's value, or `nil`.
    public func value(forKey key: String) -> Any? {
        ValueCoercion.unwrap(self[Key(mapKeyString: key)])
    }

    /// The value at a key path: an entry's key, then properties of its
    /// object; or a collection operator over the values: `@count`,
    /// `@min.age`, `@max.age`, `@sum.age`, `@avg.age` (`self` for a map of values).
    ///
    /// ```swift
    /// kennel.byName.value(forKeyPath: "rex.name") as? String   // kennel.byName["rex"]??.name
    /// kennel.byName.value(forKeyPath: "@avg.age") as? Double
    /// dog.scores.value(forKeyPath: "@max.self") as? Double
    /// ```
    ///
    /// Operators follow the aggregates' rules (`nil` values ignored; `@sum`
    /// of nothing is `0`) and `@count` counts every entry. Stops for an
    /// unknown operator, and for a dotted path after an operator.
    ///
    /// - Parameter keyPath: A key followed by property names, or an operator.
    /// - Returns: The value reached, or `nil` when the key is absent or a
    ///   value on the way is `nil`.
    public func value(forKeyPath keyPath: String) -> Any? {
        if keyPath.hasPrefix("@") { return valueCollection.value(forKeyPath: keyPath) }
        let names = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        return Object.value(following: names.dropFirst(), from: value(forKey: names[0]))
    }

    /// Sets the entry for a key, converting the value to the map's value
    /// type; `nil` (or `NSNull`) removes the entry.
    ///
    /// ```swift
    /// try realm.write { dog.scores.setValue(4.5, forKey: "math") }
    /// ```
    ///
    /// A managed map needs a write transaction. Stops with Realm's message
    /// when the value cannot be converted ("Invalid value 'x' of type
    /// 'String' for 'double' property 'Dog.scores'"). To store `nil` in a
    /// map of optionals, use ``updateValue(_:forKey:)``.
    ///
    /// - Parameters:
    ///   - value: The new value, or `nil` to remove the entry.
    ///   - key: The entry's key.
    public func setValue(_ value: Any?, forKey key: String) {
        guard let value = ValueCoercion.unwrap(value) else { return removeObject(for: Key(mapKeyString: key)) }
        let info = Value.persistedType
        let property = slot?.schemaProperty.elementProperty
            ?? Property(name: "values", type: info.type, isOptional: info.isOptional, objectClassName: info.objectClassName)
        let className = slot.map { $0.ref.realm.schema[$0.ref.table].className } ?? "Map"
        updateValue(UnmanagedValue.convert(value, to: Value.self, property: property, className: className), forKey: Key(mapKeyString: key))
    }
}
