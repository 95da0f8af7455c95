/// The state behind one ``SectionedResults`` value and its sections: the
/// sorted collection, the key function, and the sections at the version
/// last read.
///
/// A live source keeps its sections in step with the commits through an
/// engine subscription of its own (made at the first read), so that
/// reading after a commit applies that commit's changeset instead of
/// computing every key again. It recomputes from scratch only where no
/// changeset describes the state read: inside a write transaction with
/// changes, or at a version the engine has already moved past.
final class SectionSource<Key: PersistableValue & Hashable, Element: RealmCollectionValue>: @unchecked Sendable {
    // Safe because: a live source is used on its Realm's thread only (every
    // read checks it); a frozen one reads an immutable snapshot, and its
    // sections are set once when it is made.
    /// The sorted collection whose elements are sectioned.
    let results: Results<Element>
    /// The section key of an element.
    let keyBlock: (Element) -> Key
    /// What the key reads: the key path names, or `nil` for a block (any
    /// change to the element or what it links to may change its key).
    let keyPaths: [String]?

    private var base: KeyedSections<Key>?
    private var feed: (subscription: Subscription, tracker: DependencyTracker, token: NotificationToken)?
    private var cached: (state: (UInt64, Int), index: KeyedSections<Key>)?
    /// How many times `keyBlock` was called (for tests of incremental work).
    private(set) var keyCalls = 0

    init(results: Results<Element>, keyPaths: [String]?, keyBlock: @escaping (Element) -> Key) {
        self.results = results
        self.keyPaths = keyPaths
        self.keyBlock = keyBlock
    }

    deinit { feed?.token.invalidate() }

    var instance: RealmInstance { results.instance }

    /// The same sections read through another instance (queue-confined or
    /// frozen), starting from `index` when it describes that instance's version.
    func rebound(to instance: RealmInstance, index: KeyedSections<Key>? = nil) -> SectionSource {
        let source = SectionSource(results: results.rebinding(to: instance), keyPaths: keyPaths, keyBlock: keyBlock)
        if let index, index.index.version == instance.snapshot.version, instance.transaction == nil { source.base = index }
        return source
    }

    /// The section key of an element in stored form, read through this source's instance.
    func key(of value: Value) -> Key {
        keyCalls += 1
        return keyBlock(Element.fromValue(value, instance))
    }

    /// What the key reads, as a modification filter for the engine.
    func keyFilter(table: TableKey?) -> Result<ModificationFilter, ShoalError> {
        instance.modificationFilter(keyPaths, table: table,
            unfiltered: .deep(table == nil ? 0 : instance.configuration.collectionNotificationDepth))
    }

    /// The sections at the Realm's visible state.
    func index() -> KeyedSections<Key> {
        let instance = self.instance
        instance.verifyThread()
        if results.isInvalidated { shoalPrecondition(ShoalError(.objectInvalidated, "Access to invalidated Results objects")) }
        let state = instance.stateVersion
        if let cached, cached.state == state { return cached.index }
        let index = current(instance)
        cached = (state, index)
        return index
    }

    /// Sets the sections for the visible state (an observation that just
    /// computed them at the delivered version).
    func seed(_ index: KeyedSections<Key>) {
        if instance.transaction == nil, index.index.version == instance.snapshot.version { cached = (instance.stateVersion, index) }
    }

    /// Forgets the sections cached for the visible state (about to change).
    func dropCache() { cached = nil }

    /// Computes every key of the collection as the Realm shows it.
    func recompute() -> KeyedSections<Key> {
        KeyedSections(version: instance.snapshot.version, elements: results.storedElements(), key: key(of:))
    }

    private func current(_ instance: RealmInstance) -> KeyedSections<Key> {
        let version = instance.snapshot.version
        if let transaction = instance.transaction, transaction.changeCount > 0 { return recompute() }
        if let base, base.index.version == version { return base }
        if instance.isFrozen || instance.configuration.readOnly {
            base = recompute()
            return base!
        }
        if feed == nil {
            startFeed()
            if advance(to: version) == nil { base = recompute() }
            return base ?? recompute()
        }
        return advance(to: version) ?? recompute()
    }

    /// Registers the engine subscription that keeps `base` in step.
    private func startFeed() {
        guard let (table, source) = results.resultsBase.map({ ($0.table, $0.source) }) else { return }
        let elementTable: TableKey? =
            if case .table(let t) = source.root(table: table, schema: instance.schema) { t } else { nil }
        guard case .success(let filter) = keyFilter(table: elementTable) else { return }
        feed = instance.observePulled(filter: .success(filter), sectioning: filter,
            make: { snapshot, filter in NotifierFactory.collection(table: table, source: source, snapshot: snapshot, filter: filter) },
            signal: {})
    }

    /// Brings `base` to `version` with the changes the engine holds, if the
    /// engine stands at that version; `nil` otherwise (nothing is taken).
    private func advance(to version: UInt64) -> KeyedSections<Key>? {
        guard let feed else { return nil }
        feed.tracker.waitUntilProcessed(version)
        guard let delivery = feed.tracker.takeDelivery(feed.subscription, at: version) else { return nil }
        switch delivery {
        case .initial?, .error?:
            base = recompute()
        case .collection(let changes, _)?:
            guard var index = base else {
                base = recompute()
                break
            }
            // Hold the only reference, so that the runs change in place.
            (base, cached) = (nil, nil)
            _ = index.apply(changes, version: version, key: key(of:))
            base = index
        case nil, .object?, .map?:
            guard var index = base else {
                base = recompute()
                break
            }
            index.index.version = version
            base = index
        }
        return base
    }
}
