/// The type of a persisted property's values (for collections, of their elements).
public enum PropertyType: Int, Sendable, Hashable, CustomStringConvertible {
    /// `Int`, `Int8`, `Int16`, `Int32` and `Int64`, stored as 64-bit integers.
    case int = 0
    /// `Bool`.
    case bool = 1
    /// `String`.
    case string = 2
    /// `Data`.
    case data = 3
    /// `Date`.
    case date = 4
    /// `Float`.
    case float = 5
    /// `Double`.
    case double = 6
    /// ``ObjectId``.
    case objectId = 7
    /// ``Decimal128``.
    case decimal128 = 8
    /// `UUID`.
    case uuid = 9
    /// `AnyRealmValue`: any of the other kinds, or a link.
    case any = 10
    /// A link to an object of ``Property/objectClassName``.
    case object = 11
    /// A computed collection of the objects linking to this one.
    case linkingObjects = 12

    public var description: String {
        switch self {
        case .int: "int"
        case .bool: "bool"
        case .string: "string"
        case .data: "data"
        case .date: "date"
        case .float: "float"
        case .double: "double"
        case .objectId: "objectId"
        case .decimal128: "decimal128"
        case .uuid: "uuid"
        case .any: "mixed"
        case .object: "object"
        case .linkingObjects: "linkingObjects"
        }
    }
}

/// Whether a property holds one value or a collection of them.
public enum CollectionKind: Int, Sendable, Hashable {
    /// A single value.
    case none = 0
    /// An ordered `List`.
    case list = 1
    /// A `MutableSet`.
    case set = 2
    /// A `Map` keyed by strings.
    case map = 3
}

/// One property of an ``ObjectSchema``.
///
/// ```swift
/// let age = realm.schema["Dog"]!["age"]!
/// age.type        // .int
/// age.isIndexed   // true
/// ```
public struct Property: Sendable, Hashable, CustomStringConvertible {
    /// The property's name.
    public let name: String
    /// The type of the property's values, or of its elements for a collection.
    public let type: PropertyType
    /// Whether the property (or its collection's elements) may be `nil`.
    public let isOptional: Bool
    /// Whether the property is the class's primary key.
    public let isPrimary: Bool
    /// Whether the property has a secondary index (primary keys are always indexed).
    public let isIndexed: Bool
    /// Single value or collection kind.
    public let collection: CollectionKind
    /// For links and linking objects, the class at the other end.
    public let objectClassName: String?
    /// For linking objects, the property of ``objectClassName`` that links here.
    public let linkOriginPropertyName: String?

    /// Creates a property description.
    public init(
        name: String, type: PropertyType, isOptional: Bool = false, isPrimary: Bool = false,
        isIndexed: Bool = false, collection: CollectionKind = .none, objectClassName: String? = nil,
        linkOriginPropertyName: String? = nil
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.isPrimary = isPrimary
        self.isIndexed = isIndexed || isPrimary
        self.collection = collection
        self.objectClassName = objectClassName
        self.linkOriginPropertyName = linkOriginPropertyName
    }

    /// Whether this is a `List`.
    public var isArray: Bool { collection == .list }
    /// Whether this is a `MutableSet`.
    public var isSet: Bool { collection == .set }
    /// Whether this is a `Map`.
    public var isMap: Bool { collection == .map }
    /// Whether values are stored for it (everything except linking objects).
    var isStored: Bool { type != .linkingObjects }
    /// Whether it holds links: a to-one link or a collection of objects.
    var isLink: Bool { type == .object }

    /// A readable type, e.g. `List<Dog>`, `Int?`, `Map<String, Double>`.
    public var typeName: String {
        var base: String
        switch type {
        case .object: base = objectClassName ?? "Object"
        case .linkingObjects: return "LinkingObjects<\(objectClassName ?? "?")>"
        default: base = type.description
        }
        if isOptional { base += "?" }
        switch collection {
        case .none: return base
        case .list: return "List<\(base)>"
        case .set: return "MutableSet<\(base)>"
        case .map: return "Map<String, \(base)>"
        }
    }

    public var description: String {
        var flags: [String] = []
        if isPrimary { flags.append("primaryKey") } else if isIndexed { flags.append("indexed") }
        if let origin = linkOriginPropertyName { flags.append("originProperty: \(origin)") }
        return "\(name): \(typeName)" + (flags.isEmpty ? "" : " (\(flags.joined(separator: ", ")))")
    }
}
