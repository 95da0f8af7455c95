import OrderedCollections

/// The values of a ``Map`` as a Realm collection, in entry order: what the
/// map's queries, sorts, aggregates and key-value collection operators run
/// on, through the one implementation every collection kind shares.
///
/// A map of objects may hold `nil` values. They are elements here (so
/// `@count` counts every entry, as in Realm) and aggregates ignore them;
/// queries and sorts skip them (see ``ResultsSource``), as Realm's do.
struct MapValues<Key: MapKey, Element: RealmCollectionValue>: RealmCollectionImpl, @unchecked Sendable {
    typealias Index = Int
    typealias Iterator = RealmCollectionIterator<Element>
    typealias SubSequence = Slice<Self>
    typealias Indices = Range<Int>

    // Safe because: the map checks its Realm's thread on every managed read;
    // a frozen map reads an immutable snapshot.
    let map: Map<Key, Element>

    var managedInstance: RealmInstance? { map.slot?.ref.realm }
    var unmanagedElements: [Element] { map.unmanaged.map(\.value) }
    var kindName: String { "Map" }
    var resultsBase: (instance: RealmInstance, table: TableKey, source: ResultsSource)? { map.isNested ? nil : map.slot?.resultsBase }
    func storedElements() -> [Value] { Array(map.storedEntries().values) }

    var isInvalidated: Bool { map.isInvalidated }
    func freeze() -> MapValues { MapValues(map: map.freeze()) }
    func thaw() -> MapValues? { map.thaw().map { MapValues(map: $0) } }
    func rebinding(to instance: RealmInstance) -> MapValues { MapValues(map: map.rebinding(to: instance)) }
}

extension Map {
    /// The map's values as a collection, for the shared query, aggregate and
    /// key-value implementation.
    var valueCollection: MapValues<Key, Value> { MapValues(map: self) }
}
