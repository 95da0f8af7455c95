import Foundation

/// The values of one stored single-valued property, one per slot, typed by
/// the property: integers and links (object keys, `-1` for null) in
/// ``IntChunks``, whose full leaves take the fewest bytes their values
/// need, other fixed-width values in ``Chunks`` (doubles, dates, booleans,
/// object ids, UUIDs, decimals), UTF-8 bytes plus offsets in
/// ``ByteChunks`` for strings and data (strings dictionary-encoded
/// first: see ``Kind/codedString``), tagged ``Value``s only for `AnyRealmValue`. Nulls of the other kinds
/// live in a validity vector, made when the first null is stored (a
/// required property holds one only in deleted slots).
///
/// A value that does not fit the column's type (never written by Shoal's
/// own write paths, which coerce values to the property's type first)
/// turns the column into tagged values rather than lose it.
///
/// `Value` stays the currency of change records, predicates and dynamic
/// APIs: ``subscript(_:)`` builds one, while scans and sorts read the typed
/// leaves (``ints``, ``bytes``…) a leaf at a time.
///
/// The kinds are separate stored properties, only the one of ``kind`` in
/// use, rather than payloads of one enum: reading a value from a borrowed
/// column then touches no reference count, where binding an enum payload
/// retains and releases its buffers on every read.
struct Column: Sendable {
    enum Kind: String, Sendable {
        /// A collection property's placeholder: every slot reads as null.
        case none
        case int, bool, float, double, date, objectId, decimal, uuid
        /// Object keys into one table (``linkTarget``), `-1` for null.
        case link
        case string, data
        /// Strings, dictionary-encoded: each slot holds a code (in
        /// ``ints``, `-1` for null) into the column's ``dictionary``. What
        /// a string property's column starts as. It turns into ``string``
        /// when it would hold more than ``StringDictionary/capacity``
        /// distinct strings, or when a run of plain strings is appended to
        /// it while it is empty (a log's or an older snapshot's leaves,
        /// taken as they are); a plain column stays plain in memory, and
        /// compaction writes it coded when its strings fit a dictionary.
        /// Reading a string then copies a `String` made once, with no UTF-8
        /// check; scans test each distinct string once; sorts order codes
        /// by rank.
        case codedString
        /// Tagged values.
        case values
    }

    private(set) var kind: Kind
    /// Integers, the keys of links, and the codes of coded strings.
    private(set) var ints = IntChunks()
    /// Doubles, and dates as seconds since the reference date.
    private(set) var doubles = Chunks<Double>()
    private(set) var floats = Chunks<Float>()
    private(set) var bools = Chunks<Bool>()
    private(set) var objectIds = Chunks<ObjectId>()
    private(set) var decimals = Chunks<Decimal128>()
    private(set) var uuids = Chunks<UUID>()
    /// Strings' UTF-8 and data's bytes.
    private(set) var bytes = ByteChunks()
    private(set) var tagged = Chunks<Value>()
    /// The strings a ``Kind/codedString`` column's codes name.
    private(set) var dictionary: StringDictionary?
    /// The slot count of a placeholder column.
    private var placeholders = 0
    /// The table links point into, known from the first link stored.
    private(set) var linkTarget: TableKey?
    /// Whether each slot is null, once any has been (not for links, whose
    /// null is a key of `-1`, nor tagged values).
    private(set) var nulls: Chunks<Bool>?

    /// An empty column for a property.
    init(for property: Property) {
        guard property.collection == .none else {
            kind = .none
            return
        }
        switch property.type {
        case .int: kind = .int
        case .bool: kind = .bool
        case .float: kind = .float
        case .double: kind = .double
        case .date: kind = .date
        case .objectId: kind = .objectId
        case .decimal128: kind = .decimal
        case .uuid: kind = .uuid
        case .object: kind = .link
        case .string:
            kind = .codedString
            dictionary = StringDictionary()
        case .data: kind = .data
        case .any, .linkingObjects: kind = .values
        }
    }

    /// An empty column of `kind` (links into `linkTarget`): what decoders
    /// fill with ``appendInt(_:)`` and ``appendBytes(_:)``.
    init(kind: Kind, linkTarget: TableKey? = nil) {
        self.kind = kind
        self.linkTarget = linkTarget
        if kind == .codedString { dictionary = StringDictionary() }
    }

    var count: Int {
        switch kind {
        case .none: placeholders
        case .int, .link, .codedString: ints.count
        case .bool: bools.count
        case .float: floats.count
        case .double, .date: doubles.count
        case .objectId: objectIds.count
        case .decimal: decimals.count
        case .uuid: uuids.count
        case .string, .data: bytes.count
        case .values: tagged.count
        }
    }

    /// Whether slot `i` holds null.
    @inline(__always)
    func isNull(_ i: Int) -> Bool {
        switch kind {
        case .none: true
        case .link, .codedString: ints[i] < 0
        case .values: tagged[i].isNull
        default: nulls?[i] ?? false
        }
    }

    /// The value in slot `i`.
    subscript(i: Int) -> Value {
        withUnsafePointer(to: self) { Self.value($0, i) }
    }

    /// The value in slot `i` of the column at `column`, read in place:
    /// the form of ``subscript(_:)`` for hot paths, which reach columns
    /// through pointers so that no column is copied (a copy retains every
    /// kind's leaves).
    @inline(__always)
    static func value(_ column: UnsafePointer<Column>, _ i: Int) -> Value {
        if column.pointee.nulls?[i] == true { return .null }
        switch column.pointee.kind {
        case .none: return .null
        case .int: return .int(column.pointee.ints[i])
        case .bool: return .bool(column.pointee.bools[i])
        case .float: return .float(column.pointee.floats[i])
        case .double: return .double(column.pointee.doubles[i])
        case .date: return .date(Date(timeIntervalSinceReferenceDate: column.pointee.doubles[i]))
        case .objectId: return .objectId(column.pointee.objectIds[i])
        case .decimal: return .decimal(column.pointee.decimals[i])
        case .uuid: return .uuid(column.pointee.uuids[i])
        case .link:
            let key = column.pointee.ints[i]
            return key < 0 ? .null : .link(Link(table: column.pointee.linkTarget!, key: ObjectKey(key)))
        case .string: return .string(column.pointee.bytes.string(i))
        case .codedString: return codedString(column, i).map(Value.string) ?? .null
        case .data: return .data(column.pointee.bytes.withBytes(i) { Data($0) })
        case .values: return column.pointee.tagged[i]
        }
    }

    /// The UTF-8 of the string in slot `i` of the column at `column`, in
    /// place, when the column holds strings and the slot is not null (else
    /// `nil`): valid only while the column is alive and unchanged.
    @inline(__always)
    static func unsafeStringBytes(_ column: UnsafePointer<Column>, _ i: Int) -> UnsafeRawBufferPointer? {
        guard column.pointee.kind == .string else { return nil }
        if column.pointee.nulls != nil, column.pointee.nulls.unsafelyUnwrapped[i] { return nil }
        return column.pointee.bytes.unsafeBytes(i)
    }

    /// The string in slot `i` of the column at `column`, when it is a
    /// coded string column and the slot is not null (else `nil`): a copy
    /// of the dictionary's `String`, with no bytes decoded and, for a small
    /// string, no reference counted (``StringCopy``).
    @inline(__always)
    static func codedString(_ column: UnsafePointer<Column>, _ i: Int) -> String? {
        guard column.pointee.kind == .codedString else { return nil }
        let code = column.pointee.ints[i]
        guard code >= 0 else { return nil }
        // Each read projects through the pointer: binding the dictionary
        // to a name would copy it (four retains) for the read.
        return StringCopy.copy(column.pointee.dictionary.unsafelyUnwrapped.strings.address(Int(code)),
            copiesBits: column.pointee.dictionary.unsafelyUnwrapped.copiesBits)
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
    /// snapshots. Values of the column's type go straight into its leaves;
    /// from the first value that is not (a null, or another kind), the rest
    /// go one by one as ``append(_:)`` would.
    mutating func append<C: Collection<Value>>(contentsOf values: C) {
        var rest = values[...]
        if kind == .link, linkTarget == nil { linkTarget = values.lazy.compactMap(\.linkValue).first?.table }
        if nulls == nil {
            switch kind {
            case .int: while case .int(let x)? = rest.first { ints.append(x); rest.removeFirst() }
            case .bool: while case .bool(let x)? = rest.first { bools.append(x); rest.removeFirst() }
            case .double: while case .double(let x)? = rest.first { doubles.append(x); rest.removeFirst() }
            case .date: while case .date(let x)? = rest.first { doubles.append(x.timeIntervalSinceReferenceDate); rest.removeFirst() }
            case .link:
                while let v = rest.first {
                    if case .null = v {
                        ints.append(-1)
                    } else if case .link(let link) = v, link.table == linkTarget {
                        ints.append(link.key.rawValue)
                    } else {
                        break
                    }
                    rest.removeFirst()
                }
            case .string: while case .string(let s)? = rest.first { bytes.append(s); rest.removeFirst() }
            case .codedString:
                while case .string(let s)? = rest.first, let code = dictionary!.code(adding: s) {
                    ints.append(Int64(code))
                    rest.removeFirst()
                }
            case .values:
                tagged.append(contentsOf: rest)
                rest = rest[rest.endIndex...]
            default: break
            }
        }
        for v in rest { put(v, at: nil) }
    }

    /// Appends every value of `other` in order, as ``append(_:)`` would one
    /// by one: leaf by leaf when both hold the same kind (and links the
    /// same table), taking `other`'s leaves as they are where this column
    /// ends at a leaf boundary; value by value otherwise.
    mutating func append(contentsOf other: Column) {
        let sameTarget = kind != .link || linkTarget == nil || other.linkTarget == nil || linkTarget == other.linkTarget
        if kind == .codedString, other.kind == .string || other.kind == .codedString {
            if count == 0 {
                // Loaded leaves into an empty column: taken as they are,
                // plain or coded.
                self = other
            } else {
                appendCoding(other)
            }
            return
        }
        guard other.kind == kind, sameTarget else {
            withUnsafePointer(to: other) { other in
                for i in 0..<other.pointee.count { put(Column.value(other, i), at: nil) }
            }
            return
        }
        let start = count
        switch kind {
        case .none: placeholders += other.placeholders
        case .int, .link:
            ints.append(contentsOf: other.ints)
            if linkTarget == nil { linkTarget = other.linkTarget }
        case .bool: bools.append(contentsOf: other.bools)
        case .float: floats.append(contentsOf: other.floats)
        case .double, .date: doubles.append(contentsOf: other.doubles)
        case .objectId: objectIds.append(contentsOf: other.objectIds)
        case .decimal: decimals.append(contentsOf: other.decimals)
        case .uuid: uuids.append(contentsOf: other.uuids)
        case .string, .data: bytes.append(contentsOf: other.bytes)
        case .codedString: preconditionFailure("strings are appended to coded ones by appendCoding(_:)")
        case .values: tagged.append(contentsOf: other.tagged)
        }
        // The validity vector, where either side has one.
        if nulls != nil || other.nulls != nil {
            if nulls == nil { nulls = Chunks(repeating: false, count: start) }
            if let theirs = other.nulls { nulls!.append(contentsOf: theirs) } else { nulls!.append(repeating: false, count: other.count) }
        }
    }

    /// Appends integers to an int column, or object keys (`-1` for null)
    /// to a link column, with no `Value` made: as a leaf of their own,
    /// taken as it is, where the column ends at a leaf boundary.
    mutating func appendInts(_ values: ContiguousArray<Int64>) {
        precondition((kind == .int && nulls == nil) || kind == .link, "integers appended to a \(kind) column")
        ints.append(leaf: values)
    }

    /// Appends a leaf of integers to an int or link column: adopted as it
    /// is (packed) at a leaf boundary when full (see ``IntChunks/append(adopting:)``).
    mutating func appendInts(adopting leaf: consuming IntChunks.Leaf) {
        precondition((kind == .int && nulls == nil) || kind == .link, "integers appended to a \(kind) column")
        ints.append(adopting: leaf)
    }

    /// Appends a leaf of string (valid UTF-8) or data values whose ends
    /// take two bytes (see ``ByteChunks/append(leafBytes:shortEnds:)``).
    mutating func appendBytes(_ values: ContiguousArray<UInt8>, shortEnds: ContiguousArray<UInt16>) {
        precondition((kind == .string || kind == .data) && nulls == nil, "bytes appended to a \(kind) column")
        bytes.append(leafBytes: values, shortEnds: shortEnds)
    }

    /// Appends string (valid UTF-8) or data values to a string or data
    /// column, given as their bytes and the end of each in them, with no
    /// `Value` made.
    mutating func appendBytes(_ values: ContiguousArray<UInt8>, ends: ContiguousArray<UInt32>) {
        precondition((kind == .string || kind == .data) && nulls == nil, "bytes appended to a \(kind) column")
        bytes.append(leafBytes: values, ends: ends)
    }

    /// Appends the values of `other`, a coded or plain string column, to
    /// this coded one: a coded column's codes as they are when its
    /// dictionary extends this one's (``StringDictionary/isPrefix(of:)``);
    /// otherwise each value coded into this dictionary (a coded column's a
    /// distinct code at a time, a plain column's by its bytes as they lie),
    /// and the rest value by value once the dictionary is full.
    private mutating func appendCoding(_ other: Column) {
        let theirs = other.dictionary
        if let theirs, dictionary!.isPrefix(of: theirs) {
            // The same codes: the leaves as they are (a loaded snapshot's runs).
            ints.append(contentsOf: other.ints)
            dictionary = theirs
            return
        }
        withUnsafePointer(to: other) { other in
            guard let full = appendCodes(of: other) else { return }
            becomePlain()
            for j in full..<other.pointee.count { put(Column.value(other, j), at: nil) }
        }
    }

    /// Codes each value of `other`, a coded or plain string column, into
    /// this coded one's dictionary (a coded column's a distinct code at a
    /// time, a plain column's by its bytes as they lie), and appends the
    /// codes. Returns the first value the dictionary had no room for
    /// (then not appended, nor any after it), or `nil`.
    private mutating func appendCodes(of other: UnsafePointer<Column>) -> Int? {
        let theirs = other.pointee.dictionary
        var translated = [Int32?](repeating: nil, count: theirs?.count ?? 0)
        for i in 0..<other.pointee.count {
            let mine: Int32?
            if other.pointee.isNull(i) {
                mine = -1
            } else if let theirs {
                let code = Int(other.pointee.ints[i])
                mine = translated[code] ?? dictionary!.code(adding: theirs.strings[code])
                translated[code] = mine
            } else {
                mine = Column.unsafeStringBytes(other, i).flatMap { dictionary!.code(addingUTF8: $0) }
            }
            guard let mine else { return i }
            ints.append(Int64(mine))
        }
        return nil
    }

    /// This plain string column as a coded one, or `nil` when its distinct
    /// strings do not fit a dictionary: what compaction writes a column
    /// loaded plain (from a log or an older snapshot) as.
    func coded() -> Column? {
        guard kind == .string else { return nil }
        var coded = Column(kind: .codedString)
        let full = withUnsafePointer(to: self) { coded.appendCodes(of: $0) }
        return full == nil ? coded : nil
    }

    /// Turns a coded string column into plain UTF-8, keeping every value
    /// (nulls in a validity vector).
    private mutating func becomePlain() {
        precondition(kind == .codedString, "only coded strings turn plain")
        var plain = Column(kind: .string)
        withUnsafePointer(to: self) { coded in
            for i in 0..<coded.pointee.count { plain.put(Column.value(coded, i), at: nil) }
        }
        self = plain
    }

    /// A coded string column of one leaf of codes (`-1` for null) into
    /// `dictionary`, which holds every code: what a snapshot's coded run
    /// loads into.
    init(codes: consuming IntChunks.Leaf, dictionary: StringDictionary) {
        kind = .codedString
        self.dictionary = dictionary
        ints.append(adopting: codes)
    }

    /// Gives each packed leaf of ``ints`` whose bytes lie in `bytes` (a
    /// loaded snapshot's, adopted) a copy of its own.
    mutating func copyLeaves(sharing bytes: UnsafeRawBufferPointer) {
        ints.copyLeaves(sharing: bytes)
    }

    /// Appends `n` nulls.
    mutating func appendNulls(_ n: Int) {
        guard n > 0 else { return }
        let start = count
        switch kind {
        case .none: placeholders += n
        case .link, .codedString: ints.append(repeating: -1, count: n)
        case .values: tagged.append(repeating: .null, count: n)
        default:
            appendPlaceholders(n)
            if nulls == nil { nulls = Chunks(repeating: false, count: start) }
            nulls!.append(repeating: true, count: n)
        }
    }

    // MARK: - Writing

    /// Stores `x` in `chunks` at `slot`, or appends it.
    @inline(__always)
    private static func store<T>(_ x: T, _ slot: Int?, in chunks: inout Chunks<T>) {
        if let slot { chunks[slot] = x } else { chunks.append(x) }
    }

    /// Stores `x` in `ints` at `slot`, or appends it.
    @inline(__always)
    private static func store(_ x: Int64, _ slot: Int?, in ints: inout IntChunks) {
        if let slot { ints[slot] = x } else { ints.append(x) }
    }

    /// Stores `value` at slot `slot`, or appends it (`nil`).
    private mutating func put(_ value: Value, at slot: Int?) {
        let stored: Bool
        switch (kind, value) {
        case (_, .null):
            putNull(at: slot)
            return
        case (.values, _):
            Self.store(value, slot, in: &tagged)
            return
        case (.int, .int(let x)): Self.store(x, slot, in: &ints); stored = true
        case (.bool, .bool(let x)): Self.store(x, slot, in: &bools); stored = true
        case (.float, .float(let x)): Self.store(x, slot, in: &floats); stored = true
        case (.double, .double(let x)): Self.store(x, slot, in: &doubles); stored = true
        case (.date, .date(let x)): Self.store(x.timeIntervalSinceReferenceDate, slot, in: &doubles); stored = true
        case (.objectId, .objectId(let x)): Self.store(x, slot, in: &objectIds); stored = true
        case (.decimal, .decimal(let x)): Self.store(x, slot, in: &decimals); stored = true
        case (.uuid, .uuid(let x)): Self.store(x, slot, in: &uuids); stored = true
        case (.link, .link(let link)) where linkTarget == nil || linkTarget == link.table:
            linkTarget = link.table
            Self.store(link.key.rawValue, slot, in: &ints)
            stored = true
        case (.string, .string(let s)):
            if let slot { bytes.set(slot, s) } else { bytes.append(s) }
            stored = true
        case (.codedString, .string(let s)):
            guard let code = dictionary!.code(adding: s) else {
                becomePlain()
                put(value, at: slot)
                return
            }
            Self.store(Int64(code), slot, in: &ints)
            stored = true
        case (.data, .data(let d)):
            d.withUnsafeBytes { if let slot { bytes.set(slot, $0) } else { bytes.append($0) } }
            stored = true
        default: stored = false
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
        switch kind {
        case .none: if slot == nil { placeholders += 1 }
        case .link, .codedString: Self.store(-1, slot, in: &ints)
        case .values: Self.store(.null, slot, in: &tagged)
        default:
            guard let slot else {
                appendNulls(1)
                return
            }
            if nulls == nil { nulls = Chunks(repeating: false, count: count) }
            nulls![slot] = true
            // Drop the bytes of a string or data, as a tagged null would.
            if kind == .string || kind == .data { bytes.set(slot, UnsafeRawBufferPointer(start: nil, count: 0)) }
        }
    }

    /// Appends `n` placeholder values (zero, empty) of the column's type,
    /// to be marked null by the caller.
    private mutating func appendPlaceholders(_ n: Int) {
        switch kind {
        case .int: ints.append(repeating: 0, count: n)
        case .bool: bools.append(repeating: false, count: n)
        case .float: floats.append(repeating: 0, count: n)
        case .double, .date: doubles.append(repeating: 0, count: n)
        case .objectId: objectIds.append(repeating: ObjectId(), count: n)
        case .decimal: decimals.append(repeating: Decimal128(0), count: n)
        case .uuid: uuids.append(repeating: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), count: n)
        case .string, .data: bytes.appendEmpty(count: n)
        case .none, .link, .codedString, .values: preconditionFailure("placeholders for a column that stores its own nulls")
        }
    }

    /// Turns the column into tagged values, keeping every value.
    private mutating func becomeTagged() {
        var values = Chunks<Value>()
        for i in 0..<count { values.append(self[i]) }
        self = Column(tagged: values)
    }

    private init(tagged values: Chunks<Value>) {
        kind = .values
        tagged = values
    }
}

extension Column {
    /// For a coded string column: every code names a string of the
    /// dictionary (or is `-1`), and the dictionary finds each of its
    /// strings under its own code. The first that does not, or `nil`.
    func invariantViolation() -> String? {
        guard kind == .codedString else { return nil }
        guard let dictionary else { return "coded strings with no dictionary" }
        var bad: Int64?
        ints.forEachLeaf { _, leaf in
            if bad == nil, let code = leaf.first(where: { $0 < -1 || $0 >= Int64(dictionary.count) }) { bad = code }
        }
        if let bad { return "code \(bad) of a dictionary of \(dictionary.count) strings" }
        for code in 0..<dictionary.count where dictionary.code(of: dictionary.strings[code]) != Int32(code) {
            return "the dictionary's string \(code) is found under code \(String(describing: dictionary.code(of: dictionary.strings[code])))"
        }
        return nil
    }
}

extension Column {
    /// Calls `body` with the value of each slot in `slots`, in order.
    func forEachValue(in slots: Range<Int>, _ body: (Value) -> Void) {
        for i in slots { body(self[i]) }
    }
}

extension Column {
    /// The name of the storage's kind ("int", "string", "values", …), for
    /// checks that two paths built the same representation. Coded and
    /// plain strings are both "string": which one a column is depends on
    /// how it was filled (see ``Kind/codedString``), not on its values.
    var storageKind: String { kind == .codedString ? Kind.string.rawValue : kind.rawValue }
}
