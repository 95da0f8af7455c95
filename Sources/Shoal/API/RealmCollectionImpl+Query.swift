/// Filtering, sorting and distinct, once for every collection kind: each
/// returns a ``Results`` whose source adds to the collection's own. As in
/// Realm, they need a managed collection and stop on an unmanaged one.
extension RealmCollection {
    /// The base a query starts from; stops for unmanaged collections with
    /// Realm's message ("This method may only be called on RLMArray
    /// instances retrieved from an RLMRealm").
    func queryBase() -> (instance: RealmInstance, table: TableKey, source: ResultsSource) {
        guard let base = resultsBase else {
            if managedInstance != nil { shoalPrecondition(nestedCollectionUnsupported("Queries")) }
            shoalPrecondition(ShoalError(.unsupported, unmanagedMessage(kindName), context: ["collection": kindName]))
        }
        base.instance.verifyThread()
        return base
    }

    /// What the elements are, for binding predicates and key paths.
    func queryRoot() -> QueryBinder.Root {
        Self.binding(queryBase()).root
    }

    /// The schema of the store `base` reads and what its elements are:
    /// what a predicate is bound against.
    private static func binding(_ base: (instance: RealmInstance, table: TableKey, source: ResultsSource))
        -> (schema: Schema, root: QueryBinder.Root)
    {
        let schema = base.instance.schema
        return (schema, base.source.root(table: base.table, schema: schema))
    }

    /// The elements of `base` that match `bound`.
    private static func results(_ base: (instance: RealmInstance, table: TableKey, source: ResultsSource), matching bound: BoundPredicate)
        -> Results<Element>
    {
        Results(instance: base.instance, table: base.table, source: base.source.filtered(bound))
    }

    /// The collection filtered by a predicate tree, or the binding error.
    /// With the `arguments` `format` was parsed with, the binding is kept
    /// for the next run of the format (see ``BoundTemplate``).
    func filtered(_ tree: PredicateTree, format: String? = nil, arguments: [Any]? = nil) throws(ShoalError) -> Results<Element> {
        let base = queryBase()
        let (schema, root) = Self.binding(base)
        var binder = try QueryBinder(schema: schema, root: root, tree: tree, format: format)
        let bound = try binder.bind(tree)
        if let format, let arguments {
            PredicateTemplates.shared.storeBound(format, arguments, schema: schema, root: root, bound: bound,
                conversions: binder.conversions)
        }
        return Self.results(base, matching: bound)
    }

    func ordered(_ step: OrderingStep) -> Results<Element> {
        let base = queryBase()
        return Results(instance: base.instance, table: base.table, source: base.source.ordered(step))
    }

    /// The elements matching a predicate format string.
    ///
    /// ```swift
    /// let puppies = realm.objects(Dog.self).filter("age < %@ AND owner.name BEGINSWITH[c] %@", 2, "a")
    /// ```
    ///
    /// Filtering ANDs the predicate into the query: sort and distinct
    /// already applied are kept. Stops, as Realm does, with a message naming
    /// the problem and its position when the predicate does not parse, names
    /// an unknown property, or compares values of the wrong type; use
    /// ``PredicateFormat`` to get those as errors.
    ///
    /// Queries, sorts and distinct need a managed collection: on an
    /// unmanaged `List` or `MutableSet` they stop with Realm's "This method
    /// may only be called on RLMArray instances retrieved from an RLMRealm"
    /// (`RLMSet` for a set). Aggregates work on unmanaged
    /// collections too.
    ///
    /// A format run again with arguments of the same types (as in a loop)
    /// is prepared, as a SQL statement is: it is neither parsed nor bound
    /// again, and its first binding takes the new values.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        // Prepared, with the checks in the full path's order: a kept
        // template means the format parses with these arguments, so the
        // collection's own checks (a deleted owner, the thread) come next,
        // as after a parse; a kept binding means binding succeeds. An
        // unmanaged collection takes the full path, which stops after a
        // parse error, as before.
        if let (template, values) = PredicateTemplates.shared.template(predicateFormat, args), !template.bindings.isEmpty,
            let base = resultsBase
        {
            base.instance.verifyThread()
            let (schema, root) = Self.binding(base)
            if let bound = PredicateTemplates.bound(template, values, schema: schema, root: root) {
                return Self.results(base, matching: bound)
            }
        }
        do {
            let predicate = try PredicateFormat(predicateFormat, argumentArray: args)
            return try filtered(predicate.tree, format: predicate.format, arguments: args)
        } catch { shoalPrecondition(error) }
    }

    /// The elements matching a parsed predicate.
    ///
    /// ```swift
    /// let predicate = try PredicateFormat("name IN %@", ["Rex", "Fido"])
    /// let named = realm.objects(Dog.self).filter(predicate)
    /// ```
    ///
    /// Stops when the predicate does not fit the element class; check with
    /// ``PredicateFormat/validate(for:)`` first to get that as an error.
    public func filter(_ predicate: PredicateFormat) -> Results<Element> {
        do { return try filtered(predicate.tree, format: predicate.format) } catch { shoalPrecondition(error) }
    }

    /// The elements matching a typed query.
    ///
    /// ```swift
    /// let dogs = realm.objects(Dog.self).where { $0.age > 3 && $0.name.starts(with: "R") }
    /// ```
    ///
    /// Stops, as Realm does, with a message naming the problem when the
    /// query names an unknown property, compares values of the wrong type,
    /// or nests deeper than a format string may (100 levels of `!` and of
    /// `||` inside `&&`; see ``Query``).
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        do { return try filtered(try isIncluded(Query<Element>()).predicateTree()) } catch { shoalPrecondition(error) }
    }

    /// The elements sorted by a key path (to-one links, then a value).
    ///
    /// ```swift
    /// let byOwner = realm.objects(Dog.self).sorted(byKeyPath: "owner.name")
    /// ```
    ///
    /// The new sort is primary; an earlier sort breaks its ties, then
    /// collection order. Stops with Realm's message for a key path that
    /// cannot be sorted on.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// The elements sorted by several key paths, the first one primary.
    ///
    /// ```swift
    /// let dogs = realm.objects(Dog.self).sorted(by: [SortDescriptor(keyPath: "age", ascending: false), "name"])
    /// ```
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        let root = queryRoot()
        let schema = queryBase().instance.schema
        do {
            var keys: [SortKey] = []
            for descriptor in sortDescriptors {
                let path = try OrderingStep.resolve(descriptor.keyPath, root: root, schema: schema, verb: "sort")
                keys.append(SortKey(path: path, ascending: descriptor.ascending))
            }
            return ordered(.sort(keys))
        } catch { shoalPrecondition(error) }
    }

    /// The elements (values) sorted by themselves.
    ///
    /// ```swift
    /// let scores = person.luckyNumbers.sorted(ascending: false)
    /// ```
    public func sorted(ascending: Bool = true) -> Results<Element> {
        sorted(byKeyPath: "self", ascending: ascending)
    }

    /// The first element for each distinct combination of values at the key paths.
    ///
    /// ```swift
    /// let oneDogPerAge = realm.objects(Dog.self).distinct(by: ["age"])
    /// ```
    ///
    /// Keeps the first element of each group in the current order; drops
    /// elements with a null link along a key path.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        let root = queryRoot()
        let schema = queryBase().instance.schema
        do {
            var paths: [SortPath] = []
            for keyPath in keyPaths { paths.append(try OrderingStep.resolve(keyPath, root: root, schema: schema, verb: "distinct")) }
            return ordered(.distinct(paths))
        } catch { shoalPrecondition(error) }
    }

    /// A description of how the collection is evaluated: whether an index
    /// is used, what is scanned and tested, and the sort and distinct steps.
    ///
    /// Not part of Realm's API: a Shoal addition for checking that a query
    /// uses the index you expect. The text is for people, not for parsing.
    ///
    /// ```swift
    /// print(realm.objects(Dog.self).filter("id BETWEEN {100, 199}").explain())
    /// // ordered index range on Dog where id BETWEEN {100, 199} (100 candidates); then test …
    /// ```
    public func explain() -> String {
        let base = queryBase()
        return base.source.explain(table: base.table, snapshot: base.instance.current)
    }

    /// The elements sorted by a property key path.
    ///
    /// ```swift
    /// let byAge = realm.objects(Dog.self).sorted(by: \.age, ascending: false)
    /// ```
    public func sorted<V>(by keyPath: KeyPath<Element, V>, ascending: Bool = true) -> Results<Element> where Element: Object {
        sorted(byKeyPath: KeyPathTracer.name(of: keyPath), ascending: ascending)
    }

    /// The first element for each distinct combination of values at the key paths.
    ///
    /// ```swift
    /// let dogs = realm.objects(Dog.self).distinct(by: [\Dog.age, \Dog.owner?.name])
    /// ```
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element>
    where Element: Object, S.Element == PartialKeyPath<Element> {
        distinct(by: keyPaths.map { KeyPathTracer.name(of: $0) })
    }
}
