public import Foundation

/// A sorted collection grouped into sections by a key: live, observable
/// and thread-confined like ``Results``.
///
/// ```swift
/// let sections = realm.objects(Dog.self).sectioned(by: \.firstLetter, ascending: true)
/// for section in sections {
///     print(section.key, section.map(\.name))
/// }
/// let first = sections[IndexPath(item: 0, section: 0)]
/// ```
///
/// Sections come in the order in which their keys first appear in the
/// sorted collection, and the elements of a section in the collection's
/// order. Make the primary sort decide the key (sort by `name` to section
/// by its first letter), as Realm requires; otherwise a key's elements may
/// be apart in the sort, and the section still holds them all.
///
/// Unlike Realm, which computes every key again after each change, Shoal
/// keeps the sections from the commits' changesets: after a commit only
/// new elements and elements changed in what the key reads are keyed
/// again, and reading a section or an element costs no work proportional
/// to the collection's size. The key must be deterministic: a key that
/// depends on anything but the element's stored properties gives
/// undefined sections.
///
/// Each `SectionedResults` value, and each observation of one, keeps its
/// own sections.
public struct SectionedResults<Key: PersistableValue & Hashable, SectionElement: RealmCollectionValue>: RealmSectionedResult,
    @unchecked Sendable
{
    // Safe because: live sectioned results check their Realm's thread on
    // every read; frozen ones read an immutable snapshot.
    /// Each element is a section: the elements with one key.
    public typealias Element = ResultsSection<Key, SectionElement>
    /// A position among the sections: an offset from 0.
    public typealias Index = Int
    /// The valid positions, `0..<count`.
    public typealias Indices = Range<Int>
    /// A contiguous range of the sections, read through the sectioned results.
    public typealias SubSequence = Slice<Self>

    let source: SectionSource<Key, SectionElement>

    init(source: SectionSource<Key, SectionElement>) { self.source = source }

    /// The position of the first section: always 0.
    public var startIndex: Int { 0 }
    /// The position after the last section: ``count``.
    public var endIndex: Int { count }

    /// The number of sections.
    public var count: Int { source.index().keys.count }

    /// The section keys, in section order.
    public var allKeys: [Key] { source.index().keys }

    /// The section at `index`.
    public subscript(index: Int) -> ResultsSection<Key, SectionElement> {
        let keys = source.index().keys
        checkSectionIndex(index, keys.count)
        return ResultsSection(source: source, key: keys[index])
    }

    /// The element at an index path (section, item).
    public subscript(indexPath: IndexPath) -> SectionElement {
        self[indexPath[0]][indexPath[1]]
    }

    /// The section of a key; stops with Realm's message when no element
    /// has that key. Labelled, so that it differs from the index subscript
    /// when keys are integers: `sections[key: 3]`.
    public subscript(key key: Key) -> ResultsSection<Key, SectionElement> {
        guard source.index().section(of: key) != nil else {
            shoalPrecondition(ShoalError(.invalidValue, "Section key \(key) not found."))
        }
        return ResultsSection(source: source, key: key)
    }

    /// The Realm managing the sections, or `nil` once it was invalidated.
    public var realm: Realm? { isInvalidated ? nil : source.results.realm }
    /// Whether the Realm was invalidated since the sections were made.
    public var isInvalidated: Bool { source.results.isInvalidated }
    /// Whether the sections are pinned to one version.
    public var isFrozen: Bool { source.results.isFrozen }

    /// Frozen sections pinned at the current version; the sections are
    /// copied, not keyed again.
    public func freeze() -> SectionedResults {
        if isFrozen { return self }
        let index = source.index()
        let frozen = source.results.freeze()
        return SectionedResults(source: source.rebound(to: frozen.instance, index: index))
    }

    /// Live sections for the calling thread's Realm.
    public func thaw() -> SectionedResults? {
        guard isFrozen, let live = source.results.thaw() else { return isFrozen ? nil : self }
        return SectionedResults(source: source.rebound(to: live.instance))
    }

    /// The same sectioned results: one value and its copies (and what an
    /// observation without a queue hands over for it).
    public static func == (lhs: SectionedResults, rhs: SectionedResults) -> Bool { lhs.source === rhs.source }
}

func checkSectionIndex(_ index: Int, _ count: Int) {
    if index < 0 { shoalPrecondition(ShoalError(.indexOutOfBounds, "Cannot pass a negative value for 'index'.")) }
    if index >= count {
        shoalPrecondition(ShoalError(.indexOutOfBounds, "Index \(index) is out of bounds (must be less than \(count))."))
    }
}
