// Realm's equality of lists, sets and maps: a managed collection equals the
// collection of the same object's same property (in any Realm instance of the
// same database); an unmanaged one equals an unmanaged one with the same
// elements in the same order (objects compared by identity); a managed and an
// unmanaged collection are never equal (Realm's ListTests testUnmanagedListComparison,
// RealmCollectionTypeTests testEquatability).

extension List: Equatable {
    /// Whether two lists are the same managed list, or unmanaged lists with the same elements.
    ///
    /// ```swift
    /// let a = List<Int>(), b = List<Int>()
    /// a.append(1); b.append(1)
    /// a == b   // true
    /// ```
    public static func == (lhs: List, rhs: List) -> Bool { lhs.isEqual(rhs) }

    /// Realm's `isEqual(_:)`: `==` for another list, `false` for anything else.
    public func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? List else { return false }
        return collectionEquals(slot, other.slot, unmanaged, other.unmanaged)
    }
}

extension MutableSet: Equatable {
    /// Whether two sets are the same managed set, or unmanaged sets with the same elements in the same order.
    ///
    /// ```swift
    /// let a = MutableSet<String>(), b = MutableSet<String>()
    /// a == b   // true: both empty and unmanaged
    /// ```
    public static func == (lhs: MutableSet, rhs: MutableSet) -> Bool { lhs.isEqual(rhs) }

    /// Realm's `isEqual(_:)`: `==` for another set, `false` for anything else.
    public func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? MutableSet else { return false }
        return collectionEquals(slot, other.slot, unmanaged, other.unmanaged)
    }
}

extension Map: Equatable {
    /// Whether two maps are the same managed map, or unmanaged maps with the same entries.
    ///
    /// ```swift
    /// let a = Map<String, Int>(), b = Map<String, Int>()
    /// a["x"] = 1; b["x"] = 1
    /// a == b   // true
    /// ```
    public static func == (lhs: Map, rhs: Map) -> Bool { lhs.isEqual(rhs) }

    /// Realm's `isEqual(_:)`: `==` for another map, `false` for anything else.
    public func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? Map else { return false }
        if slot != nil || other.slot != nil { return collectionEquals(slot, other.slot, [Int](), []) }
        return unmanaged.count == other.unmanaged.count
            && unmanaged.allSatisfy { entry in other[entry.key].map { sameElement(entry.value, $0) } ?? false }
    }
}

/// Equality of two collections by their slots (managed) or elements (unmanaged).
private func collectionEquals<E: PersistableValue>(_ a: ManagedSlot?, _ b: ManagedSlot?, _ x: [E], _ y: [E]) -> Bool {
    switch (a, b) {
    case (let a?, let b?):
        return a.ref.realm.coordinator === b.ref.realm.coordinator && a.ref.table == b.ref.table
            && a.ref.key == b.ref.key && a.property == b.property && a.mixedPath == b.mixedPath
    case (nil, nil):
        return x.count == y.count && zip(x, y).allSatisfy { sameElement($0, $1) }
    default:
        return false
    }
}

/// Whether two elements of an unmanaged collection are the same: objects
/// (also in an optional or an `AnyRealmValue`) by identity or as the same
/// managed object, values by value. (An unmanaged object has no stored form
/// to compare.)
func sameElement<E: PersistableValue>(_ a: E, _ b: E) -> Bool {
    // Nested collections compare as collections (which may hold unmanaged objects).
    if let x = a as? AnyRealmValue, let y = b as? AnyRealmValue, x.isCollection || y.isCollection { return x == y }
    let (x, y) = (linkedObject(a), linkedObject(b))
    if x != nil || y != nil {
        guard let x, let y else { return false }
        return x === y || x.isSameObject(as: y)
    }
    return a.toValue(nil) == b.toValue(nil)
}

private func linkedObject(_ value: Any) -> Object? {
    if let object = value as? Object { return object }
    if let any = value as? AnyRealmValue, case .object(let object) = any { return object }
    return nil
}

// Realm's equality of results, linking objects and type-erased collections is
// identity (Realm's RealmCollectionTypeTests testEquatability for Results,
// LinkingObjects and AnyRealmCollection): a `Results` equals itself and its
// copies, not another `Results` over the same query (`realm.objects(Dog.self)`
// twice gives two unequal results), and each read of a `LinkingObjects`
// property gives a new one. An `AnyRealmCollection` compares what it wraps.

extension Results: Equatable {
    /// Whether both are the same results (one is a copy of the other), as in Realm.
    ///
    /// ```swift
    /// let dogs = realm.objects(Dog.self)
    /// dogs == dogs                       // true
    /// dogs == realm.objects(Dog.self)    // false: another results
    /// ```
    public static func == (lhs: Results, rhs: Results) -> Bool { lhs.cache === rhs.cache }

    /// Realm's `isEqual(_:)`: `==` for results (also wrapped in an ``AnyRealmCollection``), `false` for anything else.
    public func isEqual(_ object: Any?) -> Bool { (unwrapAnyCollection(object) as? Results).map { $0 == self } ?? false }
}

extension LinkingObjects: Equatable {
    /// Whether both are the same linking objects value (one is a copy of the
    /// other), as in Realm, where each read of the property gives a new one.
    ///
    /// ```swift
    /// let owners = dog.owners
    /// owners == owners        // true
    /// ```
    public static func == (lhs: LinkingObjects, rhs: LinkingObjects) -> Bool { lhs.binding === rhs.binding }

    /// Realm's `isEqual(_:)`: `==` for linking objects (also wrapped in an ``AnyRealmCollection``), `false` for anything else.
    public func isEqual(_ object: Any?) -> Bool { (unwrapAnyCollection(object) as? LinkingObjects).map { $0 == self } ?? false }
}

extension AnyRealmCollection: Equatable {
    /// Whether both wrap equal collections: the same list, set or map, or
    /// the same results or linking objects, as Realm compares them.
    ///
    /// ```swift
    /// AnyRealmCollection(person.dogs) == AnyRealmCollection(person.dogs)   // true: the same list
    /// ```
    public static func == (lhs: AnyRealmCollection, rhs: AnyRealmCollection) -> Bool { lhs.isEqual(rhs) }

    /// Realm's `isEqual(_:)`: whether `object` (or the collection it wraps) equals the wrapped collection.
    public func isEqual(_ object: Any?) -> Bool {
        (base as? any RealmCollectionEquality)?.isEqualCollection(unwrapAnyCollection(object)) ?? false
    }
}

/// The collection an ``AnyRealmCollection`` wraps, or `object` itself.
private func unwrapAnyCollection(_ object: Any?) -> Any? {
    guard let object else { return nil }
    return (object as? any AnyRealmCollectionUnwrapping)?.wrappedCollection ?? object
}

private protocol AnyRealmCollectionUnwrapping {
    var wrappedCollection: Any { get }
}

extension AnyRealmCollection: AnyRealmCollectionUnwrapping {
    fileprivate var wrappedCollection: Any { base }
}

/// The collections whose `isEqual(_:)` an ``AnyRealmCollection`` forwards to.
private protocol RealmCollectionEquality {
    func isEqualCollection(_ object: Any?) -> Bool
}

extension List: RealmCollectionEquality {
    fileprivate func isEqualCollection(_ object: Any?) -> Bool { isEqual(object) }
}

extension MutableSet: RealmCollectionEquality {
    fileprivate func isEqualCollection(_ object: Any?) -> Bool { isEqual(object) }
}

extension Results: RealmCollectionEquality {
    fileprivate func isEqualCollection(_ object: Any?) -> Bool { isEqual(object) }
}

extension LinkingObjects: RealmCollectionEquality {
    fileprivate func isEqualCollection(_ object: Any?) -> Bool { isEqual(object) }
}
