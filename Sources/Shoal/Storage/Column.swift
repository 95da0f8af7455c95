import Foundation

/// The values of one stored single-valued property, one per slot, typed by
/// the property: fixed-width values in ``Chunks`` for numbers, booleans,
/// dates, object ids, UUIDs, decimals and links (object keys, `-1` for
/// null), UTF-8 bytes plus offsets in ``ByteChunks`` for strings and data,
/// tagged ``Value``s only for `AnyRealmValue`. Nulls of the other kinds
/// live in a validity vector, made when the first null is stored (a
/// required property holds one only in deleted slots).
///
/// A value that does not fit the column's type (never written by Shoal's
/// own write paths, which coerce values to the property's type first)
/// turns the column into tagged values rather than lose it.
///
/// `Value` stays the currency of change records, predicates and dynamic
/// APIs: ``subscript(_:)`` builds one, while scans and sorts read the typed
/// storage (``storage``) a leaf at a time.
struct Column: Sendable {
    enum Storage: Sendable {
        /// A collection property's placeholder: every slot reads as null.
        case none(count: Int)
        case int(Chunks<Int64>)
        case bool(Chunks<Bool>)
        case float(Chunks<Float>)
        case double(Chunks<Double>)
        case date(Chunks<Date>)
        case objectId(Chunks<ObjectId>)
        case decimal(Chunks<Decimal128>)
        case uuid(Chunks<UUID>)
        /// Object keys into one table (known from the first link), `-1` for null.
        case link(Chunks<Int64>, target: TableKey?)
        case string(ByteChunks)
        case data(ByteChunks)
        case values(Chunks<Value>)
    }

    private(set) var storage: Storage
    /// Whether each slot is null, once any has been (not for links, whose
    /// null is a key of `-1`, nor tagged values).
    private(set) var nulls: Chunks<Bool>?

    /// An empty column for a property.
    init(for property: Property) {
        guard property.collection == .none else {
            storage = .none(count: 0)
            return
        }
        switch property.type {
        case .int: storage = .int(Chunks())
        case .bool: storage = .bool(Chunks())
        case .float: storage = .float(Chunks())
        case .double: storage = .double(Chunks())
        case .date: storage = .date(Chunks())
        case .objectId: storage = .objectId(Chunks())
        case .decimal128: storage = .decimal(Chunks())
        case .uuid: storage = .uuid(Chunks())
        case .object: storage = .link(Chunks(), target: nil)
        case .string: storage = .string(ByteChunks())
        case .data: storage = .data(ByteChunks())
        case .any, .linkingObjects: storage = .values(Chunks())
        }
    }

    var count: Int {
        switch storage {
        case .none(let n): n
        case .int(let c): c.count
        case .bool(let c): c.count
        case .float(let c): c.count
        case .double(let c): c.count
        case .date(let c): c.count
        case .objectId(let c): c.count
        case .decimal(let c): c.count
        case .uuid(let c): c.count
        case .link(let c, _): c.count
        case .string(let c), .data(let c): c.count
        case .values(let c): c.count
        }
    }

    /// Whether slot `i` holds null.
    @inline(__always)
    func isNull(_ i: Int) -> Bool {
        switch storage {
        case .none: return true
        case .link(let c, _): return c[i] < 0
        case .values(let c): return c[i].isNull
        default: return nulls?[i] ?? false
        }
    }

    /// The value in slot `i`.
    subscript(i: Int) -> Value {
        if let nulls, nulls[i] { return .null }
        switch storage {
        case .none: return .null
        case .int(let c): return .int(c[i])
        case .bool(let c): return .bool(c[i])
        case .float(let c): return .float(c[i])
        case .double(let c): return .double(c[i])
        case .date(let c): return .date(c[i])
        case .objectId(let c): return .objectId(c[i])
        case .decimal(let c): return .decimal(c[i])
        case .uuid(let c): return .uuid(c[i])
        case .link(let c, let target):
            let key = c[i]
            return key < 0 ? .null : .link(Link(table: target!, key: ObjectKey(key)))
        case .string(let c): return .string(c.string(i))
        case .data(let c): return .data(c.withBytes(i) { Data($0) })
        case .values(let c): return c[i]
        }
    }

    /// Stores `value` in slot `i`.
    mutating func set(_ i: Int, _ value: Value) {
        precondition(i >= 0 && i < count, "column index \(i) out of range 0..<\(count)")
        put(value, at: i)
    }

    mutating func append(_ value: Value) {
        put(value, at: nil)
    }

    /// Appends `values` in order: the bulk path of inserted runs and loaded
    /// snapshots. Values of the column's type go straight into its leaves,
    /// with the storage taken out once; from the first value that is not
    /// (a null, or another kind), the rest go one by one as ``append(_:)``
    /// would.
    mutating func append<C: Collection<Value>>(contentsOf values: C) {
        var rest = values[...]
        if case .link(let c, nil) = storage, let first = values.lazy.compactMap(\.linkValue).first {
            storage = .link(c, target: first.table)
        }
        if nulls == nil {
            switch storage {
            case .int: edit({ $0.ints }, Storage.int) { c in while case .int(let x)? = rest.first { c.append(x); rest.removeFirst() } }
            case .bool: edit({ $0.bools }, Storage.bool) { c in while case .bool(let x)? = rest.first { c.append(x); rest.removeFirst() } }
            case .double: edit({ $0.doubles }, Storage.double) { c in while case .double(let x)? = rest.first { c.append(x); rest.removeFirst() } }
            case .date: edit({ $0.dates }, Storage.date) { c in while case .date(let x)? = rest.first { c.append(x); rest.removeFirst() } }
            case .link(_, let target):
                edit({ $0.links }, linkWrap) { c in
                    while let v = rest.first {
                        if case .null = v {
                            c.append(-1)
                        } else if case .link(let link) = v, link.table == target {
                            c.append(link.key.rawValue)
                        } else {
                            break
                        }
                        rest.removeFirst()
                    }
                }
            case .string: editBytes { c in while case .string(let s)? = rest.first { c.append(s); rest.removeFirst() } }
            case .values: edit({ $0.tagged }, Storage.values) { c in c.append(contentsOf: rest); rest = rest[rest.endIndex...] }
            default: break
            }
        }
        for v in rest { put(v, at: nil) }
    }

    /// Appends `n` nulls.
    mutating func appendNulls(_ n: Int) {
        guard n > 0 else { return }
        let start = count
        switch storage {
        case .none(let c): storage = .none(count: c + n)
        case .link: edit({ $0.links }, linkWrap) { $0.append(repeating: -1, count: n) }
        case .values: edit({ $0.tagged }, Storage.values) { $0.append(repeating: .null, count: n) }
        default:
            appendPlaceholders(n)
            if nulls == nil { nulls = Chunks(repeating: false, count: start) }
            nulls!.append(repeating: true, count: n)
        }
    }

    // MARK: - Writing

    /// Stores `value` at slot `slot`, or appends it (`nil`).
    private mutating func put(_ value: Value, at slot: Int?) {
        if value.isNull {
            putNull(at: slot)
            return
        }
        // Switched on the value alone: a tuple with the storage would hold
        // a second reference to its buffers and make every write copy them.
        let stored: Bool
        switch value {
        case .int(let x): stored = edit({ $0.ints }, Storage.int, x, slot)
        case .bool(let x): stored = edit({ $0.bools }, Storage.bool, x, slot)
        case .float(let x): stored = edit({ $0.floats }, Storage.float, x, slot)
        case .double(let x): stored = edit({ $0.doubles }, Storage.double, x, slot)
        case .date(let x): stored = edit({ $0.dates }, Storage.date, x, slot)
        case .objectId(let x): stored = edit({ $0.objectIds }, Storage.objectId, x, slot)
        case .decimal(let x): stored = edit({ $0.decimals }, Storage.decimal, x, slot)
        case .uuid(let x): stored = edit({ $0.uuids }, Storage.uuid, x, slot)
        case .link(let link):
            if case .link(_, let target) = storage, target == nil || target == link.table {
                edit({ $0.links }, { .link($0, target: link.table) }) { if let slot { $0[slot] = link.key.rawValue } else { $0.append(link.key.rawValue) } }
                stored = true
            } else {
                stored = false
            }
        case .string(let s):
            if case .string = storage {
                editBytes { if let slot { $0.set(slot, s) } else { $0.append(s) } }
                stored = true
            } else {
                stored = false
            }
        case .data(let d):
            if case .data = storage {
                editBytes { c in d.withUnsafeBytes { if let slot { c.set(slot, $0) } else { c.append($0) } } }
                stored = true
            } else {
                stored = false
            }
        case .null: preconditionFailure("null handled above")
        }
        if !stored, case .values = storage {
            edit({ $0.tagged }, Storage.values) { if let slot { $0[slot] = value } else { $0.append(value) } }
            return
        }
        guard stored else {
            // Not of the column's type: keep it, as tagged values.
            becomeTagged()
            put(value, at: slot)
            return
        }
        if nulls != nil {
            if let slot { nulls![slot] = false } else { nulls!.append(false) }
        }
    }

    private mutating func putNull(at slot: Int?) {
        switch storage {
        case .none(let c):
            if slot == nil { storage = .none(count: c + 1) }
            return
        case .link: _ = edit({ $0.links }, linkWrap, -1, slot)
        case .values: _ = edit({ $0.tagged }, Storage.values, .null, slot)
        default:
            if let slot {
                if nulls == nil { nulls = Chunks(repeating: false, count: count) }
                nulls![slot] = true
                // Drop the bytes of a string or data, as a tagged null would.
                if case .string = storage { editBytes { $0.set(slot, UnsafeRawBufferPointer(start: nil, count: 0)) } }
                if case .data = storage { editBytes { $0.set(slot, UnsafeRawBufferPointer(start: nil, count: 0)) } }
            } else {
                appendNulls(1)
            }
        }
    }

    /// Appends `n` placeholder values (zero, empty) of the column's type,
    /// to be marked null by the caller.
    private mutating func appendPlaceholders(_ n: Int) {
        switch storage {
        case .int: edit({ $0.ints }, Storage.int) { $0.append(repeating: 0, count: n) }
        case .bool: edit({ $0.bools }, Storage.bool) { $0.append(repeating: false, count: n) }
        case .float: edit({ $0.floats }, Storage.float) { $0.append(repeating: 0, count: n) }
        case .double: edit({ $0.doubles }, Storage.double) { $0.append(repeating: 0, count: n) }
        case .date: edit({ $0.dates }, Storage.date) { $0.append(repeating: Date(timeIntervalSinceReferenceDate: 0), count: n) }
        case .objectId: edit({ $0.objectIds }, Storage.objectId) { $0.append(repeating: ObjectId(), count: n) }
        case .decimal: edit({ $0.decimals }, Storage.decimal) { $0.append(repeating: Decimal128(0), count: n) }
        case .uuid: edit({ $0.uuids }, Storage.uuid) { $0.append(repeating: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), count: n) }
        case .string, .data: editBytes { $0.appendEmpty(count: n) }
        case .none, .link, .values: preconditionFailure("placeholders for a column that stores its own nulls")
        }
    }

    /// Turns the column into tagged values, keeping every value.
    private mutating func becomeTagged() {
        var tagged = Chunks<Value>()
        for i in 0..<count { tagged.append(self[i]) }
        storage = .values(tagged)
        nulls = nil
    }

    /// Mutates the typed storage `extract` gives, in place: the storage is
    /// moved out first so that its buffers stay uniquely referenced, then
    /// put back by `wrap`.
    @inline(__always)
    private mutating func edit<T>(
        _ extract: (Storage) -> Chunks<T>?, _ wrap: (Chunks<T>) -> Storage, _ body: (inout Chunks<T>) -> Void
    ) {
        guard var chunks = extract(storage) else { preconditionFailure("column storage of another type") }
        storage = .none(count: 0)
        body(&chunks)
        storage = wrap(chunks)
    }

    /// Stores `x` at `slot`, or appends it, when the storage is `extract`'s.
    @inline(__always)
    private mutating func edit<T>(_ extract: (Storage) -> Chunks<T>?, _ wrap: (Chunks<T>) -> Storage, _ x: T, _ slot: Int?) -> Bool {
        guard extract(storage) != nil else { return false }
        edit(extract, wrap) { if let slot { $0[slot] = x } else { $0.append(x) } }
        return true
    }

    /// Wraps link keys with the column's target table.
    private var linkWrap: (Chunks<Int64>) -> Storage {
        guard case .link(_, let target) = storage else { preconditionFailure("link storage asked of another column") }
        return { .link($0, target: target) }
    }

    private mutating func editBytes(_ body: (inout ByteChunks) -> Void) {
        switch storage {
        case .string(var c):
            storage = .none(count: 0)
            body(&c)
            storage = .string(c)
        case .data(var c):
            storage = .none(count: 0)
            body(&c)
            storage = .data(c)
        default: preconditionFailure("byte storage asked of another column")
        }
    }
}

extension Column.Storage {
    var ints: Chunks<Int64>? { if case .int(let c) = self { c } else { nil } }
    var bools: Chunks<Bool>? { if case .bool(let c) = self { c } else { nil } }
    var floats: Chunks<Float>? { if case .float(let c) = self { c } else { nil } }
    var doubles: Chunks<Double>? { if case .double(let c) = self { c } else { nil } }
    var dates: Chunks<Date>? { if case .date(let c) = self { c } else { nil } }
    var objectIds: Chunks<ObjectId>? { if case .objectId(let c) = self { c } else { nil } }
    var decimals: Chunks<Decimal128>? { if case .decimal(let c) = self { c } else { nil } }
    var uuids: Chunks<UUID>? { if case .uuid(let c) = self { c } else { nil } }
    var links: Chunks<Int64>? { if case .link(let c, _) = self { c } else { nil } }
    var tagged: Chunks<Value>? { if case .values(let c) = self { c } else { nil } }
    var bytes: ByteChunks? {
        switch self {
        case .string(let c), .data(let c): c
        default: nil
        }
    }
}

extension Column {
    /// Calls `body` with the value of each slot in `slots`, in order.
    func forEachValue(in slots: Range<Int>, _ body: (Value) -> Void) {
        for i in slots { body(self[i]) }
    }
}

extension Column {
    /// The name of the storage's case ("int", "string", "values", …), for
    /// checks that two paths built the same representation.
    var storageKind: String {
        switch storage {
        case .none: "none"
        case .int: "int"
        case .bool: "bool"
        case .float: "float"
        case .double: "double"
        case .date: "date"
        case .objectId: "objectId"
        case .decimal: "decimal"
        case .uuid: "uuid"
        case .link: "link"
        case .string: "string"
        case .data: "data"
        case .values: "values"
        }
    }
}
