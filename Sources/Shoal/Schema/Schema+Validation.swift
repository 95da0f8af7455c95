extension Schema {
    /// Checks names, links, linking objects, primary keys and indexes, throwing
    /// the first problem found with the class and property named.
    ///
    /// Class names must be nonempty and unique, and so must the property
    /// names of a class: a stored schema that breaks this (a hostile or
    /// damaged file) would make two tables or columns answer to one name.
    func validate() throws(ShoalError) {
        var problems: [String] = []
        var classNames: Set<String> = []
        for os in objectSchema {
            if os.className.isEmpty { problems.append("A class has an empty name.") }
            if !classNames.insert(os.className).inserted, !os.className.isEmpty {
                problems.append("Class '\(os.className)' appears more than once.")
            }
            var propertyNames: Set<String> = []
            for p in os.properties {
                if p.name.isEmpty { problems.append("Class '\(os.className)' has a property with an empty name.") }
                if !propertyNames.insert(p.name).inserted, !p.name.isEmpty {
                    problems.append("Property '\(os.className).\(p.name)' appears more than once.")
                }
            }
            if os.isEmbedded, let pk = os.primaryKeyProperty {
                problems.append("Embedded object type '\(os.className)' cannot have a primary key ('\(pk.name)').")
            }
            if os.properties.filter(\.isPrimary).count > 1 {
                problems.append("Class '\(os.className)' has more than one primary key.")
            }
            for p in os.properties {
                let at = "'\(os.className).\(p.name)'"
                if p.isPrimary {
                    if p.collection != .none || ![.int, .string, .objectId, .uuid].contains(p.type) {
                        problems.append("Property \(at) of type '\(p.typeName)' cannot be a primary key; use Int, String, ObjectId or UUID.")
                    }
                }
                if p.isIndexed && !p.isPrimary
                    && (p.collection != .none || [.float, .double, .data, .decimal128, .object, .linkingObjects].contains(p.type))
                {
                    problems.append("Property \(at) of type '\(p.typeName)' cannot be indexed.")
                }
                if p.type == .object, p.collection == .set, let target = p.objectClassName, self[target]?.isEmbedded == true {
                    // Realm's message (realm-core's schema test "rejects embedded objects in sets").
                    problems.append("Set property \(at) cannot contain embedded object type '\(target)'. Set semantics are not applicable to embedded objects.")
                }
                if p.type == .object || p.type == .linkingObjects {
                    guard let target = p.objectClassName, self[target] != nil else {
                        problems.append("Property \(at) links to class '\(p.objectClassName ?? "?")', which is not in the schema; add it to Configuration.objectTypes.")
                        continue
                    }
                    if p.type == .object && p.collection == .none && !p.isOptional {
                        problems.append("Property \(at) is a link to '\(target)' and must be optional ('\(target)?').")
                    }
                    if p.type == .object && (p.collection == .list || p.collection == .set) && p.isOptional {
                        problems.append("Property \(at): collections of objects cannot hold nil.")
                    }
                    if p.type == .linkingObjects {
                        let origin = p.linkOriginPropertyName ?? ""
                        guard let op = self[target]?[origin] else {
                            problems.append("Property \(at) declares linking objects from '\(target).\(origin)', which does not exist.")
                            continue
                        }
                        if op.type != .object || op.objectClassName != os.className {
                            problems.append("Property \(at) declares linking objects from '\(target).\(origin)', which does not link to '\(os.className)'.")
                        }
                    }
                }
            }
        }
        problems += embeddedCycles()
        if let first = problems.first {
            throw ShoalError(.schemaInvalid, "Schema validation failed: \(first)" + (problems.count > 1 ? " (and \(problems.count - 1) more: \(problems.dropFirst().joined(separator: " "))" : ""),
                context: ["problems": problems.joined(separator: "\n")])
        }
    }
}

extension Schema {
    /// Realm's refusal of cycles through embedded classes (realm-core's schema
    /// tests "rejects embedded objects loop to itself" and "… via different
    /// embedded object"): an embedded object's owner chain must end at a
    /// top-level object, so no path of links may lead from an embedded class
    /// back to itself through embedded classes only.
    func embeddedCycles() -> [String] {
        var problems: [String] = []
        for start in objectSchema where start.isEmbedded {
            // Depth-first over links to embedded classes, with the path so far.
            var stack: [(className: String, path: String)] = [(start.className, start.className)]
            var seen: Set<String> = []
            while let (className, path) = stack.popLast() {
                guard let os = self[className] else { continue }
                for p in os.properties where p.type == .object {
                    guard let target = p.objectClassName, let next = self[target], next.isEmbedded else { continue }
                    if target == start.className {
                        problems.append("Cycles containing embedded objects are not currently supported: '\(path).\(p.name)'")
                    } else if seen.insert(target).inserted {
                        stack.append((target, "\(path).\(p.name)"))
                    }
                }
            }
        }
        return problems
    }
}
