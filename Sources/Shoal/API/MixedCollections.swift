import OrderedCollections

// Collections nested in a mixed (`AnyRealmValue`) property. The property's
// value holds the whole nested structure (`Value.list`, `Value.dictionary`);
// a live `List` or `Map` read from it names its place by a path from the
// property's value, reads what is there now, and changes it by writing the
// property's new value in the open write transaction: one `set` of the
// property, which the log, notifications and replay treat like any other.

extension ManagedSlot {
    /// The place `path` leads to inside this mixed property's value.
    func nested(_ path: [MixedPathStep]) -> ManagedSlot {
        ManagedSlot(ref: ref, property: property, mixedPath: (mixedPath ?? []) + path)
    }

    /// The place one step further in.
    func appending(_ step: MixedPathStep) -> ManagedSlot { nested([step]) }

    /// The value at this nested place now, or `nil` when the place is gone
    /// (the property or a collection on the way was given another value).
    func readNested() -> Value? {
        read().nested(at: mixedPath ?? [])
    }

    /// A message naming the nested place, for errors.
    var nestedName: String { qualifiedName + (mixedPath ?? []).map(\.description).joined() }

    /// Changes the value at this nested place in the open write transaction
    /// and writes the property's new value.
    func updateNested(_ body: (inout Value) throws(ShoalError) -> Void) {
        ref.checkValid()
        let tx = ref.realm.requireModification()
        do {
            var root = tx.working.value(ref.table, ref.key, property)
            let found = try root.updateNested(at: (mixedPath ?? [])[...], body)
            guard found else { throw Self.nestedGone(nestedName) }
            try tx.set(ref.table, ref.key, property, root)
        } catch { shoalPrecondition(error) }
    }

    static func nestedGone(_ name: String) -> ShoalError {
        ShoalError(.objectInvalidated, "The nested collection '\(name)' no longer exists: its property or a collection holding it was given another value.",
            context: ["collection": name])
    }
}

/// The error for what a live collection nested in a mixed property does
/// not offer: `what` (queries, change notifications) names it.
func nestedCollectionUnsupported(_ what: String) -> ShoalError {
    ShoalError(.unsupported,
        "\(what) on a collection nested in an AnyRealmValue property are not supported: observe the object that holds it, or query its owners with subscripts such as 'anyCol[0]' or 'anyCol[\"key\"]'.")
}

extension List where Element == AnyRealmValue {
    /// The stored elements of this list, as a mixed value holds them: an
    /// unmanaged list's converted (adding unmanaged objects to `context`'s
    /// Realm), a managed one's copied.
    func mixedElements(_ context: StoredContext) -> [Value] {
        guard slot != nil else { return unmanaged.map { $0.toStored(context).value } }
        return storedElements()
    }
}

extension Map where Key == String, Value == AnyRealmValue {
    /// The stored entries of this map, as a mixed value holds them (see
    /// ``List/mixedElements(_:)``).
    func mixedEntries(_ context: StoredContext) -> [String: Shoal.Value] {
        guard slot != nil else {
            var entries: [String: Shoal.Value] = [:]
            for (key, value) in unmanaged { entries[key] = value.toStored(context).value }
            return entries
        }
        var entries: [String: Shoal.Value] = [:]
        for (key, value) in storedEntries() { entries[key] = value }
        return entries
    }
}

extension List {
    /// Whether this is a managed list nested in a mixed property.
    var isNested: Bool { slot?.mixedPath != nil }

    /// The elements of a nested list now (none if it is gone).
    func nestedElements() -> [Value] {
        guard let slot else { return [] }
        slot.ref.checkValid()
        if case .list(let elements) = slot.readNested() { return elements }
        return []
    }

    /// The element of a nested list at `position` whose stored form is
    /// `value`: a nested collection reads as a live one of its place.
    func nestedElement(_ value: Value, at position: Int) -> Element {
        guard let slot else { shoalPrecondition(ShoalError(.unsupported, "Not a nested list.")) }
        if value.isCollection, let element = AnyRealmValue.live(value, at: slot.appending(.index(position))) as? Element { return element }
        return Element.fromValue(value, slot.ref.realm)
    }

    /// Changes a nested list's elements in the open write transaction.
    func updateNestedList(_ body: (inout [Value]) throws(ShoalError) -> Void) {
        guard let slot else { return }
        slot.updateNested { (value: inout Value) throws(ShoalError) in
            guard case .list(var elements) = value else { throw ManagedSlot.nestedGone(slot.nestedName) }
            value = .null
            defer { value = .list(elements) }
            try body(&elements)
        }
    }

    /// The stored form of an element of a nested list.
    func nestedStored(_ element: Element) -> Value {
        element.toValue(slot?.ref.realm)
    }

    func checkNestedIndex(_ index: Int, _ count: Int) throws(ShoalError) {
        guard index >= 0 && index < count else {
            throw ShoalError(.indexOutOfBounds, "Index \(index) is out of bounds (must be less than \(count)).")
        }
    }
}

extension Map {
    /// Whether this is a managed map nested in a mixed property.
    var isNested: Bool { slot?.mixedPath != nil }

    /// The entries of a nested map now, in key order (none if it is gone).
    func nestedEntries() -> MapStorage {
        guard let slot else { return [:] }
        slot.ref.checkValid()
        guard case .dictionary(let entries) = slot.readNested() else { return [:] }
        var storage = MapStorage(minimumCapacity: entries.count)
        for key in entries.keys.sorted() { storage[key] = entries[key] }
        return storage
    }

    /// The value of a nested map for `key` whose stored form is `value`: a
    /// nested collection reads as a live one of its place.
    func nestedValue(_ value: Shoal.Value, forKey key: String) -> Value {
        guard let slot else { shoalPrecondition(ShoalError(.unsupported, "Not a nested map.")) }
        if value.isCollection, let element = AnyRealmValue.live(value, at: slot.appending(.key(key))) as? Value { return element }
        return Value.fromValue(value, slot.ref.realm)
    }

    /// Changes a nested map's entries in the open write transaction.
    func updateNestedMap(_ body: (inout [String: Shoal.Value]) -> Void) {
        guard let slot else { return }
        slot.updateNested { (value: inout Shoal.Value) throws(ShoalError) in
            guard case .dictionary(var entries) = value else { throw ManagedSlot.nestedGone(slot.nestedName) }
            value = .null
            defer { value = .dictionary(entries) }
            body(&entries)
        }
    }
}
