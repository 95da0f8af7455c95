/// Resolving key paths: each component is looked up in the class the path
/// has reached, collections make the path multi-valued, maps take a key,
/// `@keys` or `@values` (values when nothing follows).
extension QueryBinder {
    /// A resolved path and the type of the values it reaches.
    struct ResolvedPath {
        var path: BoundPath
        var type: PropertyType?
        var isOptional: Bool
        var className: String?
        /// What the path's values are: objects of a table, or primitives.
        var elementRoot: Root

        /// Whether the path has reached one mixed property's value, or a
        /// place inside a collection nested in it: where a subscript goes in.
        var followsMixedValue: Bool {
            guard type == .any, elementRoot == .primitive(.any), let last = path.steps.last else { return false }
            if case .property = last { return true }
            return last.isMixed
        }

        var typeName: String {
            guard let type else { return "unknown" }
            if type == .object { return className ?? "object" }
            return type.description + (isOptional ? "?" : "")
        }
    }

    func resolve(_ keyPath: PredicateTree.KeyPath) throws(ShoalError) -> ResolvedPath {
        var current: Root
        let rootIndex: Int
        switch keyPath.root {
        case .object:
            current = root
            rootIndex = 0
        case .variable(let name):
            guard let index = scopes.lastIndex(where: { $0.name == name }) else {
                throw error("undeclared variable '$\(name)'", at: keyPath.source, code: .invalidKeyPath)
            }
            current = scopes[index].root
            rootIndex = index + 1
        }
        var resolved = ResolvedPath(
            path: BoundPath(root: rootIndex, steps: [], isMultiValued: false, written: keyPath),
            type: nil, isOptional: false, className: nil, elementRoot: current)
        resolved.setElement(current, schema: schema)
        var pendingMap: BoundProperty?
        var previousName = keyPath.root == .object ? "" : "$" + (keyPath.description.split(separator: ".").first.map(String.init) ?? "")

        for (offset, component) in keyPath.components.enumerated() {
            let range = keyPath.source(ofComponent: offset)
            if let map = pendingMap {
                pendingMap = nil
                switch component {
                case .mapKey(let key):
                    resolved.path.steps.append(.mapValue(map, key: key))
                    resolved.isOptional = true
                    continue
                case .keys:
                    resolved.path.steps.append(.mapKeys(map))
                    resolved.path.isMultiValued = true
                    resolved.setElement(.primitive(.string), schema: schema)
                    resolved.isOptional = false
                    current = .primitive(.string)
                    continue
                case .values:
                    resolved.path.steps.append(.mapValues(map))
                    resolved.path.isMultiValued = true
                    continue
                default:
                    resolved.path.steps.append(.mapValues(map))
                    resolved.path.isMultiValued = true
                }
            }
            switch component {
            case .property(let name):
                if name == "self" && offset == 0 { continue }
                guard case .table(let table) = current else {
                    throw error("'\(name)' cannot follow '\(previousName)' of type '\(resolved.typeName)': only links can be followed",
                        at: range, code: .invalidKeyPath)
                }
                let objectSchema = schema[table]
                guard let index = objectSchema.indexByName[name] else {
                    throw error("unknown property '\(name)' on class '\(objectSchema.className)'", at: range, code: .invalidKeyPath)
                }
                let property = objectSchema.properties[index]
                let bound = BoundProperty(table: table, index: index)
                resolved.type = property.type
                resolved.isOptional = property.isOptional
                resolved.className = property.objectClassName
                let target: Root =
                    property.type == .object || property.type == .linkingObjects
                    ? .table(schema.tableByName[property.objectClassName ?? ""] ?? table) : .primitive(property.type)
                if property.type == .linkingObjects {
                    let origin = schema.tableByName[property.objectClassName ?? ""]!
                    let originIndex = schema[origin].indexByName[property.linkOriginPropertyName ?? ""]!
                    resolved.path.steps.append(.backlinks(origin: origin, property: originIndex))
                    resolved.path.isMultiValued = true
                    resolved.type = .object
                } else {
                    switch property.collection {
                    case .none: resolved.path.steps.append(.property(bound))
                    case .list, .set:
                        resolved.path.steps.append(.elements(bound, property.collection))
                        resolved.path.isMultiValued = true
                    case .map: pendingMap = bound
                    }
                }
                current = target
                resolved.elementRoot = target
                previousName = name
            case .mapKey(let key) where resolved.followsMixedValue:
                resolved.path.steps.append(.mixedKey(key))
                resolved.isOptional = true
            case .mixedIndex(let index) where resolved.followsMixedValue:
                resolved.path.steps.append(.mixedIndex(index))
                resolved.isOptional = true
            case .mixedLast where resolved.followsMixedValue:
                resolved.path.steps.append(.mixedLast)
                resolved.isOptional = true
            case .mixedAll where resolved.followsMixedValue:
                resolved.path.steps.append(.mixedAll)
                resolved.path.isMultiValued = true
                resolved.isOptional = true
            case .mapKey, .mixedIndex, .mixedLast, .mixedAll:
                throw error("a subscript must follow a map or mixed property, and '\(previousName)' is not one", at: range, code: .invalidKeyPath)
            case .keys, .values:
                throw error("'@keys' and '@values' must follow a map property, and '\(previousName)' is not one", at: range,
                    code: .invalidKeyPath)
            case .backlinks(let className, let propertyName):
                guard case .table(let table) = current else {
                    throw error("'@links' must follow an object", at: range, code: .invalidKeyPath)
                }
                guard let origin = schema.tableByName[className] else {
                    throw error("unknown class '\(className)' in '@links'", at: range, code: .invalidKeyPath)
                }
                guard let index = schema[origin].indexByName[propertyName] else {
                    throw error("unknown property '\(propertyName)' on class '\(className)'", at: range, code: .invalidKeyPath)
                }
                let property = schema[origin].properties[index]
                guard property.type == .object, property.objectClassName == schema[table].className else {
                    throw error("property '\(className).\(propertyName)' does not link to class '\(schema[table].className)'",
                        at: range, code: .invalidKeyPath)
                }
                resolved.path.steps.append(.backlinks(origin: origin, property: index))
                resolved.path.isMultiValued = true
                current = .table(origin)
                resolved.setElement(current, schema: schema)
                previousName = "@links.\(className).\(propertyName)"
            case .allBacklinks:
                resolved.path.steps.append(.allBacklinks)
                resolved.path.isMultiValued = true
                current = .unknown
                resolved.setElement(.unknown, schema: schema)
                previousName = "@links"
            }
        }
        if let map = pendingMap {
            resolved.path.steps.append(.mapValues(map))
            resolved.path.isMultiValued = true
        }
        return resolved
    }
}

extension QueryBinder.ResolvedPath {
    /// Describes values that are the elements of `root` (objects or primitives).
    fileprivate mutating func setElement(_ root: QueryBinder.Root, schema: Schema) {
        elementRoot = root
        switch root {
        case .table(let table):
            type = .object
            className = schema[table].className
        case .primitive(let primitive):
            type = primitive
            className = nil
        case .unknown:
            type = .object
            className = nil
        }
    }
}
