/// Converts dynamic values into the Swift types of unmanaged objects'
/// properties (for `Object.init(value:)` and the by-name subscript).
enum UnmanagedValue {
    /// `any` as a `T`, creating unmanaged objects from dictionaries and
    /// arrays for links; stops with Realm's message on a wrong type.
    static func convert<T: PersistableValue>(_ any: Any?, to: T.Type, property: Property, className: String) -> T {
        let unwrapped = ValueCoercion.unwrap(any)
        if let value = unwrapped as? T { return value }
        if let factory = T.self as? any UnmanagedCollectionFactory.Type, let made = factory.makeUnmanaged(from: unwrapped, property: property, className: className) as? T {
            return made
        }
        if property.type == .object, let objectType = T.persistedType.objectType {
            guard let unwrapped else { return T.persistedDefault() }
            let object = (unwrapped as? Object) ?? makeObject(objectType, unwrapped)
            if let value = object as? T { return value }
            if let value = Optional(object) as? T { return value }
            shoalPrecondition(ValueCoercion.mismatch(unwrapped, property, "\(className).\(property.name)"))
        }
        do {
            let value = try ValueCoercion.value(unwrapped, for: property, className: className, realm: nil, update: .error)
            return T.fromValue(value, nil)
        } catch { shoalPrecondition(error) }
    }
}

/// Implemented by the collection types so unmanaged collections can be built
/// from arrays and dictionaries.
protocol UnmanagedCollectionFactory {
    static func makeUnmanaged(from any: Any?, property: Property, className: String) -> Any
}



private func makeObject(_ type: Object.Type, _ value: Any) -> Object {
    let object = type.init(_shoalMetatype: ())
    let schema = object.objectSchema
    for (index, item) in Object.namedValues(value, schema: schema) {
        object[schema.properties[index].name] = item
    }
    return object
}
