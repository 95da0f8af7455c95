/// The schema of one object class: its name and properties.
///
/// ```swift
/// let schema = Dog().objectSchema
/// schema.className             // "Dog"
/// schema.primaryKeyProperty?.name  // "id"
/// ```
public struct ObjectSchema: Sendable, Hashable, CustomStringConvertible {
    /// The class name, as used in queries and in the log.
    public let className: String
    /// All properties, stored ones in declaration order followed by linking objects.
    public let properties: [Property]
    /// Maps a property name to its index in ``properties``.
    let indexByName: [String: Int]
    /// The index of the primary key property, if the class has one.
    let primaryKeyIndex: Int?
    /// How many properties have stored values (these come first in ``properties``).
    let storedCount: Int
    /// Whether the class is an ``EmbeddedObject``: its objects are owned by
    /// exactly one parent, have no primary key, are deleted with their parent
    /// and cannot be queried on their own.
    public let isEmbedded: Bool

    /// Creates a schema; stored properties keep their order, linking objects move last.
    public init(className: String, properties: [Property], isEmbedded: Bool = false) {
        self.className = className
        self.isEmbedded = isEmbedded
        let ordered = properties.filter(\.isStored) + properties.filter { !$0.isStored }
        self.properties = ordered
        var map: [String: Int] = [:]
        for (i, p) in ordered.enumerated() { map[p.name] = i }
        self.indexByName = map
        self.primaryKeyIndex = ordered.firstIndex(where: \.isPrimary)
        self.storedCount = ordered.count(where: \.isStored)
    }

    /// The primary key property, if the class has one.
    public var primaryKeyProperty: Property? { properties.first(where: \.isPrimary) }

    /// The property named `name`, or `nil`.
    public subscript(name: String) -> Property? {
        indexByName[name].map { properties[$0] }
    }

    public var description: String {
        "\(className)\(isEmbedded ? " (embedded)" : "") {\n" + properties.map { "    \($0)" }.joined(separator: "\n") + "\n}"
    }
}

/// The schema of a whole database: its object classes.
///
/// Table keys are positions in ``objectSchema``; classes are only appended.
public struct Schema: Sendable, Hashable, CustomStringConvertible {
    /// The classes, in table order.
    public let objectSchema: [ObjectSchema]
    let tableByName: [String: TableKey]
    /// Per table, what each stored property accepts, resolved once: what
    /// the log and snapshot decoders check every decoded value against.
    let shapes: [[PropertyShape]]

    /// Creates a schema from class schemas; the order gives the table keys.
    public init(_ objectSchema: [ObjectSchema]) {
        self.objectSchema = objectSchema
        var map: [String: TableKey] = [:]
        for (i, s) in objectSchema.enumerated() { map[s.className] = TableKey(i) }
        self.tableByName = map
        self.shapes = objectSchema.map { os in
            os.properties.prefix(os.storedCount).map { PropertyShape(collection: $0.collection, value: ValueShape($0, tables: map)) }
        }
    }

    /// The class named `className`, or `nil`.
    public subscript(className: String) -> ObjectSchema? {
        tableByName[className].map { objectSchema[$0.index] }
    }

    subscript(table: TableKey) -> ObjectSchema { objectSchema[table.index] }

    public var description: String { objectSchema.map(\.description).joined(separator: "\n") }
}
