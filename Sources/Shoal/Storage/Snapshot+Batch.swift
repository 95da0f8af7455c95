/// Applies a batch of ops that nobody reads until it is complete (one
/// replayed transaction record, a loaded snapshot, a migration) with the
/// index half of each insert deferred: inserted objects are indexed together
/// when the batch finishes, or earlier, just before an op that needs the
/// indexes of their table (a delete, a set of a primary key).
///
/// Consecutive inserts into one table form a run, applied together a
/// column at a time by ``Snapshot/appendObjects(_:columns:links:)``: sets
/// of the run's objects' other properties are folded into their queued
/// values (a live write inserts an object, then sets its links), and the
/// backlinks are queued in the order single ops would make them. The run is
/// applied when an op of another kind, table or object comes, when it is
/// long, or when the batch finishes. Every op is validated first with
/// ``Snapshot/problem(applying:checkingPrimaryKey:pending:)``, and ops
/// outside runs are applied with ``Snapshot/apply(_:indexing:)``, the code
/// path of a live commit. A duplicate primary key is found when the batch is
/// indexed. Either way the result is the snapshot a live commit of the same
/// ops would make (`BatchApplierTests` checks this on random workloads).
struct BatchApplier {
    /// The state so far: complete only after ``finish()``, which applies
    /// the pending run and the deferred index entries.
    private(set) var snapshot: Snapshot
    /// Per table index: the first slot not yet in the indexes, if any is.
    private var unindexedFrom: [Int: Int] = [:]
    /// Checked inserts not applied yet.
    private var run: InsertRun?
    /// Per table index: its indexes, being extended on other threads.
    private var background: [Int: BackgroundIndexing] = [:]
    /// Per table index: the slots its background job's secondary indexes
    /// have yet to be given. They are given when the job is finished, so
    /// that their builds do not take a core from decoding and applying
    /// while the batch goes on (only the primary key's build, which can
    /// fail the batch, runs beside it).
    private var secondaryUnindexed: [Int: [Range<Int>]] = [:]
    /// Per table index: whether its class is embedded.
    let embeddedTables: [Bool]
    /// Whether the schema has an embedded class (else nothing is tracked).
    let tracksEmbedded: Bool
    /// Embedded objects whose number of owners the batch may have changed,
    /// each checked by ``finish()`` to have exactly one
    /// (``noteEmbedded(_:)``): ops from a file can orphan one, or give it a
    /// second owner, where a live write never does.
    var embeddedToCheck: Set<Link> = []
    /// Whether ``finish()`` checks the owners of the embedded objects the
    /// batch touched. A migration's starting point does not: its embedded
    /// objects get their owners from links copied after their tables, and a
    /// class that became embedded may leave objects with no owner or
    /// several until the migration settles them (``Migration``).
    var checksEmbeddedOwnership = true

    /// Inserts into one table, checked and queued: object `i` of the run
    /// has key `pending.keys.lowerBound + i` and values `columns[p][i]`.
    private struct InsertRun {
        var pending: PendingInserts
        var columns: [RunColumn]
        /// The backlinks the run's links make, in op order.
        var links: [(target: Link, backlink: Backlink)] = []
    }

    /// The longest run applied at once: long enough to fill leaves, short
    /// enough that the run's columns stay in cache.
    static let maximumRun = 4096

    /// How many objects of one table wait to be indexed before they are
    /// indexed on other threads while the batch goes on: a record this
    /// large (a bulk insert, a loaded snapshot) is worth the hand-off.
    static let backgroundIndexingThreshold = 16_384

    init(_ snapshot: Snapshot) {
        self.snapshot = snapshot
        embeddedTables = snapshot.schema.objectSchema.map(\.isEmbedded)
        tracksEmbedded = embeddedTables.contains(true)
    }

    /// Takes `state` over, leaving an empty snapshot in its place, for a
    /// caller that will not use the old state again (replay on open): the
    /// batch then holds the only reference to every table, column and
    /// index, and each op changes what it touches in place. With a copy
    /// kept by the caller, every op would copy the path it touches instead,
    /// which made replaying small transactions 20 times slower.
    init(taking state: inout Snapshot) {
        embeddedTables = state.schema.objectSchema.map(\.isEmbedded)
        tracksEmbedded = embeddedTables.contains(true)
        snapshot = Snapshot.empty
        swap(&snapshot, &state)
    }

    /// Validates and applies (or queues) one op.
    ///
    /// - Returns: why the op cannot be applied (nothing is applied then, and
    ///   the batch must be abandoned), or `nil`.
    mutating func apply(_ op: ChangeOp) -> String? {
        let t = op.target.table
        guard t.index < snapshot.tables.count else { return "table \(t) does not exist" }
        if tracksEmbedded { noteEmbedded(op) }
        switch op {
        case .insert(_, let k, let values):
            if run?.pending.table != t || run!.pending.keys.count == Self.maximumRun { applyRun() }
            if let problem = snapshot.problem(applying: op, checkingPrimaryKey: false, pending: run?.pending) { return problem }
            if run == nil {
                deferIndexing(t.index, from: k.slot)
                let columns = [RunColumn](repeating: [], count: values.count)
                run = InsertRun(pending: PendingInserts(table: t, keys: k.rawValue..<k.rawValue), columns: columns)
            }
            for (p, v) in values.enumerated() {
                run!.columns[p].append(v)
                if case .link(let link) = v { run!.links.append((link, Backlink(origin: t, property: p, key: k))) }
            }
            run!.pending.keys = run!.pending.keys.lowerBound..<k.rawValue + 1
            return nil
        case .set(_, let k, let p, let v)
        where run?.pending.contains(t, k) == true && !snapshot.schema.objectSchema[t.index].properties[p].isPrimary:
            if let problem = snapshot.problem(applying: op, pending: run?.pending) { return problem }
            let i = Int(k.rawValue - run!.pending.keys.lowerBound)
            let old = run!.columns[p][i]
            if case .link(let link) = old, let j = run!.links.firstIndex(where: { $0 == (link, Backlink(origin: t, property: p, key: k)) }) {
                run!.links.remove(at: j)
            }
            if case .link(let link) = v { run!.links.append((link, Backlink(origin: t, property: p, key: k))) }
            run!.columns[p][i] = v
            return nil
        case .delete:
            applyRun()
            if let problem = indexPending(t.index) { return problem }
        case .set(_, _, let p, _) where snapshot.schema.objectSchema[t.index].properties[p].isPrimary:
            // Checking a new primary key needs every key indexed. A set of a
            // secondary-indexed property does not: its index entry is made
            // now, and made again (idempotently) when the object is indexed.
            applyRun()
            if let problem = indexPending(t.index) { return problem }
        case _ where Self.leavesIndexesAlone(op, snapshot.schema):
            // The indexes may stay on their threads: the primary key's build
            // reads copies of the values, and the secondary builds read the
            // table only once handed their slots, by a later join or finish.
            applyRun()
        default:
            applyRun()
            // Any other op may read or change the indexes: they must be home.
            if let problem = joinBackground(t.index) { return problem }
        }
        if let problem = snapshot.problem(applying: op) { return problem }
        snapshot.apply(op)
        return nil
    }

    /// Whether `op` neither reads nor changes an index of its table: a set
    /// of a property no index holds (a link set once every table is in,
    /// when loading a snapshot), or a change to a collection.
    private static func leavesIndexesAlone(_ op: ChangeOp, _ schema: Schema) -> Bool {
        switch op {
        case .set(let t, _, let p, _):
            let properties = schema.objectSchema[t.index].properties
            return properties.indices.contains(p) && !properties[p].isPrimary && !properties[p].isIndexed
        case .listInsert, .listSet, .listRemove, .listMove, .setInsert, .setRemove, .mapSet, .mapRemove, .collectionClear:
            return true
        case .insert, .delete:
            return false
        }
    }

    /// The value of property `p` of an object still in the pending run, if
    /// it is there.
    func pendingValue(_ t: TableKey, _ k: ObjectKey, _ p: Int) -> Value? {
        guard let run, run.pending.contains(t, k) else { return nil }
        return run.columns[p][Int(k.rawValue - run.pending.keys.lowerBound)]
    }

    /// The key the next insert into `t` must have, counting the pending run.
    func nextKey(_ t: TableKey) -> ObjectKey {
        run?.pending.table == t ? ObjectKey(run!.pending.keys.upperBound) : snapshot.tables[t.index].nextKey
    }

    /// Validates and applies a run of inserts given as columns (a decoded
    /// insert run of the log), as applying its ``InsertColumns/ops`` one by
    /// one would, without making them: the same checks as
    /// ``Snapshot/problem(applying:checkingPrimaryKey:pending:)`` makes for
    /// an insert (the next key, the value count, links to live objects,
    /// queued ones or earlier ones of the run), the primary keys checked
    /// when the batch is indexed.
    ///
    /// - Returns: why the run cannot be applied (nothing is applied then,
    ///   and the batch must be abandoned), or `nil`.
    mutating func apply(_ inserts: InsertColumns) -> String? {
        let t = inserts.table
        guard t.index < snapshot.tables.count else { return "table \(t) does not exist" }
        applyRun()
        var className: String { snapshot.schema.objectSchema[t.index].className }
        if let problem = snapshot.insertProblem(t, at: inserts.firstKey, valueCount: inserts.columns.count) { return problem }
        guard inserts.count > 0 else { return nil }
        var linkColumns: [Int] = []
        // By index: binding each column would copy it.
        for p in inserts.columns.indices {
            let count = inserts.columns[p].count
            guard count == inserts.count else { return "insert run of \(inserts.count) \(className) with \(count) values of property \(p)" }
            if inserts.columns[p].mayHoldLinks { linkColumns.append(p) }
        }
        /// The keys of typed link columns (`-1` for null), read without a
        /// `Value` or a copy of the column per object.
        let typedLinks: [(target: TableKey, keys: IntChunks)?] = linkColumns.map { p in
            inserts.columns[p].isTyped && inserts.columns[p].typed.kind == .link
                ? inserts.columns[p].typed.linkTarget.map { ($0, inserts.columns[p].typed.ints) } : nil
        }
        // One link column to another class whose targets ascend (a run of
        // dogs, each person's in turn): its backlinks are added a target at
        // a time, with no link made per object.
        if linkColumns.count == 1, let typed = typedLinks[0], typed.target != t,
            !(tracksEmbedded && embeddedTables[typed.target.index])
        {
            switch ascendingLinkGroups(typed.target, typed.keys) {
            case .groups(let groups):
                deferIndexing(t.index, from: inserts.firstKey.slot)
                snapshot.appendObjects(t, columns: inserts.columns, links: [])
                snapshot.addBacklinks(groups, target: typed.target, origin: t, property: linkColumns[0], firstKey: inserts.firstKey)
                indexAppended(t.index)
                return nil
            case .notLive(let link): return "link to \(link), which is not a live object"
            case .notAscending: break
            }
        }
        // Object by object, as single inserts would make the backlinks.
        var links: [(target: Link, backlink: Backlink)] = []
        if !linkColumns.isEmpty { links.reserveCapacity(inserts.count * linkColumns.count) }
        // The liveness leaf of the last target: links of a run tend to
        // point at neighbouring objects (a person's dogs, in order).
        var leaf: (table: Int, base: Int, alive: ContiguousArray<Bool>)?
        func isLive(_ link: Link) -> Bool {
            let ti = link.table.index, slot = link.key.slot
            guard ti < snapshot.tables.count, link.key.rawValue >= 0 else { return false }
            if let leaf, leaf.table == ti, slot >= leaf.base, slot < leaf.base + leaf.alive.count { return leaf.alive[slot - leaf.base] }
            guard let (base, alive) = snapshot.withTable(link.table, { slot < $0.pointee.alive.count ? $0.pointee.alive.chunk(containing: slot) : nil })
            else { return false }
            leaf = (ti, base, alive)
            return alive[slot - base]
        }
        for i in 0..<(linkColumns.isEmpty ? 0 : inserts.count) {
            let key = ObjectKey(inserts.firstKey.rawValue + Int64(i))
            for (n, p) in linkColumns.enumerated() {
                let link: Link
                if let typed = typedLinks[n] {
                    let k = typed.keys[i]
                    guard k >= 0 else { continue }
                    link = Link(table: typed.target, key: ObjectKey(k))
                } else {
                    guard case .link(let l) = inserts.columns[p][i] else { continue }
                    link = l
                }
                // An object of the run may link to one before it, as its
                // insert may link to a queued one.
                let isEarlier = link.table == t && link.key.rawValue >= inserts.firstKey.rawValue && link.key.rawValue < key.rawValue
                guard isEarlier || isLive(link) else {
                    return "link to \(link), which is not a live object"
                }
                links.append((link, Backlink(origin: t, property: p, key: key)))
                if tracksEmbedded, embeddedTables[link.table.index] { embeddedToCheck.insert(link) }
            }
        }
        if tracksEmbedded, embeddedTables[t.index] {
            for i in 0..<inserts.count { embeddedToCheck.insert(Link(table: t, key: ObjectKey(inserts.firstKey.rawValue + Int64(i)))) }
        }
        deferIndexing(t.index, from: inserts.firstKey.slot)
        snapshot.appendObjects(t, columns: inserts.columns, links: links)
        indexAppended(t.index)
        return nil
    }

    /// What ``ascendingLinkGroups(_:_:)`` found.
    private enum LinkGroups {
        /// The groups, targets ascending.
        case groups([LinkGroup])
        /// A link to an object that is not live.
        case notLive(Link)
        /// Targets that do not ascend.
        case notAscending
    }

    /// The links of a run's link column to `target` (a key per object, `-1`
    /// for null) as groups of consecutive objects linking to one object,
    /// when the targets ascend; checks that each target is live.
    ///
    /// Reads each leaf's runs of equal keys and their keys
    /// (``IntChunks/Leaf/runStarts(into:values:)``, a pass with no branch
    /// per key), then works per run: a person's ten dogs are one run,
    /// looked at once, and written into the groups' buffer in place.
    private func ascendingLinkGroups(_ target: TableKey, _ keys: IntChunks) -> LinkGroups {
        guard target.index < snapshot.tables.count else { return .notLive(Link(table: target, key: ObjectKey(keys.first { $0 >= 0 } ?? 0))) }
        return snapshot.withTable(target) { table in
            // With no object deleted, a key is live when it is below the slot count.
            let slotCount = Int64(table.pointee.alive.count)
            let everyLive = table.pointee.scanLiveness == nil
            let leafWidth = Swift.min(IntChunks.width, keys.count)
            let starts = UnsafeMutablePointer<Int32>.allocate(capacity: leafWidth)
            let runKeys = UnsafeMutablePointer<Int64>.allocate(capacity: leafWidth)
            /// A leaf's groups (at most one per run), appended to `groups`
            /// once per leaf: no uniqueness check or growth per group.
            let made = UnsafeMutablePointer<LinkGroup>.allocate(capacity: leafWidth)
            defer {
                starts.deallocate()
                runKeys.deallocate()
                made.deallocate()
            }
            var groups: [LinkGroup] = []
            var previous: Int64 = -1
            /// Where the open group started, if one is open.
            var start = -1
            for (n, leaf) in keys.leaves.enumerated() {
                let leafStart = n &<< IntChunks.bits
                let runs = leaf.runStarts(into: starts, values: runKeys)
                // As many groups per leaf as the first has, most likely.
                if n == 0 { groups.reserveCapacity(runs &* keys.leaves.count &+ 1) }
                var count = 0
                for r in 0..<runs {
                    let offset = Int(starts[r])
                    let key = runKeys[r]
                    // A run of the open group's key goes on with it (a
                    // group that crosses a leaf's end).
                    if start >= 0, key == previous { continue }
                    if start >= 0 {
                        // (A group closes at a run's start after the
                        // first, so a leaf closes at most `runs` of them.)
                        (made + count).initialize(to: LinkGroup(slot: Int(previous), objects: start..<(leafStart &+ offset)))
                        count &+= 1
                        start = -1
                    }
                    guard key >= 0 else { continue }
                    // A new target: after the last, and live.
                    guard key >= previous else { return .notAscending }
                    guard key < slotCount, everyLive || table.pointee.alive[Int(key)] else {
                        return .notLive(Link(table: target, key: ObjectKey(key)))
                    }
                    start = leafStart &+ offset
                    previous = key
                }
                groups.append(contentsOf: UnsafeBufferPointer(start: made, count: count))
            }
            if start >= 0 { groups.append(LinkGroup(slot: Int(previous), objects: start..<keys.count)) }
            return .groups(groups)
        }
    }

    /// Notes that objects from slot `start` of table `t` are being appended
    /// without their index entries, unless earlier ones already are.
    private mutating func deferIndexing(_ t: Int, from start: Int) {
        if unindexedFrom[t] == nil, background[t] != nil
            || snapshot.tables[t].primaryIndex != nil || snapshot.tables[t].hasSecondaryIndexes
        {
            unindexedFrom[t] = start
        }
    }

    /// Applies the pending run of inserts, if any.
    private mutating func applyRun() {
        guard let pending = run else { return }
        run = nil
        snapshot.appendObjects(pending.pending.table, columns: pending.columns, links: pending.links)
        indexAppended(pending.pending.table.index)
    }

    /// Hands the objects of table `t` not indexed yet to background
    /// indexing once there are enough of them.
    private mutating func indexAppended(_ t: Int) {
        let end = snapshot.tables[t].nextKey.slot
        if let start = unindexedFrom[t], end - start >= Self.backgroundIndexingThreshold {
            let job = background[t] ?? BackgroundIndexing(snapshot.tables[t].takeIndexes(schema: snapshot.schema.objectSchema[t]),
                className: snapshot.schema.objectSchema[t].className)
            background[t] = job
            handUnindexed(t, to: job)
        }
    }

    /// Queues the objects of table `t` not indexed yet, if any, on `job`'s
    /// primary key build, and notes them for its secondary ones.
    private mutating func handUnindexed(_ t: Int, to job: BackgroundIndexing) {
        guard let start = unindexedFrom.removeValue(forKey: t) else { return }
        let end = snapshot.tables[t].nextKey.slot
        let primary = job.primaryProperties
        if !primary.isEmpty { job.add(IndexInput(snapshot.tables[t], slots: start..<end, properties: primary, sharingLeaves: true)) }
        guard !job.secondaryProperties.isEmpty else { return }
        if let last = secondaryUnindexed[t]?.last, last.upperBound == start {
            secondaryUnindexed[t]![secondaryUnindexed[t]!.count - 1] = last.lowerBound..<end
        } else {
            secondaryUnindexed[t, default: []].append(start..<end)
        }
    }

    /// Queues the objects of table `t` noted for `job`'s secondary
    /// builds, if any, read from the table as it is now on the builds'
    /// threads: every op that changes an object of the table already in
    /// place finishes the job first.
    private mutating func handSecondary(_ t: Int, to job: BackgroundIndexing) {
        guard let ranges = secondaryUnindexed.removeValue(forKey: t) else { return }
        job.addSecondary(from: snapshot.tables[t], slots: ranges)
    }

    /// Waits for the indexes of table `t` being built on other threads, if
    /// any, and puts them back.
    ///
    /// - Returns: the first duplicate primary key they found, or `nil`.
    private mutating func joinBackground(_ t: Int) -> String? {
        guard let job = background.removeValue(forKey: t) else { return nil }
        handSecondary(t, to: job)
        let (builds, problem) = job.finish()
        snapshot.tables[t].restoreIndexes(builds)
        return problem
    }

    /// Appends `count` empty, dead slots to a table at once (restoring a
    /// snapshot, whose deleted objects come as gaps between runs, or
    /// migrating), so that object keys keep their slots.
    mutating func appendDeadSlots(_ t: TableKey, count: Int) {
        guard count > 0 else { return }
        applyRun()
        for p in snapshot.tables[t.index].scalars.indices {
            snapshot.tables[t.index].scalars[p].appendNulls(count)
        }
        snapshot.tables[t.index].appendSlots(count, alive: false)
    }

    /// Gives each packed integer leaf of ``snapshot`` whose bytes lie in
    /// `bytes` (a loaded snapshot's, adopted) a copy of its own
    /// (``Snapshot/copyLeaves(sharing:)``), before ``finish()`` hands the
    /// tables to the secondary index builds.
    mutating func copyLeaves(sharing bytes: [UInt8]) {
        snapshot.copyLeaves(sharing: bytes)
    }

    /// Indexes what is pending, completing ``snapshot``.
    ///
    /// - Returns: why the batch cannot be completed (a duplicate primary
    ///   key; the batch must be abandoned), or `nil`.
    ///
    /// A table indexed on other threads gets its secondary indexes while
    /// they are still being built (``PendingIndexes``): the batch's result
    /// is complete, and reading those indexes waits for them. Only the
    /// primary keys, which can make the batch fail, are waited for here;
    /// the secondary builds are given their objects once every table's
    /// primary keys are in, so that they do not take a core from those.
    mutating func finish() -> String? {
        applyRun()
        defer { embeddedToCheck = [] }
        var building: [(table: Int, job: BackgroundIndexing)] = []
        for t in Set(unindexedFrom.keys).union(background.keys).sorted() {
            if let job = background.removeValue(forKey: t) {
                handUnindexed(t, to: job)
                let (primary, problem) = job.finishPrimary()
                snapshot.tables[t].restoreIndexes(primary)
                if let problem { return problem }
                building.append((t, job))
            } else if let problem = indexPending(t) {
                return problem
            }
        }
        for (t, job) in building {
            handSecondary(t, to: job)
            if let secondary = job.deferSecondary() { snapshot.tables[t].adoptPendingSecondaryIndexes(secondary) }
        }
        return checksEmbeddedOwnership ? embeddedOwnershipProblem() : nil
    }

    /// Completes the indexes of table `t`: those built on other threads,
    /// then the objects not handed to them.
    private mutating func indexPending(_ t: Int) -> String? {
        if let problem = joinBackground(t) { return problem }
        guard let start = unindexedFrom.removeValue(forKey: t) else { return nil }
        return snapshot.tables[t].indexSlots(from: start, schema: snapshot.schema.objectSchema[t])
    }
}
