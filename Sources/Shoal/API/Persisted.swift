import Foundation

/// Declares a property of an ``Object`` subclass as stored.
///
/// ```swift
/// final class Dog: Object {
///     @Persisted(primaryKey: true) var id: Int
///     @Persisted var name = ""
///     @Persisted(indexed: true) var age: Int
///     @Persisted var owner: Person?
///     @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
/// }
/// ```
///
/// Before an object is added to a Realm, the wrapper holds the value itself;
/// afterwards every read and write goes to the Realm.
@propertyWrapper
public struct Persisted<T: PersistableValue> {
    /// The value of an unmanaged object's property. Shared by every copy of
    /// the wrapper (reflection hands out copies), so a value set through a
    /// copy is seen by the object. Managed accessors have none, but for a
    /// class whose wrapper offsets were not confirmed, whose wrappers learn
    /// their property through it (``AnyUnmanagedBox/property``).
    @usableFromInline let box: UnmanagedBox<T>?
    let isPrimaryKey: Bool
    let isIndexed: Bool
    let originProperty: String?
    /// The object this wrapper belongs to when it was created as a managed
    /// accessor; lets `encode(to:)` read the managed value.
    let accessorRef: UnretainedObjectRef?
    /// The stored property this wrapper reads, once its object is managed
    /// and its class's wrapper offsets were confirmed: set once, when the
    /// accessor is made or the object added
    /// (``ClassRegistry/markManaged(_:offsets:)``). -1 otherwise: the
    /// wrapper then finds its property through its box's
    /// ``AnyUnmanagedBox/property``.
    @usableFromInline var managedProperty = -1

    /// Declares a property with its type's default value.
    @inlinable
    public init() {
        self.init(box: { UnmanagedBox() })
    }

    /// Declares a property with a default value.
    @inlinable
    public init(wrappedValue: T) {
        self.init(box: { UnmanagedBox(wrappedValue) })
    }

    /// Declares the primary key (`Int`, `String`, `ObjectId` or `UUID`, optional or not).
    @inlinable
    public init(primaryKey: Bool) {
        self.init(box: { UnmanagedBox() }, primaryKey: primaryKey)
    }

    /// Declares the primary key with a default value.
    @inlinable
    public init(wrappedValue: T, primaryKey: Bool) {
        self.init(box: { UnmanagedBox(wrappedValue) }, primaryKey: primaryKey)
    }

    /// Declares a property with a secondary index, used by equality queries.
    @inlinable
    public init(indexed: Bool) {
        self.init(box: { UnmanagedBox() }, indexed: indexed)
    }

    /// Declares an indexed property with a default value.
    @inlinable
    public init(wrappedValue: T, indexed: Bool) {
        self.init(box: { UnmanagedBox(wrappedValue) }, indexed: indexed)
    }

    /// Declares the objects linking to this one through `originProperty`.
    @inlinable
    public init(originProperty: String) {
        self.init(box: { UnmanagedBox() }, originProperty: originProperty)
    }

    /// (The unmanaged value reaches the box through a closure rather than
    /// as a `T?`: see ``UnmanagedBox``.)
    @usableFromInline
    init(box makeBox: () -> UnmanagedBox<T>, primaryKey: Bool = false, indexed: Bool = false, originProperty: String? = nil) {
        self.isPrimaryKey = primaryKey
        self.isIndexed = indexed
        self.originProperty = originProperty
        let construction = AccessorConstruction.current
        self.accessorRef = construction?.ref
        // An accessor of a class whose wrapper offsets were not confirmed
        // keeps a box, which names its property (``AnyUnmanagedBox/property``).
        self.box = construction == nil || construction!.needsBoxes ? makeBox() : nil
    }

    /// The unmanaged value, or the type's default (stored on first read).
    var unmanagedValue: T { Self.unmanagedValue(of: box) }

    /// The value `box` holds, or the type's default (stored on first read).
    static func unmanagedValue(of box: UnmanagedBox<T>?) -> T { box?.current ?? T.persistedDefault() }

    /// Unavailable: `@Persisted` works only on properties of ``Object``
    /// subclasses, which reach the value through their object.
    @available(*, unavailable, message: "@Persisted can only be used on properties of Object subclasses")
    public var wrappedValue: T {
        get { fatalError("unreachable") }
        set { fatalError("unreachable") }
    }

    /// Reads and writes the property through its object.
    ///
    /// Inlinable so that, in the model's module, `storageKeyPath` is only
    /// ever projected, which compiles to a load from the object, and
    /// neither key path is made: a read costs no key path retain and no
    /// look-up of the property by key path. A wrapper that does not know
    /// its property hands its box to ``value(of:_:)``, which does. (Only
    /// the box: copying the whole wrapper made the setter too large to
    /// inline, and a setter not inlined projects its key path at run time.)
    @inlinable
    public static subscript<O: Object>(
        _enclosingInstance object: O,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<O, T>,
        storage storageKeyPath: ReferenceWritableKeyPath<O, Persisted<T>>
    ) -> T {
        get {
            let (property, box) = object[keyPath: storageKeyPath].target
            if property >= 0 { return readManaged(of: object, property) }
            return value(of: object, box)
        }
        set {
            let (property, box) = object[keyPath: storageKeyPath].target
            if property >= 0 { return writeManaged(newValue, of: object, property) }
            setValue(newValue, of: object, box)
        }
    }

    /// What a read or write goes to: ``managedProperty`` when known (and no
    /// box), else the box. One projection of the key path for both, so
    /// that the subscript stays small enough to inline.
    @inlinable
    var target: (property: Int, box: UnmanagedBox<T>?) {
        managedProperty >= 0 ? (managedProperty, nil) : (-1, box)
    }

    /// Reads stored property `property` of `object`, a managed accessor.
    ///
    /// Inlinable so that the test of `T` folds away where it is used:
    /// strings, the commonest read, then go straight to the column with no
    /// generic call and no slot (whose copy of the object's reference
    /// retains its realm).
    @inlinable
    static func readManaged(of object: Object, _ property: Int) -> T {
        if T.self == String.self { return unsafeBitCast(ManagedSlot.readString(of: object, property), to: T.self) }
        return readManagedSlot(of: object, property)
    }

    /// Reads stored property `property` of `object`, a managed accessor,
    /// through its slot.
    @usableFromInline
    static func readManagedSlot(of object: Object, _ property: Int) -> T {
        T.readManaged(ManagedSlot(ref: object.ref.unsafelyUnwrapped, property: property))
    }

    /// Writes stored property `property` of `object`, a managed accessor.
    @usableFromInline
    static func writeManaged(_ newValue: T, of object: Object, _ property: Int) {
        T.writeManaged(newValue, ManagedSlot(ref: object.ref.unsafelyUnwrapped, property: property))
    }

    /// Reads the property of `object` whose wrapper holds `box`, when the
    /// wrapper does not know its property: an unmanaged object (or a key
    /// path trace of one), or a managed object of a class whose wrapper
    /// offsets were not confirmed.
    @usableFromInline
    static func value(of object: Object, _ box: __owned UnmanagedBox<T>?) -> T {
        if object.ref != nil { return readManaged(of: object, property(of: box, in: object)) }
        if let tracer = KeyPathTracer.current, tracer.isTracing(object) {
            return tracer.record(Swift.type(of: object), property(of: box, in: object))
        }
        return unmanagedValue(of: box)
    }

    /// Writes the property of `object` whose wrapper holds `box`, when the
    /// wrapper does not know its property (see ``value(of:_:)``).
    @usableFromInline
    static func setValue(_ newValue: T, of object: Object, _ box: __owned UnmanagedBox<T>?) {
        if object.ref != nil { return writeManaged(newValue, of: object, property(of: box, in: object)) }
        box?.set(newValue)
    }

    /// The stored property of `object` whose wrapper holds `box`: named
    /// when the object was added or the accessor made, found among the
    /// object's boxes otherwise (an unmanaged object traced for a key
    /// path), and remembered.
    static func property(of box: UnmanagedBox<T>?, in object: Object) -> Int {
        guard let box else {
            preconditionFailure("A @Persisted wrapper of a managed \(Swift.type(of: object)) knows neither its property nor its box")
        }
        if box.property < 0 {
            guard let index = ClassRegistry.unmanagedBoxes(of: object).firstIndex(where: { $0 === box }) else {
                preconditionFailure("A @Persisted wrapper's box is not among the boxes of its \(Swift.type(of: object))")
            }
            box.property = index
        }
        return box.property
    }
}

extension Persisted: PersistedProperty {
    func property(named name: String) -> Property {
        let info = T.persistedType
        return Property(
            name: name, type: info.type, isOptional: info.isOptional, isPrimary: isPrimaryKey, isIndexed: isIndexed,
            collection: info.collection, objectClassName: info.objectClassName, linkOriginPropertyName: originProperty)
    }

    var objectType: Object.Type? { T.persistedType.objectType }

    var defaultValue: Value {
        let info = T.persistedType
        guard info.type != .object, info.collection == .none else { return .null }
        return unmanagedValue.toValue(nil)
    }

    var anyBox: AnyUnmanagedBox? { box }

    func readManaged(_ slot: ManagedSlot) -> Any { T.readManaged(slot) }

    func writeManaged(_ value: Any, _ slot: ManagedSlot) -> Bool {
        guard let typed = value as? T else { return false }
        T.writeManaged(typed, slot)
        return true
    }
}

extension Persisted: Encodable where T: Encodable {
    /// Encodes the property's value: the managed value for a managed object
    /// (found by the coding key, which must be the property's name, as the
    /// synthesized conformance makes it), the held value otherwise.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let ref = accessorRef?.ref {
            let schema = ref.realm.schema[ref.table]
            guard let name = encoder.codingPath.last?.stringValue, let index = schema.indexByName[name] else {
                throw EncodingError.invalidValue(T.self, EncodingError.Context(codingPath: encoder.codingPath,
                    debugDescription: "Cannot encode a managed @Persisted property of '\(schema.className)' under a coding key that is not its property name."))
            }
            try container.encode(T.readManaged(ManagedSlot(ref: ref, property: index)))
            return
        }
        try container.encode(unmanagedValue)
    }
}

extension Persisted: Decodable where T: Decodable {
    /// Decodes an unmanaged value.
    public init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer().decode(T.self)
        self.init(box: { UnmanagedBox(value) })
    }
}

/// Marks the construction of a managed accessor, so that its `@Persisted`
/// wrappers know their object (used only for `Codable`), and make no
/// unmanaged box (unless their class's wrapper offsets were not confirmed).
///
/// A thread-specific pointer rather than a task-local: an accessor is
/// constructed synchronously, on one thread, and every wrapper of every
/// accessor reads this, where a task-local read (which looks for the
/// current task first) was a tenth of the time of iterating a `Results`.
enum AccessorConstruction {
    /// The thread's pointer to the ``Construction`` under way.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed (\(status)): no thread-specific key for accessor construction")
        return key
    }()

    /// An accessor under construction.
    struct Construction {
        /// Its reference.
        let ref: UnretainedObjectRef
        /// Whether its wrappers keep boxes: its class's wrapper offsets
        /// were not confirmed, so they learn their property through them.
        let needsBoxes: Bool
    }

    /// The accessor being constructed on this thread, if any.
    static var current: Construction? {
        pthread_getspecific(key).map { $0.assumingMemoryBound(to: Construction.self).pointee }
    }

    /// Runs `body` (which constructs the accessor) with ``current`` set to
    /// `construction`, and then restores what it was.
    static func constructing<R>(_ construction: Construction, _ body: () -> R) -> R {
        let previous = pthread_getspecific(key)
        var ref = construction
        return withUnsafeMutablePointer(to: &ref) { pointer in
            pthread_setspecific(key, pointer)
            defer { pthread_setspecific(key, previous) }
            return body()
        }
    }
}

/// An ``ObjectRef`` that does not retain its Realm instance: what each
/// `@Persisted` wrapper of a managed accessor keeps. The wrapper lives
/// inside its object, whose own ``Object/ref`` keeps the instance alive for
/// as long as the wrapper can be reached.
///
/// Each accessor has a wrapper per property, and an instance is weakly
/// referenced (its per-thread cache), which makes every retain of it take
/// the runtime's slow path: retaining it once per wrapper was a third of the
/// time of iterating a `Results`.
struct UnretainedObjectRef {
    unowned(unsafe) let realm: RealmInstance
    let table: TableKey
    let key: ObjectKey
    let generation: Int

    init(_ ref: ObjectRef) {
        realm = ref.realm
        table = ref.table
        key = ref.key
        generation = ref.generation
    }

    var ref: ObjectRef { ObjectRef(realm: realm, table: table, key: key, generation: generation) }
}

/// The value of one unmanaged `@Persisted` property.
///
/// The value is held as `Any?`, not `T?`: this generic class runs
/// unspecialised, and there every init, read, write and deinit of a `T?`
/// field looks up `Optional<T>`'s metadata at run time (measured at 15% of
/// the instructions of inserting unmanaged objects), while boxing into `Any`
/// needs only `T`'s. Every write stores a `T`, so reading back opens the
/// existential and takes the value as it is (``value(of:)``), with no
/// dynamic cast.
@usableFromInline
final class UnmanagedBox<T: PersistableValue>: AnyUnmanagedBox {
    /// The value once set, or once read (then the type's default). Every
    /// access is a short read (copying the value out) or a write of a value
    /// made before it, never held `inout`, so no access can overlap another
    /// on its thread: the run-time exclusivity check (a thread-local
    /// look-up, a fifth of reading the value) is left out. (A write
    /// releases the old value within the access; a `deinit` that read the
    /// property again would read the new value, already stored.)
    @exclusivity(unchecked) private var held: Any?

    @usableFromInline override init() {}
    @usableFromInline init(_ value: T) { held = value }

    func set(_ value: T) { held = value }

    var current: T {
        if let held { return Self.value(of: held) }
        let value = T.persistedDefault()
        held = value
        return value
    }

    /// The held value, `held` opened: every write stores a `T`, so the
    /// opened type is `T` and the value is taken as it is, where `as! T`
    /// from `Any` is a dynamic cast (with the exclusivity check, 8% of the
    /// instructions of adding unmanaged objects). The cast stays for any
    /// other type, which no write stores.
    private static func value<U>(of held: U) -> T {
        if U.self == T.self { return unsafeBitCast(held, to: T.self) }
        return held as! T
    }

    override func storedValue(_ realm: RealmInstance) -> Value { current.toValue(realm) }

    override func storedValueWithoutAdding(_ realm: RealmInstance) -> Value? {
        // The held value is boxed as `T` (an `Optional` for an optional
        // link), and a cast from `Any` looks through the optional.
        let linked: Object? =
            if let held, let object = held as? Object { object }
            else if let held, let any = held as? AnyRealmValue, case .object(let object) = any { object }
            else { nil }
        guard let linked else { return current.toValue(realm) }
        guard let ref = linked.ref, ref.realm === realm, ref.isValid else { return nil }
        return .link(ref.link)
    }

    override func copyCollection(to slot: ManagedSlot) {
        if let held { T.writeManaged(Self.value(of: held), slot) }
    }

    override var anyValue: Any { current }

    override func set(_ any: Any?, property: Property, className: String) {
        held = UnmanagedValue.convert(any, to: T.self, property: property, className: className)
    }
}

/// An unmanaged property's value without its type: what `add`, `init(value:)`
/// and the by-name subscript use. Abstract: every box is an
/// ``UnmanagedBox``.
///
/// A class rather than a protocol, so that finding the box in a wrapper is
/// a class cast, not a protocol conformance look-up (five per object added,
/// about 3% of inserting unmanaged objects).
@usableFromInline
class AnyUnmanagedBox {
    /// The stored property of its object that this box's wrapper holds,
    /// once the object is managed (or its wrappers traced): how a wrapper
    /// that does not know ``Persisted/managedProperty`` finds its property.
    /// -1 until then.
    var property = -1

    /// The value in stored form, adding linked unmanaged objects to `realm`.
    func storedValue(_ realm: RealmInstance) -> Value { preconditionFailure("AnyUnmanagedBox is abstract") }
    /// The value in stored form when that adds nothing to `realm`: a value
    /// that is not a link, or a link to a valid object `realm` manages;
    /// `nil` when ``storedValue(_:)`` would add an object (or stop).
    func storedValueWithoutAdding(_ realm: RealmInstance) -> Value? { preconditionFailure("AnyUnmanagedBox is abstract") }
    /// Copies an unmanaged collection's contents into the managed property.
    func copyCollection(to slot: ManagedSlot) { preconditionFailure("AnyUnmanagedBox is abstract") }
    /// The value, boxed.
    var anyValue: Any { preconditionFailure("AnyUnmanagedBox is abstract") }
    /// Sets the value from a dynamic one, converting it to the property's type.
    func set(_ any: Any?, property: Property, className: String) { preconditionFailure("AnyUnmanagedBox is abstract") }
}
