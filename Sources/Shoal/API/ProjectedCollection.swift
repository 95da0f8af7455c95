public import Foundation

/// A `List` or `MutableSet` of objects seen as the values of one key path of
/// its elements: what a `@Projected` property declared with `projectTo`
/// gives.
///
/// ```swift
/// final class PersonProjection: Projection<Person> {
///     @Projected(\Person.dogs.projectTo.name) var dogNames: ProjectedCollection<String>
/// }
/// projection.dogNames.first          // the first dog's name
/// try realm.write { projection.dogNames[0] = "Rex" }   // renames the first dog
/// ```
///
/// It is live: it reads the collection it maps on every access. Its
/// elements are in the order of the collection (for a set, the set's
/// order), and may repeat.
public struct ProjectedCollection<Element>: RandomAccessCollection, CustomStringConvertible, ThreadConfined
where Element: RealmCollectionValue {
    /// A position: an offset from 0.
    public typealias Index = Int

    let source: ProjectedSource<Element>

    init(_ source: ProjectedSource<Element>) { self.source = source }

    /// The value at `position` (get), or writes it to the element at
    /// `position` (set, inside a write transaction; stops with
    /// `invalidKeyPath` when the key path cannot be set).
    public subscript(position: Int) -> Element {
        get { source.value(at: position) }
        nonmutating set { source.setValue(newValue, at: position) }
    }

    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }
    /// The position after the last element: the number of objects mapped.
    public var endIndex: Int { source.count }
    /// The Realm managing the mapped collection, or `nil` when it is unmanaged.
    public var realm: Realm? { source.realm }
    /// Whether the mapped collection can no longer be used.
    public var isInvalidated: Bool { source.isInvalidated }
    /// Whether the mapped collection is pinned to one version.
    public var isFrozen: Bool { source.isFrozen }

    /// A frozen copy, pinned at the Realm's current version and usable from any thread.
    public func freeze() -> ProjectedCollection { ProjectedCollection(source.freeze()) }

    /// The live copy for the calling thread's Realm, or `nil` when the
    /// collection's owner was deleted since.
    public func thaw() -> ProjectedCollection? {
        guard let thawed = source.thaw() else { return nil }
        return ProjectedCollection(thawed)
    }

    /// The position of the first value equal to `object`, or `nil`.
    public func index(of object: Element) -> Int? {
        let wanted = object.toValue(nil)
        for position in 0..<source.count where source.value(at: position).toValue(nil) == wanted { return position }
        return nil
    }

    /// The position of the first object of the mapped collection that
    /// matches `predicate` (see `index(matching:)` of ``RealmCollection``), or `nil`.
    public func index(matching predicate: NSPredicate) -> Int? { source.index(matching: predicate) }

    /// The values in Realm's format:
    ///
    /// ```
    /// ProjectedCollection<String> {
    /// 	[0] Rex
    /// }
    /// ```
    public var description: String {
        enumerated().reduce("ProjectedCollection<\(Element.self)> {\n") { $0 + "\t[\($1.offset)] \($1.element)\n" } + "}"
    }

    /// Registers a block called with the changes of the mapped collection,
    /// reported as changes of the projected values (an `.initial` first).
    ///
    /// ```swift
    /// let token = projection.dogNames.observe { change in
    ///     if case .update(let names, _, let insertions, _) = change { print(names.count, insertions) }
    /// }
    /// ```
    ///
    /// `keyPaths` name properties of the elements (`["name"]`), as for the
    /// mapped collection's own `observe(keyPaths:on:_:)`.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
        _ block: @escaping (RealmCollectionChange<ProjectedCollection<Element>>) -> Void) -> NotificationToken
    {
        source.observe(keyPaths: keyPaths, on: queue) { change in
            switch change {
            case .initial(let collection): block(.initial(ProjectedCollection(collection)))
            case .update(let collection, let deletions, let insertions, let modifications):
                block(.update(ProjectedCollection(collection), deletions: deletions, insertions: insertions, modifications: modifications))
            case .error(let error): block(.error(error))
            }
        }
    }
}

/// What a projection's schema asks of a projected collection: the property
/// names of the elements its key path reads.
protocol ProjectedCollectionTraceable {
    var elementPropertyNames: [String] { get }
}

extension ProjectedCollection: ProjectedCollectionTraceable {
    var elementPropertyNames: [String] { source.elementPropertyNames }
}

extension ProjectedCollection: ThreadSafeResolvable {
    func threadSafeHandle() -> ThreadSafeHandle? { source.threadSafeHandle() }
}

/// The collection a ``ProjectedCollection`` maps, with its element type
/// erased; ``ProjectedElements`` is the one kind.
class ProjectedSource<Element: RealmCollectionValue> {
    var count: Int { fatalError("abstract") }
    var realm: Realm? { fatalError("abstract") }
    var isInvalidated: Bool { fatalError("abstract") }
    var isFrozen: Bool { fatalError("abstract") }
    var elementPropertyNames: [String] { fatalError("abstract") }
    func value(at position: Int) -> Element { fatalError("abstract") }
    func setValue(_ value: Element, at position: Int) { fatalError("abstract") }
    func freeze() -> ProjectedSource { fatalError("abstract") }
    func thaw() -> ProjectedSource? { fatalError("abstract") }
    func index(matching predicate: NSPredicate) -> Int? { fatalError("abstract") }
    func threadSafeHandle() -> ThreadSafeHandle? { fatalError("abstract") }
    func observe(keyPaths: [String]?, on queue: DispatchQueue?,
        _ block: @escaping (RealmCollectionChange<ProjectedSource>) -> Void) -> NotificationToken { fatalError("abstract") }
}

/// A collection of objects of class `O` mapped through a key path of `O`.
final class ProjectedElements<O: Object, Element: RealmCollectionValue>: ProjectedSource<Element> {
    let collection: AnyRealmCollection<O>
    let keyPath: KeyPath<O, Element>

    init(_ collection: AnyRealmCollection<O>, _ keyPath: KeyPath<O, Element>) {
        self.collection = collection
        self.keyPath = keyPath
    }

    override var count: Int { collection.count }
    override var realm: Realm? { collection.realm }
    override var isInvalidated: Bool { collection.isInvalidated }
    override var isFrozen: Bool { collection.isFrozen }
    override var elementPropertyNames: [String] { (try? KeyPathTracer.names(of: keyPath, on: O.self)) ?? [] }
    override func value(at position: Int) -> Element { collection[position][keyPath: keyPath] }

    override func setValue(_ value: Element, at position: Int) {
        guard let writable = keyPath as? ReferenceWritableKeyPath<O, Element> else {
            shoalPrecondition(ShoalError(.invalidKeyPath,
                "KeyPath is not writable: the elements of a ProjectedCollection<\(Element.self)> of '\(O.className())' cannot be set through it.",
                context: ["class": O.className()]))
        }
        collection[position][keyPath: writable] = value
    }

    override func freeze() -> ProjectedSource<Element> { ProjectedElements(collection.freeze(), keyPath) }
    override func thaw() -> ProjectedSource<Element>? { collection.thaw().map { ProjectedElements($0, keyPath) } }
    override func index(matching predicate: NSPredicate) -> Int? { collection.index(matching: predicate) }

    override func threadSafeHandle() -> ThreadSafeHandle? {
        guard let handle = collection.threadSafeHandle(), case .collection(let rebinder) = handle.target else { return nil }
        let keyPath = UncheckedKeyPath(keyPath)
        return ThreadSafeHandle(coordinator: handle.coordinator, version: handle.version, target: .collection(Rebinder { instance in
            (rebinder.rebind(instance) as? AnyRealmCollection<O>).map { ProjectedCollection(ProjectedElements($0, keyPath.keyPath)) }
        }))
    }

    override func observe(keyPaths: [String]?, on queue: DispatchQueue?,
        _ block: @escaping (RealmCollectionChange<ProjectedSource<Element>>) -> Void) -> NotificationToken
    {
        let keyPath = self.keyPath
        return collection.observe(keyPaths: keyPaths, on: queue) { change in
            switch change {
            case .initial(let collection): block(.initial(ProjectedElements(collection, keyPath)))
            case .update(let collection, let deletions, let insertions, let modifications):
                block(.update(ProjectedElements(collection, keyPath), deletions: deletions, insertions: insertions, modifications: modifications))
            case .error(let error): block(.error(error))
            }
        }
    }
}

/// A key path carried into a ``Rebinder``.
private struct UncheckedKeyPath<O, Element>: @unchecked Sendable {
    // Safe because: key paths are immutable values.
    let keyPath: KeyPath<O, Element>
    init(_ keyPath: KeyPath<O, Element>) { self.keyPath = keyPath }
}

/// Maps a `List` or `MutableSet` of objects to a ``ProjectedCollection`` of
/// one key path of its elements: `\Person.dogs.projectTo.name`.
@dynamicMemberLookup
public struct CollectionElementMapper<Element> where Element: ObjectBase & RealmCollectionValue {
    let collection: AnyRealmCollection<Element>

    /// The collection's elements seen as their values at `member`.
    public subscript<V: RealmCollectionValue>(dynamicMember member: KeyPath<Element, V>) -> ProjectedCollection<V> {
        ProjectedCollection(ProjectedElements(collection, member))
    }
}

extension List where Element: ObjectBase & RealmCollectionValue {
    /// The list seen through a key path of its elements, for a `@Projected`
    /// property: `@Projected(\Person.dogs.projectTo.name) var dogNames: ProjectedCollection<String>`.
    public var projectTo: CollectionElementMapper<Element> { CollectionElementMapper(collection: AnyRealmCollection(self)) }
}

extension MutableSet where Element: ObjectBase & RealmCollectionValue {
    /// The set seen through a key path of its elements, for a `@Projected`
    /// property (the values may repeat: it is not a set).
    public var projectTo: CollectionElementMapper<Element> { CollectionElementMapper(collection: AnyRealmCollection(self)) }
}
