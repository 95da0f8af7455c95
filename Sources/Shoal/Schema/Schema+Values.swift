extension Schema {
    /// Whether `value` may be stored in `property` (or, for a collection
    /// property's element description, in its elements): the kind matches
    /// the type, null only where optional, links only to the target class.
    func accepts(_ value: Value, for property: Property) -> Bool {
        if value.isNull { return property.isOptional || property.type == .any }
        switch (property.type, value) {
        case (.any, _): return true
        case (.object, .link(let link)):
            return link.table.index < objectSchema.count && objectSchema[link.table.index].className == property.objectClassName
        case (.int, .int), (.bool, .bool), (.string, .string), (.data, .data), (.date, .date), (.float, .float),
            (.double, .double), (.objectId, .objectId), (.decimal128, .decimal), (.uuid, .uuid):
            return true
        default: return false
        }
    }
}
