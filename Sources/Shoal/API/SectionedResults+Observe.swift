public import Dispatch

/// What a sectioned observation hands its wrapper: the sections were
/// computed or brought up to date on the delivering thread or queue.
enum SectionEvent {
    case initial
    case update(SectionChanges)
}

/// The sections one observation keeps, on its delivering thread or queue.
private final class ObservedSections<Key: Hashable> {
    var index: KeyedSections<Key>?
}

extension SectionSource {
    /// The notifier-building closure and filters for observing this source.
    /// A key path that names no property stops the program here, with
    /// Realm's message: `SectionedResultsChange` has no error case.
    private func observationParts(keyPaths: [String]?)
        -> (filter: Result<ModificationFilter, ShoalError>, key: ModificationFilter, make: (Snapshot, ModificationFilter) -> Notifier)
    {
        guard let (table, source) = results.resultsBase.map({ ($0.table, $0.source) }) else {
            shoalPrecondition(ShoalError(.unsupported, "Change notifications are only supported on managed collections."))
        }
        let elementTable: TableKey? =
            if case .table(let t) = source.root(table: table, schema: instance.schema) { t } else { nil }
        let depth = instance.configuration.collectionNotificationDepth
        let filter = instance.modificationFilter(keyPaths, table: elementTable, unfiltered: .deep(elementTable == nil ? 0 : depth))
        if case .failure(let error) = filter { shoalPrecondition(error) }
        let key = (try? keyFilter(table: elementTable).get()) ?? .deep(depth)
        return (filter, key, { snapshot, filter in NotifierFactory.collection(table: table, source: source, snapshot: snapshot, filter: filter) })
    }

    /// Brings `kept` to the delivery through `target` (the source read at
    /// the delivered version); returns what to tell the observer of
    /// `section` (of every section when `nil`), or `nil` for nothing.
    fileprivate static func advance(_ kept: ObservedSections<Key>, _ delivery: Delivery, target: SectionSource, section: Key?)
        -> SectionEvent?
    {
        switch delivery {
        case .initial:
            let index = target.recompute()
            kept.index = index
            target.seed(index)
            return .initial
        case .collection(let changes, _):
            guard var index = kept.index else { return nil }
            // Hold the only reference, so that the runs change in place.
            kept.index = nil
            target.dropCache()
            let previous = index.index.keys
            var sectioned = index.apply(changes, version: target.instance.snapshot.version, key: target.key(of:))
            kept.index = index
            target.seed(index)
            if let section {
                guard let filtered = index.filter(sectioned, previousKeys: previous, to: section) else { return nil }
                sectioned = filtered
            }
            return sectioned.isEmpty ? nil : .update(sectioned)
        case .error(let error):
            // Only a key-path filter fails, and `observationParts` stopped on that.
            shoalPrecondition(error)
        case .object, .map: return nil
        }
    }

    /// Registers an observation of the sections (of one section when
    /// `section` is given); `handle` runs on the delivering thread or queue
    /// with the source to read there.
    func observe(keyPaths: [String]?, on queue: DispatchQueue?, section: Key?,
        _ handle: @escaping (SectionSource, SectionEvent) -> Void) -> NotificationToken
    {
        instance.checkObservable()
        if results.isInvalidated { shoalPrecondition(ShoalError(.objectInvalidated, "Access to invalidated Results objects")) }
        let parts = observationParts(keyPaths: keyPaths)
        let target = instance.deliveryInstance(for: queue)
        let targetSource = queue == nil ? self : rebound(to: target)
        let kept = ObservedSections<Key>()
        return instance.observe(delivering: target, filter: parts.filter, sectioning: parts.key, make: parts.make) { delivery in
            if let event = Self.advance(kept, delivery, target: targetSource, section: section) { handle(targetSource, event) }
        }
    }

    /// An observation whose changes a consumer takes, each with the
    /// sections frozen at its version.
    func pulled(keyPaths: [String]?, section: Key?) -> (PulledObservation, () -> (SectionSource, SectionEvent)?) {
        instance.checkObservable()
        let parts = observationParts(keyPaths: keyPaths)
        let pulled = PulledObservation(instance: instance, filter: parts.filter, sectioning: parts.key, make: parts.make)
        let kept = Locked(ObservedSections<Key>())
        return (pulled, { [self] in
            while let (frozen, delivery) = pulled.take() {
                let target = self.rebound(to: frozen)
                let event = kept.withLock { Self.advance($0, delivery, target: target, section: section) }
                if let event { return (target, event) }
            }
            return nil
        })
    }
}

extension SectionedResultsChange {
    init(_ collection: Collection, _ event: SectionEvent) {
        switch event {
        case .initial: self = .initial(collection)
        case .update(let changes): self.init(collection, changes)
        }
    }
}

extension SectionedResults {
    /// Registers a block for changes to the sections; see
    /// `observe(keyPaths:on:_:)`.
    ///
    /// ```swift
    /// let token = sections.observe(keyPaths: ["name"], on: nil) { change in
    ///     if case .update(_, let deletions, let insertions, _, let sectionsToInsert, let sectionsToDelete) = change {
    ///         print(deletions, insertions, sectionsToInsert, sectionsToDelete)
    ///     }
    /// }
    /// ```
    public func observe(keyPaths: [String]?, on queue: DispatchQueue?,
        _ block: @escaping (SectionedResultsChange<SectionedResults>) -> Void) -> NotificationToken
    {
        source.observe(keyPaths: keyPaths, on: queue, section: nil) { target, event in
            block(SectionedResultsChange(SectionedResults(source: target), event))
        }
    }

    /// Registers a block for changes, filtered by typed key paths
    /// (`[\Dog.name]`); otherwise as `observe(keyPaths:on:_:)`.
    public func observe(keyPaths: [PartialKeyPath<SectionElement>], on queue: DispatchQueue? = nil,
        _ block: @escaping (SectionedResultsChange<SectionedResults>) -> Void) -> NotificationToken where SectionElement: Object
    {
        observe(keyPaths: keyPaths.map { KeyPathTracer.name(of: $0) }, on: queue, block)
    }

    /// The changes to the sections as an asynchronous sequence, each with
    /// the sections frozen at its version: usable from any task. Shoal's
    /// addition to Realm's API.
    ///
    /// ```swift
    /// for await change in sections.changes(keyPaths: ["name"]) {
    ///     if case .update(let sections, _, _, _, _, _) = change { print(sections.allKeys) }
    /// }
    /// ```
    ///
    /// Filtered as `observe(keyPaths:on:_:)`; a consumer that falls
    /// behind gets what it missed merged into one change. Call it on the
    /// sections' thread. The section key is computed on the iterating task,
    /// on frozen elements: it must not depend on anything but the element.
    public func changes(keyPaths: [String]? = nil) -> SectionedResultsChanges<SectionedResults> {
        let (pulled, take) = source.pulled(keyPaths: keyPaths, section: nil)
        return SectionedResultsChanges(pulled: pulled) { take().map { SectionedResultsChange(SectionedResults(source: $0), $1) } }
    }

    /// Registers a block called on `actor` with the sections' changes, each
    /// with the sections frozen at its version.
    ///
    /// ```swift
    /// let token = await sections.observe(on: myActor) { actor, change in actor.apply(change) }
    /// ```
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
        _ block: @Sendable @escaping (isolated A, SectionedResultsChange<SectionedResults>) -> Void) async -> NotificationToken
    {
        changes(keyPaths: keyPaths).deliver(on: actor, block)
    }
}

extension ResultsSection {
    /// Registers a block for changes to this section only; see
    /// `observe(keyPaths:on:_:)`.
    ///
    /// ```swift
    /// let token = sections[0].observe { change in
    ///     if case .update(_, let deletions, let insertions, _, let sectionsToInsert, let sectionsToDelete) = change {
    ///         print(deletions, insertions, sectionsToInsert, sectionsToDelete)
    ///     }
    /// }
    /// ```
    ///
    /// The block hears about the rows of this key's section, and about the
    /// section itself appearing (`sectionsToInsert`, with its rows in
    /// `insertions`) or disappearing (`sectionsToDelete`). Deletions and
    /// modifications carry the section's old index, insertions its new one.
    public func observe(keyPaths: [String]?, on queue: DispatchQueue?,
        _ block: @escaping (SectionedResultsChange<ResultsSection>) -> Void) -> NotificationToken
    {
        let key = self.key
        return source.observe(keyPaths: keyPaths, on: queue, section: key) { target, event in
            block(SectionedResultsChange(ResultsSection(source: target, key: key), event))
        }
    }

    /// Registers a block for changes to this section, filtered by typed key
    /// paths; otherwise as `observe(keyPaths:on:_:)`.
    public func observe(keyPaths: [PartialKeyPath<T>], on queue: DispatchQueue? = nil,
        _ block: @escaping (SectionedResultsChange<ResultsSection>) -> Void) -> NotificationToken where T: Object
    {
        observe(keyPaths: keyPaths.map { KeyPathTracer.name(of: $0) }, on: queue, block)
    }

    /// The changes to this section as an asynchronous sequence of frozen
    /// sections; see ``SectionedResults/changes(keyPaths:)``.
    public func changes(keyPaths: [String]? = nil) -> SectionedResultsChanges<ResultsSection> {
        let key = self.key
        let (pulled, take) = source.pulled(keyPaths: keyPaths, section: key)
        return SectionedResultsChanges(pulled: pulled) { take().map { SectionedResultsChange(ResultsSection(source: $0, key: key), $1) } }
    }

    /// Registers a block called on `actor` with this section's changes.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
        _ block: @Sendable @escaping (isolated A, SectionedResultsChange<ResultsSection>) -> Void) async -> NotificationToken
    {
        changes(keyPaths: keyPaths).deliver(on: actor, block)
    }
}
