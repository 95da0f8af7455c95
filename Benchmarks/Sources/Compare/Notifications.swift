// W4, W5 and W8 of shared/WORKLOADS.md: change notifications, Shoal's
// observers against GRDB's ValueObservation, side by side.
//
// Every observer delivers on one serial queue per store. Where latency is
// measured, the runner waits for the awaited callback before the next
// commit; initial callbacks are awaited at registration and not measured.
// Each configuration runs in 10 blocks alternating the engines; an engine
// stops a configuration early once it has spent `--notify-budget` seconds
// on it, after at least one commit (GRDB refetches every observer's query
// after each commit, each in its own savepoint that every observer is told
// of, so at 1,000 observers and more it gets fewer samples; the log and the
// table's notes say how many).
import Dispatch
import Foundation
import Workloads

/// One engine's samples from one block of a notification workload.
struct NotifySample {
    var latencies: [UInt64] = []
    var commitCalls: [UInt64] = []
    var wallNs: UInt64 = 0
    var cpuNs: UInt64 = 0
    var commits = 0
}

/// The Shoal figures checked against the notification issues' targets, printed after the table.
@MainActor var targetLines: [String] = []

/// How many commits each engine measured per configuration, printed after the table.
@MainActor var sampleLines: [String] = []

/// An engine's time left for one configuration.
struct Budget {
    var leftNs: [String: Int64] = [:]
    let totalNs: Int64

    @MainActor init() { totalNs = Int64(options.notifyBudget) * 1_000_000_000 }

    /// Whether `engine` may make another commit; its first always may.
    func allows(_ engine: String, madeAny: Bool) -> Bool { !madeAny || leftNs[engine, default: totalNs] > 0 }

    mutating func spend(_ engine: String, _ ns: UInt64) { leftNs[engine, default: totalNs] -= Int64(ns) }
}

/// Runs a latency block: commits `dog(i)` one at a time (an age bump, or
/// `commit(i)` when given), waiting for the awaited callback after each,
/// until `count` commits or the engine's budget is spent.
@MainActor func latencyBlock(_ store: any ObservedStore, _ probe: Probe, count: Int, budget: inout Budget, engine: String,
    madeAny: Bool, what: String, commit: ((Int) throws -> Void)? = nil, dog: (Int) -> Int = { $0 }) throws -> NotifySample
{
    var sample = NotifySample()
    sample.latencies.reserveCapacity(count)
    let cpu0 = Measure.cpuNow(), wall0 = Measure.now()
    var last = wall0
    for i in 0..<count {
        let now = Measure.now()
        budget.spend(engine, now - last)
        last = now
        guard budget.allows(engine, madeAny: madeAny || i > 0) else { break }
        let t0 = Measure.now()
        if let commit { try commit(i) } else { try store.bumpAge(dog(i)) }
        let t1 = Measure.now()
        let arrived = probe.wait(what)
        sample.latencies.append(arrived - t0)
        sample.commitCalls.append(t1 - t0)
    }
    let end = Measure.now()
    budget.spend(engine, end - last)
    sample.wallNs = end - wall0
    sample.cpuNs = Measure.cpuNow() - cpu0
    sample.commits = sample.latencies.count
    return sample
}

/// Blocks and commits per block of one configuration.
@MainActor func blockPlan() -> (blocks: Int, perBlock: Int) {
    let blocks = 10
    return (blocks, max(1, options.notifyCommits / blocks))
}

@MainActor func logCounts(_ name: String, _ samples: (shoal: [NotifySample], grdb: [NotifySample])) {
    let s = samples.shoal.map(\.commits).reduce(0, +), g = samples.grdb.map(\.commits).reduce(0, +)
    log("  \(name): \(s) Shoal commits, \(g) GRDB commits measured")
    sampleLines.append("\(name): \(s) Shoal commits, \(g) GRDB commits measured")
}

@MainActor func recordLatencies(_ name: String, _ samples: (shoal: [NotifySample], grdb: [NotifySample]), p50Label: String, p99Label: String) {
    let s = samples.shoal.flatMap(\.latencies), g = samples.grdb.flatMap(\.latencies)
    record(name, p50Label, shoal: micros(Measure.quantile(s, 0.5)), grdb: micros(Measure.quantile(g, 0.5)), higherIsBetter: false)
    record(name, p99Label, shoal: micros(Measure.quantile(s, 0.99)), grdb: micros(Measure.quantile(g, 0.99)), higherIsBetter: false)
}

/// CPU µs per commit (every thread of the process) over the blocks.
func cpuPerCommit(_ samples: [NotifySample]) -> Double {
    micros(samples.map(\.cpuNs).reduce(0, +)) / Double(max(1, samples.map(\.commits).reduce(0, +)))
}

func wallPerCommit(_ samples: [NotifySample]) -> Double {
    micros(samples.map(\.wallNs).reduce(0, +)) / Double(max(1, samples.map(\.commits).reduce(0, +)))
}

// MARK: W4

/// W4: K observers, observer k on the dogs of owner k; commits change one
/// dog of owner 0; commit start to owner 0's callback.
@MainActor func runW4(_ data: Dataset) throws {
    let plan = blockPlan()
    var shoalP50: [Int: Double] = [:]
    for k in options.observers where k <= data.people.count {
        log("W4 latency: \(k) observers on \(data.dogs.count) dogs, \(plan.perBlock * plan.blocks) commits to owner 0's dogs, \(plan.blocks) alternating blocks")
        var stores: [String: (store: any ObservedStore, probe: Probe)] = [:]
        var registration: [String: UInt64] = [:]
        for engine in engines {
            let store = try engine.makeObserved(data)
            let probe = Probe(awaiting: 0)
            let ns = try Measure.time { try store.observeOwners(0..<k, nameOnly: false) { owner, changed in probe.hit(owner, changed: changed) } }.ns
            log("  \(engine.name): \(k) observers registered, initial callbacks delivered, in \(fmt(micros(ns) / 1000)) ms")
            stores[engine.name] = (store, probe)
            registration[engine.name] = ns
        }
        var next: [String: Int] = [:]
        var budget = Budget()
        let samples = try alternate(rounds: plan.blocks) { engine -> NotifySample in
            let (store, probe) = stores[engine.name]!
            let first = next[engine.name, default: 0]
            let sample = try latencyBlock(store, probe, count: plan.perBlock, budget: &budget, engine: engine.name,
                madeAny: first > 0, what: "W4 \(engine.name) K = \(k)", dog: { (first + $0) % Dataset.dogsPerOwner })
            next[engine.name] = first + sample.commits
            return sample
        }
        for (name, entry) in stores {
            try entry.store.drain()
            let counts = entry.probe.counts
            if counts.stray > 0 { log("  ⚠︎ \(name): \(counts.stray) callbacks from observers of other owners") }
            try entry.store.close()
        }
        let name = "W4.latency K=\(k)"
        logCounts(name, samples)
        recordLatencies(name, samples, p50Label: "commit→callback p50 µs", p99Label: "commit→callback p99 µs")
        let sCalls = samples.shoal.flatMap(\.commitCalls), gCalls = samples.grdb.flatMap(\.commitCalls)
        record(name, "commit call p50 µs", shoal: micros(Measure.median(sCalls)), grdb: micros(Measure.median(gCalls)), higherIsBetter: false)
        record(name, "CPU µs/commit (all threads)", shoal: cpuPerCommit(samples.shoal), grdb: cpuPerCommit(samples.grdb), higherIsBetter: false)
        record(name, "registering, to the last initial callback, ms", shoal: micros(registration["Shoal"]!) / 1000,
               grdb: micros(registration["GRDB"]!) / 1000, higherIsBetter: false)
        shoalP50[k] = micros(Measure.quantile(samples.shoal.flatMap(\.latencies), 0.5))
    }
    if let top = shoalP50.keys.max(), let p50 = shoalP50[top] {
        var line = "W4 p50 at K = \(top): \(fmt(p50)) µs (target ≤ 50 µs: \(p50 <= 50 ? "met" : "MISSED"))"
        if let one = shoalP50[1], top != 1 {
            let ratio = p50 / one
            line += "; ÷ K = 1 (\(fmt(one)) µs) = \(String(format: "%.2f", ratio))× (target ≤ 2×: \(ratio <= 2 ? "met" : "MISSED"))"
        }
        targetLines.append(line)
    }
}

// MARK: W5

/// W5: one observer on every dog sorted by age, then name; single-dog age
/// updates; time from commit start to the callback holding the changeset.
@MainActor func runW5(_ data: Dataset) throws {
    let plan = blockPlan()
    for n in options.sortedDogs {
        let sized = n == data.dogs.count ? data : Dataset(dogs: n)
        log("W5 sorted diff: \(n) dogs, \(plan.perBlock * plan.blocks) age updates, \(plan.blocks) alternating blocks")
        var stores: [String: (store: any ObservedStore, probe: Probe)] = [:]
        for engine in engines {
            let store = try engine.makeObserved(sized)
            let probe = Probe(awaiting: 0)
            let ns = try Measure.time { try store.observeSorted { changed in probe.hit(0, changed: changed) } }.ns
            log("  \(engine.name): sorted observer registered, initial callback delivered, in \(fmt(micros(ns) / 1000)) ms")
            stores[engine.name] = (store, probe)
        }
        var next: [String: Int] = [:]
        var budget = Budget()
        let samples = try alternate(rounds: plan.blocks) { engine -> NotifySample in
            let (store, probe) = stores[engine.name]!
            let first = next[engine.name, default: 0]
            let sample = try latencyBlock(store, probe, count: plan.perBlock, budget: &budget, engine: engine.name,
                madeAny: first > 0, what: "W5 \(engine.name) N = \(n)", dog: { ((first + $0) &* 7919) % n })
            next[engine.name] = first + sample.commits
            return sample
        }
        for (name, entry) in stores {
            let counts = entry.probe.counts
            log("  \(name): \(counts.callbacks) updates, \(counts.changed) changed indices in all")
            try entry.store.close()
        }
        let name = "W5.sorted N=\(n)"
        logCounts(name, samples)
        recordLatencies(name, samples, p50Label: "µs/notification p50", p99Label: "µs/notification p99")
        let p50 = micros(Measure.quantile(samples.shoal.flatMap(\.latencies), 0.5))
        let target: Double = n <= 10_000 ? 50 : 100
        targetLines.append("W5 at N = \(n): p50 \(fmt(p50)) µs per notification with its changeset (target ≤ \(fmt(target)) µs: \(p50 <= target ? "met" : "MISSED"))")
    }
}

// MARK: W7

/// W7: one observer on every dog sorted by name and sectioned by the first
/// letter of the name; single-dog renames; time from commit start to the
/// callback holding the sectioned changeset. Three stores alternate: Shoal's
/// incremental sections, Shoal's sorted results with the sections computed
/// afresh at each update (what Realm does), and GRDB refetching, grouping
/// and diffing.
@MainActor func runW7() throws {
    let plan = blockPlan()
    let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    for n in options.sectionDogs {
        let data = Dataset(dogs: n)
        log("W7 sections: \(n) dogs sectioned by first letter, \(plan.perBlock * plan.blocks) renames, \(plan.blocks) alternating blocks")
        let variants: [(name: String, engine: any Engine.Type, recompute: Bool)] = [
            ("Shoal", ShoalEngine.self, false), ("Shoal recompute", ShoalEngine.self, true), ("GRDB", GRDBEngine.self, false),
        ]
        var stores: [String: (store: any ObservedStore, probe: Probe)] = [:]
        for variant in variants {
            let store = try variant.engine.makeObserved(data)
            let probe = Probe(awaiting: 0)
            let ns = try Measure.time { try store.observeSections(recompute: variant.recompute) { probe.hit(0, changed: $0) } }.ns
            log("  \(variant.name): sections observer registered, initial callback delivered, in \(fmt(micros(ns) / 1000)) ms")
            stores[variant.name] = (store, probe)
        }
        var samples: [String: [NotifySample]] = [:]
        var next: [String: Int] = [:]
        var budget = Budget()
        for round in 0..<plan.blocks {
            for variant in round % 2 == 0 ? variants : variants.reversed() {
                let (store, probe) = stores[variant.name]!
                let first = next[variant.name, default: 0]
                let sample = try latencyBlock(store, probe, count: plan.perBlock, budget: &budget, engine: variant.name,
                    madeAny: first > 0, what: "W7 \(variant.name) N = \(n)", commit: { i in
                        let k = first + i
                        try store.rename((k &* 7919) % n, to: "\(letters[(k &* 7) % letters.count])ename \(k)")
                    })
                next[variant.name] = first + sample.commits
                samples[variant.name, default: []].append(sample)
            }
        }
        for (name, entry) in stores {
            let counts = entry.probe.counts
            log("  \(name): \(counts.callbacks) updates, \(counts.changed) changed index paths and sections in all")
            try entry.store.close()
        }
        let name = "W7.sections N=\(n)"
        let incremental = samples["Shoal"] ?? [], recompute = samples["Shoal recompute"] ?? [], grdb = samples["GRDB"] ?? []
        let count = { (s: [NotifySample]) in s.map(\.commits).reduce(0, +) }
        let counted = "\(count(incremental)) Shoal, \(count(recompute)) Shoal-recompute, \(count(grdb)) GRDB commits measured"
        log("  \(name): \(counted)")
        sampleLines.append("\(name): \(counted)")
        recordLatencies(name, (incremental, grdb), p50Label: "µs/sectioned changeset p50", p99Label: "µs/sectioned changeset p99")
        let p50 = micros(Measure.quantile(incremental.flatMap(\.latencies), 0.5))
        let full = micros(Measure.quantile(recompute.flatMap(\.latencies), 0.5))
        record(name, "Shoal full recompute (Realm's way) p50 µs, against GRDB", shoal: full,
               grdb: micros(Measure.quantile(grdb.flatMap(\.latencies), 0.5)), higherIsBetter: false)
        targetLines.append("W7 at N = \(n): p50 \(fmt(p50)) µs per sectioned changeset (target ≤ 100 µs: \(p50 <= 100 ? "met" : "MISSED")); "
            + "full recompute \(fmt(full)) µs, \(fmt(full / max(p50, 0.001)))× the incremental")
    }
}

// MARK: W8

/// W8: observers filtered to `name`; commits change only `age` of their
/// dogs; callbacks (must be 0) and the cost per commit against a store
/// without observers.
@MainActor func runW8(_ data: Dataset) throws {
    let plan = blockPlan()
    let k = min(options.filteredObservers, data.people.count)
    let observedDogs = k * Dataset.dogsPerOwner
    log("W8 key-path filter: \(k) observers of [\"name\"] on \(data.dogs.count) dogs, \(plan.perBlock * plan.blocks) age-only commits "
        + "to their dogs, against a store without observers, \(plan.blocks) alternating blocks")
    var observed: [String: (store: any ObservedStore, probe: Probe)] = [:]
    var bare: [String: any ObservedStore] = [:]
    for engine in engines {
        let store = try engine.makeObserved(data)
        let probe = Probe(awaiting: nil)
        let ns = try Measure.time { try store.observeOwners(0..<k, nameOnly: true) { owner, changed in probe.hit(owner, changed: changed) } }.ns
        log("  \(engine.name): \(k) filtered observers registered in \(fmt(micros(ns) / 1000)) ms")
        observed[engine.name] = (store, probe)
        bare[engine.name] = try engine.makeObserved(data)
    }
    var round = 0
    var next: [String: Int] = [:]
    var budget = Budget()
    let samples = try alternate(rounds: plan.blocks) { engine -> (observed: NotifySample, bare: NotifySample) in
        let first = next[engine.name, default: 0]
        var result = (observed: NotifySample(), bare: NotifySample())
        // The budget counts the observed variant's time, and stops both alike.
        let count = budget.allows(engine.name, madeAny: first > 0) ? plan.perBlock : 0
        // Alternate which variant goes first, too.
        for observedFirst in (round % 4 < 2 ? [true, false] : [false, true]) {
            let store = observedFirst ? observed[engine.name]!.store : bare[engine.name]!
            var sample = NotifySample()
            let cpu0 = Measure.cpuNow(), wall0 = Measure.now()
            for i in 0..<count {
                try store.bumpAge(((first + i) &* 7919) % observedDogs)
                sample.commits += 1
            }
            try store.drain()
            sample.wallNs = Measure.now() - wall0
            if observedFirst { budget.spend(engine.name, sample.wallNs) }
            sample.cpuNs = Measure.cpuNow() - cpu0
            if observedFirst { result.observed = sample } else { result.bare = sample }
        }
        next[engine.name] = first + min(result.observed.commits, result.bare.commits)
        round += 1
        return result
    }
    let s = observed["Shoal"]!.probe.counts, g = observed["GRDB"]!.probe.counts
    for entry in observed.values { try entry.store.close() }
    for store in bare.values { try store.close() }
    let name = "W8.keypath-filter"
    let sObs = samples.shoal.map(\.observed), sBare = samples.shoal.map(\.bare)
    let gObs = samples.grdb.map(\.observed), gBare = samples.grdb.map(\.bare)
    let counted = "\(sObs.map(\.commits).reduce(0, +)) Shoal commits, \(gObs.map(\.commits).reduce(0, +)) GRDB commits measured per variant"
    log("  \(name): \(counted)")
    sampleLines.append("\(name): \(counted)")
    record(name, "callbacks after the initial ones", shoal: Double(s.callbacks), grdb: Double(g.callbacks), higherIsBetter: false)
    record(name, "µs/commit, \(k) observers (drained)", shoal: wallPerCommit(sObs), grdb: wallPerCommit(gObs), higherIsBetter: false)
    record(name, "µs/commit, no observers", shoal: wallPerCommit(sBare), grdb: wallPerCommit(gBare), higherIsBetter: false)
    let sRatio = wallPerCommit(sObs) / wallPerCommit(sBare), gRatio = wallPerCommit(gObs) / wallPerCommit(gBare)
    record(name, "observed ÷ no observers", shoal: sRatio, grdb: gRatio, higherIsBetter: false)
    record(name, "CPU µs/commit, \(k) observers", shoal: cpuPerCommit(sObs), grdb: cpuPerCommit(gObs), higherIsBetter: false)
    record(name, "CPU µs/commit, no observers", shoal: cpuPerCommit(sBare), grdb: cpuPerCommit(gBare), higherIsBetter: false)
    targetLines.append("W8: \(s.callbacks) callbacks (target 0: \(s.callbacks == 0 ? "met" : "MISSED")); commit cost with \(k) observers ÷ none = "
        + "\(String(format: "%.2f", sRatio))× (target ≤ 1.5×: \(sRatio <= 1.5 ? "met" : "MISSED"))")
}

// MARK: Profiling

/// A profiling body for W4.latency, W5.sorted or W8.keypath-filter: one
/// engine's store with its observers, 100 commits per call.
@MainActor func notificationProfile(_ name: String, engine: any Engine.Type, data: Dataset) throws -> (body: () throws -> Void, cleanup: () throws -> Void)? {
    var i = 0
    switch name {
    case "W4.latency":
        let k = min(options.observers.max() ?? 10_000, data.people.count)
        let store = try engine.makeObserved(data)
        let probe = Probe(awaiting: 0)
        try store.observeOwners(0..<k, nameOnly: false) { owner, changed in probe.hit(owner, changed: changed) }
        log("\(k) observers registered")
        return ({
            for _ in 0..<100 {
                try store.bumpAge(i % Dataset.dogsPerOwner)
                _ = probe.wait(name)
                i += 1
            }
        }, { try store.close() })
    case "W5.sorted":
        let n = options.sortedDogs.max() ?? data.dogs.count
        let sized = n == data.dogs.count ? data : Dataset(dogs: n)
        let store = try engine.makeObserved(sized)
        let probe = Probe(awaiting: 0)
        try store.observeSorted { changed in probe.hit(0, changed: changed) }
        return ({
            for _ in 0..<100 {
                try store.bumpAge((i &* 7919) % n)
                _ = probe.wait(name)
                i += 1
            }
        }, { try store.close() })
    case "W7.sections":
        let n = options.sectionDogs.max() ?? data.dogs.count
        let store = try engine.makeObserved(n == data.dogs.count ? data : Dataset(dogs: n))
        let probe = Probe(awaiting: 0)
        try store.observeSections(recompute: false) { changed in probe.hit(0, changed: changed) }
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        return ({
            for _ in 0..<100 {
                try store.rename((i &* 7919) % n, to: "\(letters[(i &* 7) % letters.count])ename \(i)")
                _ = probe.wait(name)
                i += 1
            }
        }, { try store.close() })
    case "W8.keypath-filter":
        let k = min(options.filteredObservers, data.people.count)
        let store = try engine.makeObserved(data)
        try store.observeOwners(0..<k, nameOnly: true) { _, _ in fatalError("W8: a callback fired") }
        return ({
            for _ in 0..<100 {
                try store.bumpAge((i &* 7919) % (k * Dataset.dogsPerOwner))
                i += 1
            }
            try store.drain()
        }, { try store.close() })
    default:
        return nil
    }
}
