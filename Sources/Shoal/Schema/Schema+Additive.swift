import Foundation

extension ObjectSchema {
    /// What keeps the stored data of class `stored` from being read as this
    /// class without a migration, in Realm's words ("Property 'Dog.age' has
    /// been removed."); empty when this class only adds to it.
    ///
    /// Additive (no problem): new stored properties, linking-objects
    /// properties added or removed, indexes added or removed. Anything else
    /// (a stored property removed, its type, collection kind, target class or
    /// optionality changed, the primary key added, removed or moved, the
    /// class turned embedded or top-level) needs a migration.
    func additiveProblems(from stored: ObjectSchema) -> [String] {
        var problems: [String] = []
        let name = className
        if stored.isEmbedded != isEmbedded {
            problems.append("Class '\(name)' has been changed from \(stored.isEmbedded ? "Embedded" : "TopLevel") to \(isEmbedded ? "Embedded" : "TopLevel").")
        }
        let storedKey = stored.primaryKeyProperty?.name
        let key = primaryKeyProperty?.name
        switch (storedKey, key) {
        case (nil, let added?): problems.append("Primary Key for class '\(name)' has been added ('\(added)').")
        case (let removed?, nil): problems.append("Primary Key for class '\(name)' has been removed ('\(removed)').")
        case (let from?, let to?) where from != to:
            problems.append("Primary Key for class '\(name)' has changed from '\(from)' to '\(to)'.")
        default: break
        }
        for old in stored.properties where old.isStored {
            guard let new = self[old.name], new.isStored else {
                problems.append("Property '\(name).\(old.name)' has been removed.")
                continue
            }
            if new.type != old.type || new.collection != old.collection || new.objectClassName != old.objectClassName {
                problems.append("Property '\(name).\(old.name)' has been changed from '\(old.typeName)' to '\(new.typeName)'.")
            } else if new.isOptional != old.isOptional {
                problems.append("Property '\(name).\(old.name)' has been made \(new.isOptional ? "optional" : "required").")
            }
        }
        return problems
    }
}

extension Schema {
    /// Whether `self` extends `stored` additively: every stored class keeps
    /// its table (its position) and name and only gains properties
    /// (``ObjectSchema/additiveProblems(from:)``), and new classes come
    /// after them. This is the schema change a class joining a database
    /// makes (a schema record on a database with data).
    func extendsAdditively(_ stored: Schema) -> Bool {
        guard objectSchema.count >= stored.objectSchema.count else { return false }
        for (new, old) in zip(objectSchema, stored.objectSchema) {
            guard new.className == old.className, new.additiveProblems(from: old).isEmpty else { return false }
        }
        return true
    }

    /// The value a stored property holds in an object that existed before
    /// the property joined its class: null for optional values, links and
    /// mixed values (collections start empty), the type's zero otherwise
    /// (0, false, "", empty data, the reference date, a zero object id,
    /// decimal and UUID).
    static func joinValue(for property: Property) -> Value {
        if property.isOptional || property.collection != .none { return .null }
        switch property.type {
        case .int: return .int(0)
        case .bool: return .bool(false)
        case .float: return .float(0)
        case .double: return .double(0)
        case .string: return .string("")
        case .data: return .data(Data())
        case .date: return .date(Date(timeIntervalSinceReferenceDate: 0))
        case .objectId: return .objectId(ObjectId())
        case .decimal128: return .decimal(Decimal128())
        case .uuid: return .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        case .any, .object, .linkingObjects: return .null
        }
    }
}
