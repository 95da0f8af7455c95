/// The base class of model classes whose objects live inside a parent object.
///
/// An embedded object is owned by exactly one parent, through a link, a
/// `List` or a `Map` value of the parent (which may itself be embedded). It
/// has no primary key and is never queried on its own: `realm.objects` and
/// `realm.add` do not take an embedded class, as in Realm. It is reached,
/// queried and sorted through its parent's key paths.
///
/// ```swift
/// final class Address: EmbeddedObject {
///     @Persisted var street = ""
///     @Persisted var city = ""
/// }
/// final class Contact: Object {
///     @Persisted(primaryKey: true) var id = 0
///     @Persisted var home: Address?
///     @Persisted var others: List<Address>
/// }
///
/// try realm.write {
///     let ann = realm.create(Contact.self, value: ["id": 1, "home": ["city": "Oslo"]])
///     ann.others.append(Address(value: ["city": "Bergen"]))   // added with its parent
/// }
/// let osloContacts = realm.objects(Contact.self).where { $0.home.city == "Oslo" }
/// ```
///
/// Ownership, as in Realm:
/// - An unmanaged embedded object becomes managed when it is assigned to a
///   managed parent's property or appended to a managed parent's `List` or
///   `Map`, or when its unmanaged parent is added.
/// - `create(_:value:update:)` copies embedded values, whether given as
///   dictionaries, arrays, unmanaged objects or managed ones.
/// - Linking a managed embedded object to a second parent stops with
///   Realm's message ("Can't set link to existing managed embedded object";
///   for a `List` or `Map`, "Cannot add an existing managed embedded object
///   to a List." or "… to a Dictionary.").
/// - An embedded object is deleted with its parent, and when its parent
///   stops pointing at it (the link is set to another object or `nil`, or it
///   is removed from its `List` or `Map`). Each such deletion is a delete of
///   its own in the transaction's change record, so the log, replay and
///   notifications see it like any other.
/// - `realm.delete(_:)` of an embedded object deletes it and clears its
///   parent's link to it.
/// - `add(_:update:)` of an owner over an existing one updates its embedded
///   objects in place with `.modified` (the objects given become the
///   existing ones) and replaces them with `.all`.
///
/// Schema rules, with realm-core's messages: no primary key; no
/// `MutableSet` of embedded objects; no cycle of links through embedded
/// classes only. An ``AnyRealmValue`` cannot hold an embedded object.
///
/// - Note: Differs from Realm: `EmbeddedObject` is a subclass of ``Object``
///   (in Realm both derive from a private base class), so generic code over
///   `Object` accepts it. Where Realm's compiler refuses `realm.add`,
///   `realm.create` and `realm.objects` of an embedded class, Shoal's does
///   too for the statically typed calls, and stops at run time with Realm's
///   "Embedded objects cannot be created directly" for calls through `Object`.
open class EmbeddedObject: Object {
    /// Creates an unmanaged embedded object with default values.
    public override init() { super.init() }
}

extension Realm {
    /// Refused: an embedded object is added through its parent.
    @available(*, unavailable, message: "Embedded objects cannot be added directly; assign them to a parent object's property or List")
    public func add(_ object: EmbeddedObject, update: UpdatePolicy = .error) {
        instance.add(object, update: update)
    }

    /// Refused: an embedded object is created through its parent.
    @available(*, unavailable, message: "Embedded objects cannot be created directly; create the parent with a nested value")
    public func create<T: EmbeddedObject>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) -> T {
        fatalError()
    }

    /// Refused: embedded objects are queried through their parents' key paths.
    @available(*, unavailable, message: "Embedded objects cannot be queried directly; query their parents through a key path")
    public func objects<Element: EmbeddedObject>(_ type: Element.Type) -> Results<Element> {
        fatalError()
    }
}

extension RealmInstance {
    /// Stops with Realm's message when `table` is an embedded class: what
    /// `add`, `create` and `objects` check for calls that the unavailable
    /// overloads do not catch (through `Object.Type` or a class name).
    func refuseEmbedded(_ table: TableKey, _ action: String) {
        let schema = self.schema[table]
        guard schema.isEmbedded else { return }
        shoalPrecondition(ShoalError(.unsupported,
            action == "query"
                ? "Embedded objects cannot be queried directly: query '\(schema.className)' through its parent's key paths."
                : "Embedded objects cannot be created directly ('\(schema.className)'): assign it to a parent object's property, List or Map.",
            context: ["class": schema.className]))
    }
}
