/// What one delivery changed in sectioned results, in Realm's spaces:
/// deletions and modifications at their old paths, insertions at their
/// new paths, sections deleted by old index and inserted by new index; all
/// ascending.
struct SectionChanges: Equatable, Sendable {
    var deletions: [SectionPath] = []
    var insertions: [SectionPath] = []
    var modifications: [SectionPath] = []
    var sectionsToInsert: [Int] = []
    var sectionsToDelete: [Int] = []

    var isEmpty: Bool {
        deletions.isEmpty && insertions.isEmpty && modifications.isEmpty && sectionsToInsert.isEmpty && sectionsToDelete.isEmpty
    }
}

extension SectionIndex {
    /// Applies a changeset of the underlying collection and returns the
    /// sectioned changeset.
    ///
    /// `key` is called for the inserted elements and for the elements that
    /// stayed in place but changed in what their key reads (``IndexChanges/rekeyed``);
    /// no other element is looked at. An element whose key changed leaves
    /// its old section and joins its new one (a deletion plus an insertion).
    mutating func apply(_ changes: IndexChanges, version: UInt64, key: (Value) -> Int) -> SectionChanges {
        var deletions = changes.deletions
        var insertions: [(index: Int, value: Value, key: Int)] = []
        insertions.reserveCapacity(changes.insertions.count)
        for (index, value) in zip(changes.insertions, changes.insertedValues) { insertions.append((index, value, key(value))) }
        var modifiedOld = changes.modifications
        var modifiedNew = changes.modificationsNew
        for move in changes.rekeyed {
            let value = element(atFlat: move.from)
            let newKey = key(value)
            guard newKey != self.key(atFlat: move.from) else { continue }
            deletions.append(move.from)
            insertions.append((move.to, value, newKey))
            if let i = modifiedOld.firstIndex(of: move.from) { modifiedOld.remove(at: i) }
            if let i = modifiedNew.firstIndex(of: move.to) { modifiedNew.remove(at: i) }
        }
        deletions.sort()
        insertions.sort { $0.index < $1.index }

        let oldKeys = keys
        let deletedPaths = deletions.map(path(ofFlat:))
        let modifiedPaths = modifiedOld.map(path(ofFlat:))
        for index in deletions.reversed() { remove(atFlat: index) }
        for insertion in insertions { insert(insertion.value, key: insertion.key, atFlat: insertion.index) }
        rebuildSections()
        self.version = version
        let insertedPaths = insertions.map { path(ofFlat: $0.index) }
        let modifiedNewPaths = modifiedNew.map(path(ofFlat:))
        return reconcile(oldKeys: oldKeys, deleted: deletedPaths, inserted: insertedPaths, modified: modifiedPaths,
            modifiedNew: modifiedNewPaths)
    }

    /// The mapping of a flat changeset onto sections (REALM-SEMANTICS
    /// §2.5): rows of deleted sections are not listed, and a modified
    /// element stays a modification only if it keeps its section and its
    /// row; otherwise it is a deletion plus an insertion. `modified` and
    /// `modifiedNew` are the same elements, in the same order (elements
    /// that did not move keep their relative order).
    ///
    /// - Note: Realm matches old and new modified rows by row number alone,
    ///   which can pair two different objects when rows shift; Shoal pairs
    ///   each object with itself, so the changeset always applies.
    private func reconcile(oldKeys: [Int], deleted: [SectionPath], inserted: [SectionPath], modified: [SectionPath],
        modifiedNew: [SectionPath]) -> SectionChanges
    {
        var out = SectionChanges()
        let oldKeySet = Set(oldKeys)
        out.sectionsToDelete = oldKeys.indices.filter { section(ofKey: oldKeys[$0]) == nil }
        out.sectionsToInsert = keys.indices.filter { !oldKeySet.contains(keys[$0]) }
        let deletedSections = Set(out.sectionsToDelete)
        out.deletions = deleted.filter { !deletedSections.contains($0.section) }
        out.insertions = inserted
        for (old, new) in zip(modified, modifiedNew) {
            if old.row == new.row && section(ofKey: oldKeys[old.section]) == new.section {
                out.modifications.append(old)
            } else {
                out.deletions.append(old)
                out.insertions.append(new)
            }
        }
        out.deletions.sort()
        out.insertions.sort()
        out.modifications.sort()
        return out
    }

    /// The part of a changeset that concerns the section of `key`, as a
    /// `ResultsSection` observer sees it (REALM-SEMANTICS §2.6); `nil` when
    /// nothing concerns it. `previous` is the section order before the change.
    func filter(_ changes: SectionChanges, previousKeys: [Int], to key: Int) -> SectionChanges? {
        let old = previousKeys.firstIndex(of: key)
        let new = section(ofKey: key)
        var out = SectionChanges()
        switch (old, new) {
        case (nil, nil): return nil
        case (nil, let new?):
            out.sectionsToInsert = [new]
            out.insertions = changes.insertions.filter { $0.section == new }
        case (let old?, nil):
            out.sectionsToDelete = [old]
        case (let old?, let new?):
            out.deletions = changes.deletions.filter { $0.section == old }
            out.modifications = changes.modifications.filter { $0.section == old }
            out.insertions = changes.insertions.filter { $0.section == new }
        }
        return out.isEmpty ? nil : out
    }
}

extension KeyedSections {
    /// Sections of `elements` (in collection order), calling `key` once per element.
    init(version: UInt64, elements: [Value], key: (Value) -> Key) {
        var table = SectionKeyTable<Key>()
        index = SectionIndex(version: version, elements: elements) { table.id(for: key($0)) }
        self.table = table
    }

    /// Applies a changeset of the underlying collection; see ``SectionIndex/apply(_:version:key:)``.
    mutating func apply(_ changes: IndexChanges, version: UInt64, key: (Value) -> Key) -> SectionChanges {
        var table = self.table
        let changes = index.apply(changes, version: version) { table.id(for: key($0)) }
        self.table = table
        return changes
    }

    /// The part of a changeset that concerns the section of `key`; see
    /// ``SectionIndex/filter(_:previousKeys:to:)``.
    func filter(_ changes: SectionChanges, previousKeys: [Int], to key: Key) -> SectionChanges? {
        guard let id = table.existingID(for: key) else { return nil }
        return index.filter(changes, previousKeys: previousKeys, to: id)
    }
}
