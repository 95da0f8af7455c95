import Foundation

/// An object read by class and property names, without its Swift class:
/// what ``Realm/dynamicObjects(_:)`` lists.
///
/// ```swift
/// for dog in realm.dynamicObjects("Dog").filter("age > 3") {
///     print(dog.name as? String ?? "", dog["age"] as? Int ?? 0)
///     dog.owner                         // a DynamicObject, or nil
/// }
/// try realm.write { realm.dynamicCreate("Dog", value: ["id": 9, "name": "Rex"]) }
/// ```
///
/// Properties read as Swift values: `Int`, `Bool`, `Float`, `Double`,
/// `String`, `Data`, `Date`, ``ObjectId``, ``Decimal128``, `UUID`, `nil`; a
/// link reads as a `DynamicObject`; a list of objects as a
/// `List<DynamicObject>` (also ``Object/dynamicList(_:)``). Writes by name
/// take the values `create` takes.
///
/// - Note: Differs from Realm: a `List`, `MutableSet` or `Map` of values, and
///   a set or map of objects, read as a Swift array or dictionary of the
///   values at the time of the read, not as a live collection; write them
///   by assigning a whole new array or dictionary.
@dynamicMemberLookup
public final class DynamicObject: Object {
    /// Creates an unmanaged, empty dynamic object (not useful on its own: dynamic objects come from a Realm).
    public override init() { super.init() }

    /// The object of a migration this is, as a ``MigrationObject``; `nil`
    /// for the objects of a Realm.
    var migrated: MigratedObject?

    /// Reads or writes a property by name (`object.name`).
    public subscript(dynamicMember member: String) -> Any? {
        get { self[member] }
        set { self[member] = newValue }
    }

    /// Reads or writes a property by name.
    public override subscript(key: String) -> Any? {
        get {
            if let migrated { return migrated.get(key) }
            guard let ref else { return nil }
            ref.checkValid()
            let schema = objectSchema
            guard let index = schema.indexByName[key] else { Self.unknownProperty(key, schema) }
            let property = schema.properties[index]
            let snapshot = ref.realm.current
            switch (property.type, property.collection) {
            case (.linkingObjects, _):
                let origin = ref.realm.schema.tableByName[property.objectClassName ?? ""]
                let originProperty = origin.flatMap { ref.realm.schema[$0].indexByName[property.linkOriginPropertyName ?? ""] }
                guard let origin, let originProperty else { return [DynamicObject]() }
                return snapshot.tables[ref.table.index].backlinks[ref.key.slot]
                    .filter { $0.origin == origin && $0.property == originProperty }
                    .map { ref.realm.dynamicAccessor(Link(table: $0.origin, key: $0.key)) }
            case (.object, .list):
                return dynamicList(key)
            case (_, .none):
                return Self.swiftValue(snapshot.value(ref.table, ref.key, index), ref.realm)
            case (_, .map):
                return snapshot.map(ref.table, ref.key, index).reduce(into: [String: Any?]()) { $0[$1.key] = Self.swiftValue($1.value, ref.realm) }
            default:
                return snapshot.collectionElements(ref.table, ref.key, index).map { Self.swiftValue($0, ref.realm) }
            }
        }
        set {
            if let migrated { return migrated.set(key, newValue) }
            super[key] = newValue
        }
    }

    /// A stored value as the Swift value a dynamic read gives.
    static func swiftValue(_ value: Value, _ realm: RealmInstance) -> Any? {
        value.boxed { realm.current.isAlive($0.table, $0.key) ? realm.dynamicAccessor($0) : nil }
    }
}

extension Object {
    /// A list of objects of this managed object, by property name, with
    /// dynamic elements, as Realm's `dynamicList(_:)`.
    ///
    /// ```swift
    /// let dogs = person.dynamicList("dogs")   // List<DynamicObject>
    /// ```
    /// Stops for an unmanaged object, an unknown name, or a property that
    /// is not a list of objects.
    public func dynamicList(_ propertyName: String) -> List<DynamicObject> {
        guard let ref else {
            shoalPrecondition(ShoalError(.unsupported, "dynamicList is only available on managed objects ('\(objectSchema.className).\(propertyName)')."))
        }
        ref.checkValid()
        let schema = objectSchema
        guard let index = schema.indexByName[propertyName] else { Self.unknownProperty(propertyName, schema) }
        guard schema.properties[index].type == .object, schema.properties[index].collection == .list else {
            shoalPrecondition(ShoalError(.typeMismatch, "Property '\(schema.className).\(propertyName)' is not a List of objects.",
                context: ["class": schema.className, "property": propertyName]))
        }
        return List(slot: ManagedSlot(ref: ref, property: index))
    }
}

extension RealmInstance {
    /// A dynamic accessor for the object at `link`.
    func dynamicAccessor(_ link: Link) -> DynamicObject {
        let object = DynamicObject()
        object.ref = ObjectRef(realm: self, table: link.table, key: link.key, generation: generation)
        return object
    }

    /// The accessor for `link` as `type` asks: a ``DynamicObject`` when it
    /// asks for one, else the class's own.
    func accessor<T: Object>(_ link: Link, as type: T.Type) -> Object {
        type == DynamicObject.self ? dynamicAccessor(link) : accessor(link)
    }

    /// The table of a class name, or a stop naming it.
    func tableKey(named className: String) -> TableKey {
        guard let table = schema.tableByName[className] else {
            shoalPrecondition(ShoalError(.unknownObjectType, "Object type '\(className)' is not managed by the Realm.",
                context: ["class": className]))
        }
        return table
    }
}

extension Realm {
    /// All objects of a class, by name, as dynamic objects, live.
    ///
    /// ```swift
    /// let old = realm.dynamicObjects("Dog").filter("age > %@", 10)
    /// ```
    /// Stops for a class the Realm does not hold, and for an embedded class.
    public func dynamicObjects(_ typeName: String) -> Results<DynamicObject> {
        instance.verifyThread()
        let table = instance.tableKey(named: typeName)
        instance.refuseEmbedded(table, "query")
        return Results(instance: instance, table: table, source: .table)
    }

    /// The object of a class, by name, with the given primary key, or `nil`.
    ///
    /// ```swift
    /// let rex = realm.dynamicObject(ofType: "Dog", forPrimaryKey: 1)
    /// ```
    public func dynamicObject(ofType typeName: String, forPrimaryKey key: Any) -> DynamicObject? {
        instance.verifyThread()
        let table = instance.tableKey(named: typeName)
        let schema = instance.schema[table]
        guard let pk = schema.primaryKeyProperty else {
            shoalPrecondition(ShoalError(.missingPrimaryKey, "'\(schema.className)' does not have a primary key", context: ["class": schema.className]))
        }
        do {
            let value = try ValueCoercion.value(key, for: pk, className: schema.className, realm: nil, update: .error)
            guard let objectKey = instance.object(table, primaryKey: value) else { return nil }
            return instance.dynamicAccessor(Link(table: table, key: objectKey))
        } catch { shoalPrecondition(error) }
    }

    /// Creates an object of a class, by name, from a dictionary, an array or
    /// another object, as ``create(_:value:update:)`` does.
    ///
    /// ```swift
    /// try realm.write { realm.dynamicCreate("Dog", value: ["id": 9, "name": "Rex"]) }
    /// ```
    @discardableResult
    public func dynamicCreate(_ typeName: String, value: Any = [String: Any](), update: UpdatePolicy = .error) -> DynamicObject {
        let table = instance.tableKey(named: typeName)
        instance.refuseEmbedded(table, "create")
        do {
            try instance.checkUpdatable(table, update)
            return instance.dynamicAccessor(try instance.create(table, value: value, update: update))
        } catch { shoalPrecondition(error) }
    }
}
