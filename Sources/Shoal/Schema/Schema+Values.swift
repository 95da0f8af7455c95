extension Schema {
    /// Whether `value` may be stored in `property` (or, for a collection
    /// property's element description, in its elements): the kind matches
    /// the type, null only where optional, links only to the target class.
    func accepts(_ value: Value, for property: Property) -> Bool {
        ValueShape(property, tables: tableByName).accepts(value)
    }
}

/// What a property (or a collection property's elements) accepts, resolved
/// against a schema once (``Schema/shapes``): the decoders check every
/// decoded value with one, without copying the property or looking up its
/// target class.
struct ValueShape: Sendable, Hashable {
    let type: PropertyType
    let isOptional: Bool
    /// For a link, the table of the target class (-1 if it is not in the schema).
    let linkTable: Int

    /// The shape of `property` in a schema whose tables are `tables`.
    init(_ property: Property, tables: [String: TableKey]) {
        type = property.type
        isOptional = property.isOptional
        linkTable = property.type == .object ? property.objectClassName.flatMap { tables[$0]?.index } ?? -1 : -1
    }

    /// Whether `value` fits: the kind matches the type, null only where
    /// optional, links only to the target class.
    func accepts(_ value: Value) -> Bool {
        if value.isNull { return isOptional || type == .any }
        switch (type, value) {
        case (.any, _): return true
        case (.object, .link(let link)): return link.table.index == linkTable
        case (.int, .int), (.bool, .bool), (.string, .string), (.data, .data), (.date, .date), (.float, .float),
            (.double, .double), (.objectId, .objectId), (.decimal128, .decimal), (.uuid, .uuid):
            return true
        default: return false
        }
    }
}

/// A stored property as the decoders check it: its collection kind, and
/// the shape of its value (of its elements, for a collection).
struct PropertyShape: Sendable, Hashable {
    let collection: CollectionKind
    let value: ValueShape
}
