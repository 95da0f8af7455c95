public import OpenCombine
public import Shoal

/// `freeze()` and `threadSafeReference()`: passing Realm values between
/// queues in a pipeline.
extension Publisher {
    /// Freezes every object or collection the upstream emits: frozen values
    /// do not change and may be sent to any queue, even a concurrent one.
    ///
    /// ```swift
    /// let cancellable = dogs.collectionPublisher
    ///     .freeze()
    ///     .receive(on: DispatchQueue.global().ocombine)
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { frozenDogs in print(frozenDogs.count) })
    /// ```
    public func freeze<T>() -> Publishers.Map<Self, T> where Output: RealmSubscribable, T == Output {
        map { $0.freeze() }
    }

    /// Freezes the object or projection of every object changeset the
    /// upstream emits; the frozen value always matches the property changes.
    public func freeze<T: RealmSubscribable>() -> Publishers.Map<Self, ObjectChange<T>> where Output == ObjectChange<T> {
        map { change in
            if case .change(let object, let properties) = change { return .change(object.freeze(), properties) }
            return change
        }
    }

    /// Freezes the collection of every collection changeset the upstream
    /// emits; the frozen collection always matches the indices.
    public func freeze<T: RealmCollection>() -> Publishers.Map<Self, RealmCollectionChange<T>>
    where Output == RealmCollectionChange<T> {
        map { change in
            switch change {
            case .initial(let collection): .initial(collection.freeze())
            case .update(let collection, let deletions, let insertions, let modifications):
                .update(collection.freeze(), deletions: deletions, insertions: insertions, modifications: modifications)
            case .error: change
            }
        }
    }

    /// Freezes the map of every map changeset the upstream emits.
    public func freeze<Key, Value>() -> Publishers.Map<Self, RealmMapChange<Map<Key, Value>>>
    where Output == RealmMapChange<Map<Key, Value>> {
        map { change in
            switch change {
            case .initial(let map): .initial(map.freeze())
            case .update(let map, let deletions, let insertions, let modifications):
                .update(map.freeze(), deletions: deletions, insertions: insertions, modifications: modifications)
            case .error: change
            }
        }
    }

    /// Enables `receive(on:)` for object and projection changesets after
    /// other operators: the object or projection is handed over to the
    /// receiving queue's Realm.
    public func threadSafeReference<T: RealmSubscribable>() -> RealmPublishers.MakeThreadSafeObjectChangeset<Self, T>
    where Output == ObjectChange<T> {
        RealmPublishers.MakeThreadSafeObjectChangeset(self)
    }

    /// Enables `receive(on:)` for collection changesets after other
    /// operators: the collection is handed over to the receiving queue's Realm.
    public func threadSafeReference<T: RealmCollection & RealmSubscribable>()
        -> RealmPublishers.MakeThreadSafeCollectionChangeset<Self, T> where Output == RealmCollectionChange<T>
    {
        RealmPublishers.MakeThreadSafeCollectionChangeset(self)
    }

    /// Enables `receive(on:)` for map changesets after other operators: the
    /// map is handed over to the receiving queue's Realm.
    public func threadSafeReference<Key, Value>() -> RealmPublishers.MakeThreadSafeKeyedCollectionChangeset<Self, Key, Value>
    where Output == RealmMapChange<Map<Key, Value>> {
        RealmPublishers.MakeThreadSafeKeyedCollectionChangeset(self)
    }
}

extension Publisher where Output: RealmSubscribable {
    /// Enables `receive(on:)` for a stream of live objects or collections
    /// after other operators: each is handed over to the receiving queue's
    /// Realm (live there). Only serial queues are supported.
    ///
    /// ```swift
    /// let cancellable = valuePublisher(dog)
    ///     .subscribe(on: DispatchQueue(label: "background"))
    ///     .map { $0 }
    ///     .threadSafeReference()
    ///     .receive(on: DispatchQueue.main.ocombine)
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { dog in print(dog.name) })
    /// ```
    ///
    /// Frozen and unmanaged values need no handover; calling it for them is
    /// allowed.
    public func threadSafeReference() -> RealmPublishers.MakeThreadSafe<Self> {
        RealmPublishers.MakeThreadSafe(self)
    }
}
