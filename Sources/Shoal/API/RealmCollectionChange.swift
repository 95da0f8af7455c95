/// What a collection observer is told: the collection once at first, then
/// what changed in it.
///
/// ```swift
/// let token = dogs.observe { change in
///     switch change {
///     case .initial(let dogs):
///         tableView.reloadData()
///     case .update(_, let deletions, let insertions, let modifications):
///         tableView.performBatchUpdates {
///             tableView.deleteRows(at: deletions.map { IndexPath(row: $0, section: 0) }, with: .automatic)
///             tableView.insertRows(at: insertions.map { IndexPath(row: $0, section: 0) }, with: .automatic)
///             tableView.reloadRows(at: modifications.map { IndexPath(row: $0, section: 0) }, with: .automatic)
///         }
///     case .error(let error):
///         print(error)
///     }
/// }
/// ```
///
/// Index spaces follow UITableView's batch updates, as Realm's do:
/// `deletions` and `modifications` are indices in the collection as last
/// delivered, `insertions` in the new one; every array is ascending. An
/// element that moved is a deletion plus an insertion (never also a
/// modification). ``CollectionChangeSet``, through
/// `observeDetailed(keyPaths:on:_:)`, adds moves and the modifications' new
/// indices.
public enum RealmCollectionChange<CollectionType> {
    /// The first callback: the collection as it is when observation starts.
    case initial(CollectionType)
    /// What one or more commits changed since the last callback.
    case update(CollectionType, deletions: [Int], insertions: [Int], modifications: [Int])
    /// Observation could not start: its only callback (an invalid key path).
    case error(any Error)
}

/// A changeset with moves and modifications in both index spaces: for UIs
/// that animate moves. Shoal's addition to Realm's API.
///
/// ```swift
/// let token = dogs.observeDetailed { change in
///     guard case .update(_, let changes) = change else { return }
///     for move in changes.moves { tableView.moveRow(at: [0, move.from], to: [0, move.to]) }
/// })
/// ```
public struct CollectionChangeSet: Sendable, Equatable {
    /// An element that changed position: `from` (old index) is also in
    /// ``deletions`` and `to` (new index) in ``insertions``.
    public struct Move: Sendable, Equatable, Hashable {
        /// The index in the old collection.
        public var from: Int
        /// The index in the new collection.
        public var to: Int
    }
    /// Indices in the old collection of elements removed (or moved away).
    public var deletions: [Int]
    /// Indices in the new collection of elements added (or moved there).
    public var insertions: [Int]
    /// Indices in the old collection of elements modified in place.
    public var modifications: [Int]
    /// The same modified elements' indices in the new collection.
    public var modificationsNew: [Int]
    /// The elements that moved; each is also a deletion plus an insertion.
    public var moves: [Move]

    init(_ changes: IndexChanges) {
        deletions = changes.deletions
        insertions = changes.insertions
        modifications = changes.modifications
        modificationsNew = changes.modificationsNew
        moves = changes.moves.map { Move(from: $0.from, to: $0.to) }
    }
}

/// What a detailed collection observer is told (see ``CollectionChangeSet``).
public enum DetailedCollectionChange<CollectionType> {
    /// The first callback: the collection as it is when observation starts.
    case initial(CollectionType)
    /// What one or more commits changed since the last callback.
    case update(CollectionType, CollectionChangeSet)
    /// Observation could not start: its only callback.
    case error(any Error)
}

/// What a ``Map`` observer is told: keys, not indices.
///
/// - Note: Differs from Realm: the order of keys in each array is
///   unspecified (Shoal sorts them); compare them as sets.
public enum RealmMapChange<Collection: RealmKeyedCollection> {
    /// The first callback: the map as it is when observation starts.
    case initial(Collection)
    /// The keys removed, added and whose values changed since the last callback.
    case update(Collection, deletions: [Collection.Key], insertions: [Collection.Key], modifications: [Collection.Key])
    /// Observation could not start: its only callback.
    case error(any Error)
}

/// A keyed Realm collection: ``Map``.
public protocol RealmKeyedCollection {
    /// The key type.
    associatedtype Key: MapKey
    /// The value type.
    associatedtype Value: RealmCollectionValue
}

extension Map: RealmKeyedCollection {}

/// What an object observer is told.
///
/// ```swift
/// let token = dog.observe { (change: ObjectChange<Dog>) in
///     switch change {
///     case .change(let dog, let properties):
///         for p in properties { print("\(p.name): \(p.oldValue ?? "nil") -> \(p.newValue ?? "nil")") }
///     case .deleted: print("gone")
///     case .error(let error): print(error)
///     }
/// }
/// ```
public enum ObjectChange<T> {
    /// Observation could not start: its only callback.
    case error(any Error)
    /// Properties of the object changed.
    case change(T, [PropertyChange])
    /// The object was deleted; no further callbacks follow.
    case deleted
}

/// One changed property of an observed object.
///
/// - Note: Differs from Realm: `oldValue` is always the value as last
///   delivered (Realm gives `nil` for changes made on the observing
///   thread); it is `nil` only for collection properties, as in Realm.
public struct PropertyChange: @unchecked Sendable {
    // Safe because: the values are the immutable boxes of stored values, or
    // objects confined like the observed one.
    /// The property's name (the first property of a key path that changed).
    public let name: String
    /// The value as last delivered; `nil` for collection properties.
    public let oldValue: Any?
    /// The value now; `nil` for collection properties.
    public let newValue: Any?
}
