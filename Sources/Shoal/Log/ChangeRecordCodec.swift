import Foundation

// The payload of a transaction record (format versions 1 to 3). Grammar:
//
//   payload   := opCount:varint op{opCount}        (an insert run counts as one op)
//   op        := tag:u8 table:varint key:varint body
//   body      := insert(1):     valueCount:varint value{valueCount}
//              | delete(2):
//              | set(3):        property:varint value
//              | listInsert(4): property:varint index:varint value
//              | listSet(5):    property:varint index:varint value
//              | listRemove(6): property:varint index:varint
//              | listMove(7):   property:varint from:varint to:varint
//              | setInsert(8):  property:varint value
//              | setRemove(9):  property:varint value
//              | mapSet(10):    property:varint key:string value
//              | mapRemove(11): property:varint key:string
//              | clear(12):     property:varint
//              | insertRun(13): count:varint columnCount:varint column{columnCount}
//                               (versions 2 and later; `key` is the first object's key, object i
//                               has key + i; 1 <= count <= 4096)
//   column    := 0 (all null)
//              | 1 value{count}                    (tagged, as in insert)
//              | 2 int:zigzag-varint{count}        (all ints)
//              | 3 string{count}                   (all strings)
//              | 4 table:varint ref:varint{count}  (links into one table or null: ref 0 is
//                                                  null, ref k + 1 is a link to key k)
//   value     := 0 null | 1 false | 2 true | 3 int:zigzag-varint | 4 float:fixed32
//              | 5 double:fixed64 | 6 string | 7 data:bytes | 8 date:fixed64 (bits of
//              seconds since 2001-01-01) | 9 objectId:12 bytes | 10 decimal:string
//              | 11 uuid:16 bytes | 12 link:table:varint key:varint
//   string    := length:varint utf8-bytes
//
// Tables and properties are schema indexes, never names: the schema in force
// is recorded in the log separately. See Sources/Shoal/Log/FORMAT.md.

/// Encodes change records into transaction payloads and decodes them back,
/// validating every op against the schema.
enum ChangeRecordCodec {
    /// Encodes `record`; with `insertRuns` (format version 2), consecutive
    /// inserts into one table with consecutive keys become insert runs,
    /// which replay appends a column at a time.
    static func encode(_ record: ChangeRecord, insertRuns: Bool = true) -> [UInt8] {
        let ops = record.ops
        var w = ByteWriter(capacity: 16 + ops.count * 24)
        var runs: [Range<Int>] = []
        if insertRuns {
            var i = 0
            while i < ops.count {
                let n = runLength(ops, at: i)
                if n >= minimumRun { runs.append(i..<i + n) }
                i += max(n, 1)
            }
        }
        w.varint(ops.count - runs.reduce(0) { $0 + $1.count - 1 })
        var i = 0
        for run in runs {
            while i < run.lowerBound { encode(ops[i], into: &w); i += 1 }
            encodeRun(ops[run], into: &w)
            i = run.upperBound
        }
        while i < ops.count { encode(ops[i], into: &w); i += 1 }
        return w.bytes
    }

    private static func encode(_ op: ChangeOp, into w: inout ByteWriter) {
        let (t, k) = op.target
        func head(_ tag: UInt8) {
            w.byte(tag)
            w.varint(Int(t.rawValue))
            w.varint(UInt64(bitPattern: k.rawValue))
        }
        switch op {
        case .insert(_, _, let values):
            head(1)
            w.varint(values.count)
            for v in values { encode(v, into: &w) }
        case .delete: head(2)
        case .set(_, _, let p, let v): head(3); w.varint(p); encode(v, into: &w)
        case .listInsert(_, _, let p, let i, let v): head(4); w.varint(p); w.varint(i); encode(v, into: &w)
        case .listSet(_, _, let p, let i, let v): head(5); w.varint(p); w.varint(i); encode(v, into: &w)
        case .listRemove(_, _, let p, let i): head(6); w.varint(p); w.varint(i)
        case .listMove(_, _, let p, let from, let to): head(7); w.varint(p); w.varint(from); w.varint(to)
        case .setInsert(_, _, let p, let v): head(8); w.varint(p); encode(v, into: &w)
        case .setRemove(_, _, let p, let v): head(9); w.varint(p); encode(v, into: &w)
        case .mapSet(_, _, let p, let key, let v): head(10); w.varint(p); w.string(key); encode(v, into: &w)
        case .mapRemove(_, _, let p, let key): head(11); w.varint(p); w.string(key)
        case .collectionClear(_, _, let p): head(12); w.varint(p)
        }
    }

    static func encode(_ value: Value, into w: inout ByteWriter) {
        switch value {
        case .null: w.byte(0)
        case .bool(let b): w.byte(b ? 2 : 1)
        case .int(let i): w.byte(3); w.signed(i)
        case .float(let f): w.byte(4); w.fixed32(f.bitPattern)
        case .double(let d): w.byte(5); w.fixed64(d.bitPattern)
        case .string(let s): w.byte(6); w.string(s)
        case .data(let d): w.byte(7); w.raw(d)
        case .date(let d): w.byte(8); w.fixed64(d.timeIntervalSinceReferenceDate.bitPattern)
        case .objectId(let o): w.byte(9); for b in o.bytes { w.byte(b) }
        case .decimal(let d): w.byte(10); w.string(d.description)
        case .uuid(let u):
            w.byte(11)
            withUnsafeBytes(of: u.uuid) { for b in $0 { w.byte(b) } }
        case .link(let l): w.byte(12); w.varint(Int(l.table.rawValue)); w.varint(UInt64(bitPattern: l.key.rawValue))
        case .list(let elements):
            w.byte(13)
            w.varint(elements.count)
            for element in elements { encode(element, into: &w) }
        case .dictionary(let entries):
            w.byte(14)
            w.varint(entries.count)
            for key in entries.keys.sorted() {
                w.string(key)
                encode(entries[key]!, into: &w)
            }
        }
    }

    /// How deep nested lists and dictionaries may be in a decoded value: a
    /// damaged payload cannot make decoding recurse without bound.
    static let maximumNesting = 100

    /// Decodes a payload into a record for `baseVersion`, checking that every
    /// table, property and value fits `schema`.
    static func decode(_ bytes: [UInt8], baseVersion: UInt64, schema: Schema) throws(DecodingFailure) -> ChangeRecord {
        var ops: [ChangeOp] = []
        try forEachOp(in: bytes, schema: schema, reserve: { ops.reserveCapacity($0) }) { op in
            ops.append(op)
            return true
        }
        return ChangeRecord(baseVersion: baseVersion, ops: ops)
    }

    /// Decodes a payload op by op, handing each op to `body` as soon as it
    /// is decoded, so that replay applies a record without holding all of
    /// its ops at once. `body` returns `false` to stop early (the rest is
    /// then neither decoded nor checked).
    ///
    /// - Parameter reserve: called first with an upper bound of the op count.
    static func forEachOp(
        in bytes: [UInt8], schema: Schema, reserve: (Int) -> Void = { _ in }, _ body: (ChangeOp) -> Bool
    ) throws(DecodingFailure) {
        try forEachChange(in: bytes, schema: schema, reserve: reserve, op: body) { run in
            for op in run.ops {
                guard body(op) else { return false }
            }
            return true
        }
    }

    /// Decodes a payload as ``forEachOp(in:schema:reserve:_:)`` does, but
    /// hands each insert run to `run` in column form instead of as ops:
    /// replay appends it without making a ``ChangeOp`` per object.
    static func forEachChange(
        in bytes: [UInt8], schema: Schema, reserve: (Int) -> Void = { _ in },
        op body: (ChangeOp) -> Bool, run: (InsertColumns) -> Bool
    ) throws(DecodingFailure) {
        var r = ByteReader(bytes)
        let count = try r.count("op count")
        reserve(min(count, bytes.count))
        for _ in 0..<count {
            if r.peek() == insertRunTag {
                guard run(try decodeRun(&r, schema)) else { return }
            } else {
                guard body(try decodeOp(&r, schema)) else { return }
            }
        }
        guard r.isAtEnd else { throw r.fail("\(bytes.count - r.offset) bytes left after \(count) ops") }
    }

    private static func decodeOp(_ r: inout ByteReader, _ schema: Schema) throws(DecodingFailure) -> ChangeOp {
        let shapes = schema.shapes
        let tagOffset = r.offset
        let tag = try r.byte()
        let table = try r.index(below: shapes.count, "table")
        let t = TableKey(table)
        let keyRaw = try r.varint()
        guard keyRaw < UInt64(Int64.max) else { throw r.fail("object key \(keyRaw) out of range") }
        let k = ObjectKey(Int64(keyRaw))
        let stored = shapes[table].count
        // Names are looked up only for messages.
        func describe(_ p: Int) -> String {
            let property = schema.objectSchema[table].properties[p]
            return "'\(schema.objectSchema[table].className).\(property.name)' (\(property.typeName))"
        }
        func property(_ accepts: (CollectionKind) -> Bool) throws(DecodingFailure) -> Int {
            let start = r.offset
            let p = try r.index(below: stored, "property of \(schema.objectSchema[table].className)")
            guard accepts(shapes[table][p].collection) else {
                throw DecodingFailure(offset: start, reason: "op \(tag) does not apply to \(describe(p))")
            }
            return p
        }
        func value(for p: Int) throws(DecodingFailure) -> Value {
            let start = r.offset
            let v = try decodeValue(&r, schema)
            guard shapes[table][p].value.accepts(v) else {
                throw DecodingFailure(offset: start, reason: "value \(v) does not fit \(describe(p))")
            }
            return v
        }
        switch tag {
        case 1:
            let n = try r.count("value count")
            guard n == stored else { throw r.fail("insert into \(schema.objectSchema[table].className) has \(n) values for \(stored) stored properties") }
            var values: [Value] = []
            values.reserveCapacity(n)
            for p in 0..<n {
                if shapes[table][p].collection == .none {
                    values.append(try value(for: p))
                } else {
                    let v = try decodeValue(&r, schema)
                    guard v.isNull else {
                        throw r.fail("collection property '\(schema.objectSchema[table].className).\(schema.objectSchema[table].properties[p].name)' must start empty")
                    }
                    values.append(v)
                }
            }
            return .insert(t, k, values)
        case 2: return .delete(t, k)
        case 3:
            let p = try property { $0 == .none }
            return .set(t, k, property: p, try value(for: p))
        case 4:
            let p = try property { $0 == .list }
            let i = try r.int("list index")
            return .listInsert(t, k, property: p, index: i, try value(for: p))
        case 5:
            let p = try property { $0 == .list }
            let i = try r.int("list index")
            return .listSet(t, k, property: p, index: i, try value(for: p))
        case 6:
            let p = try property { $0 == .list }
            return .listRemove(t, k, property: p, index: try r.int("list index"))
        case 7:
            let p = try property { $0 == .list }
            let from = try r.int("list index")
            return .listMove(t, k, property: p, from: from, to: try r.int("list index"))
        case 8:
            let p = try property { $0 == .set }
            return .setInsert(t, k, property: p, try value(for: p))
        case 9:
            let p = try property { $0 == .set }
            return .setRemove(t, k, property: p, try value(for: p))
        case 10:
            let p = try property { $0 == .map }
            let key = try r.string()
            return .mapSet(t, k, property: p, key: key, try value(for: p))
        case 11:
            let p = try property { $0 == .map }
            return .mapRemove(t, k, property: p, key: try r.string())
        case 12:
            return .collectionClear(t, k, property: try property { $0 != .none })
        default:
            throw DecodingFailure(offset: tagOffset, reason: "unknown op tag \(tag)")
        }
    }

    static func decodeValue(_ r: inout ByteReader, _ schema: Schema, depth: Int = 0) throws(DecodingFailure) -> Value {
        let start = r.offset
        let tag = try r.byte()
        switch tag {
        case 0: return .null
        case 1: return .bool(false)
        case 2: return .bool(true)
        case 3: return .int(try r.signed())
        case 4: return .float(Float(bitPattern: try r.fixed32()))
        case 5: return .double(Double(bitPattern: try r.fixed64()))
        case 6: return .string(try r.string())
        case 7: return .data(Data(try r.raw()))
        case 8: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try r.fixed64())))
        case 9:
            var b: [UInt8] = []
            for _ in 0..<12 { b.append(try r.byte()) }
            return .objectId(try! ObjectId(bytes: b))
        case 10:
            let s = try r.string()
            guard let d = Decimal128.parse(s).map(Decimal128.init) else { throw DecodingFailure(offset: start, reason: "invalid decimal '\(s)'") }
            return .decimal(d)
        case 11:
            var b: [UInt8] = []
            for _ in 0..<16 { b.append(try r.byte()) }
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        case 12:
            let t = try r.index(below: schema.objectSchema.count, "link table")
            let key = try r.varint()
            guard key < UInt64(Int64.max) else { throw r.fail("link key out of range") }
            return .link(Link(table: TableKey(t), key: ObjectKey(Int64(key))))
        case 13, 14:
            guard depth < maximumNesting else { throw DecodingFailure(offset: start, reason: "collections nested deeper than \(maximumNesting)") }
            let isList = tag == 13
            let n = try r.count(isList ? "nested list count" : "nested dictionary count")
            if isList {
                var elements: [Value] = []
                for _ in 0..<n { elements.append(try decodeValue(&r, schema, depth: depth + 1)) }
                return .list(elements)
            }
            var entries: [String: Value] = [:]
            for _ in 0..<n {
                let keyOffset = r.offset
                let key = try r.string()
                guard entries.updateValue(try decodeValue(&r, schema, depth: depth + 1), forKey: key) == nil else {
                    throw DecodingFailure(offset: keyOffset, reason: "nested dictionary key '\(key)' repeated")
                }
            }
            return .dictionary(entries)
        case let kind:
            throw DecodingFailure(offset: start, reason: "unknown value kind \(kind)")
        }
    }
}
