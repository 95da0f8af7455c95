/// Where a managed object lives: its Realm instance, table and key, and the
/// Realm generation it was read in (``Realm/invalidate()`` starts a new one).
struct ObjectRef {
    let realm: RealmInstance
    let table: TableKey
    /// Changed in place only when an accessor is re-pointed (``Object/repoint(to:_:in:liveAt:)``).
    var key: ObjectKey
    var generation: Int
    /// A ``RealmInstance/liveStamp`` under which the object was known to
    /// be live (0 if none): while the instance's stamp still equals it, the
    /// object is live with no look-up.
    var liveAt: UInt64 = 0

    var link: Link { Link(table: table, key: key) }

    var isValid: Bool {
        generation == realm.generation && realm.isAlive(table, key)
    }

    /// Stops with Realm's message when the object was deleted or invalidated,
    /// or is used from the wrong thread.
    func checkValid() {
        realm.checkValid(table, key, generation: generation, liveAt: liveAt)
    }
}

extension RealmInstance {
    /// Stops with Realm's message when object `key` of `table`, read in
    /// `generation`, was deleted or invalidated, or this Realm is used from
    /// the wrong thread.
    ///
    /// `liveAt` is the object's ``ObjectRef/liveAt``: when it is the
    /// current ``liveStamp``, the object is known live without looking.
    @inline(__always)
    func checkValid(_ table: TableKey, _ key: ObjectKey, generation: Int, liveAt: UInt64) {
        verifyThread()
        guard generation == self.generation && (isKnownLive(liveAt) || isAlive(table, key)) else {
            stopInvalidated(table)
        }
    }

    @inline(never)
    private func stopInvalidated(_ table: TableKey) -> Never {
        shoalPrecondition(ShoalError(.objectInvalidated, "Object has been deleted or invalidated.",
            context: ["class": schema[table].className]))
    }
}

/// One property of one managed object: what `@Persisted` reads and writes. Opaque.
public struct ManagedSlot {
    let ref: ObjectRef
    let property: Int
    /// For a collection nested in a mixed (`AnyRealmValue`) property: the
    /// steps from the property's value to it (empty for the value itself).
    /// `nil` for the property itself.
    var mixedPath: [MixedPathStep]? = nil

    init(ref: ObjectRef, property: Int, mixedPath: [MixedPathStep]? = nil) {
        self.ref = ref
        self.property = property
        self.mixedPath = mixedPath
    }

    var schemaProperty: Property { ref.realm.schema[ref.table].properties[property] }
    var qualifiedName: String { "\(ref.realm.schema[ref.table].className).\(schemaProperty.name)" }

    /// The base of a query on this collection property: the element table
    /// for objects, the owner's table for values.
    var resultsBase: (instance: RealmInstance, table: TableKey, source: ResultsSource) {
        ref.checkValid()
        let property = schemaProperty
        let table = property.objectClassName.flatMap { ref.realm.schema.tableByName[$0] } ?? ref.table
        return (ref.realm, table, .collection(owner: ref.link, property: self.property))
    }

    func read() -> Value {
        ref.checkValid()
        return ref.realm.value(ref.table, ref.key, property)
    }

    /// The value of a string property, read from its column in place.
    func readString() -> String {
        ref.checkValid()
        return ref.realm.string(ref.table, ref.key, property)
    }

    /// String property `property` of managed `object`, read with no
    /// reference counted on the way: the realm is used through a guaranteed
    /// reference (the object holds it strongly for the whole call), and the
    /// bytes are read in place. Checks the thread and the object's validity
    /// as ``readString()`` does.
    @usableFromInline
    static func readString(of object: Object, _ property: Int) -> String {
        let table = object.ref.unsafelyUnwrapped.table
        let key = object.ref.unsafelyUnwrapped.key
        let generation = object.ref.unsafelyUnwrapped.generation
        let liveAt = object.ref.unsafelyUnwrapped.liveAt
        return Unmanaged.passUnretained(object.ref.unsafelyUnwrapped.realm)._withUnsafeGuaranteedRef { realm in
            realm.checkValid(table, key, generation: generation, liveAt: liveAt)
            return realm.string(table, key, property)
        }
    }

    func write(_ value: Value) {
        ref.checkValid()
        let tx = ref.realm.requireModification()
        do { try tx.set(ref.table, ref.key, property, value) } catch { shoalPrecondition(error) }
    }
}

extension RealmInstance {
    /// The open write transaction for a property or collection mutation, or
    /// a stop with Realm's message for modifying outside a write.
    func requireModification() -> WriteTransaction {
        verifyThread()
        if let transaction { return transaction }
        if isFrozen {
            shoalPrecondition(ShoalError(.writeOnFrozenRealm, "Attempting to modify a frozen object - call thaw on the Object instance first."))
        }
        shoalPrecondition(ShoalError(.notInWriteTransaction,
            "Attempting to modify object outside of a write transaction - call beginWriteTransaction on an RLMRealm instance first."))
    }
}

extension ManagedSlot {
    /// The same property of the frozen copy of its object.
    func frozen() -> ManagedSlot {
        if ref.realm.isFrozen { return self }
        let owner = ref.realm.accessor(ref.link).freeze()
        return ManagedSlot(ref: owner.ref!, property: property, mixedPath: mixedPath)
    }

    /// The same property of the live object on the calling thread, or `nil`
    /// if the object was deleted.
    func thawed() -> ManagedSlot? {
        if !ref.realm.isFrozen { return self }
        guard let owner = ref.realm.accessor(ref.link).thaw() else { return nil }
        return ManagedSlot(ref: owner.ref!, property: property, mixedPath: mixedPath)
    }

    /// Replaces a managed collection's contents (assigning a collection to a property).
    func replaceContents(with elements: Any) {
        do { try ref.realm.replaceCollection(self, with: elements, update: .error) } catch { shoalPrecondition(error) }
    }
}

/// Stops for a collection used where a single value is stored.
func nestedCollection(_ kind: String) -> Never {
    shoalPrecondition(ShoalError(.unsupported, "\(kind) cannot be nested in collections."))
}

/// Stops for freezing or thawing an unmanaged collection.
func unmanagedCollection(_ kind: String) -> Never {
    let typeName = ["lists": "List", "sets": "MutableSet", "maps": "Map"][kind] ?? kind
    shoalPrecondition(ShoalError(.unsupported, unmanagedMessage(typeName)))
}

/// Realm's message for a managed-only method called on an unmanaged
/// collection (RealmCollectionTypeTests testFreeze), naming the Objective-C
/// class Realm names, then Shoal's.
func unmanagedMessage(_ typeName: String) -> String {
    let realmName = ["List": "RLMArray", "MutableSet": "RLMSet", "Map": "RLMDictionary"][typeName] ?? typeName
    return "This method may only be called on \(realmName) instances retrieved from an RLMRealm (this \(typeName) is unmanaged)."
}
