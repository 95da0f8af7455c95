import Foundation

/// A JSON value with keys kept in insertion order, so that the tool's output
/// is deterministic and reads in a sensible order.
enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    static func == (lhs: JSON, rhs: JSON) -> Bool { lhs.rendered() == rhs.rendered() }

    /// Compact JSON text on one line.
    func rendered() -> String {
        var out = ""
        render(into: &out)
        return out
    }

    private func render(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += d.isFinite ? "\(d)" : "\"\(d)\""
        case .string(let s): JSON.quote(s, into: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.render(into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out += "," }
                JSON.quote(key, into: &out)
                out += ":"
                value.render(into: &out)
            }
            out += "}"
        }
    }

    static func quote(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20: out += String(format: "\\u%04x", c.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

/// How the tool shows values, objects and ops, as JSON and as text.
enum RecoveryRendering {
    /// `1 record`, `2 records`: a count with its noun, singular or plural.
    static func count(_ n: some BinaryInteger, _ singular: String, _ plural: String? = nil) -> String {
        "\(n) \(n == 1 ? singular : plural ?? singular + "s")"
    }

    /// ISO 8601 with microseconds, in UTC: `2024-05-01T12:00:00.000123Z`.
    static func timestamp(micros: UInt64) -> String {
        let seconds = Double(micros / 1_000_000)
        let text = Date(timeIntervalSince1970: seconds).formatted(.iso8601)
        return String(text.dropLast()) + "." + String(format: "%06d", Int(micros % 1_000_000)) + "Z"
    }

    /// A value as JSON: links as `{"class", "key"}` plus `"primaryKey"` when the target has one.
    static func json(_ value: Value, in snapshot: Snapshot) -> JSON {
        switch value {
        case .null: .null
        case .bool(let b): .bool(b)
        case .int(let i): .int(i)
        case .float(let f): .double(Double(f))
        case .double(let d): .double(d)
        case .string(let s): .string(s)
        case .data(let d): .string(d.base64EncodedString())
        case .date(let d): .string(d.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        case .objectId(let o): .string(o.stringValue)
        case .decimal(let d): .string(d.description)
        case .uuid(let u): .string(u.uuidString)
        case .link(let link):
            .object(
                [("class", .string(className(link.table, in: snapshot))), ("key", .int(link.key.rawValue))]
                    + (primaryKey(link.table, link.key, in: snapshot).map { [("primaryKey", json($0, in: snapshot))] } ?? []))
        case .list(let elements): .array(elements.map { json($0, in: snapshot) })
        case .dictionary(let entries): .object(entries.keys.sorted().map { ($0, json(entries[$0]!, in: snapshot)) })
        }
    }

    /// A value as text: strings quoted, links as object labels.
    static func text(_ value: Value, in snapshot: Snapshot) -> String {
        switch value {
        case .string(let s):
            var out = ""
            JSON.quote(s, into: &out)
            return out
        case .link(let link): return label(link.table, link.key, in: snapshot)
        default: return json(value, in: snapshot).rendered()
        }
    }

    static func className(_ table: TableKey, in snapshot: Snapshot) -> String {
        table.index < snapshot.schema.objectSchema.count ? snapshot.schema[table].className : "\(table)"
    }

    /// The primary key of a live object of a class that has one.
    static func primaryKey(_ table: TableKey, _ key: ObjectKey, in snapshot: Snapshot) -> Value? {
        guard table.index < snapshot.tables.count, snapshot.isAlive(table, key),
            let pk = snapshot.schema[table].primaryKeyIndex
        else { return nil }
        return snapshot.value(table, key, pk)
    }

    /// The primary key as the user types it in `--object`: the bare string, digits, or hex.
    static func plain(_ value: Value) -> String {
        switch value {
        case .string(let s): s
        case .int(let i): String(i)
        case .objectId(let o): o.stringValue
        case .uuid(let u): u.uuidString
        default: json(value, in: Snapshot(schema: Schema([]))).rendered()
        }
    }

    /// `Dog[3]` for an object with primary key 3, `Puppy#0` for one without.
    static func label(_ table: TableKey, _ key: ObjectKey, in snapshot: Snapshot, primaryKey: Value? = nil) -> String {
        let name = className(table, in: snapshot)
        if let pk = primaryKey ?? self.primaryKey(table, key, in: snapshot) { return "\(name)[\(plain(pk))]" }
        return "\(name)#\(key.rawValue)"
    }

    /// The primary key of the object an op targets: from an insert in the same
    /// record, or from the state before or after the record.
    static func primaryKey(of target: (table: TableKey, key: ObjectKey), in change: ChangeRecord, before: Snapshot, after: Snapshot) -> Value? {
        for op in change.ops {
            if case .insert(let t, let k, let values) = op, t == target.table, k == target.key,
                t.index < after.schema.objectSchema.count, let pk = after.schema[t].primaryKeyIndex
            {
                return values[pk]
            }
        }
        return primaryKey(target.table, target.key, in: before) ?? primaryKey(target.table, target.key, in: after)
    }

    /// Labels of the objects a record touches, in the order first touched.
    static func objectLabels(of change: ChangeRecord, before: Snapshot, after: Snapshot) -> [String] {
        var seen: Set<String> = []
        var out: [String] = []
        for op in change.ops {
            let target = op.target
            let pk = primaryKey(of: target, in: change, before: before, after: after)
            let label = label(target.table, target.key, in: after, primaryKey: pk)
            if seen.insert(label).inserted { out.append(label) }
        }
        return out
    }

    /// One object's stored properties as JSON members, collections included.
    static func object(_ table: TableKey, _ key: ObjectKey, in snapshot: Snapshot) -> [(String, JSON)] {
        let os = snapshot.schema[table]
        var members: [(String, JSON)] = []
        for (p, property) in os.properties.enumerated() where property.isStored {
            switch property.collection {
            case .none: members.append((property.name, json(snapshot.value(table, key, p), in: snapshot)))
            case .list: members.append((property.name, .array(snapshot.list(table, key, p).map { json($0, in: snapshot) })))
            case .set: members.append((property.name, .array(snapshot.set(table, key, p).map { json($0, in: snapshot) })))
            case .map:
                members.append((property.name, .object(snapshot.map(table, key, p).map { ($0.key, json($0.value, in: snapshot)) })))
            }
        }
        return members
    }
}
