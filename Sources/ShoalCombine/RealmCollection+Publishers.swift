public import OpenCombine
public import Shoal

/// Publishers on every collection kind: `Results`, `List`,
/// `MutableSet`, `LinkingObjects` and
/// `AnyRealmCollection`.
///
/// ```swift
/// let cancellable = dogs.changesetPublisher(keyPaths: ["name"])
///     .sink { change in
///         if case .update(_, let deletions, let insertions, let modifications) = change {
///             print(deletions, insertions, modifications)
///         }
///     }
/// ```
extension RealmCollection where Self: RealmSubscribable {
    /// A publisher that emits `Void` before each change of the collection
    /// becomes visible on this thread (see ``RealmPublishers/WillChange``).
    public var objectWillChange: RealmPublishers.WillChange<Self> {
        RealmPublishers.WillChange(self)
    }

    /// A publisher that emits the collection at first and after each change.
    public var collectionPublisher: RealmPublishers.Value<Self> {
        RealmPublishers.Value(self)
    }

    /// A publisher that emits the collection at first and after each change
    /// on the given key paths (insertions and deletions always count).
    public func collectionPublisher(keyPaths: [String]?) -> RealmPublishers.Value<Self> {
        RealmPublishers.Value(self, keyPaths: keyPaths)
    }

    /// A publisher that emits a `RealmCollectionChange` at first and
    /// after each change.
    public var changesetPublisher: RealmPublishers.CollectionChangeset<Self> {
        RealmPublishers.CollectionChangeset(self)
    }

    /// A publisher that emits a `RealmCollectionChange` at first and
    /// after each change on the given key paths.
    public func changesetPublisher(keyPaths: [String]?) -> RealmPublishers.CollectionChangeset<Self> {
        RealmPublishers.CollectionChangeset(self, keyPaths: keyPaths)
    }
}

/// Publishers on `Map`.
extension Map {
    /// A publisher that emits `Void` before each change of the map becomes
    /// visible on this thread (see ``RealmPublishers/WillChange``).
    public var objectWillChange: RealmPublishers.WillChange<Map> {
        RealmPublishers.WillChange(self)
    }

    /// A publisher that emits the map at first and after each change.
    public var collectionPublisher: RealmPublishers.Value<Map> {
        RealmPublishers.Value(self)
    }

    /// A publisher that emits the map at first and after each change on the
    /// given key paths of its object values.
    public func collectionPublisher(keyPaths: [String]?) -> RealmPublishers.Value<Map> {
        RealmPublishers.Value(self, keyPaths: keyPaths)
    }

    /// A publisher that emits a `RealmMapChange` at first and after
    /// each change.
    public var changesetPublisher: RealmPublishers.MapChangeset<Key, Value> {
        RealmPublishers.MapChangeset(self)
    }

    /// A publisher that emits a `RealmMapChange` at first and after
    /// each change on the given key paths of its object values.
    public func changesetPublisher(keyPaths: [String]?) -> RealmPublishers.MapChangeset<Key, Value> {
        RealmPublishers.MapChangeset(self, keyPaths: keyPaths)
    }
}

extension Object: ObservableObject {
    /// A publisher that emits `Void` before each change of the object
    /// (including its deletion) becomes visible on this thread (see
    /// ``RealmPublishers/WillChange``).
    public var objectWillChange: RealmPublishers.WillChange<Object> {
        RealmPublishers.WillChange(self)
    }
}

extension Realm {
    /// A publisher that emits `Void` each time this Realm moves to a new
    /// version (after the change, as Realm's does).
    public var objectWillChange: RealmPublishers.RealmWillChange {
        RealmPublishers.RealmWillChange(self)
    }
}

/// A publisher that emits a managed object each time it changes, and
/// finishes when it is deleted.
///
/// ```swift
/// let cancellable = valuePublisher(dog, keyPaths: ["name"])
///     .sink(receiveCompletion: { _ in print("deleted") }, receiveValue: { dog in print(dog.name) })
/// ```
///
/// - Parameters:
///   - object: a managed, valid object.
///   - keyPaths: the properties whose changes count; `nil` for all.
public func valuePublisher<T: Object>(_ object: T, keyPaths: [String]? = nil) -> RealmPublishers.Value<T> {
    RealmPublishers.Value(object, keyPaths: keyPaths)
}

/// A publisher that emits a managed collection at first and after each
/// change (on the given key paths, if any).
public func valuePublisher<T: RealmCollection & RealmSubscribable>(_ collection: T, keyPaths: [String]? = nil)
    -> RealmPublishers.Value<T>
{
    RealmPublishers.Value(collection, keyPaths: keyPaths)
}

/// A publisher that emits an `ObjectChange` each time a managed
/// object changes, and finishes when it is deleted.
///
/// ```swift
/// let cancellable = changesetPublisher(dog).sink { change in
///     if case .change(_, let properties) = change { print(properties.map(\.name)) }
/// }
/// ```
public func changesetPublisher<T: Object>(_ object: T, keyPaths: [String]? = nil) -> RealmPublishers.ObjectChangeset<T> {
    RealmPublishers.ObjectChangeset(object) { queue, deliver in object.observe(keyPaths: keyPaths, on: queue, deliver) }
}

/// A publisher that emits a `RealmCollectionChange` at first and
/// after each change of a managed collection.
public func changesetPublisher<T: RealmCollection & RealmSubscribable>(_ collection: T, keyPaths: [String]? = nil)
    -> RealmPublishers.CollectionChangeset<T>
{
    RealmPublishers.CollectionChangeset(collection, keyPaths: keyPaths)
}
