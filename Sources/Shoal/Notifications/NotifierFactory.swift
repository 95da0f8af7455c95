/// Chooses and builds the notifier for an observed source.
enum NotifierFactory {
    /// The notifier for a collection: positional ops for a list or set
    /// property itself, a map notifier for a map, incremental maintenance
    /// for queries over a table, re-evaluation for anything else.
    static func collection(table: TableKey, source: ResultsSource, snapshot: Snapshot, filter: ModificationFilter) -> Notifier {
        if case .collection(let owner, let property) = source {
            let p = snapshot.schema[owner.table].properties[property]
            if p.collection == .list || p.collection == .set {
                return CollectionNotifier(owner: owner, property: property, snapshot: snapshot, filter: filter)
            }
        }
        if ResultsNotifier.supports(source) {
            return ResultsNotifier(table: table, source: source, snapshot: snapshot, filter: filter)
        }
        return RecomputingNotifier(table: table, source: source, snapshot: snapshot, filter: filter)
    }

    /// The filter for key-path strings on elements of `table` (`nil` for
    /// values): `nil` or empty means unfiltered, which is `unfiltered`.
    static func filter(_ keyPaths: [String]?, table: TableKey?, schema: Schema, unfiltered: ModificationFilter)
        throws(ShoalError) -> ModificationFilter
    {
        guard let keyPaths, !keyPaths.isEmpty, let table else { return unfiltered }
        return .paths(try DependencyCompiler.resolve(keyPaths, root: table, schema: schema))
    }
}
