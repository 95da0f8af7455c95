public import Foundation

/// What ``SectionedResults`` and ``ResultsSection`` have in common: a
/// live, thread-confined, observable collection.
///
/// ```swift
/// func describe(_ sections: some RealmSectionedResult) { print(sections.count, sections.isFrozen) }
/// ```
public protocol RealmSectionedResult: RandomAccessCollection, Equatable, ThreadConfined where Index == Int {
    /// The Realm managing the collection, or `nil` if it was invalidated.
    var realm: Realm? { get }
    /// Whether the collection can no longer be used: its Realm was
    /// invalidated, or (for a ``ResultsSection``) its key has no section now.
    var isInvalidated: Bool { get }
    /// The number of sections (``SectionedResults``) or of elements (``ResultsSection``).
    var count: Int { get }
    /// Whether the collection is pinned to one version.
    var isFrozen: Bool { get }
    /// A frozen copy pinned at the current version, usable from any thread.
    /// Its sections are copied, not recomputed.
    func freeze() -> Self
    /// The live collection of a frozen one, for the calling thread's Realm;
    /// a live collection returns itself.
    func thaw() -> Self?
    /// Registers a block called with the collection at first and then with
    /// what each commit changed in its sections.
    ///
    /// ```swift
    /// let token = sections.observe(keyPaths: ["name"], on: nil) { change in
    ///     if case .update(_, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete) = change {
    ///         print(deletions, insertions, modifications, sectionsToInsert, sectionsToDelete)
    ///     }
    /// }
    /// ```
    ///
    /// Insertions and deletions always count; modifications only on the key
    /// paths given (unfiltered: any property of the element or of objects it
    /// links to, as for collections). An element whose section key changed
    /// moves to its new section (a deletion plus an insertion), whatever the
    /// key paths. A section that appears is in `sectionsToInsert` with its
    /// rows in `insertions`; one that disappears is only in
    /// `sectionsToDelete`. A modified element is reported as modified only if
    /// it keeps its section and row; otherwise as a deletion plus an
    /// insertion (Realm's rule).
    ///
    /// Delivery is as for `observe(keyPaths:on:_:)`. The
    /// section key is computed on the delivering thread or queue, and only
    /// for elements that are new or changed in what the key reads.
    func observe(keyPaths: [String]?, on queue: DispatchQueue?, _ block: @escaping (SectionedResultsChange<Self>) -> Void)
        -> NotificationToken
}

extension RealmSectionedResult {
    /// Registers a block for changes; see `observe(keyPaths:on:_:)`.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
        _ block: @escaping (SectionedResultsChange<Self>) -> Void) -> NotificationToken
    {
        observe(keyPaths: keyPaths, on: queue, block)
    }
}

/// What a sectioned-results observer is told.
///
/// ```swift
/// let token = sections.observe { change in
///     switch change {
///     case .initial:
///         tableView.reloadData()
///     case .update(_, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
///         tableView.performBatchUpdates {
///             tableView.deleteRows(at: deletions, with: .automatic)
///             tableView.deleteSections(sectionsToDelete, with: .automatic)
///             tableView.insertSections(sectionsToInsert, with: .automatic)
///             tableView.insertRows(at: insertions, with: .automatic)
///             tableView.reloadRows(at: modifications, with: .automatic)
///         }
///     }
/// }
/// ```
///
/// Index paths are (section, item). Deletions and modifications are at
/// their place before the change, insertions at their place after it;
/// `sectionsToDelete` are old section indices, `sectionsToInsert` new ones.
/// Every array is ascending. As in Realm, there is no error case: a key
/// path that names no property stops the program when `observe` is called,
/// with Realm's message.
public enum SectionedResultsChange<Collection> {
    /// The first callback: the collection as observation starts.
    case initial(Collection)
    /// What one or more commits changed since the last callback.
    case update(Collection, deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath],
        sectionsToInsert: IndexSet, sectionsToDelete: IndexSet)

    init(_ collection: Collection, _ changes: SectionChanges) {
        func paths(_ p: [SectionPath]) -> [IndexPath] { p.map { IndexPath(item: $0.row, section: $0.section) } }
        self = .update(collection, deletions: paths(changes.deletions), insertions: paths(changes.insertions),
            modifications: paths(changes.modifications), sectionsToInsert: IndexSet(changes.sectionsToInsert),
            sectionsToDelete: IndexSet(changes.sectionsToDelete))
    }
}

#if !canImport(Darwin)
    /// UIKit's section and item accessors, which Foundation on Linux lacks,
    /// so that code written against ``SectionedResultsChange`` ports as is.
    extension IndexPath {
        /// An index path of a section and an item in it: `[section, item]`.
        public init(item: Int, section: Int) { self.init(indexes: [section, item]) }
        /// The section: the first index.
        public var section: Int { self[0] }
        /// The item in the section: the second index.
        public var item: Int { self[1] }
    }
#endif
