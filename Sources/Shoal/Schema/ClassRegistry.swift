@_spi(Reflection) import Swift
import Foundation

/// What Shoal knows about one `Object` subclass: its schema and default values,
/// discovered once by reflecting a fresh instance.
struct ClassInfo: @unchecked Sendable {
    // Safe because: immutable after discovery; `type` is a metatype.
    let type: Object.Type
    let schema: ObjectSchema
    /// The value each stored property has in a freshly created instance.
    let defaults: [Value]
    /// Properties declared without `@Persisted`, with
    /// `LinkingObjects(fromType:property:)` or `RealmProperty()`:
    /// accessors must bind them after creation.
    let legacyLinkingObjects: [(label: String, property: Int)]
    /// For each property (by schema index), the byte offset of its
    /// `@Persisted` wrapper in an instance, whose first field is the
    /// unmanaged value box (-1 for a property declared without one: legacy
    /// linking objects), when reflection confirmed them all; `nil`
    /// otherwise, and reflection is used instead.
    let confirmedOffsets: [Int]?
    /// Whether a managed accessor of this class is nothing but its
    /// ``Object/ref`` and `@Persisted` wrappers that hold no state of their
    /// own, so that an accessor nobody else holds can be pointed at another
    /// object of the class instead of a new one being made (see
    /// ``RealmCollectionIterator``). False when the class declares any
    /// other stored property (a plain or `lazy` var would carry one
    /// object's state over to the next), legacy linking objects (bound per
    /// accessor), or is `Encodable` (its wrappers remember their object for
    /// `encode(to:)`).
    let accessorsReusable: Bool
    /// The classes the properties name (links, collections of objects,
    /// linking objects), in declaration order: those that join a schema
    /// with this class.
    let linkedTypes: [Object.Type]
}

/// Discovers schemas from `Object` subclasses and where their `@Persisted`
/// wrappers lie.
enum ClassRegistry {
    private static let classes = Locked<[ObjectIdentifier: ClassInfo]>([:])
    static func info(for type: Object.Type) -> ClassInfo {
        let id = ObjectIdentifier(type)
        if let info = classes.withLock({ $0[id] }) { return info }
        let info = discover(type)
        classes.withLock { $0[id] = info }
        return info
    }

    private static func discover(_ type: Object.Type) -> ClassInfo {
        let prototype = type.init(_shoalMetatype: ())
        var properties: [Property] = []
        var defaults: [Value] = []
        var legacy: [(String, String)] = []
        var onlyPersisted = true
        var linked: [Object.Type] = []
        for child in children(of: prototype) {
            if !(child.value is any PersistedProperty) { onlyPersisted = false }
            guard let label = child.label else { continue }
            if let persisted = child.value as? any PersistedProperty {
                let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
                let property = persisted.property(named: name)
                properties.append(property)
                if let target = persisted.objectType { linked.append(target) }
                if property.isStored { defaults.append(property.collection == .none ? persisted.defaultValue : .null) }
            } else if let linking = child.value as? any LinkingObjectsDeclaration {
                properties.append(linking.property(named: label))
                legacy.append((label, label))
                if let target = linking.objectType { linked.append(target) }
            } else if let declared = child.value as? any RealmPropertyDeclaration {
                properties.append(declared.property(named: label))
                defaults.append(declared.unmanagedStored(nil))
                legacy.append((label, label))
            }
        }
        let schema = ObjectSchema(className: Object.className(of: type), properties: properties, isEmbedded: type is EmbeddedObject.Type)
        let offsets = wrapperOffsets(type, schema, prototype)
        let wrapped = Set(schema.properties.indices).subtracting(legacy.map { schema.indexByName[$0.1]! })
        let confirmed = wrapped.allSatisfy { offsets[$0] != nil } ? offsets.map { $0 ?? -1 } : nil
        // Stored properties come first in the schema, in declaration order, so
        // `defaults` lines up with the stored property indexes.
        return ClassInfo(type: type, schema: schema, defaults: defaults,
            legacyLinkingObjects: legacy.map { ($0.0, schema.indexByName[$0.1]!) },
            confirmedOffsets: confirmed,
            accessorsReusable: onlyPersisted && legacy.isEmpty && !(type is any Encodable.Type),
            linkedTypes: linked)
    }

    /// Finds each `@Persisted` wrapper's offset with the runtime's field
    /// metadata (once per class), and checks on the prototype that reading
    /// the box at that offset gives the same box reflection gives.
    private static func wrapperOffsets(_ type: Object.Type, _ schema: ObjectSchema, _ prototype: Object) -> [Int?] {
        var offsets = [Int?](repeating: nil, count: schema.properties.count)
        // `_EachFieldOptions.classType` is rawValue 1; the stdlib declares it as a
        // mutable static, which strict concurrency refuses to read.
        _ = _forEachField(of: type, options: _EachFieldOptions(rawValue: 1)) { name, offset, fieldType, _ in
            let label = String(cString: name)
            if label.hasPrefix("_"), fieldType is any PersistedProperty.Type,
                let index = schema.indexByName[String(label.dropFirst())], index < offsets.count
            {
                offsets[index] = offset
            }
            return true
        }
        for child in children(of: prototype) {
            guard let label = child.label, label.hasPrefix("_"), let p = child.value as? any PersistedProperty,
                let index = schema.indexByName[String(label.dropFirst())], index < offsets.count
            else { continue }
            if checkedBox(at: offsets[index], in: prototype) !== p.anyBox { return [Int?](repeating: nil, count: schema.properties.count) }
        }
        return offsets
    }

    /// The box at wrapper offset `offset` of `object`, checked by a cast:
    /// what discovery uses to confirm the offsets.
    private static func checkedBox(at offset: Int?, in object: Object) -> AnyUnmanagedBox? {
        guard let offset else { return nil }
        return boxObject(at: offset, in: object) as? AnyUnmanagedBox
    }

    /// The unmanaged box of the `@Persisted` wrapper at field `offset` of
    /// `object` (its first field), or `nil` for the wrapper of a managed
    /// accessor of a class whose offsets were confirmed.
    static func boxObject(at offset: Int, in object: Object) -> AnyObject? {
        withExtendedLifetime(object) { (Unmanaged.passUnretained(object).toOpaque() + offset).load(as: AnyObject?.self) }
    }

    /// Where a `@Persisted` wrapper holds ``Persisted/managedProperty``:
    /// the same for every value type, since no field's layout depends on it
    /// (the box is a class reference).
    static let managedPropertyOffset: Int = {
        guard let offset = MemoryLayout<Persisted<Int>>.offset(of: \Persisted<Int>.managedProperty) else {
            preconditionFailure("Persisted.managedProperty has no fixed offset")
        }
        return offset
    }()

    /// Tells each `@Persisted` wrapper of `object`, a managed accessor just
    /// made or an object just added, which stored property it reads, so
    /// that its reads and writes go straight to the property (see
    /// ``Persisted/managedProperty``). `offsets` are the class's
    /// ``ClassInfo/confirmedOffsets``, by schema index; without them each
    /// wrapper's box is told instead (``AnyUnmanagedBox/property``).
    static func markManaged(_ object: Object, offsets: [Int]?) {
        let field = managedPropertyOffset
        guard let offsets else {
            for (property, box) in unmanagedBoxes(of: object).enumerated() { box?.property = property }
            return
        }
        withExtendedLifetime(object) {
            let base = Unmanaged.passUnretained(object).toOpaque()
            for (property, offset) in offsets.enumerated() where offset >= 0 {
                (base + offset + field).storeBytes(of: property, as: Int.self)
            }
        }
    }

    /// The box at a confirmed wrapper offset (one of ``ClassInfo/confirmedOffsets``):
    /// no dynamic cast, since the field there holds an ``UnmanagedBox`` or nil.
    static func box(at offset: Int, in object: Object) -> AnyUnmanagedBox? {
        boxObject(at: offset, in: object).map { unsafeDowncast($0, to: AnyUnmanagedBox.self) }
    }

    /// The unmanaged value box of each property of `object`, by schema
    /// index: `nil` for a property without a `@Persisted` wrapper, and
    /// for every wrapper of an accessor whose class's offsets were confirmed.
    static func unmanagedBoxes(of object: Object) -> [AnyUnmanagedBox?] {
        let info = info(for: Swift.type(of: object))
        if let offsets = info.confirmedOffsets {
            return offsets.map { $0 < 0 ? nil : box(at: $0, in: object) }
        }
        var boxes = [AnyUnmanagedBox?](repeating: nil, count: info.schema.properties.count)
        for child in children(of: object) {
            guard let label = child.label, label.hasPrefix("_"), let p = child.value as? any PersistedProperty,
                let index = info.schema.indexByName[String(label.dropFirst())], index < boxes.count
            else { continue }
            boxes[index] = p.anyBox
        }
        return boxes
    }

    /// The unmanaged value boxes of `object`, read one at a time where
    /// asked for: at `offsets` (its class's ``ClassInfo/confirmedOffsets``)
    /// with no array made, or from reflection where the layout was not
    /// confirmed.
    static func boxReader(of object: Object, offsets: [Int]?) -> UnmanagedBoxReader {
        UnmanagedBoxReader(object: object, source: offsets.map { .offsets($0) } ?? .reflected(unmanagedBoxes(of: object)))
    }

    /// The schemas of `type` and of every class reachable from it through
    /// links and linking objects, `type` first.
    static func reachableSchemas(from type: Object.Type) -> [ObjectSchema] {
        reachableTypes(from: type).map { info(for: $0).schema }
    }

    /// `type` and every class reachable from it through links and linking
    /// objects, `type` first.
    static func reachableTypes(from type: Object.Type) -> [Object.Type] {
        var order: [Object.Type] = [type]
        var seen: Set<ObjectIdentifier> = [ObjectIdentifier(type)]
        var next = 0
        while next < order.count {
            let prototype = order[next].init(_shoalMetatype: ())
            next += 1
            for child in children(of: prototype) {
                let linked = (child.value as? any PersistedProperty)?.objectType ?? (child.value as? any LinkingObjectsDeclaration)?.objectType
                if let linked, seen.insert(ObjectIdentifier(linked)).inserted { order.append(linked) }
            }
        }
        return order
    }

    /// Mirror children of an object, superclass properties first, stopping at `Object`.
    static func children(of object: Object) -> [Mirror.Child] {
        var mirrors: [Mirror] = []
        var mirror: Mirror? = Mirror(reflecting: object)
        while let m = mirror, m.subjectType != Object.self {
            mirrors.append(m)
            mirror = m.superclassMirror
        }
        return mirrors.reversed().flatMap { Array($0.children) }
    }
}

/// Implemented by `Persisted` so that discovery and `add` can use a property
/// without knowing its value type.
protocol PersistedProperty {
    func property(named name: String) -> Property
    /// The class a link, collection of links or linking objects property points to.
    var objectType: Object.Type? { get }
    /// The default value in stored form (unmanaged context; never a link).
    var defaultValue: Value { get }
    /// The unmanaged value's box; `nil` in a managed accessor of a class
    /// whose wrapper offsets were confirmed.
    var anyBox: AnyUnmanagedBox? { get }
    /// Reads a managed property as its Swift type, boxed.
    func readManaged(_ slot: ManagedSlot) -> Any
    /// Writes a managed property from a value of its Swift type; false when the type differs.
    func writeManaged(_ value: Any, _ slot: ManagedSlot) -> Bool
}

/// A property declared without `@Persisted`, which accessors bind to their
/// object after creation.
protocol LegacyPropertyDeclaration {
    func property(named name: String) -> Property
    var objectType: Object.Type? { get }
    func bind(_ ref: ObjectRef, property: Int)
}

/// Implemented by `LinkingObjects` declared with `LinkingObjects(fromType:property:)`.
protocol LinkingObjectsDeclaration: LegacyPropertyDeclaration {}

/// Implemented by `RealmProperty`: a stored property that holds its
/// unmanaged value itself.
protocol RealmPropertyDeclaration: LegacyPropertyDeclaration {
    /// The unmanaged value in stored form.
    func unmanagedStored(_ realm: RealmInstance?) -> Value
    /// The unmanaged value, boxed.
    var unmanagedAny: Any { get }
    /// Sets the unmanaged value from a dynamic one (`init(value:)`, the
    /// by-name subscript), converted as for `property`.
    func setUnmanaged(_ value: Any?, property: Property, className: String)
}

/// The unmanaged value boxes of one object, by schema index (see
/// ``ClassRegistry/boxReader(of:offsets:)``).
struct UnmanagedBoxReader {
    enum Source {
        /// Each box read at its wrapper's offset.
        case offsets([Int])
        /// The boxes found by reflection.
        case reflected([AnyUnmanagedBox?])
    }

    let object: Object
    let source: Source

    subscript(index: Int) -> AnyUnmanagedBox? {
        switch source {
        case .offsets(let offsets): offsets[index] < 0 ? nil : ClassRegistry.box(at: offsets[index], in: object)
        case .reflected(let boxes): boxes[index]
        }
    }
}
