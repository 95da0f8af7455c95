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
/// removing one costs O(sections) plus a copy inside one section. Keys that
/// the sort scatters make more runs, and the cost grows with their number,
/// never with the number of elements outside the touched runs.
///
/// Values are the elements in stored form (object links or primitive
/// values); the key of an element is computed by the caller, and only for
/// elements that are new or changed in what their key reads.
struct SectionIndex<Key: Hashable> {
    struct Run {
        var key: Key
        var members: ContiguousArray<Value>
    }

    /// The version of the collection the sections describe.
    var version: UInt64
    /// The elements in collection order, grouped into runs.
    private(set) var runs: [Run] = []
    /// The section keys, in section order.
    private(set) var keys: [Key] = []
    /// A key's section index.
    private(set) var sectionOf: [Key: Int] = [:]
    /// Each section's runs, in collection order.
    private(set) var sectionRuns: [[Int]] = []
    /// Each section's element count.
    private(set) var sectionCounts: [Int] = []
    /// The number of elements.
    private(set) var count = 0

    /// Builds the sections of `elements` (in collection order), calling
    /// `key` once per element.
    init(version: UInt64, elements: [Value], key: (Value) -> Key) {
        self.version = version
        for value in elements {
            let k = key(value)
            if let last = runs.indices.last, runs[last].key == k {
                runs[last].members.append(value)
            } else {
                runs.append(Run(key: k, members: [value]))
            }
        }
        count = elements.count
        rebuildSections()
    }

    // MARK: Reading

    /// The number of elements in a section.
    func count(ofSection section: Int) -> Int { sectionCounts[section] }

    /// The element at `row` of `section`.
    func element(section: Int, row: Int) -> Value {
        var row = row
        for run in sectionRuns[section] {
            if row < runs[run].members.count { return runs[run].members[row] }
            row -= runs[run].members.count
        }
        preconditionFailure("row out of range")
    }

    /// The elements of a section, in order.
    func elements(ofSection section: Int) -> [Value] {
        sectionRuns[section].flatMap { runs[$0].members }
    }

    /// The run holding flat position `index` and the offset in it; for
    /// `index == count`, one past the last run.
    private func locate(_ index: Int) -> (run: Int, offset: Int) {
        var index = index
        for (r, run) in runs.enumerated() {
            if index < run.members.count { return (r, index) }
            index -= run.members.count
        }
        return (runs.count, index)
    }

    /// The section and row of the element at flat position `index`.
    func path(ofFlat index: Int) -> SectionPath {
        let (run, offset) = locate(index)
        let section = sectionOf[runs[run].key]!
        var row = offset
        for r in sectionRuns[section] {
            if r == run { break }
            row += runs[r].members.count
        }
        return SectionPath(section: section, row: row)
    }

    /// The element at flat position `index`.
    func element(atFlat index: Int) -> Value {
        let (run, offset) = locate(index)
        return runs[run].members[offset]
    }

    /// The key of the element at flat position `index`.
    func key(atFlat index: Int) -> Key { runs[locate(index).run].key }

    // MARK: Editing

    /// Removes the element at flat position `index`.
    mutating func remove(atFlat index: Int) {
        let (run, offset) = locate(index)
        runs[run].members.remove(at: offset)
        count -= 1
        guard runs[run].members.isEmpty else { return }
        runs.remove(at: run)
        // The neighbours may now be one run.
        if run > 0, run < runs.count, runs[run - 1].key == runs[run].key {
            runs[run - 1].members.append(contentsOf: runs[run].members)
            runs.remove(at: run)
        }
    }

    /// Inserts `value` with section key `key` at flat position `index`.
    mutating func insert(_ value: Value, key: Key, atFlat index: Int) {
        count += 1
        let (run, offset) = locate(index)
        if offset == 0 {
            // Between runs: join the one before or the one after if the key matches.
            if run > 0, runs[run - 1].key == key {
                runs[run - 1].members.append(value)
            } else if run < runs.count, runs[run].key == key {
                runs[run].members.insert(value, at: 0)
            } else {
                runs.insert(Run(key: key, members: [value]), at: run)
            }
            return
        }
        if runs[run].key == key {
            runs[run].members.insert(value, at: offset)
            return
        }
        // Inside a run of another key: split it.
        let tail = ContiguousArray(runs[run].members[offset...])
        runs[run].members.removeSubrange(offset...)
        runs.insert(contentsOf: [Run(key: key, members: [value]), Run(key: runs[run].key, members: tail)], at: run + 1)
    }

    /// Recomputes the section order and each section's runs: O(runs).
    mutating func rebuildSections() {
        keys = []
        sectionOf = [:]
        sectionRuns = []
        sectionCounts = []
        for (r, run) in runs.enumerated() {
            if let s = sectionOf[run.key] {
                sectionRuns[s].append(r)
                sectionCounts[s] += run.members.count
            } else {
                sectionOf[run.key] = keys.count
                keys.append(run.key)
                sectionRuns.append([r])
                sectionCounts.append(run.members.count)
            }
        }
    }
}
