
/// The objects that link to an object through one property: an inverse
/// relationship, computed and kept current by the Realm.
///
/// ```swift
/// final class Dog: Object {
///     @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
/// }
/// dog.owners.first?.name
/// ```
///
/// The older form `let owners = LinkingObjects(fromType: Person.self, property: "dogs")`
/// works too. An object linked twice by one origin appears twice.
///
/// - Note: Differs from Realm: linking objects keep the order in which the
///   links were made; unlinking does not move the last one into the gap.
public struct LinkingObjects<Element: Object>: RealmCollectionImpl, @unchecked Sendable {
    /// A position in the collection: an offset from 0.
    public typealias Index = Int
    /// Iterates the elements the collection held when iteration began (see ``RealmCollectionIterator``).
    public typealias Iterator = RealmCollectionIterator<Element>
    /// A contiguous range of the collection's elements, read through the collection.
    public typealias SubSequence = Slice<Self>
    /// The valid positions, `0..<count`.
    public typealias Indices = Range<Int>

    // Safe because: the binding is set once, before the accessor is shared;
    // managed reads check their Realm's thread.
    let originProperty: String
    let binding: Binding

    final class Binding: Sendable {
        let slot: Locked<ManagedSlot?>
        init(_ slot: ManagedSlot?) { self.slot = Locked(slot) }
    }

    /// Declares the objects of `type` linking here through `property`.
    public init(fromType type: Element.Type, property: String) {
        self.originProperty = property
        self.binding = Binding(nil)
    }

    init(slot: ManagedSlot, originProperty: String) {
        self.originProperty = originProperty
        self.binding = Binding(slot)
    }

    var slot: ManagedSlot? { binding.slot.withLock { $0 } }

    var managedInstance: RealmInstance? { slot?.ref.realm }
    var unmanagedElements: [Element] { [] }
    var kindName: String { "LinkingObjects" }
    var resultsBase: (instance: RealmInstance, table: TableKey, source: ResultsSource)? { slot?.resultsBase }

    func storedElements() -> [Value] {
        guard let slot else { return [] }
        let realm = slot.ref.realm
        realm.verifyThread()
        let snapshot = realm.current
        guard slot.ref.generation == realm.generation, snapshot.isAlive(slot.ref.table, slot.ref.key) else { return [] }
        let property = slot.schemaProperty
        guard let originName = property.objectClassName, let origin = realm.schema.tableByName[originName],
            let originIndex = realm.schema[origin].indexByName[property.linkOriginPropertyName ?? ""]
        else { return [] }
        return snapshot.backlinks(slot.ref.table, slot.ref.key, origin: origin, property: originIndex)
            .map { .link(Link(table: origin, key: $0)) }
    }

    /// Whether the Realm was invalidated.
    public var isInvalidated: Bool {
        guard let slot else { return false }
        return slot.ref.generation != slot.ref.realm.generation
    }

    /// A frozen copy at the current version.
    public func freeze() -> LinkingObjects {
        guard let slot else { shoalPrecondition(ShoalError(.unsupported, "Unmanaged objects cannot be frozen.")) }
        return slot.ref.realm.isFrozen ? self : LinkingObjects(slot: slot.frozen(), originProperty: originProperty)
    }

    /// The live collection for the calling thread, or `nil` if the object was deleted.
    public func thaw() -> LinkingObjects? {
        guard let slot else { shoalPrecondition(ShoalError(.unsupported, "Unmanaged objects cannot be thawed.")) }
        guard slot.ref.realm.isFrozen else { return self }
        return slot.thawed().map { LinkingObjects(slot: $0, originProperty: originProperty) }
    }
}

extension LinkingObjects: PersistableValue {
    /// A computed property of the schema: the objects of `Element` linking here through the origin property.
    public static var persistedType: PersistedTypeInfo { .init(.linkingObjects, objectType: Element.self) }
    /// Empty linking objects with no origin property.
    public static func persistedDefault() -> LinkingObjects { LinkingObjects(fromType: Element.self, property: "") }
    /// Linking objects are computed, never stored: stops with `unsupported`.
    public static func fromStored(_ stored: StoredValue, _ context: StoredContext) -> LinkingObjects {
        shoalPrecondition(ShoalError(.unsupported, "LinkingObjects cannot be stored."))
    }
    /// Linking objects are computed, never stored: stops with `unsupported`.
    public func toStored(_ context: StoredContext) -> StoredValue {
        shoalPrecondition(ShoalError(.unsupported, "LinkingObjects cannot be stored."))
    }
    /// The linking objects of a managed object, current at its Realm's version.
    public static func readManaged(_ slot: ManagedSlot) -> LinkingObjects {
        LinkingObjects(slot: slot, originProperty: slot.schemaProperty.linkOriginPropertyName ?? "")
    }
    /// Linking objects are computed; assigning them stops the program.
    public static func writeManaged(_ value: LinkingObjects, _ slot: ManagedSlot) {
        shoalPrecondition(ShoalError(.unsupported, "Cannot set the linking objects property '\(slot.qualifiedName)'."))
    }
}

extension LinkingObjects: LinkingObjectsDeclaration {
    func property(named name: String) -> Property {
        Property(name: name, type: .linkingObjects, objectClassName: Object.className(of: Element.self), linkOriginPropertyName: originProperty)
    }

    var objectType: Object.Type? { Element.self }

    func bind(_ ref: ObjectRef, property: Int) {
        binding.slot.withLock { $0 = ManagedSlot(ref: ref, property: property) }
    }
}

extension LinkingObjects: Encodable where Element: Encodable {
    /// Encodes the objects as an array.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}
