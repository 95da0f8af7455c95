/// A position in sectioned results: a section and a row inside it.
struct SectionPath: Hashable, Comparable, Sendable {
    var section: Int
    var row: Int

    static func < (a: SectionPath, b: SectionPath) -> Bool {
        (a.section, a.row) < (b.section, b.row)
    }
}

/// The sections of one sorted collection at one version, kept up to date
/// from the collection's changesets without looking at unchanged elements.
///
/// The collection's elements are held in order as *runs*: maximal stretches
/// of consecutive elements with one section key. A section is the runs of
/// its key; sections come in the order of their key's first appearance
/// (Realm's rule), and rows inside a section follow the collection's order.
/// When the sort groups the keys (Realm requires the primary sort to decide
/// the key), every section is one run, and finding an element, inserting or
/// removing one costs O(sections) plus a move inside one chunk of a
/// section (``ChunkedArray``). Keys that
/// the sort scatters make more runs, and the cost grows with their number,
/// never with the number of elements outside the touched runs.
///
/// Keys are small integers here (``SectionKeyTable`` maps the user's keys to
/// them), so that this code is not generic. Values are the elements in
/// stored form (object links or primitive values); the key of an element is
/// computed by the caller, and only for elements that are new or changed in
/// what their key reads.
struct SectionIndex: Sendable {
    /// The version of the collection the sections describe.
    var version: UInt64
    /// Each run's key and elements, in collection order.
    private(set) var runKeys: [Int] = []
    private(set) var runs: [ChunkedArray<Value>] = []
    /// The section keys, in section order.
    private(set) var keys: [Int] = []
    /// A key's section index, by key (-1: no section).
    private var sectionOfKey: [Int] = []
    /// Each section's runs, in collection order.
    private var sectionRuns: [[Int]] = []
    /// Each section's element count.
    private var sectionCounts: [Int] = []

    /// Builds the sections of `elements` (in collection order), calling
    /// `key` once per element.
    init(version: UInt64, elements: [Value], key: (Value) -> Int) {
        self.version = version
        for value in elements {
            let k = key(value)
            if let last = runKeys.indices.last, runKeys[last] == k {
                runs[last].append(value)
            } else {
                runKeys.append(k)
                runs.append(ChunkedArray(CollectionOfOne(value)))
            }
        }
        rebuildSections()
    }

    // MARK: Reading

    /// The section of a key, or `nil` when no element has it.
    func section(ofKey key: Int) -> Int? {
        key < sectionOfKey.count && sectionOfKey[key] >= 0 ? sectionOfKey[key] : nil
    }

    /// The number of elements in a section.
    func count(ofSection section: Int) -> Int { sectionCounts[section] }

    /// The element at `row` of `section`.
    func element(section: Int, row: Int) -> Value {
        var row = row
        for run in sectionRuns[section] {
            if row < runs[run].count { return runs[run][row] }
            row -= runs[run].count
        }
        preconditionFailure("row out of range")
    }

    /// The run holding flat position `index` and the offset in it; past
    /// the last element, one past the last run.
    private func locate(_ index: Int) -> (run: Int, offset: Int) {
        let (run, offset) = flatLocate(index, in: runs) { $0.count }
        return (run, offset)
    }

    /// The section and row of the element at flat position `index`.
    func path(ofFlat index: Int) -> SectionPath {
        let (run, offset) = locate(index)
        let section = sectionOfKey[runKeys[run]]
        var row = offset
        for r in sectionRuns[section] {
            if r == run { break }
            row += runs[r].count
        }
        return SectionPath(section: section, row: row)
    }

    /// The element at flat position `index`.
    func element(atFlat index: Int) -> Value {
        let (run, offset) = locate(index)
        return runs[run][offset]
    }

    /// The key of the element at flat position `index`.
    func key(atFlat index: Int) -> Int { runKeys[locate(index).run] }

    // MARK: Editing

    /// Removes the element at flat position `index`.
    mutating func remove(atFlat index: Int) {
        let (run, offset) = locate(index)
        runs[run].remove(at: offset)
        guard runs[run].isEmpty else { return }
        runs.remove(at: run)
        runKeys.remove(at: run)
        // The neighbours may now be one run.
        if run > 0, run < runs.count, runKeys[run - 1] == runKeys[run] {
            let tail = runs.remove(at: run)
            runKeys.remove(at: run)
            runs[run - 1].append(contentsOf: tail)
        }
    }

    /// Inserts `value` with section key `key` at flat position `index`.
    mutating func insert(_ value: Value, key: Int, atFlat index: Int) {
        let (run, offset) = locate(index)
        if offset == 0 {
            // Between runs: join the one before or the one after if the key matches.
            if run > 0, runKeys[run - 1] == key {
                runs[run - 1].append(value)
            } else if run < runs.count, runKeys[run] == key {
                runs[run].insert(value, at: 0)
            } else {
                runs.insert(ChunkedArray(CollectionOfOne(value)), at: run)
                runKeys.insert(key, at: run)
            }
            return
        }
        if runKeys[run] == key {
            runs[run].insert(value, at: offset)
            return
        }
        // Inside a run of another key: split it.
        let tail = runs[run].removeSuffix(from: offset)
        runs.insert(contentsOf: [ChunkedArray(CollectionOfOne(value)), tail], at: run + 1)
        runKeys.insert(contentsOf: [key, runKeys[run]], at: run + 1)
    }

    /// Recomputes the section order and each section's runs: O(runs + keys).
    mutating func rebuildSections() {
        for k in keys { sectionOfKey[k] = -1 }
        keys.removeAll(keepingCapacity: true)
        sectionRuns.removeAll(keepingCapacity: true)
        sectionCounts.removeAll(keepingCapacity: true)
        for r in runKeys.indices {
            let k = runKeys[r]
            if k >= sectionOfKey.count { sectionOfKey.append(contentsOf: repeatElement(-1, count: k - sectionOfKey.count + 1)) }
            let s = sectionOfKey[k]
            if s >= 0 {
                sectionRuns[s].append(r)
                sectionCounts[s] += runs[r].count
            } else {
                sectionOfKey[k] = keys.count
                keys.append(k)
                sectionRuns.append([r])
                sectionCounts.append(runs[r].count)
            }
        }
    }
}

/// The user's section keys as the small integers ``SectionIndex`` works
/// with: each distinct key gets the next number the first time it is seen.
struct SectionKeyTable<Key: Hashable> {
    private(set) var values: [Key] = []
    private var ids: [Key: Int] = [:]

    /// The number of a key, made if new.
    mutating func id(for key: Key) -> Int {
        if let id = ids[key] { return id }
        ids[key] = values.count
        values.append(key)
        return values.count - 1
    }

    /// The number of a key already seen.
    func existingID(for key: Key) -> Int? { ids[key] }
}

/// Sections with the user's keys: the index and its key table.
struct KeyedSections<Key: Hashable> {
    var index: SectionIndex
    var table: SectionKeyTable<Key>

    /// The section keys, in section order.
    var keys: [Key] { index.keys.map { table.values[$0] } }

    /// The section of a key, or `nil` when no element has it.
    func section(of key: Key) -> Int? { table.existingID(for: key).flatMap(index.section(ofKey:)) }
}
