/// Realm's `.modified` update of embedded objects: adding an object over an
/// existing one with the same primary key updates the embedded objects it
/// owns in place, field by field, instead of replacing them (Realm's
/// ObjectCreationTests testAddAndUpdateChangedEmbedded). The unmanaged
/// embedded objects given become accessors of the updated ones; only the
/// fields that differ are changed, so the change record holds only real
/// changes. With `.all` the old embedded objects are replaced (and deleted).
extension RealmInstance {
    /// Updates the embedded object that property `property` of `(table, key)`
    /// links to from the unmanaged embedded object in `box`; `false` when
    /// there is nothing to update in place (no embedded object on either
    /// side, or a managed one given), and the caller sets the link.
    func updateEmbeddedInPlace(_ box: AnyUnmanagedBox?, table: TableKey, key: ObjectKey, property: Int) -> Bool {
        guard let tx = transaction, let object = ValueCoercion.unwrap(box?.anyValue) as? Object, object.ref == nil,
            let old = tx.embeddedLink(tx.working.value(table, key, property)), tableKey(for: type(of: object)) == old.table
        else { return false }
        add(object, update: .modified, into: old.key)
        return true
    }

    /// Updates a `List` of embedded objects in place, element by element:
    /// the first elements update the existing ones at their positions, more
    /// elements are appended, and fewer remove (and delete) the extra ones.
    /// `false` when the property is not a list of embedded objects or an
    /// element given is not an unmanaged object.
    func updateEmbeddedListInPlace(_ box: AnyUnmanagedBox?, table: TableKey, key: ObjectKey, property: Int) throws(ShoalError) -> Bool {
        let p = schema[table].properties[property]
        guard let tx = transaction, p.collection == .list, p.type == .object, let target = p.objectClassName,
            schema[target]?.isEmbedded == true, let elements = (box?.anyValue as? any AnyElements)?.anyElements
        else { return false }
        let objects = elements.compactMap { ValueCoercion.unwrap($0) as? Object }
        guard objects.count == elements.count, objects.allSatisfy({ $0.ref == nil }) else { return false }
        let existing = tx.working.list(table, key, property)
        for (index, object) in objects.enumerated() {
            if index < existing.count, let old = existing[index].linkValue {
                add(object, update: .modified, into: old.key)
            } else {
                try tx.listInsert(table, key, property, .link(add(object, update: .error)), at: index)
            }
        }
        for index in (objects.count..<existing.count).reversed() { try tx.listRemove(table, key, property, at: index) }
        return true
    }
}
