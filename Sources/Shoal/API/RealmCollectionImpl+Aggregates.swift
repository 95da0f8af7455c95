public import Foundation

/// A type `min` and `max` accept: numbers and dates.
public protocol MinMaxType: PersistableValue {}
/// A type `sum` and `average` accept: numbers.
public protocol AddableType: MinMaxType {}

extension Int: AddableType {}
extension Int8: AddableType {}
extension Int16: AddableType {}
extension Int32: AddableType {}
extension Int64: AddableType {}
extension Float: AddableType {}
extension Double: AddableType {}
extension Decimal128: AddableType {}
extension Date: MinMaxType {}
extension AnyRealmValue: AddableType {}
extension Optional: MinMaxType where Wrapped: MinMaxType {}
extension Optional: AddableType where Wrapped: AddableType {}

/// Aggregates over a property of the elements, or over the elements
/// themselves, with Realm's rules: nulls are ignored; `min`, `max` and
/// `average` of nothing are `nil`; `sum` of nothing is `0`. As in Realm,
/// they work on unmanaged collections too, reading the elements in memory.
extension RealmCollection {
    /// The smallest value of a property among the objects, or `nil` when there is none.
    ///
    /// ```swift
    /// let youngest: Int? = realm.objects(Dog.self).min(ofProperty: "age")
    /// ```
    ///
    /// Stops for an unknown property, or one whose type has no order
    /// (the message names the operation, the type and the property).
    public func min<T: MinMaxType>(ofProperty property: String) -> T? { aggregate(.min, property).map(converted) }

    /// The largest value of a property among the objects, or `nil` when there is none.
    ///
    /// ```swift
    /// let oldest: Int? = realm.objects(Dog.self).max(ofProperty: "age")
    /// ```
    public func max<T: MinMaxType>(ofProperty property: String) -> T? { aggregate(.max, property).map(converted) }

    /// The sum of a numeric property over the objects; `0` when there are none.
    ///
    /// ```swift
    /// let years: Int = realm.objects(Dog.self).sum(ofProperty: "age")
    /// ```
    public func sum<T: AddableType>(ofProperty property: String) -> T { converted(aggregate(.sum, property) ?? .int(0)) }

    /// The average of a numeric property over the objects, or `nil` when there are none.
    ///
    /// ```swift
    /// let mean: Double? = realm.objects(Dog.self).average(ofProperty: "age")
    /// ```
    public func average<T: AddableType>(ofProperty property: String) -> T? { aggregate(.average, property).map(converted) }

    /// The smallest value of a property key path, or `nil` when there is none.
    ///
    /// ```swift
    /// let youngest = realm.objects(Dog.self).min(of: \.age)
    /// ```
    public func min<T: MinMaxType>(of keyPath: KeyPath<Element, T>) -> T? where Element: Object {
        min(ofProperty: KeyPathTracer.name(of: keyPath))
    }

    /// The largest value of a property key path, or `nil` when there is none.
    public func max<T: MinMaxType>(of keyPath: KeyPath<Element, T>) -> T? where Element: Object {
        max(ofProperty: KeyPathTracer.name(of: keyPath))
    }

    /// The sum of a property key path; `0` when there are no objects.
    public func sum<T: AddableType>(of keyPath: KeyPath<Element, T>) -> T where Element: Object {
        sum(ofProperty: KeyPathTracer.name(of: keyPath))
    }

    /// The average of a property key path, or `nil` when there are no objects.
    public func average<T: AddableType>(of keyPath: KeyPath<Element, T>) -> T? where Element: Object {
        average(ofProperty: KeyPathTracer.name(of: keyPath))
    }

    /// The smallest element of a collection of values, or `nil` when empty.
    ///
    /// ```swift
    /// let low = object.ints.min()
    /// ```
    public func min() -> Element? where Element: MinMaxType { aggregate(.min, "self").map(converted) }
    /// The largest element of a collection of values, or `nil` when empty.
    public func max() -> Element? where Element: MinMaxType { aggregate(.max, "self").map(converted) }
    /// The sum of a collection of values; `0` when empty.
    public func sum() -> Element where Element: AddableType { converted(aggregate(.sum, "self") ?? .int(0)) }
    /// The average of a collection of values, or `nil` when empty.
    public func average<T: AddableType>() -> T? where Element: AddableType { aggregate(.average, "self").map(converted) }

    /// The aggregate of a property (or `"self"`) over the current elements.
    ///
    /// Works on unmanaged collections too, as in Realm: their elements (and
    /// the properties of their objects) are read in memory.
    func aggregate(_ function: PredicateTree.CollectionFunction, _ name: String) -> Value? {
        let values: [Value]
        if name == "self" {
            values = managedInstance == nil ? unmanagedElements.map { $0.toValue(nil) } : storedElements()
        } else if let instance = managedInstance {
            let base = queryBase()
            guard case .table(let table) = base.source.root(table: base.table, schema: instance.schema) else {
                shoalPrecondition(ShoalError(.invalidKeyPath, "Invalid property name '\(name)': the elements of this \(kindName) are not objects."))
            }
            let index = Self.aggregatedProperty(function, name, instance.schema[table])
            values = storedElements().map { element in
                guard case .link(let link) = element else { return .null }
                return instance.current.value(table, link.key, index)
            }
        } else {
            guard let type = Element.persistedType.objectType, Element.persistedType.collection == .none else {
                shoalPrecondition(ShoalError(.invalidKeyPath, "Invalid property name '\(name)': the elements of this \(kindName) are not objects."))
            }
            let schema = ClassRegistry.info(for: type).schema
            let property = schema.properties[Self.aggregatedProperty(function, name, schema)]
            values = unmanagedElements.map { element in
                guard let object = element as? Object else { return .null }
                do {
                    return try ValueCoercion.value(object[name], for: property, className: schema.className, realm: nil, update: .error)
                } catch { shoalPrecondition(error) }
            }
        }
        return ValueAggregate.compute(function, values.filter { $0.kindRank == 2 || $0.kindRank == 5 || $0.isNull })
    }

    /// The index of the property an aggregate reads, after checking Realm's
    /// type rules: numbers (and mixed) for all four, dates for `min` and `max`.
    static func aggregatedProperty(_ function: PredicateTree.CollectionFunction, _ name: String, _ schema: ObjectSchema) -> Int {
        guard let index = schema.indexByName[name] else {
            shoalPrecondition(ShoalError(.invalidKeyPath, "Invalid property name '\(name)' for class '\(schema.className)'.",
                context: ["class": schema.className, "property": name]))
        }
        let property = schema.properties[index]
        let numeric = [PropertyType.int, .float, .double, .decimal128, .any].contains(property.type)
        let allowed = property.collection == .none && (numeric || (property.type == .date && (function == .min || function == .max)))
        guard allowed else {
            let operation = function == .average ? "average" : String(function.rawValue.dropFirst())
            shoalPrecondition(ShoalError(.invalidQuery,
                "Operation '\(operation)' not supported for \(property.typeName) property '\(schema.className).\(name)'",
                context: ["class": schema.className, "property": name]))
        }
        return index
    }

    /// An aggregate result as the caller's type.
    func converted<T: PersistableValue>(_ value: Value) -> T {
        let target: Value
        switch T.persistedType.type {
        case .int: target = value.doubleValue.map { .int(Int64($0)) } ?? value
        case .float: target = value.doubleValue.map { .float(Float($0)) } ?? value
        case .double: target = value.doubleValue.map { .double($0) } ?? value
        case .decimal128: target = value.decimalValue.map { .decimal($0) } ?? value
        default: target = value
        }
        if case .int(let exact) = value, T.persistedType.type == .int { return T.fromValue(.int(exact), managedInstance) }
        return T.fromValue(target, managedInstance)
    }
}
