
/// One section of ``SectionedResults``: the elements with one key, in the
/// collection's order.
///
/// ```swift
/// let section = sections[0]
/// print(section.key, section.count, section.first?.name ?? "")
/// ```
///
/// A section is bound to its key, not its position: it follows the key
/// wherever the section moves. While no element has the key, the section
/// is invalidated (``isInvalidated`` is true and reading an element stops
/// with Realm's message); it is valid again when an element with the key
/// comes back.
public struct ResultsSection<Key: PersistableValue & Hashable, T: RealmCollectionValue>: RealmSectionedResult, Identifiable,
    @unchecked Sendable
{
    // Safe because: as ``SectionedResults``.
    /// The type of the section's elements, those of the sectioned collection.
    public typealias Element = T
    /// A position in the section: an offset from 0.
    public typealias Index = Int
    /// The valid positions, `0..<count`.
    public typealias Indices = Range<Int>
    /// A contiguous range of the section's elements, read through the section.
    public typealias SubSequence = Slice<Self>

    let source: SectionSource<Key, T>
    /// The key which the section's elements share.
    public let key: Key

    init(source: SectionSource<Key, T>, key: Key) {
        self.source = source
        self.key = key
    }

    /// The section's identity: its key.
    public var id: Key { key }

    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }
    /// The position after the last element: ``count``.
    public var endIndex: Int { count }

    /// The position of the section now, or `nil` while no element has its key.
    var sectionIndex: Int? { source.index().section(of: key) }

    /// The number of elements in the section (0 while it is invalidated).
    public var count: Int {
        let sections = source.index()
        return sections.section(of: key).map { sections.index.count(ofSection: $0) } ?? 0
    }

    /// The element at `index` in the section.
    public subscript(index: Int) -> T {
        let sections = source.index()
        guard let section = sections.section(of: key) else {
            shoalPrecondition(ShoalError(.objectInvalidated, "Access to invalidated Results objects"))
        }
        checkSectionIndex(index, sections.index.count(ofSection: section))
        return T.fromValue(sections.index.element(section: section, row: index), source.instance)
    }

    /// The Realm managing the section, or `nil` once it was invalidated.
    public var realm: Realm? { isInvalidated ? nil : source.results.realm }
    /// Whether the Realm was invalidated, or no element has the key now.
    public var isInvalidated: Bool { source.results.isInvalidated || sectionIndex == nil }
    /// Whether the section is pinned to one version.
    public var isFrozen: Bool { source.results.isFrozen }

    /// The section frozen at the current version.
    public func freeze() -> ResultsSection {
        if isFrozen { return self }
        return ResultsSection(source: SectionedResults(source: source).freeze().source, key: key)
    }

    /// The live section for the calling thread's Realm.
    public func thaw() -> ResultsSection? {
        if !isFrozen { return self }
        return SectionedResults(source: source).thaw().map { ResultsSection(source: $0.source, key: key) }
    }

    /// The same section: the same key of the same sectioned results.
    public static func == (lhs: ResultsSection, rhs: ResultsSection) -> Bool { lhs.source === rhs.source && lhs.key == rhs.key }
}
