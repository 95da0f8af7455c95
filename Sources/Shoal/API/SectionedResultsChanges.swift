/// An asynchronous sequence of changes to sectioned results (or to one
/// section), each carrying the sections frozen at the version it
/// describes. Shoal's addition to Realm's API; made by
/// ``SectionedResults/changes(keyPaths:)`` and ``ResultsSection/changes(keyPaths:)``.
///
/// ```swift
/// for await change in sections.changes() {
///     switch change {
///     case .initial(let sections): print(sections.allKeys)
///     case .update(let sections, let deletions, let insertions, _, _, _): print(sections.count, deletions, insertions)
///     }
/// }
/// ```
///
/// The first element is `.initial`. What piles up while the consumer is
/// busy is merged into one `.update`, never dropped. The sequence ends when
/// the iterating task is cancelled; iterate it once.
public struct SectionedResultsChanges<Collection>: AsyncSequence, @unchecked Sendable {
    // Safe because: `take` only reads frozen instances and the observation's
    // own sections, under a lock.
    /// Each element is `.initial` first, then an `.update` per change (merged when they
    /// pile up), carrying the sections frozen.
    public typealias Element = SectionedResultsChange<Collection>
    /// Iteration never throws: it ends when the task is cancelled.
    public typealias Failure = Never

    let pulled: PulledObservation
    let take: () -> SectionedResultsChange<Collection>?

    /// Iterates the changes; ends when its task is cancelled.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let sequence: SectionedResultsChanges
        var signals: AsyncStream<Void>.Iterator

        public mutating func next() async -> SectionedResultsChange<Collection>? {
            await sequence.pulled.next(&signals, take: sequence.take)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(sequence: self, signals: pulled.signals.makeAsyncIterator())
    }

    /// Calls `block` on `actor` with each change; the token ends the observation.
    func deliver<A: Actor>(on actor: A, _ block: @Sendable @escaping (isolated A, SectionedResultsChange<Collection>) -> Void)
        -> NotificationToken
    {
        Task {
            for await change in self {
                let box = SectionChangeBox(change)
                await actor.deliverSection(box, block)
            }
        }
        return pulled.outerToken()
    }
}

/// A change crossing into an actor: its sections are frozen, so it is safe anywhere.
struct SectionChangeBox<C>: @unchecked Sendable {
    // Safe because: the collection inside is frozen.
    let change: SectionedResultsChange<C>
    init(_ change: SectionedResultsChange<C>) { self.change = change }
}

extension Actor {
    fileprivate func deliverSection<C>(_ box: SectionChangeBox<C>, _ block: @Sendable (isolated Self, SectionedResultsChange<C>) -> Void) {
        block(self, box.change)
    }
}
