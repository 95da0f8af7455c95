import Foundation

/// Predicates evaluated on unmanaged elements, for `index(matching:)` on an
/// unmanaged `List`, which Realm evaluates in memory (its unmanaged
/// `RLMArray` tests each element against the predicate). Lists of values
/// are copied into a managed scratch list and queried there; lists of
/// objects as follows.
///
/// Each element is copied, with the objects it links to, into a scratch
/// in-memory Realm of its classes, inside a write that is never committed,
/// and the predicate is evaluated on the copy right after it is written: the
/// same binder and evaluator as a managed query, so an unmanaged list answers
/// as the same list would once added. Elements are upserted, so elements
/// (or the objects they link to) sharing a primary key do not collide; each
/// is tested as it is when written.
enum InMemoryQuery {
    /// The scratch class holding an unmanaged list of values, so that the
    /// managed list's query answers for it.
    final class Values<Element: RealmCollectionValue>: Object {
        @Persisted var values: List<Element>
    }

    /// The first index in `values` matching the predicate (`self > 3`): the
    /// values are copied into a managed list of a scratch Realm, which is
    /// queried as any managed list.
    static func firstIndex<Element: RealmCollectionValue>(of values: [Element], _ tree: PredicateTree, format: String?) -> Int? {
        if values.isEmpty { return nil }
        do {
            var config = Realm.Configuration(inMemoryIdentifier: "shoal-in-memory-query-\(UUID().uuidString)")
            config.objectTypes = [Values<Element>.self]
            let scratch = try Realm(configuration: config)
            scratch.beginWrite()
            defer { scratch.cancelWrite() }
            let holder = scratch.create(Values<Element>.self)
            holder.values.append(objectsIn: values)
            return holder.values.firstIndex(tree, format: format)
        } catch { shoalPrecondition(error) }
    }

    static func firstIndex(of objects: [Object], type: Object.Type, _ tree: PredicateTree, format: String?) -> Int? {
        if objects.isEmpty { return nil }
        do {
            var config = Realm.Configuration(inMemoryIdentifier: "shoal-in-memory-query-\(UUID().uuidString)")
            config.objectTypes = ClassRegistry.reachableTypes(from: type)
            let scratch = try Realm(configuration: config)
            let instance = scratch.instance
            let table = instance.tableKey(for: type)
            let bound = try QueryBinder.bind(tree, schema: instance.schema, root: ResultsSource.table.root(table: table, schema: instance.schema), format: format)
            let compiled = CompiledPredicate(bound)
            scratch.beginWrite()
            defer { scratch.cancelWrite() }
            for (index, object) in objects.enumerated() {
                let link = try instance.create(table, value: object, update: .modified)
                if QueryEvaluator(snapshot: instance.current).matches(compiled, .link(link)) { return index }
            }
            return nil
        } catch { shoalPrecondition(error) }
    }
}
