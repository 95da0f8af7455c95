import Foundation

/// Converts dynamic Swift values (from `create(_:value:)`, `init(value:)`
/// and the by-name subscript) into stored values for a property, with
/// Realm's messages for wrong types and nulls.
enum ValueCoercion {
    /// The stored value of a key of a type known where it is called (a
    /// primary key to look up): what ``value(_:for:className:realm:update:copying:)``
    /// gives with no Realm and no update.
    static func value<Key>(key: Key, for property: Property, className: String) throws(ShoalError) -> Value {
        // A plain `Int` or `String` for a property of that type, the
        // commonest keys, converted without boxing them as `Any`.
        if Key.self == Int.self, property.type == .int { return .int(Int64(unsafeBitCast(key, to: Int.self))) }
        if Key.self == String.self, property.type == .string { return .string(unsafeBitCast(key, to: String.self)) }
        return try value(key, for: property, className: className, realm: nil, update: .error)
    }

    /// The stored value for a single-valued property (or a collection element
    /// when `property` describes the element).
    ///
    /// With `copying` (what `create(_:value:update:)` passes), an object
    /// given for a link is copied into a new object unless this Realm
    /// already manages it, as Realm's `create` does; without it (a property
    /// set, an append) an unmanaged object is added itself. A managed value
    /// for an embedded class is always copied: an embedded object has one
    /// owner.
    static func value(
        _ any: Any?, for property: Property, className: String, realm: RealmInstance?, update: Realm.UpdatePolicy,
        copying: Bool = false
    ) throws(ShoalError) -> Value {
        // The commonest cases first, before the existential casts: a plain
        // `Int` or `String` for a property of that type.
        if property.type == .int, let int = any as? Int { return .int(Int64(int)) }
        if property.type == .string, let string = any as? String { return .string(string) }
        // Only for messages: built when one is thrown.
        var name: String { "\(className).\(property.name)" }
        guard let any = unwrap(any) else {
            if property.isOptional || property.type == .any { return .null }
            throw ShoalError(.typeMismatch, "Invalid null value for non-nullable property '\(name)'.",
                context: ["class": className, "property": property.name])
        }
        if property.type == .object {
            guard let realm else {
                throw ShoalError(.unsupported, "Links can only be set on managed objects here ('\(name)').")
            }
            guard let target = property.objectClassName, let table = realm.schema.tableByName[target] else {
                throw ShoalError(.unknownObjectType, "Unknown link target for '\(name)'.")
            }
            let targetSchema = realm.schema[table]
            // A nested value for a class without a primary key makes a new
            // object whatever the policy, as in Realm.
            let nested: Realm.UpdatePolicy = targetSchema.primaryKeyIndex == nil ? .error : update
            if let object = any as? Object {
                let isOwn = object.ref.map { $0.realm.coordinator === realm.coordinator } ?? false
                // An embedded object is copied unless it is an unmanaged one
                // being added with its new owner.
                if (targetSchema.isEmbedded && (copying || object.ref != nil)) || (copying && !isOwn) {
                    if object.objectSchema.className != target, !(copying && !targetSchema.isEmbedded) {
                        throw ShoalError(.typeMismatch, "Invalid value of type '\(object.objectSchema.className)' for '\(target)' property '\(name)'.",
                            context: ["property": name])
                    }
                    return .link(try realm.create(table, value: object, update: nested))
                }
                let link = realm.linkAdding(object, update: update)
                try checkTarget(link, property, realm, name)
                return .link(link)
            }
            if any is [String: Any?] || any is [Any?] {
                return .link(try realm.create(table, value: any, update: nested))
            }
            throw mismatch(any, property, name)
        }
        var stored: Value
        // Foundation's objects first: an `NSNumber` would also cast to `Int`
        // or `Double` below, losing whether it holds a Boolean or a decimal.
        if let bridged = Value.bridging(any) {
            stored = fitted(bridged, to: property.type)
        } else if let int = any as? Int {
            stored = .int(Int64(int))
        } else if let string = any as? String {
            stored = .string(string)
        } else if let double = any as? Double {
            stored = .double(double)
        } else if let bool = any as? Bool {
            stored = .bool(bool)
        } else if let value = any as? AnyRealmValue {
            stored = value.toValue(realm)
        } else if let object = any as? Object, property.type == .any, let realm {
            stored = .link(realm.linkAdding(object, update: update))
        } else if let raw = any as? any RawRepresentable, let persistable = raw.rawValue as? any PersistableValue {
            stored = persistable.toValue(nil)
        } else if let decimal = any as? Decimal {
            stored = .decimal(Decimal128(decimal))
        } else if let bytes = any as? [UInt8] {
            stored = .data(Data(bytes))
        } else if property.type == .any, let elements = any as? [Any?] {
            // A nested list in a mixed property, its elements mixed in turn.
            var values: [Value] = []
            for element in elements {
                values.append(try value(element, for: property, className: className, realm: realm, update: update, copying: copying))
            }
            stored = .list(values)
        } else if property.type == .any, let entries = any as? [String: Any?] {
            var values: [String: Value] = [:]
            for (key, element) in entries {
                values[key] = try value(element, for: property, className: className, realm: realm, update: update, copying: copying)
            }
            stored = .dictionary(values)
        } else if let persistable = any as? any PersistableValue, !(any is Object) {
            stored = persistable.toValue(nil)
        } else {
            throw mismatch(any, property, name)
        }
        if stored.isNull {
            if property.isOptional || property.type == .any { return .null }
            throw ShoalError(.typeMismatch, "Invalid null value for non-nullable property '\(name)'.",
                context: ["class": className, "property": property.name])
        }
        guard let coerced = coerce(stored, to: property.type) else { throw mismatch(any, property, name) }
        return coerced
    }

    /// A Foundation number for a property, by Realm's rules for `NSNumber`:
    /// a Boolean is an integer 0 or 1 for an `int` property, an integer 0 or
    /// 1 is a Boolean for a `bool` one, and a decimal number is a double or
    /// float for a property of that type.
    static func fitted(_ value: Value, to type: PropertyType) -> Value {
        switch (type, value) {
        case (.int, .bool(let b)): .int(b ? 1 : 0)
        case (.bool, .int(let i)) where i == 0 || i == 1: .bool(i == 1)
        case (.double, .decimal(let d)): .double(d.doubleValue)
        case (.float, .decimal(let d)): .float(Float(d.doubleValue))
        default: value
        }
    }

    /// Numbers widen to the property's numeric kind; everything else must match.
    static func coerce(_ value: Value, to type: PropertyType) -> Value? {
        switch (type, value) {
        case (.any, _): return value
        case (.int, .int), (.bool, .bool), (.string, .string), (.data, .data), (.date, .date),
            (.objectId, .objectId), (.uuid, .uuid), (.decimal128, .decimal), (.double, .double), (.float, .float):
            return value
        case (.double, .int), (.double, .float): return value.doubleValue.map(Value.double)
        case (.float, .int), (.float, .double): return value.doubleValue.map { .float(Float($0)) }
        case (.decimal128, .int), (.decimal128, .double), (.decimal128, .float): return value.decimalValue.map(Value.decimal)
        default: return nil
        }
    }

    private static func checkTarget(_ link: Link, _ property: Property, _ realm: RealmInstance, _ name: String) throws(ShoalError) {
        let actual = realm.schema[link.table].className
        if let expected = property.objectClassName, expected != actual {
            throw ShoalError(.typeMismatch, "Invalid value of type '\(actual)' for '\(expected)' property '\(name)'.",
                context: ["property": name])
        }
    }

    static func mismatch(_ any: Any, _ property: Property, _ name: String) -> ShoalError {
        ShoalError(.typeMismatch,
            "Invalid value '\(any)' of type '\(type(of: any))' for '\(property.typeName)' property '\(name)'.",
            context: ["property": name, "value": "\(any)", "valueType": "\(type(of: any))", "propertyType": property.typeName])
    }

    /// Strips `Optional` and `NSNull`; `nil` for an absent value.
    static func unwrap(_ any: Any?) -> Any? {
        guard let any else { return nil }
        if any is NSNull { return nil }
        if let optional = any as? any OptionalUnwrapping { return optional.unwrapped }
        return any
    }

    /// The elements of a collection value given to `create` or `init(value:)`.
    static func elements(_ any: Any?, name: String) throws(ShoalError) -> [Any?] {
        guard let any = unwrap(any) else { return [] }
        if let values = any as? any AnyElements { return values.anyElements }
        if let sequence = any as? any Sequence { return boxedElements(sequence) }
        throw ShoalError(.typeMismatch, "Invalid value '\(any)' for collection property '\(name)': expected a sequence.",
            context: ["property": name])
    }

    private static func boxedElements<S: Sequence>(_ sequence: S) -> [Any?] { sequence.map { $0 as Any? } }

    /// The entries of a map value given to `create` or `init(value:)`.
    static func entries(_ any: Any?, name: String) throws(ShoalError) -> [(String, Any?)] {
        guard let any = unwrap(any) else { return [] }
        if let map = any as? any AnyElements, let entries = map.anyEntries { return entries }
        if let dictionary = any as? [String: Any?] { return dictionary.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
        throw ShoalError(.typeMismatch, "Invalid value '\(any)' for map property '\(name)': expected a [String: Value] dictionary.",
            context: ["property": name])
    }
}

protocol OptionalUnwrapping {
    var unwrapped: Any? { get }
}

extension Optional: OptionalUnwrapping {
    var unwrapped: Any? {
        switch self {
        case .none: nil
        case .some(let w): ValueCoercion.unwrap(w)
        }
    }
}

/// Implemented by Shoal's collections so that `create` can read their elements.
protocol AnyElements {
    var anyElements: [Any?] { get }
    var anyEntries: [(String, Any?)]? { get }
}
