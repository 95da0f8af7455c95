import Foundation

/// Declares a property of a ``Projection`` that reads (and, where the key
/// path is writable, writes) a key path of the projection's root object.
///
/// ```swift
/// final class PersonProjection: Projection<Person> {
///     @Projected(\Person.firstName) var firstName                     // pass-through, writable
///     @Projected(\Person.lastName.localizedUppercase) var lastNameCaps // computed from a property
///     @Projected(\Person.address?.city) var homeCity                  // through a link
///     @Projected(\Person.friends.projectTo.firstName)
///     var friendsFirstNames: ProjectedCollection<String>              // a list mapped to values
/// }
/// ```
///
/// Only usable on a ``Projection`` subclass: the value is read from (and
/// written to) the root object on every access, never stored.
@propertyWrapper
public struct Projected<T: ObjectBase, Value>: AnyProjected {
    let keyPath: KeyPath<T, Value>
    var projectedKeyPath: AnyKeyPath { keyPath }

    /// Unavailable: `@Projected` reads through the enclosing ``Projection``.
    @available(*, unavailable, message: "@Projected can only be used as a property on a Projection")
    public var wrappedValue: Value {
        get { fatalError("@Projected outside a Projection") }
        // swift-format-ignore: the setter must exist for `var` properties to be declared.
        set { fatalError("@Projected outside a Projection") }
    }

    /// The value at the key path of the enclosing projection's root object;
    /// setting it writes the root object (inside a write transaction when it
    /// is managed). Setting a key path that is not writable (a computed
    /// property, `.count`) stops with `invalidKeyPath`.
    public static subscript<EnclosingSelf: Projection<T>>(
        _enclosingInstance projection: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Self>
    ) -> Value {
        get { projection.rootObject[keyPath: projection[keyPath: storageKeyPath].keyPath] }
        set {
            guard let writable = projection[keyPath: storageKeyPath].keyPath as? ReferenceWritableKeyPath<T, Value> else {
                shoalPrecondition(ShoalError(.invalidKeyPath,
                    "KeyPath is not writable: the @Projected property of '\(EnclosingSelf.self)' reads a key path of '\(T.className())' that cannot be set.",
                    context: ["projection": "\(EnclosingSelf.self)", "class": T.className()]))
            }
            projection.rootObject[keyPath: writable] = newValue
        }
    }

    /// Declares a property that projects `projectedKeyPath` of the root object.
    public init(_ projectedKeyPath: KeyPath<T, Value>) {
        self.keyPath = projectedKeyPath
    }
}

/// What a projection's schema reads from each `@Projected` wrapper.
protocol AnyProjected {
    var projectedKeyPath: AnyKeyPath { get }
}

/// A projection of a Realm object: its ``Projection`` type, by what Realm's
/// observation, freezing and thread-safe references need of it.
public protocol ProjectionObservable: AnyObject, ThreadConfined {
    /// The class of the object projected.
    associatedtype Root: ObjectBase
    /// The object projected.
    var rootObject: Root { get }
    /// Creates a projection of `object`.
    init(projecting object: Root)
}

/// A view of a Realm object through a chosen set of its properties, renamed,
/// computed or mapped: a view model that reads and writes the object it
/// projects.
///
/// ```swift
/// final class Person: Object {
///     @Persisted(primaryKey: true) var id = 0
///     @Persisted var firstName = ""
///     @Persisted var lastName = ""
///     @Persisted var friends: List<Person>
/// }
///
/// final class PersonProjection: Projection<Person> {
///     @Projected(\Person.firstName) var name
///     @Projected(\Person.lastName.localizedUppercase) var lastNameCaps
///     @Projected(\Person.friends.projectTo.firstName) var friendNames: ProjectedCollection<String>
/// }
///
/// let people = realm.objects(PersonProjection.self).filter("lastName == 'Snow'")
/// let john = people.first!
/// try realm.write { john.name = "Jon" }        // writes the Person
/// let token = john.observe(keyPaths: ["name"]) { change in ... }
/// ```
///
/// - A projection of a managed object is made by `realm.objects(_:)` (a
///   ``Results`` of projections, queried and sorted by the root class's
///   property names), by `realm.object(ofType:forPrimaryKey:)` or by
///   ``init(projecting:)``.
/// - A property not declared `@Projected` is not part of the projection:
///   its changes do not notify the projection's observers.
/// - Each `@Projected` key path must read a `@Persisted` property of the
///   root class; making a projection whose key path reads none stops with
///   "@Projected property '…' must be a part of Realm object", as in Realm.
///
/// - Note: Differs from Realm: two projections of the same object are equal
///   whether live or frozen (as Shoal's ``Object`` equality is).
open class Projection<Root: ObjectBase & RealmCollectionValue & ThreadConfined>: RealmCollectionValue, ProjectionObservable,
    Hashable, CustomStringConvertible
{
    /// The type a projection stands for in a collection: its root class.
    public typealias PersistedType = Root

    /// The object projected.
    public let rootObject: Root

    /// Creates a projection of `object`, checking the projection's
    /// `@Projected` properties (once per class).
    public required init(projecting object: Root) {
        self.rootObject = object
        if !ProjectionDiscovery.active { _ = type(of: self).schema }
    }

    /// Whether both project the same object (see ``Object/isSameObject(as:)``).
    public static func == (lhs: Projection, rhs: Projection) -> Bool {
        lhs.rootObject.isSameObject(as: rhs.rootObject)
    }

    /// Hashes the projected object's identity, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rootObject)
    }

    /// The projection in Realm's format: its class and root class, then
    /// each projected property, the root key path it reads, and its value.
    ///
    /// ```
    /// PersonProjection<Person> <0x…> {
    /// 	name(\.firstName) = John;
    /// 	lastNameCaps(\.lastName) = SNOW;
    /// }
    /// ```
    open var description: String {
        let address = Unmanaged.passUnretained(rootObject).toOpaque()
        let lines = type(of: self).schema.map { property -> String in
            let value = rootObject[keyPath: property.keyPath].map { "\($0)" } ?? "nil"
            return "\t\(property.label)(\\.\(property.origin)) = \(value);"
        }
        return "\(type(of: self))<\(type(of: rootObject))> <\(address)> {\n\t" + lines.joined(separator: "\n") + "\n}"
    }

    // MARK: PersistableValue

    /// A projection stands for a link to its root object.
    public static var persistedType: PersistedTypeInfo { Root.persistedType }

    /// Stops: a projection has no default and cannot be a persisted property.
    public static func persistedDefault() -> Self {
        shoalPrecondition(ShoalError(.unsupported,
            "A Projection ('\(Self.self)') cannot be a @Persisted property; persist its root class '\(Root.className())'.",
            context: ["projection": "\(Self.self)"]))
    }

    /// A projection of the object a stored link points to.
    public static func fromStored(_ stored: StoredValue, _ context: StoredContext) -> Self {
        Self(projecting: Root.fromStored(stored, context))
    }

    /// The link to the projected object.
    public func toStored(_ context: StoredContext) -> StoredValue {
        rootObject.toStored(context)
    }

    // MARK: ThreadConfined

    /// The Realm managing the projected object, or `nil` when it is unmanaged.
    public var realm: Realm? { rootObject.realm }

    /// Whether the projected object was deleted or its Realm invalidated.
    public var isInvalidated: Bool { rootObject.isInvalidated }

    /// Whether the projected object belongs to a frozen Realm.
    public var isFrozen: Bool { realm?.isFrozen ?? false }

    /// A projection of a frozen copy of the object, usable from any thread.
    ///
    /// Stops as ``Object/freeze()`` does: for an unmanaged or deleted object,
    /// and for an object created in the current write transaction.
    public func freeze() -> Self {
        Self(projecting: rootObject.freeze())
    }

    /// A projection of the live object for the calling thread's Realm, or
    /// `nil` if the object was deleted since; `self` when already live.
    public func thaw() -> Self? {
        if !isFrozen { return self }
        return rootObject.thaw().map { Self(projecting: $0) }
    }
}

/// Objects that `realm.objects(_:)` fetches: ``Object``
/// subclasses and ``Projection``s of them.
public protocol RealmFetchable: RealmCollectionValue {
    /// The name of the stored class fetched.
    static func className() -> String
}

extension Object: RealmFetchable {}

extension Projection: RealmFetchable {
    /// The name of the root class.
    public static func className() -> String { Root.className() }
}

// MARK: - Schema

/// One `@Projected` property: its name in the projection, its key path of
/// the root class, and the root property names that key path reads.
struct ProjectionProperty: @unchecked Sendable {
    // Safe because: key paths are immutable values.
    let label: String
    let keyPath: AnyKeyPath
    /// The root properties the key path reads, dotted (`address.city`).
    let origin: String
    /// What a change observer of the root watches for this property: the
    /// origin, extended into the elements' property for a `projectTo`
    /// collection (`friends.firstName`).
    let observed: String
}

/// The `@Projected` properties of each projection class, found once.
private let projectionSchemas = Locked([ObjectIdentifier: [ProjectionProperty]]())

extension ProjectionObservable {
    /// The `@Projected` properties, in declaration order (a superclass's first).
    static var schema: [ProjectionProperty] {
        // `self`, the metatype this is called on, is the projection's own
        // class even where the caller's static type is a superclass.
        let id = ObjectIdentifier(self)
        if let known = projectionSchemas.withLock({ $0[id] }) { return known }
        let found = discoverSchema()
        projectionSchemas.withLock { $0[id] = found }
        return found
    }

    /// Reads the `@Projected` wrappers of a projection of a stand-in root
    /// object, and traces the root properties each key path reads.
    private static func discoverSchema() -> [ProjectionProperty] {
        let prototype = ProjectionDiscovery.$active.withValue(true) { self.init(projecting: Root.init(_shoalMetatype: ())) }
        var mirrors: [Mirror] = []
        var mirror: Mirror? = Mirror(reflecting: prototype)
        while let current = mirror {
            mirrors.insert(current, at: 0)
            mirror = current.superclassMirror
        }
        var properties: [ProjectionProperty] = []
        for child in mirrors.flatMap(\.children) {
            guard let projected = child.value as? any AnyProjected, let label = child.label?.dropFirst() else { continue }
            let keyPath = projected.projectedKeyPath
            var elementNames: [String] = []
            let names = KeyPathTracer.names(on: Root.self) { root in
                if let collection = root[keyPath: keyPath] as? any ProjectedCollectionTraceable {
                    elementNames = collection.elementPropertyNames
                }
            }
            guard !names.isEmpty else {
                shoalPrecondition(ShoalError(.invalidKeyPath,
                    "@Projected property '\(label)' must be a part of Realm object: its key path reads no @Persisted property of '\(Root.className())'.",
                    context: ["projection": "\(self)", "property": String(label)]))
            }
            let origin = names.joined(separator: ".")
            properties.append(ProjectionProperty(label: String(label), keyPath: keyPath, origin: origin,
                observed: ([origin] + elementNames).joined(separator: ".")))
        }
        return properties
    }

    /// The root property names a key path of the projection reads (the
    /// origin of the `@Projected` property it reads); empty when it reads none.
    static func originNames(of keyPath: AnyKeyPath) -> [String] {
        _ = schema
        return KeyPathTracer.names(on: Root.self) { root in
            _ = self.init(projecting: root as! Root)[keyPath: keyPath]
        }
    }
}

/// Whether a projection is being made for its own class's schema discovery
/// (its initializer then skips the schema check it would recurse into).
enum ProjectionDiscovery {
    @TaskLocal static var active = false
}

// MARK: - Fetching

extension Realm {
    /// All objects of a projection's root class, as projections, live.
    ///
    /// ```swift
    /// let snows = realm.objects(PersonProjection.self).filter("lastName == 'Snow'").sorted(byKeyPath: "firstName")
    /// ```
    ///
    /// The results are queried and sorted by the root class's property
    /// names, as Realm's are.
    public func objects<Element: RealmFetchable>(_ type: Element.Type) -> Results<Element> {
        instance.verifyThread()
        guard let root = (type as? any ProjectionObservable.Type)?.rootClass ?? (type as? Object.Type) else {
            shoalPrecondition(ShoalError(.unknownObjectType, "'\(type)' is neither an Object subclass nor a Projection.",
                context: ["class": "\(type)"]))
        }
        let table = instance.tableKey(for: root)
        instance.refuseEmbedded(table, "query")
        return Results(instance: instance, table: table, source: .table)
    }

    /// A projection of the root-class object with the given primary key, or `nil`.
    ///
    /// ```swift
    /// let john = realm.object(ofType: PersonProjection.self, forPrimaryKey: 1)
    /// ```
    ///
    /// Stops as `object(ofType:forPrimaryKey:)` of an `Object` class does when
    /// the root class has no primary key or the key's type does not match.
    /// Shoal's addition: Realm fetches projections only through `objects(_:)`.
    public func object<P: ProjectionObservable, KeyType>(ofType type: P.Type, forPrimaryKey key: KeyType) -> P? {
        object(ofType: P.Root.self, forPrimaryKey: key).map { P(projecting: $0) }
    }
}

extension ProjectionObservable {
    /// The root class, as an `Object` metatype.
    static var rootClass: Object.Type { Root.self }
}

extension Projection: ThreadSafeResolvable {
    func threadSafeHandle() -> ThreadSafeHandle? {
        guard let handle = rootObject.threadSafeHandle(), case .object(let link) = handle.target else { return nil }
        return ThreadSafeHandle(coordinator: handle.coordinator, version: handle.version, target: .collection(Rebinder { instance in
            instance.current.isAlive(link.table, link.key) ? Self(projecting: instance.accessor(link) as! Root) : nil
        }))
    }
}
