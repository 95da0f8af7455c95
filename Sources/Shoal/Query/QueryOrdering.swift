import Foundation

/// Sorting and distinct over evaluated elements, with Realm's rules.
///
/// Steps apply in the order they were added. A sort is stable, so adding a
/// sort after a sort makes the new keys primary with the earlier ones
/// breaking ties, and table (or collection) order breaks the rest. Nulls
/// sort first ascending; a null link on a sort path sorts last ascending and
/// first descending. Distinct keeps the first element of each group in the
/// current order and drops elements with a null link on a distinct path.
enum OrderingStep: Sendable {
    case sort([SortKey])
    case distinct([SortPath])
}

/// A resolved sort or distinct key path: to-one links, then a final value.
/// Empty for `self` (the elements themselves, for primitives).
struct SortPath: Sendable {
    var steps: [BoundProperty]
    var text: String
}

struct SortKey: Sendable {
    var path: SortPath
    var ascending: Bool
}

extension OrderingStep {
    /// Resolves a sort (`verb` "sort") or distinct (`verb` "distinct") key
    /// path, with Realm's messages for paths that cannot be used.
    static func resolve(_ keyPath: String, root: QueryBinder.Root, schema: Schema, verb: String) throws(ShoalError) -> SortPath {
        let prefix = "Cannot \(verb) on key path '\(keyPath)'"
        if keyPath == "self" {
            if case .primitive = root { return SortPath(steps: [], text: keyPath) }
        }
        if keyPath.contains("@") {
            // Realm's words: "key path" for a sort, "keypath" for a distinct.
            let noun = verb == "sort" ? "key path" : "keypath"
            throw ShoalError(.invalidKeyPath, "Cannot \(verb) on \(noun) '\(keyPath)': KVC collection operators are not supported.",
                context: ["keyPath": keyPath])
        }
        guard case .table(var table) = root else {
            throw ShoalError(.invalidKeyPath, "\(prefix): only 'self' applies to a collection of values.", context: ["keyPath": keyPath])
        }
        let names = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var steps: [BoundProperty] = []
        for (offset, name) in names.enumerated() {
            let objectSchema = schema[table]
            let isLast = offset == names.count - 1
            guard !name.isEmpty else {
                throw ShoalError(.invalidKeyPath, "\(prefix): missing property name.", context: ["keyPath": keyPath])
            }
            guard let index = objectSchema.indexByName[name] else {
                throw ShoalError(.invalidKeyPath, "\(prefix): property '\(objectSchema.className).\(name)' does not exist.",
                    context: ["keyPath": keyPath, "class": objectSchema.className, "property": name])
            }
            let property = objectSchema.properties[index]
            let qualified = "'\(objectSchema.className).\(name)'"
            let unsupported: String? =
                switch property.collection {
                case .list: "array"
                case .set: "set"
                case .map: "dictionary"
                case .none: property.type == .linkingObjects ? "linking objects" : (property.type == .data ? "data" : nil)
                }
            if let unsupported {
                throw ShoalError(.invalidKeyPath, "\(prefix): property \(qualified) is of unsupported type '\(unsupported)'.",
                    context: ["keyPath": keyPath, "class": objectSchema.className, "property": name])
            }
            steps.append(BoundProperty(table: table, index: index))
            if property.type == .object {
                if isLast {
                    throw ShoalError(.invalidKeyPath,
                        "\(prefix): property \(qualified) of type 'object' cannot be the final property in the key path.",
                        context: ["keyPath": keyPath])
                }
                table = schema.tableByName[property.objectClassName ?? ""] ?? table
            } else if !isLast {
                throw ShoalError(.invalidKeyPath,
                    "\(prefix): property \(qualified) of type '\(property.type)' may only be the final property in the key path.",
                    context: ["keyPath": keyPath])
            }
        }
        return SortPath(steps: steps, text: keyPath)
    }

    /// Applies ordering steps to evaluated elements.
    static func apply(_ steps: [OrderingStep], to elements: [Value], snapshot: Snapshot) -> [Value] {
        var elements = elements
        for step in steps {
            switch step {
            case .sort(let keys): elements = sort(elements, keys, snapshot)
            case .distinct(let paths): elements = distinct(elements, paths, snapshot)
            }
        }
        return elements
    }

    /// The value a sort path reaches, or `nil` when a link on the way is null.
    static func value(_ path: SortPath, of element: Value, _ snapshot: Snapshot) -> Value? {
        var current = element
        for step in path.steps {
            guard case .link(let link) = current else { return nil }
            current = snapshot.value(step.table, link.key, step.index)
        }
        return current
    }

    /// The sort values of one key for every element, specialised when they
    /// are all strings or all integers so that comparing them copies nothing.
    private enum SortColumn {
        case strings([String])
        case ints([Int64])
        case values([Value?])

        init(_ values: [Value?]) {
            var strings: [String] = []
            strings.reserveCapacity(values.count)
            var ints: [Int64] = []
            ints.reserveCapacity(values.count)
            for v in values {
                switch v {
                case .string(let s)? where ints.isEmpty: strings.append(s)
                case .int(let i)? where strings.isEmpty: ints.append(i)
                default:
                    self = .values(values)
                    return
                }
            }
            self = strings.isEmpty ? .ints(ints) : .strings(strings)
        }

        func compare(_ a: Int, _ b: Int, ascending: Bool) -> ComparisonResult {
            let result: ComparisonResult
            switch self {
            case .strings(let s): result = Value.compareStrings(s[a], s[b])
            case .ints(let i): result = i[a] < i[b] ? .orderedAscending : (i[a] == i[b] ? .orderedSame : .orderedDescending)
            case .values(let v): return OrderingStep.compare(v[a], v[b], ascending: ascending)
            }
            if ascending || result == .orderedSame { return result }
            return result == .orderedAscending ? .orderedDescending : .orderedAscending
        }
    }

    private static func sort(_ elements: [Value], _ keys: [SortKey], _ snapshot: Snapshot) -> [Value] {
        if keys.count == 1, let sorted = sortByStringColumn(elements, keys[0], snapshot) { return sorted }
        let columns = keys.map { key in SortColumn(elements.map { value(key.path, of: $0, snapshot) }) }
        // One key of one kind, the usual case: bind the column once, so that
        // comparing does not retain it each time. Ties keep collection order.
        if keys.count == 1 {
            let ascending = keys[0].ascending
            switch columns[0] {
            case .strings(let strings):
                return elements.indices.sorted { a, b in
                    let r = Value.compareStrings(strings[a], strings[b])
                    return r == .orderedSame ? a < b : (r == .orderedAscending) == ascending
                }.map { elements[$0] }
            case .ints(let ints):
                return elements.indices.sorted { a, b in
                    ints[a] == ints[b] ? a < b : (ints[a] < ints[b]) == ascending
                }.map { elements[$0] }
            case .values: break
            }
        }
        let order = elements.indices.sorted { a, b in
            for (k, key) in keys.enumerated() {
                let result = columns[k].compare(a, b, ascending: key.ascending)
                if result != .orderedSame { return result == .orderedAscending }
            }
            return a < b
        }
        return order.map { elements[$0] }
    }

    /// Orders sort values; a null link (`nil`) sorts after everything ascending.
    static func compare(_ a: Value?, _ b: Value?, ascending: Bool) -> ComparisonResult {
        let result: ComparisonResult
        switch (a, b) {
        case (nil, nil): result = .orderedSame
        case (nil, _): result = .orderedDescending
        case (_, nil): result = .orderedAscending
        case (let a?, let b?): result = Value.compare(a, b)
        }
        if ascending || result == .orderedSame { return result }
        return result == .orderedAscending ? .orderedDescending : .orderedAscending
    }

    private static func distinct(_ elements: [Value], _ paths: [SortPath], _ snapshot: Snapshot) -> [Value] {
        var seen = Set<[Value]>()
        var out: [Value] = []
        for element in elements {
            var tuple: [Value] = []
            for path in paths {
                guard let value = value(path, of: element, snapshot) else { break }
                tuple.append(value)
            }
            guard tuple.count == paths.count else { continue }
            if seen.insert(tuple).inserted { out.append(element) }
        }
        return out
    }
}
