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
            && a.ref.key == b.ref.key && a.property == b.property
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
