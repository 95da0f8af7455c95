import Foundation

/// Which records ``LogInspector/dump(_:format:progress:to:)`` prints.
///
/// ```swift
/// // Who changed Dog 3, and when, during May?
/// var filter = DumpFilter(className: "Dog", primaryKey: "3")
/// filter.from = .time(microsSinceEpoch: 1_714_521_600_000_000)
/// ```
public struct DumpFilter: Sendable, Equatable {
    /// The first version or time to print (inclusive).
    public var from: PointInTime?
    /// The last version or time to print (inclusive).
    public var to: PointInTime?
    /// Print only ops on objects of this class.
    public var className: String?
    /// Print only ops on the object with this primary key, as typed: `3`, `Ann`,
    /// an ObjectId's 24 hex digits or a UUID.
    public var primaryKey: String?

    /// Creates a filter; with no arguments, everything is printed.
    public init(from: PointInTime? = nil, to: PointInTime? = nil, className: String? = nil, primaryKey: String? = nil) {
        self.from = from
        self.to = to
        self.className = className
        self.primaryKey = primaryKey
    }

    func includes(_ record: LogRecord) -> Bool {
        switch from {
        case .version(let v)?: if record.version < v { return false }
        case .time(let t)?: if record.timestampMicros < t { return false }
        case nil: break
        }
        switch to {
        case .version(let v)?: if record.version > v { return false }
        case .time(let t)?: if record.timestampMicros > t { return false }
        case nil: break
        }
        return true
    }

    var filtersObjects: Bool { className != nil || primaryKey != nil }

    /// Fails when the range ends before it starts.
    func checkRange() throws(ShoalError) {
        switch (from, to) {
        case (.version(let a)?, .version(let b)?) where a > b:
            throw ShoalError(.invalidValue, "the range starts at version \(a), after it ends at version \(b); nothing can be in it",
                context: ["from": String(a), "to": String(b)])
        case (.time(let a)?, .time(let b)?) where a > b:
            throw ShoalError(.invalidValue,
                "the range starts at \(RecoveryRendering.timestamp(micros: a)), after it ends at \(RecoveryRendering.timestamp(micros: b)); nothing can be in it",
                context: ["from": RecoveryRendering.timestamp(micros: a), "to": RecoveryRendering.timestamp(micros: b)])
        default: break
        }
    }
}

/// How the tool prints records and reports.
public enum OutputFormat: String, Sendable, CaseIterable {
    /// Readable text.
    case text
    /// JSON: one object per line for dumps.
    case json
}

extension LogInspector {
    /// Writes the database's transactions to `sink`, one line per record in
    /// JSON, or a few lines per record in text, in version order.
    ///
    /// Every op names its object by class and primary key (`Dog[3]`), or by
    /// object key for classes without one (`Puppy#0`), so that a dump answers
    /// "who changed this object, and when". Damage is printed where it is
    /// met, and records that still apply after it are printed too (as salvage
    /// would keep them).
    ///
    /// ```swift
    /// try LogInspector(path: "app.shoal").dump(DumpFilter(className: "Dog", primaryKey: "3"), format: .json) {
    ///     print($0)   // {"version":3,"time":"2024-05-01T12:00:00.000001Z","type":"transaction",…,"ops":[…]}
    /// }
    /// ```
    /// - Throws: ``ShoalError`` `unknownObjectType` when `filter.className`
    ///   names a class that no schema of the database has; `invalidValue`
    ///   for a filter nothing can match: a range that ends before it starts,
    ///   a primary key that is not a value of the class's primary key type
    ///   (`abc` for an integer key), a primary key for a class without one,
    ///   or an object that no record touches.
    public func dump(
        _ filter: DumpFilter = DumpFilter(), format: OutputFormat = .text,
        progress: ((RecoveryProgress) -> Void)? = nil, to sink: (String) -> Void
    ) throws {
        try filter.checkRange()
        var classNames = Set((source.baseSnapshot?.snapshot?.schema.objectSchema ?? []).map(\.className))
        var classSchemas: [String: ObjectSchema] = [:]
        for os in source.baseSnapshot?.snapshot?.schema.objectSchema ?? [] { classSchemas[os.className] = os }
        var matchedOps = 0
        _ = RecoveryWalk.run(
            source, policy: .skipBadRecords, progress: Self.adapt(progress),
            onProblem: { problem in
                switch format {
                case .json: sink(JSON.object([("problem", Self.json(problem))]).rendered())
                case .text: sink("!! \(problem)")
                }
            },
            visit: { step in
                classNames.formUnion(step.after.schema.objectSchema.map(\.className))
                for os in step.after.schema.objectSchema { classSchemas[os.className] = os }
                guard filter.includes(step.record) else { return }
                let ops = Self.ops(in: step, filter: filter)
                matchedOps += ops.count
                if filter.filtersObjects && ops.isEmpty { return }
                switch format {
                case .json:
                    var members: [(String, JSON)] = [
                        ("version", .int(Int64(step.record.version))),
                        ("time", .string(RecoveryRendering.timestamp(micros: step.record.timestampMicros))),
                        ("type", .string(step.record.type.description)),
                        ("file", .string(step.file)), ("offset", .int(step.offset)), ("bytes", .int(step.byteCount)),
                    ]
                    if step.record.type == .schemaChange {
                        members.append(("schema", Self.json(Self.schemaSummary(step.after))))
                    }
                    if let change = step.change {
                        members.append(("opCount", .int(Int64(change.ops.count))))
                        members.append(("ops", .array(ops.map(\.json))))
                    }
                    sink(JSON.object(members).rendered())
                case .text:
                    var head = "version \(step.record.version)  \(RecoveryRendering.timestamp(micros: step.record.timestampMicros))"
                        + "  \(step.record.type)  \(step.file)@\(step.offset)  \(RecoveryRendering.count(step.byteCount, "byte"))"
                    if let change = step.change { head += "  \(RecoveryRendering.count(change.ops.count, "op"))" }
                    sink(head)
                    if step.record.type == .schemaChange {
                        let classes = step.after.schema.objectSchema.map { $0.className + ($0.isEmbedded ? " (embedded)" : "") }
                            .joined(separator: ", ")
                        sink("    schema version \(step.after.schemaVersion): \(classes.isEmpty ? "no classes" : classes)")
                    }
                    for op in ops { sink("    " + op.text) }
                }
            })
        if let name = filter.className, !classNames.contains(name) {
            throw ShoalError(
                .unknownObjectType,
                "\(source.path) has no class '\(name)'; its classes are \(classNames.sorted().joined(separator: ", "))",
                context: ["path": source.path, "class": name])
        }
        if let wanted = filter.primaryKey {
            try Self.checkPrimaryKey(wanted, className: filter.className, schemas: classSchemas, path: source.path)
            if matchedOps == 0 {
                let label = filter.className.map { "\($0)[\(wanted)]" } ?? "with primary key \(wanted)"
                throw ShoalError(.invalidValue, "\(source.path) has no record that touches the object \(label)"
                    + (filter.from != nil || filter.to != nil ? " in the versions asked for" : ""),
                    context: ["path": source.path, "primaryKey": wanted])
            }
        }
    }

    /// Fails for a primary key the class cannot have: the class has none,
    /// or the text is not a value of its type.
    private static func checkPrimaryKey(_ text: String, className: String?, schemas: [String: ObjectSchema], path: String) throws(ShoalError) {
        guard let className, let os = schemas[className] else { return }
        guard let property = os.primaryKeyProperty else {
            throw ShoalError(.invalidValue, "'\(className)' has no primary key, so no object of it can be named by one ('\(text)')",
                context: ["path": path, "class": className])
        }
        let fits: Bool =
            switch property.type {
            case .int: Int64(text) != nil
            case .objectId: (try? ObjectId(string: text)) != nil
            case .uuid: UUID(uuidString: text) != nil
            default: true
            }
        if !fits {
            throw ShoalError(.invalidValue,
                "'\(text)' cannot be a primary key of '\(className)': its primary key '\(property.name)' is of type '\(property.type)'",
                context: ["path": path, "class": className, "primaryKey": text])
        }
    }

    private struct RenderedOp {
        let text: String
        let json: JSON
    }

    private static func ops(in step: RecoveryWalk.Step, filter: DumpFilter) -> [RenderedOp] {
        guard let change = step.change else { return [] }
        let snapshot = step.after
        var out: [RenderedOp] = []
        for op in change.ops {
            let (t, k) = op.target
            let os = snapshot.schema[t]
            if let name = filter.className, os.className != name { continue }
            let pk = RecoveryRendering.primaryKey(of: (t, k), in: change, before: step.before, after: step.after)
            if let wanted = filter.primaryKey, pk.map(RecoveryRendering.plain) != wanted { continue }
            let label = RecoveryRendering.label(t, k, in: snapshot, primaryKey: pk)
            var members: [(String, JSON)] = [("class", .string(os.className)), ("key", .int(k.rawValue))]
            if let pk { members.append(("primaryKey", RecoveryRendering.json(pk, in: snapshot))) }
            func value(_ v: Value) -> (String, JSON) { (RecoveryRendering.text(v, in: snapshot), RecoveryRendering.json(v, in: snapshot)) }
            func name(_ p: Int) -> String { os.properties[p].name }
            let kind: String
            let text: String
            switch op {
            case .insert(_, _, let values):
                kind = "insert"
                let stored = values.enumerated().filter { os.properties[$0.offset].collection == .none }
                members.append(("values", .object(stored.map { (name($0.offset), value($0.element).1) })))
                text = "insert \(label) {" + stored.map { "\(name($0.offset)): \(value($0.element).0)" }.joined(separator: ", ") + "}"
            case .delete:
                kind = "delete"
                text = "delete \(label)"
            case .set(_, _, let p, let v):
                kind = "set"
                members += [("property", .string(name(p))), ("value", value(v).1)]
                text = "set \(label).\(name(p)) = \(value(v).0)"
            case .listInsert(_, _, let p, let i, let v), .listSet(_, _, let p, let i, let v):
                if case .listInsert = op { kind = "listInsert" } else { kind = "listSet" }
                members += [("property", .string(name(p))), ("index", .int(Int64(i))), ("value", value(v).1)]
                text = "\(kind) \(label).\(name(p))[\(i)] = \(value(v).0)"
            case .listRemove(_, _, let p, let i):
                kind = "listRemove"
                members += [("property", .string(name(p))), ("index", .int(Int64(i)))]
                text = "listRemove \(label).\(name(p))[\(i)]"
            case .listMove(_, _, let p, let from, let to):
                kind = "listMove"
                members += [("property", .string(name(p))), ("from", .int(Int64(from))), ("to", .int(Int64(to)))]
                text = "listMove \(label).\(name(p)) \(from) → \(to)"
            case .setInsert(_, _, let p, let v), .setRemove(_, _, let p, let v):
                if case .setInsert = op { kind = "setInsert" } else { kind = "setRemove" }
                members += [("property", .string(name(p))), ("value", value(v).1)]
                text = "\(kind) \(label).\(name(p)) \(kind == "setInsert" ? "+=" : "-=") \(value(v).0)"
            case .mapSet(_, _, let p, let key, let v):
                kind = "mapSet"
                members += [("property", .string(name(p))), ("mapKey", .string(key)), ("value", value(v).1)]
                text = "mapSet \(label).\(name(p))[\(JSON.string(key).rendered())] = \(value(v).0)"
            case .mapRemove(_, _, let p, let key):
                kind = "mapRemove"
                members += [("property", .string(name(p))), ("mapKey", .string(key))]
                text = "mapRemove \(label).\(name(p))[\(JSON.string(key).rendered())]"
            case .collectionClear(_, _, let p):
                kind = "clear"
                members.append(("property", .string(name(p))))
                text = "clear \(label).\(name(p))"
            }
            out.append(RenderedOp(text: text, json: .object([("op", .string(kind))] + members)))
        }
        return out
    }

    static func json(_ problem: LogProblem) -> JSON {
        var members: [(String, JSON)] = [("kind", .string(problem.kind.rawValue)), ("file", .string(problem.file))]
        if let offset = problem.offset { members.append(("offset", .int(offset))) }
        members.append(("version", .int(Int64(problem.version))))
        if let bytes = problem.byteCount { members.append(("byteCount", .int(bytes))) }
        members.append(("reason", .string(problem.reason)))
        return .object(members)
    }

    static func json(_ schema: CheckReport.SchemaSummary) -> JSON {
        .object([
            ("version", .int(Int64(schema.version))), ("fingerprint", .string(schema.fingerprint)),
            ("classes", .array(schema.classes.map { .string($0.name) })),
        ])
    }
}
