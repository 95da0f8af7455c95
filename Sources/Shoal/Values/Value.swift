import Foundation

/// The dynamic value stored in a table cell, carried in change records and
/// compared by queries.
///
/// Ordering follows Realm's `Mixed` rules: `null` sorts before everything,
/// numbers (integers, floats, doubles, decimals) compare with each other by
/// numeric value, and values of unrelated kinds order by a fixed kind rank so
/// that a sort over mixed values is total and stable.
enum Value: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Float)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case objectId(ObjectId)
    case decimal(Decimal128)
    case uuid(UUID)
    /// A link to an object: the target table and the target's object key.
    case link(Link)
    /// A list nested in a mixed value (Realm's mixed collections): its
    /// elements, which may be lists and dictionaries in turn.
    case list([Value])
    /// A dictionary nested in a mixed value: string keys, mixed values
    /// (which may be lists and dictionaries in turn). Read in key order.
    case dictionary([String: Value])

    var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The rank used to order values of unrelated kinds (numbers share one rank).
    var kindRank: Int {
        switch self {
        case .null: 0
        case .bool: 1
        case .int, .float, .double, .decimal: 2
        case .string: 3
        case .data: 4
        case .date: 5
        case .objectId: 6
        case .uuid: 7
        case .link: 8
        case .list: 9
        case .dictionary: 10
        }
    }

    /// A short name of the value's kind, used in error messages.
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .double: "double"
        case .string: "string"
        case .data: "data"
        case .date: "date"
        case .objectId: "objectId"
        case .decimal: "decimal128"
        case .uuid: "uuid"
        case .link: "object"
        case .list: "list"
        case .dictionary: "dictionary"
        }
    }

    /// Whether this is a nested list or dictionary.
    var isCollection: Bool {
        switch self {
        case .list, .dictionary: true
        default: false
        }
    }

    /// The values a nested list or dictionary holds directly (none for
    /// other values).
    var nestedElements: [Value] {
        switch self {
        case .list(let elements): elements
        case .dictionary(let entries): Array(entries.values)
        default: []
        }
    }

    var linkValue: Link? {
        if case .link(let link) = self { return link }
        return nil
    }
}

/// A reference to one object: its table and its stable key.
struct Link: Hashable, Sendable {
    var table: TableKey
    var key: ObjectKey
}

/// Index of a table in a schema. Stable for the life of a database: tables
/// are only ever appended.
struct TableKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    var rawValue: UInt32
    init(_ rawValue: UInt32) { self.rawValue = rawValue }
    init(_ index: Int) { self.rawValue = UInt32(index) }
    var index: Int { Int(rawValue) }
    static func < (lhs: TableKey, rhs: TableKey) -> Bool { lhs.rawValue < rhs.rawValue }
    var description: String { "table#\(rawValue)" }
}

/// The stable key of an object within its table. Keys are never reused: a
/// key is the object's slot in the table's columns.
struct ObjectKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    var rawValue: Int64
    init(_ rawValue: Int64) { self.rawValue = rawValue }
    var slot: Int { Int(rawValue) }
    static func < (lhs: ObjectKey, rhs: ObjectKey) -> Bool { lhs.rawValue < rhs.rawValue }
    var description: String { "key#\(rawValue)" }
}
