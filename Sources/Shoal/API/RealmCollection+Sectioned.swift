/// Sectioning every collection kind: ``Results``, ``List``, ``MutableSet``,
/// ``LinkingObjects`` and ``AnyRealmCollection``.
extension RealmCollection {
    /// The objects sorted by a key path and grouped into sections by its value.
    ///
    /// ```swift
    /// class Dog: Object {
    ///     @Persisted var name: String
    ///     var firstLetter: String { name.first.map(String.init) ?? "" }
    /// }
    /// let sections = realm.objects(Dog.self).sectioned(by: \.firstLetter, ascending: true)
    /// ```
    ///
    /// The collection is sorted by the property the key path reads (for a
    /// computed property such as `firstLetter`, the persisted property it
    /// reads: `name`), and each object's key is the key path's value. Stops
    /// with Realm's message when the key is an object or a collection.
    public func sectioned<K: PersistableValue & Hashable>(by keyPath: KeyPath<Element, K>, ascending: Bool = true)
        -> SectionedResults<K, Element> where Element: Object
    {
        let name = KeyPathTracer.name(of: keyPath as PartialKeyPath<Element>)
        return makeSectioned(sortedBy: [SortDescriptor(keyPath: name, ascending: ascending)], keyPaths: [name]) { $0[keyPath: keyPath] }
    }

    /// The objects sorted by descriptors and grouped into sections by a key
    /// path's value; the key path must be the primary sort descriptor's.
    ///
    /// ```swift
    /// let sections = dogs.sectioned(by: \.age, sortDescriptors: [SortDescriptor(keyPath: "age"), SortDescriptor(keyPath: "name")])
    /// ```
    ///
    /// Stops with Realm's messages for an empty descriptor list, a key path
    /// that differs from the primary descriptor's, or an object or
    /// collection key.
    public func sectioned<K: PersistableValue & Hashable>(by keyPath: KeyPath<Element, K>, sortDescriptors: [SortDescriptor])
        -> SectionedResults<K, Element> where Element: Object
    {
        let name = KeyPathTracer.name(of: keyPath as PartialKeyPath<Element>)
        Self.checkSortDescriptors(sortDescriptors)
        guard sortDescriptors[0].keyPath == name else {
            shoalPrecondition(ShoalError(.invalidKeyPath, "The section key path must match the primary sort descriptor.",
                context: ["keyPath": name, "primarySortDescriptor": sortDescriptors[0].keyPath]))
        }
        return makeSectioned(sortedBy: sortDescriptors, keyPaths: [name]) { $0[keyPath: keyPath] }
    }

    /// The objects sorted by descriptors and grouped into sections by a
    /// block's value.
    ///
    /// ```swift
    /// let sections = dogs.sectioned(by: { $0.age / 10 }, sortDescriptors: [SortDescriptor(keyPath: "age")])
    /// ```
    ///
    /// The primary sort should decide the key, as Realm documents; nothing
    /// checks it. The block must be deterministic. It is called for an
    /// object when it enters the collection and again only when something
    /// the object holds, or links to within
    /// ``Realm/Configuration/collectionNotificationDepth`` hops, changes.
    public func sectioned<K: PersistableValue & Hashable>(by block: @escaping (Element) -> K, sortDescriptors: [SortDescriptor])
        -> SectionedResults<K, Element> where Element: Object
    {
        Self.checkSortDescriptors(sortDescriptors)
        return makeSectioned(sortedBy: sortDescriptors, keyPaths: nil, block)
    }

    /// The values sorted by themselves and grouped into sections by a
    /// block's value: for collections of primitives.
    ///
    /// ```swift
    /// let byLength = person.nicknames.sectioned(by: { $0.count }, ascending: true)
    /// ```
    public func sectioned<K: PersistableValue & Hashable>(by block: @escaping (Element) -> K, ascending: Bool = true)
        -> SectionedResults<K, Element>
    {
        makeSectioned(sortedBy: [SortDescriptor(keyPath: "self", ascending: ascending)], keyPaths: nil, block)
    }

    private static func checkSortDescriptors(_ sortDescriptors: [SortDescriptor]) {
        if sortDescriptors.isEmpty {
            shoalPrecondition(ShoalError(.invalidValue, "Can not section Results with empty sortDescriptor parameter."))
        }
    }

    private func makeSectioned<K: PersistableValue & Hashable>(sortedBy descriptors: [SortDescriptor], keyPaths: [String]?,
        _ block: @escaping (Element) -> K) -> SectionedResults<K, Element>
    {
        let info = K.persistedType
        if info.type == .object || info.collection != .none {
            shoalPrecondition(ShoalError(.invalidValue, "Links are not supported as section keys.", context: ["key": "\(K.self)"]))
        }
        guard managedInstance != nil else {
            shoalPrecondition(ShoalError(.unsupported, "Sectioned results are only supported on managed collections."))
        }
        let sorted = self.sorted(by: descriptors)
        return SectionedResults(source: SectionSource(results: sorted, keyPaths: keyPaths, keyBlock: block))
    }
}
