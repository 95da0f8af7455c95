// Runs the workloads of shared/WORKLOADS.md against Shoal and GRDB in ONE
// process, alternating the engines round by round, and prints a table of
// Shoal/GRDB ratios. Absolute times on shared machines drift between runs;
// ratios taken side by side in the same run hold.
//
//   swift run -c release compare [--dogs N] [--commits M] [--lookups L]
//       [--queries Q] [--rounds R] [--reopen-dogs N] [--only W1,W2,...]
//       [--observers 1,100,1000,10000] [--sorted-dogs 10000,100000]
//       [--filtered-observers K] [--notify-commits C] [--notify-budget S]
//       [--sustain-seconds S] [--sustain-writers W] [--sustain-observers K] [--sustain-rounds R]
import Foundation
import Workloads

// MARK: Options

struct Options {
    var dogs = 100_000
    var commits = 10_000
    /// W6: single-dog commits after the bulk insert, for the stores with a history.
    var historyCommits = 100_000
    var lookups = 100_000
    var queries = 20
    var rounds = 3
    /// W3.pk-range: also log every query's time, in order.
    var samples = false
    var reopenDogs = 100_000
    var only: Set<String>? = nil
    /// Profiling mode: run one engine's workload in a loop for `seconds`.
    var profile: String? = nil
    var engine = "Shoal"
    var seconds = 20
    /// Profiling W6: a store to reopen; populated only if it does not exist
    /// yet, so that a profiler can watch a process that only reopens.
    var store: String? = nil
    /// W4: the numbers of observers, one run each.
    var observers = [1, 100, 1_000, 10_000]
    /// W5: the numbers of dogs, one run each.
    var sortedDogs = [10_000, 100_000]
    /// W7: the numbers of dogs, one run each.
    var sectionDogs = [10_000, 100_000, 1_000_000]
    /// W8: observers filtered to `name`.
    var filteredObservers = 1_000
    /// W4, W5, W8: commits per configuration and engine.
    var notifyCommits = 1_000
    /// W4, W5, W8: seconds an engine may spend on one configuration's
    /// commits before it stops with fewer samples.
    var notifyBudget = 15
    /// W12: seconds of writing per configuration.
    var sustainSeconds = 10
    /// W12: writer threads.
    var sustainWriters = 4
    /// W12: observers in the configuration with observers.
    var sustainObservers = 100
    /// W12: rounds of the four configurations (medians over them).
    var sustainRounds = 1
    /// W12: only the observers of these kinds (`SustainedObserver.shortKind`)
    /// out of the mix of `sustainObservers`.
    var sustainKinds: Set<String>? = nil
    /// W12: log each child's delays per 100 ms of commits.
    var sustainTrace = false
    /// W12: run one configuration in this process (engine, "observed" or
    /// "bare") and print its result; the parent `compare` starts these.
    var sustainChild: (engine: String, observed: Bool)? = nil

    init(_ arguments: [String]) {
        var it = arguments.dropFirst().makeIterator()
        while let flag = it.next() {
            func int() -> Int {
                guard let s = it.next(), let v = Int(s.replacingOccurrences(of: "_", with: "")) else {
                    fatalError("\(flag) needs a number")
                }
                return v
            }
            func ints() -> [Int] {
                let list = (it.next() ?? "").split(separator: ",").compactMap { Int($0.replacingOccurrences(of: "_", with: "")) }
                guard !list.isEmpty else { fatalError("\(flag) needs a comma-separated list of numbers") }
                return list
            }
            switch flag {
            case "--dogs": dogs = int()
            case "--commits": commits = int()
            case "--history-commits": historyCommits = int()
            case "--lookups": lookups = int()
            case "--queries": queries = int()
            case "--rounds": rounds = int()
            case "--samples": samples = true
            case "--reopen-dogs": reopenDogs = int()
            case "--profile": profile = it.next()
            case "--engine": engine = it.next() ?? "Shoal"
            case "--seconds": seconds = int()
            case "--store": store = it.next()
            case "--observers": observers = ints()
            case "--sorted-dogs": sortedDogs = ints()
            case "--section-dogs": sectionDogs = ints()
            case "--filtered-observers": filteredObservers = int()
            case "--notify-commits": notifyCommits = int()
            case "--notify-budget": notifyBudget = int()
            case "--sustain-seconds": sustainSeconds = int()
            case "--sustain-writers": sustainWriters = int()
            case "--sustain-observers": sustainObservers = int()
            case "--sustain-rounds": sustainRounds = int()
            case "--sustain-kinds": sustainKinds = Set((it.next() ?? "").split(separator: ",").map(String.init))
            case "--sustain-trace": sustainTrace = true
            case "--w12-child":
                let engine = it.next() ?? "Shoal"
                sustainChild = (engine, it.next() == "observed")
            case "--only": only = Set((it.next() ?? "").split(separator: ",").map { String($0).uppercased() })
            case "-h", "--help":
                print("""
                    usage: compare [--dogs N] [--commits M] [--lookups L] [--queries Q] [--rounds R] [--samples] [--reopen-dogs N] [--history-commits H] [--only W1,W2,W3,W4,W5,W6,W7,W8,W9,W10,W12]
                                   [--observers 1,100,1000,10000] [--sorted-dogs 10000,100000] [--section-dogs 10000,100000,1000000]
                                   [--filtered-observers K]
                                   [--notify-commits C] [--notify-budget S]
                                   [--sustain-seconds 10] [--sustain-writers 4] [--sustain-observers 100] [--sustain-rounds 1]
                                   [--sustain-kinds filtered,sorted,object,list,sectioned,async,actor] [--sustain-trace]
                           compare --profile W1.insert-memory|W2.commit-durable|W3.range-sorted|W3.pk-range[-alternating]|W6.reopen[-compacted|-history]|W4.latency|W5.sorted|W7.sections|W8.keypath-filter|...
                                   [--engine Shoal|GRDB] [--seconds S] [--store PATH]
                             (one engine's workload in a loop, for perf record; W6 with --store reopens PATH,
                              populating it only if it does not exist; W4 with the largest --observers,
                              W5 with the largest --sorted-dogs, W7 with the largest --section-dogs, 100 commits per iteration)
                    """)
                exit(0)
            default: fatalError("unknown option \(flag)")
            }
        }
    }

    func runs(_ w: String) -> Bool { only?.contains(w) ?? true }
}

let options = Options(CommandLine.arguments)
let engines: [any Engine.Type] = [ShoalEngine.self, GRDBEngine.self]

// MARK: W12 child

if let child = options.sustainChild {
    try runW12Child(engineName: child.engine, observed: child.observed)
    exit(0)
}

// MARK: Output

struct Row {
    var workload: String
    var metric: String
    var shoal: Double
    var grdb: Double
    /// Whether a higher value is better (throughput) or lower (latency, bytes).
    var higherIsBetter: Bool
}

var rows: [Row] = []

func fmt(_ v: Double) -> String {
    if v == 0 { return "0" }
    if abs(v) >= 100 { return String(format: "%.0f", v).withThousandsSeparators }
    if abs(v) >= 10 { return String(format: "%.1f", v) }
    if abs(v) >= 1 { return String(format: "%.2f", v) }
    return String(format: "%.3f", v)
}

extension String {
    var withThousandsSeparators: String {
        let negative = hasPrefix("-")
        let digits = negative ? String(dropFirst()) : self
        var out = ""
        for (i, c) in digits.reversed().enumerated() {
            if i > 0 && i % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (negative ? "-" : "") + String(out.reversed())
    }
}

@MainActor func record(_ workload: String, _ metric: String, shoal: Double, grdb: Double, higherIsBetter: Bool) {
    let row = Row(workload: workload, metric: metric, shoal: shoal, grdb: grdb, higherIsBetter: higherIsBetter)
    rows.append(row)
    let ratio = grdb == 0 ? "-" : String(format: "%.2f", shoal / grdb)
    log("  \(workload) \(metric): Shoal \(fmt(shoal))  GRDB \(fmt(grdb))  Shoal/GRDB \(ratio)")
}

func log(_ s: String) {
    FileHandle.standardError.write((s + "\n").data(using: .utf8)!)
}

/// Runs `body` for each engine, alternating Shoal and GRDB, `rounds` times
/// (the first engine of each round alternates too), and returns each
/// engine's samples.
@MainActor func alternate<T>(rounds: Int, _ body: (any Engine.Type) throws -> T) rethrows -> (shoal: [T], grdb: [T]) {
    var shoal: [T] = []
    var grdb: [T] = []
    for round in 0..<rounds {
        let order = round % 2 == 0 ? engines : engines.reversed()
        for engine in order {
            let value = try body(engine)
            if engine == ShoalEngine.self { shoal.append(value) } else { grdb.append(value) }
        }
    }
    return (shoal, grdb)
}

func seconds(_ ns: UInt64) -> Double { Double(ns) / 1e9 }
func micros(_ ns: UInt64) -> Double { Double(ns) / 1e3 }

// MARK: Profiling mode

if let name = options.profile {
    let engine: any Engine.Type = options.engine.lowercased() == "grdb" ? GRDBEngine.self : ShoalEngine.self
    let data = Dataset(dogs: options.dogs)
    let parts = name.split(separator: "-", maxSplits: 1).map(String.init)
    let variant = parts.count > 1 ? parts[1] : ""
    var body: () throws -> Void
    var cleanup: () throws -> Void = {}
    switch name {
    case "W1.insert-memory", "W1.insert-durable", "W1.insert-relaxed":
        let storage = Storage(rawValue: variant)!
        body = {
            let path = Disk.scratch("profile")
            _ = try engine.insertAll(data, storage: storage, path: path)
            Disk.remove(path)
        }
    case "W2.commit-durable", "W2.commit-relaxed":
        let path = Disk.scratch("profile")
        let committer = try engine.makeCommitter(data, storage: Storage(rawValue: variant)!, path: path)
        var i = 0
        body = {
            for _ in 0..<100 { try committer.commit(i &* 7919); i += 1 }
        }
        cleanup = { try committer.close(); Disk.remove(path) }
    case "W3.pk-range-alternating":
        // As `compare` times it: each query after the other engine's, so
        // that the profile sees the cold caches the timed run sees.
        let other: any Engine.Type = engine == ShoalEngine.self ? GRDBEngine.self : ShoalEngine.self
        let (queries, others) = (try engine.makeQueries(data), try other.makeQueries(data))
        let starts = data.pkRangeStarts(options.queries)
        body = {
            for x in starts {
                _ = try others.pkRange(x, x + Dataset.pkRangeWidth - 1)
                _ = try queries.pkRange(x, x + Dataset.pkRangeWidth - 1)
            }
        }
    case "W3.range-sorted", "W3.pk-lookup", "W3.pk-range", "W3.count-breed":
        let queries = try engine.makeQueries(data)
        let keys = data.lookupKeys(options.lookups)
        let starts = data.pkRangeStarts(options.queries)
        body = {
            switch name {
            case "W3.range-sorted": _ = try queries.rangeSorted()
            case "W3.pk-lookup": _ = try queries.lookup(keys)
            case "W3.pk-range": for x in starts { _ = try queries.pkRange(x, x + Dataset.pkRangeWidth - 1) }
            default: _ = try queries.countBreed("Pug")
            }
        }
    case "W6.reopen", "W6.reopen-compacted", "W6.reopen-history":
        let path = options.store ?? Disk.scratch("profile")
        if options.store == nil || !FileManager.default.fileExists(atPath: path) {
            if name == "W6.reopen-history" {
                try engine.populate(data, path: path, thenCommits: options.historyCommits)
            } else {
                try engine.populate(data, path: path, compact: name == "W6.reopen-compacted")
            }
        }
        var firstResults: [UInt64] = []
        body = { firstResults.append(try engine.reopenAndCount(path: path, breed: "Pug").firstResultNs) }
        cleanup = {
            let ms = firstResults.sorted().map { fmt(micros($0) / 1000) }
            log("to first result: median \(ms[ms.count / 2]) ms, quartiles \(ms[ms.count / 4])–\(ms[ms.count * 3 / 4]), min \(ms.first!), max \(ms.last!)")
            if options.store == nil { Disk.remove(path) }
        }
    default:
        guard let profile = try notificationProfile(name, engine: engine, data: data) else {
            fatalError("unknown workload \(name)")
        }
        (body, cleanup) = profile
    }
    log("profiling \(engine.name) \(name) for \(options.seconds) s (pid \(getpid()))")
    let deadline = Measure.now() + UInt64(options.seconds) * 1_000_000_000
    var iterations = 0
    let began = Measure.now()
    while Measure.now() < deadline {
        try body()
        iterations += 1
    }
    log("\(iterations) iterations, \(fmt(micros(Measure.now() - began) / 1000 / Double(iterations))) ms each")
    try cleanup()
    exit(0)
}

// MARK: Workloads

let start = Measure.now()
log("Generating \(options.dogs) dogs (seed 42)…")
let data = Dataset(dogs: options.dogs)
let hostname = ProcessInfo.processInfo.hostName
let cpus = ProcessInfo.processInfo.activeProcessorCount
log("host \(hostname), \(cpus) CPUs, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB")

var w1DurableBytes: (shoal: Int64, grdb: Int64) = (0, 0)

if options.runs("W1") {
    for storage in Storage.allCases {
        log("W1 insert-\(storage.rawValue): \(options.dogs) dogs + \(data.people.count) people in one transaction, \(options.rounds) rounds")
        let samples = try alternate(rounds: options.rounds) { engine -> (ns: UInt64, bytes: Int64) in
            let path = Disk.scratch("w1-\(engine.name)-\(storage.rawValue)")
            defer { Disk.remove(path) }
            let measured = try Measure.time { try engine.insertAll(data, storage: storage, path: path) }
            return (measured.ns, measured.value)
        }
        let shoalNs = Measure.median(samples.shoal.map(\.ns))
        let grdbNs = Measure.median(samples.grdb.map(\.ns))
        let n = Double(options.dogs)
        record("W1.insert-\(storage.rawValue)", "dogs/s", shoal: n / seconds(shoalNs), grdb: n / seconds(grdbNs), higherIsBetter: true)
        if storage != .memory {
            let sb = samples.shoal.last!.bytes
            let gb = samples.grdb.last!.bytes
            if storage == .durable { w1DurableBytes = (sb, gb) }
            record("W1.insert-\(storage.rawValue)", "bytes on disk", shoal: Double(sb), grdb: Double(gb), higherIsBetter: false)
        }
    }
}

if options.runs("W2") {
    for storage in [Storage.durable, .relaxed] {
        let blocks = 10
        let perBlock = max(1, options.commits / blocks)
        log("W2 commit-\(storage.rawValue): \(perBlock * blocks) single-object commits on \(options.dogs) dogs, \(blocks) alternating blocks")
        var committers: [String: any Committer] = [:]
        var paths: [String] = []
        for engine in engines {
            let path = Disk.scratch("w2-\(engine.name)-\(storage.rawValue)")
            paths.append(path)
            committers[engine.name] = try engine.makeCommitter(data, storage: storage, path: path)
        }
        var next = 0
        let samples = try alternate(rounds: blocks) { engine -> (total: UInt64, latencies: [UInt64]) in
            let committer = committers[engine.name]!
            var latencies: [UInt64] = []
            latencies.reserveCapacity(perBlock)
            let blockStart = Measure.now()
            for i in 0..<perBlock {
                let t0 = Measure.now()
                try committer.commit(next &+ i &* 7919)
                latencies.append(Measure.now() - t0)
            }
            next += perBlock
            return (Measure.now() - blockStart, latencies)
        }
        for committer in committers.values { try committer.close() }
        for path in paths { Disk.remove(path) }
        let commits = Double(perBlock * blocks)
        let shoalLat = samples.shoal.flatMap(\.latencies)
        let grdbLat = samples.grdb.flatMap(\.latencies)
        let shoalTotal = samples.shoal.map(\.total).reduce(0, +)
        let grdbTotal = samples.grdb.map(\.total).reduce(0, +)
        let name = "W2.commit-\(storage.rawValue)"
        record(name, "commits/s", shoal: commits / seconds(shoalTotal), grdb: commits / seconds(grdbTotal), higherIsBetter: true)
        record(name, "p50 µs", shoal: micros(Measure.quantile(shoalLat, 0.5)), grdb: micros(Measure.quantile(grdbLat, 0.5)), higherIsBetter: false)
        record(name, "p99 µs", shoal: micros(Measure.quantile(shoalLat, 0.99)), grdb: micros(Measure.quantile(grdbLat, 0.99)), higherIsBetter: false)
    }
}

if options.runs("W3") || options.runs("W9") {
    log("W3: seeding in-memory stores with \(options.dogs) dogs")
    var heap: [String: Int] = [:]
    var queries: [String: any Queries] = [:]
    for engine in engines {
        let before = Measure.heapBytes()
        queries[engine.name] = try engine.makeQueries(data)
        heap[engine.name] = Measure.heapBytes() - before
    }
    if options.runs("W9") {
        let raw = data.dogs.reduce(0) { $0 + 8 + $1.name.utf8.count + 8 + $1.breed.utf8.count + 8 }
            + data.people.reduce(0) { $0 + 8 + $1.name.utf8.count + $1.city.utf8.count }
        let n = Double(options.dogs)
        log("W9: raw value bytes per dog (incl. its share of people) \(fmt(Double(raw) / n))")
        record("W9.memory", "heap bytes/dog", shoal: Double(heap["Shoal"]!) / n, grdb: Double(heap["GRDB"]!) / n, higherIsBetter: false)
        record("W9.memory", "heap ÷ raw bytes", shoal: Double(heap["Shoal"]!) / Double(raw), grdb: Double(heap["GRDB"]!) / Double(raw), higherIsBetter: false)
    }
    if options.runs("W3") {
        // Check both engines agree before timing anything.
        let s = queries["Shoal"]!, g = queries["GRDB"]!
        let keys = data.lookupKeys(options.lookups)
        let starts = data.pkRangeStarts(options.queries)
        let width = Dataset.pkRangeWidth
        let checks = try [
            (s.rangeSorted(), g.rangeSorted(), "range-sorted"), (s.countBreed("Pug"), g.countBreed("Pug"), "count-breed"),
            (s.lookup(Array(keys.prefix(1000))), g.lookup(Array(keys.prefix(1000))), "pk-lookup"),
            (s.pkRange(starts[0], starts[0] + width - 1), g.pkRange(starts[0], starts[0] + width - 1), "pk-range"),
        ]
        for (a, b, what) in checks where a != b { fatalError("\(what): Shoal \(a) ≠ GRDB \(b)") }

        log("W3.range-sorted: \(options.queries) queries per engine")
        let range = try alternate(rounds: options.queries) { engine in
            try Measure.time { try queries[engine.name]!.rangeSorted() }.ns
        }
        record("W3.range-sorted", "ms/query (median)", shoal: micros(Measure.median(range.shoal)) / 1000,
               grdb: micros(Measure.median(range.grdb)) / 1000, higherIsBetter: false)

        log("W3.pk-lookup: \(options.lookups) lookups, \(options.rounds) rounds")
        let lookups = try alternate(rounds: options.rounds) { engine in
            try Measure.time { try queries[engine.name]!.lookup(keys) }.ns
        }
        let l = Double(options.lookups)
        record("W3.pk-lookup", "lookups/s", shoal: l / seconds(Measure.median(lookups.shoal)),
               grdb: l / seconds(Measure.median(lookups.grdb)), higherIsBetter: true)

        log("W3.pk-range: \(options.queries) queries per engine, id BETWEEN {x, x + \(width - 1)}")
        var r = 0
        let pkRanges = try alternate(rounds: options.queries) { engine -> UInt64 in
            let x = starts[r / 2]
            r += 1
            return try Measure.time { try queries[engine.name]!.pkRange(x, x + width - 1) }.ns
        }
        if options.samples {
            // Round r runs Shoal first when r is even: Shoal's odd samples
            // follow a GRDB query (its caches cold), its even ones (after
            // the first) its own.
            log("W3.pk-range Shoal samples µs (in order): \(pkRanges.shoal.map { Int($0 / 1000) })")
            log("W3.pk-range GRDB samples µs (in order): \(pkRanges.grdb.map { Int($0 / 1000) })")
        }
        record("W3.pk-range", "ms/query (median)", shoal: micros(Measure.median(pkRanges.shoal)) / 1000,
               grdb: micros(Measure.median(pkRanges.grdb)) / 1000, higherIsBetter: false)

        log("W3.count-breed: \(options.queries) queries per engine")
        var q = 0
        let counts = try alternate(rounds: options.queries) { engine -> UInt64 in
            q += 1
            let breed = Dataset.breeds[(q / 2) % Dataset.breeds.count]
            return try Measure.time { try queries[engine.name]!.countBreed(breed) }.ns
        }
        record("W3.count-breed", "ms/query (median)", shoal: micros(Measure.median(counts.shoal)) / 1000,
               grdb: micros(Measure.median(counts.grdb)) / 1000, higherIsBetter: false)
    }
    queries.removeAll()
}

if options.runs("W6") || options.runs("W10") {
    let reopenData = options.reopenDogs == options.dogs ? data : Dataset(dogs: options.reopenDogs)
    let n = Double(options.reopenDogs)
    log("W6/W10: durable stores of \(options.reopenDogs) dogs")
    // Shoal's log as written by one big transaction, Shoal after compaction, and SQLite.
    let shoalLogPath = Disk.scratch("w6-shoal-log")
    let shoalSnapPath = Disk.scratch("w6-shoal-snap")
    let grdbPath = Disk.scratch("w6-grdb")
    let shoalHistoryPath = Disk.scratch("w6-shoal-history")
    defer { for p in [shoalLogPath, shoalSnapPath, grdbPath, shoalHistoryPath] { Disk.remove(p) } }
    try ShoalEngine.populate(reopenData, path: shoalLogPath, compact: false)
    try GRDBEngine.populate(reopenData, path: grdbPath, compact: false)
    try ShoalEngine.populate(reopenData, path: shoalSnapPath, compact: false)
    let compactNs = try Measure.time { try ShoalEngine.compactStore(path: shoalSnapPath) }.ns
    let logBytes = Disk.bytes(shoalLogPath), snapBytes = Disk.bytes(shoalSnapPath), grdbBytes = Disk.bytes(grdbPath)
    if options.runs("W10") {
        record("W10.log", "bytes/dog (log)", shoal: Double(logBytes) / n, grdb: Double(grdbBytes) / n, higherIsBetter: false)
        record("W10.log", "bytes/dog (compacted)", shoal: Double(snapBytes) / n, grdb: Double(grdbBytes) / n, higherIsBetter: false)
        log("  W10 Shoal compaction of \(options.reopenDogs) dogs: \(fmt(seconds(compactNs) * 1000)) ms")
    }
    if options.runs("W6") {
        let expected = reopenData.dogs.filter { $0.breed == "Pug" }.count
        var logNs: [UInt64] = [], snapNs: [UInt64] = [], grdbNs: [UInt64] = []
        var logCloseNs: [UInt64] = [], snapCloseNs: [UInt64] = []
        var logFloorNs: [UInt64] = [], snapFloorNs: [UInt64] = []
        var logPayload: Int64 = 0, snapPayload: Int64 = 0
        for _ in 0..<options.rounds {
            let a = try Measure.time { try ShoalEngine.reopenAndCount(path: shoalLogPath, breed: "Pug") }
            let b = try Measure.time { try ShoalEngine.reopenAndCount(path: shoalSnapPath, breed: "Pug") }
            let c = try GRDBEngine.reopenAndCount(path: grdbPath, breed: "Pug")
            precondition(a.value.count == expected && b.value.count == expected && c.count == expected, "reopen counts differ")
            logNs.append(a.value.firstResultNs); snapNs.append(b.value.firstResultNs); grdbNs.append(c.firstResultNs)
            logCloseNs.append(a.ns - a.value.firstResultNs); snapCloseNs.append(b.ns - b.value.firstResultNs)
            let d = try Measure.time { try ShoalEngine.decompressOnly(path: shoalLogPath) }
            let e = try Measure.time { try ShoalEngine.decompressOnly(path: shoalSnapPath) }
            logFloorNs.append(d.ns); snapFloorNs.append(e.ns)
            logPayload = d.value; snapPayload = e.value
        }
        record("W6.reopen-log", "ms to first result", shoal: micros(Measure.median(logNs)) / 1000,
               grdb: micros(Measure.median(grdbNs)) / 1000, higherIsBetter: false)
        record("W6.reopen-compacted", "ms to first result", shoal: micros(Measure.median(snapNs)) / 1000,
               grdb: micros(Measure.median(grdbNs)) / 1000, higherIsBetter: false)
        let logS = seconds(Measure.median(logNs)), snapS = seconds(Measure.median(snapNs))
        log("  W6 Shoal log read: \(fmt(Double(logBytes) / 1e6 / logS)) MB/s of log, "
            + "\(fmt(Double(logPayload) / 1e6 / logS)) MB/s decoded, \(fmt(n / logS / 1e6)) M objects/s; "
            + "compacted: \(fmt(Double(snapBytes) / 1e6 / snapS)) MB/s of snapshot, \(fmt(Double(snapPayload) / 1e6 / snapS)) MB/s decoded")
        let logFloorS = seconds(Measure.median(logFloorNs)), snapFloorS = seconds(Measure.median(snapFloorNs))
        log("  W6 floor (read, verify, LZ4-decompress, no decoding): log \(fmt(logFloorS * 1000)) ms "
            + "(\(fmt(Double(logPayload) / 1e6 / logFloorS)) MB/s decoded), compacted \(fmt(snapFloorS * 1000)) ms "
            + "(\(fmt(Double(snapPayload) / 1e6 / snapFloorS)) MB/s); open ÷ floor: log \(String(format: "%.1f", logS / logFloorS))×, "
            + "compacted \(String(format: "%.1f", snapS / snapFloorS))×")
        log("  W6 Shoal close after the result (freeing \(options.reopenDogs) dogs), not in the times above: "
            + "log \(fmt(seconds(Measure.median(logCloseNs)) * 1000)) ms, compacted \(fmt(seconds(Measure.median(snapCloseNs)) * 1000)) ms")

        // A history of small transactions: the same data, then single-dog
        // commits. Shoal replays them; SQLite has them in its pages.
        let tail = options.historyCommits
        let grdbHistoryPath = Disk.scratch("w6-grdb-history")
        defer { Disk.remove(grdbHistoryPath) }
        try ShoalEngine.populate(reopenData, path: shoalHistoryPath, thenCommits: tail)
        try GRDBEngine.populate(reopenData, path: grdbHistoryPath, thenCommits: tail)
        let tailBytes = Disk.bytes(shoalHistoryPath) - logBytes
        var tailNs: [UInt64] = [], tailFloorNs: [UInt64] = [], bulkNs: [UInt64] = [], grdbTailNs: [UInt64] = []
        for _ in 0..<options.rounds {
            let a = try ShoalEngine.reopenAndCount(path: shoalHistoryPath, breed: "Pug")
            let b = try ShoalEngine.reopenAndCount(path: shoalLogPath, breed: "Pug")
            let c = try GRDBEngine.reopenAndCount(path: grdbHistoryPath, breed: "Pug")
            precondition(a.count == expected && b.count == expected && c.count == expected, "reopen counts differ")
            tailNs.append(a.firstResultNs); bulkNs.append(b.firstResultNs); grdbTailNs.append(c.firstResultNs)
            tailFloorNs.append(try Measure.time { try ShoalEngine.decompressOnly(path: shoalHistoryPath) }.ns)
        }
        record("W6.reopen-history", "ms to first result", shoal: micros(Measure.median(tailNs)) / 1000,
               grdb: micros(Measure.median(grdbTailNs)) / 1000, higherIsBetter: false)
        let tailS = seconds(Measure.median(tailNs)), bulkS = seconds(Measure.median(bulkNs))
        let extra = max(tailS - bulkS, 1e-9)
        let tailFloorS = seconds(Measure.median(tailFloorNs))
        log("  W6 history of \(tail) single-dog commits after the insert (\(fmt(Double(tailBytes) / 1e6)) MB of log): open \(fmt(tailS * 1000)) ms against "
            + "\(fmt(bulkS * 1000)) ms without them, so \(fmt(Double(tail) / extra)) records/s, \(fmt(Double(tailBytes) / 1e6 / extra)) MB/s of log; "
            + "floor \(fmt(tailFloorS * 1000)) ms, open ÷ floor \(String(format: "%.1f", tailS / tailFloorS))×")
    }
}

if options.runs("W4") { try runW4(data) }
if options.runs("W5") { try runW5(data) }
if options.runs("W7") { try runW7() }
if options.runs("W8") { try runW8(data) }
if options.runs("W12") { try runW12() }

// MARK: Table

let date = ISO8601DateFormatter().string(from: Date())
print("""

## Shoal vs GRDB, side by side in one process

\(date), host \(hostname), \(cpus) CPUs; N = \(options.dogs) dogs, M = \(options.commits) commits, \
\(options.lookups) lookups, \(options.queries) queries, \(options.rounds) rounds (medians); \
reopen N = \(options.reopenDogs); notifications (W4/W5/W7/W8): \(options.notifyCommits) commits per configuration \
and engine, at most \(options.notifyBudget) s each, W4 K = \(options.observers.map(String.init).joined(separator: "/")), \
W5 N = \(options.sortedDogs.map(String.init).joined(separator: "/")), \
W7 N = \(options.sectionDogs.map(String.init).joined(separator: "/")), W8 \(options.filteredObservers) observers; \
W12 \(options.sustainWriters) writers, \(options.sustainObservers) observers, \(options.sustainSeconds) s per configuration, \
\(options.sustainRounds) round(s). Total run \(fmt(seconds(Measure.now() - start))) s.

Ratio = Shoal ÷ GRDB of the metric; ✓ marks where Shoal is better.

| workload | metric | Shoal | GRDB | Shoal/GRDB | |
|---|---|---:|---:|---:|---|
""")
for row in rows {
    // A zero GRDB figure (W8's callbacks) has no ratio.
    let ratio = row.grdb == 0 ? nil : row.shoal / row.grdb
    let better = ratio.map { row.higherIsBetter ? $0 > 1 : $0 < 1 } ?? false
    print("| \(row.workload) | \(row.metric) | \(fmt(row.shoal)) | \(fmt(row.grdb)) | \(ratio.map { String(format: "%.2f", $0) } ?? "-") | \(better ? "✓" : "") |")
}
if !sampleLines.isEmpty {
    print("\nSamples (an engine stops a configuration after --notify-budget seconds):\n")
    for line in sampleLines { print("- " + line) }
}
if !sustainLines.isEmpty {
    print("\nW12, each configuration (a child process each):\n")
    for line in sustainLines { print("- " + line) }
}
if !targetLines.isEmpty {
    print("\nShoal against the notification issues' targets (#13, #14, #42; same run):\n")
    for line in targetLines { print("- " + line) }
}
