/// Ownership of embedded objects (classes with ``ObjectSchema/isEmbedded``):
/// an embedded object has exactly one owner, and is deleted with it and
/// when the owner stops pointing at it.
///
/// The transaction records each cascaded deletion as ops of its own (a
/// `delete` per embedded object, after the change that orphaned it), so the
/// change record stays the one description of the write: replay, the log and
/// the dependency tracker see the deletions without deriving them.
extension WriteTransaction {
    /// Where an embedded object is being linked from: names the container in
    /// Realm's message when the object already has an owner.
    enum EmbeddedLinkSite {
        case link, list, map

        var message: String {
            switch self {
            case .link: "Can't set link to existing managed embedded object"
            case .list: "Cannot add an existing managed embedded object to a List."
            // realm-core's wording for a Dictionary (Realm's MapTests).
            case .map: "Cannot add an existing managed embedded object to a Dictionary."
            }
        }
    }

    /// The link in `value` when it points at an object of an embedded class.
    func embeddedLink(_ value: Value) -> Link? {
        guard let link = value.linkValue, working.schema[link.table].isEmbedded else { return nil }
        return link
    }

    /// Throws Realm's error when `value` links to an embedded object that
    /// already has an owner (Realm's testSetEmbeddedLink, ListTests'
    /// testAppendEmbedded, MapTests' testSetEmbedded).
    func checkUnowned(_ value: Value, at site: EmbeddedLinkSite) throws(ShoalError) {
        guard let link = embeddedLink(value), working.isAlive(link.table, link.key),
            !working.tables[link.table.index].backlinks[link.key.slot].isEmpty
        else { return }
        let className = working.schema[link.table].className
        throw ShoalError(.invalidValue, site.message, context: ["class": className, "key": "\(link.key.rawValue)"])
    }

    /// Throws when `value`, for property `p` of table `t`, puts an embedded
    /// object into an `AnyRealmValue` (mixed) property or collection, which
    /// Realm does not allow: an embedded object's owner is a link, a `List`
    /// or a `Map` of its class.
    func checkNotMixed(_ t: TableKey, _ p: Int, _ value: Value) throws(ShoalError) {
        let schema = working.schema[t]
        if value.isCollection {
            // Only a mixed property's own value may be a collection; a
            // collection property's elements may not.
            guard schema.properties[p].collection == .none else {
                throw ShoalError(.unsupported,
                    "Nested collections are only supported in AnyRealmValue properties, not in the elements of '\(schema.className).\(schema.properties[p].name)'.",
                    context: ["class": schema.className, "property": schema.properties[p].name])
            }
            for element in value.nestedElements { try checkNotMixed(t, p, element) }
            return
        }
        guard let link = embeddedLink(value), schema.properties[p].type == .any else { return }
        throw ShoalError(.invalidValue,
            "An AnyRealmValue cannot hold an embedded object ('\(working.schema[link.table].className)' in '\(schema.className).\(schema.properties[p].name)').",
            context: ["class": schema.className, "property": schema.properties[p].name])
    }

    /// Deletes the embedded object `value` links to, if any and still alive:
    /// its owner no longer points at it.
    func deleteOrphan(_ value: Value) throws(ShoalError) {
        guard let link = embeddedLink(value), working.isAlive(link.table, link.key),
            working.tables[link.table.index].backlinks[link.key.slot].isEmpty
        else { return }
        try delete(link.table, link.key)
    }

    /// The embedded objects object `k` of table `t` owns: the targets of its
    /// links, lists and maps of embedded classes.
    func embeddedChildren(_ t: TableKey, _ k: ObjectKey) -> [Link] {
        let schema = working.schema[t]
        var children: [Link] = []
        for (p, property) in schema.properties.prefix(schema.storedCount).enumerated() where property.type == .object {
            guard let target = property.objectClassName, working.schema[target]?.isEmbedded == true else { continue }
            let values = property.collection == .none ? [working.value(t, k, p)] : working.collectionElements(t, k, p)
            children += values.compactMap(\.linkValue)
        }
        return children
    }
}
