// W12: sustained load. Writers on several threads commit single-dog changes
// at full speed to a durable store for a fixed time, with observers of
// several kinds delivering on queues (see `SustainedObserver`), and the same
// without observers. Each configuration (engine × with or without
// observers) runs in a child process of its own, so that its peak RSS
// (VmHWM) is its own: the child resets the high-water mark after seeding
// (`/proc/self/clear_refs`), and reports the peak over registering the
// observers, writing and draining.
//
// Each commit writes the next number of a sequence (taken inside the write
// transaction, so in commit order) into the changed dog's `age`, and each
// callback reports the highest age among the dogs it was handed. The delay
// of commit c is the time from c's return to the first callback, of any
// observer, that saw a number ≥ c ("first callback"), and per observer, the
// time to that observer's first callback that saw ≥ c, over the commits
// that change what it watches ("each observer").
import Dispatch
import Foundation
import Workloads

/// One child's figures, printed by the child on one line (`W12 {json}`).
struct SustainedResult: Codable {
    var engine: String
    var observed: Bool
    var observers: Int
    var commits: Int
    var writeSeconds: Double
    var commitsPerSecond: Double
    /// Commit call (write transaction) duration, µs.
    var commitP50Us: Double
    var commitP99Us: Double
    /// RSS after seeding, when the high-water mark was reset; bytes.
    var baselineRSS: Int
    /// VmHWM at the end: the peak since the reset (or since the start when
    /// the reset failed); bytes.
    var peakRSS: Int
    var peakReset: Bool
    var registrationMs: Double
    var callbacks: Int
    /// Time from the writers' stop until every observer had seen the last
    /// commit that concerned it; nil without observers.
    var drainMs: Double?
    /// Commits no callback reflected before the drain gave up.
    var unreflected: Int
    var firstP50Ms: Double?
    var firstP99Ms: Double?
    var firstMaxMs: Double?
    var eachP50Ms: Double?
    var eachP99Ms: Double?
    /// Per observer kind: [p50, p99] of "each observer" in ms.
    var kinds: [String: [Double]]
}

/// The sequence the writers draw from, in commit order.
final class SequenceCounter: @unchecked Sendable {
    // Safe because: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: Int

    init(first: Int) { value = first }

    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

/// One writer thread's commits.
final class WriterLog: @unchecked Sendable {
    // Safe because: written only by its writer thread, read after the join.
    var values: [Int] = []
    var dogs: [Int] = []
    var times: [UInt64] = []
    var callNs: [UInt64] = []
}

/// A store handed to the writer threads, which only call `makeWriter`.
final class StoreBox: @unchecked Sendable {
    // Safe because: each engine's `makeWriter` may be called from any thread.
    let store: any SustainedStore
    init(_ store: any SustainedStore) { self.store = store }
}

enum ProcStatus {
    /// A field of /proc/self/status in bytes (`VmRSS`, `VmHWM`).
    static func bytes(_ field: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let kb = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) } ?? 0
            return kb * 1024
        }
        return 0
    }

    /// Resets VmHWM to the current RSS (Linux ≥ 4.0); false if refused.
    static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        do {
            try handle.write(contentsOf: Data("5".utf8))
            return true
        } catch {
            return false
        }
    }
}

/// The sequence starts above the seeded ages (0...15).
let firstSequence = 100

/// Runs one W12 configuration in this process and prints its result.
@MainActor func runW12Child(engineName: String, observed: Bool) throws {
    let engine: any Engine.Type = engineName.lowercased() == "grdb" ? GRDBEngine.self : ShoalEngine.self
    let data = Dataset(dogs: options.dogs)
    var observers = observed ? SustainedObserver.mix(options.sustainObservers, data: data) : []
    if let kinds = options.sustainKinds { observers = observers.filter { kinds.contains($0.shortKind) } }
    let what = "W12 \(engine.name), \(observed ? "\(observers.count) observers" : "no observers")"
    let path = Disk.scratch("w12-\(engine.name)-\(observed ? "observed" : "bare")")
    defer { Disk.remove(path) }
    let seeding = try Measure.time { try engine.makeSustained(data, path: path) }
    let store = seeding.value
    let peakReset = ProcStatus.resetPeak()
    if !peakReset { log("  ⚠︎ \(what): /proc/self/clear_refs refused; the peak RSS includes seeding") }
    let baseline = ProcStatus.bytes("VmRSS")

    let withInitial = engine == ShoalEngine.self ? observers.filter { if case .object = $0 { false } else { true } }.count : observers.count
    let recorder = SustainRecorder(observers: observers.count, initialCallbacks: withInitial)
    let queues = (0..<4).map { DispatchQueue(label: "w12.observers.\($0)") }
    let registration = try Measure.time { try store.observe(observers, queues: queues, recorder: recorder) }.ns
    log("  \(what): seeded \(data.dogs.count) dogs in \(fmt(seconds(seeding.ns))) s; \(observers.count) observers registered in "
        + "\(fmt(micros(registration) / 1000)) ms; RSS \(fmt(Double(baseline) / 1e6)) MB; writing for \(options.sustainSeconds) s "
        + "with \(options.sustainWriters) writers")

    // Writers.
    let counter = SequenceCounter(first: firstSequence)
    let hotDogs = SustainedObserver.hotDogs(data)
    let box = StoreBox(store)
    let group = DispatchGroup()
    let logs = (0..<options.sustainWriters).map { _ in WriterLog() }
    let writeStart = Measure.now()
    let deadline = writeStart + UInt64(options.sustainSeconds) * 1_000_000_000
    for (w, writerLog) in logs.enumerated() {
        group.enter()
        let thread = Thread {
            defer { group.leave() }
            do {
                let writer = try box.store.makeWriter()
                var rng = SplitMix64(seed: UInt64(1000 + w))
                while Measure.now() < deadline {
                    let dog = rng.next(below: hotDogs)
                    let t0 = Measure.now()
                    let value = try writer.setAge(dog) { counter.next() }
                    let t1 = Measure.now()
                    writerLog.values.append(value)
                    writerLog.dogs.append(dog)
                    writerLog.times.append(t1)
                    writerLog.callNs.append(t1 - t0)
                }
            } catch {
                fatalError("W12 writer \(w): \(error)")
            }
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
    group.wait()
    let writeEnd = Measure.now()

    // The commits in commit order.
    var commits: [(value: Int, dog: Int, time: UInt64)] = []
    for writerLog in logs {
        for j in writerLog.values.indices { commits.append((writerLog.values[j], writerLog.dogs[j], writerLog.times[j])) }
    }
    commits.sort { $0.value < $1.value }
    let callNs = logs.flatMap(\.callNs)

    // Drain: until every observer has seen the last commit that concerns it.
    var targets = [Int](repeating: 0, count: observers.count)
    var concerned: [[Int]] = observers.map { _ in [] }  // indices into `commits`
    for (o, observer) in observers.enumerated() {
        for (c, commit) in commits.enumerated() where observer.concerns(data.dogs[commit.dog]) {
            concerned[o].append(c)
            targets[o] = commit.value
        }
    }
    var drainMs: Double? = nil
    let drainLimit = UInt64(max(30, 3 * options.sustainSeconds)) * 1_000_000_000
    if !observers.isEmpty {
        while true {
            let behind = observers.indices.contains { recorder.highest($0) < targets[$0] }
            let now = Measure.now()
            if !behind { drainMs = micros(now - writeEnd) / 1000; break }
            if now - writeEnd > drainLimit { break }
            usleep(2_000)
        }
    }
    let drainEnd = Measure.now()
    let peak = ProcStatus.bytes("VmHWM")

    // Delays.
    var histories = observers.indices.map { recorder.history($0) }
    let callbacks = histories.map(\.callbacks).reduce(0, +)
    var first: [UInt64] = []
    var unreflected = 0
    if !observers.isEmpty {
        var events: [(time: UInt64, value: Int)] = []
        for h in histories { for j in h.times.indices { events.append((h.times[j], h.values[j])) } }
        events.sort { $0.time < $1.time }
        // A commit after the last one any observer watches is reflected by
        // no callback: those are left out.
        let lastWatched = targets.max() ?? 0
        var e = 0, runningMax = 0
        for commit in commits where commit.value <= lastWatched {
            while runningMax < commit.value && e < events.count {
                runningMax = max(runningMax, events[e].value)
                e += 1
            }
            if runningMax >= commit.value {
                let seen = events[e - 1].time
                first.append(seen > commit.time ? seen - commit.time : 0)
            } else {
                unreflected += 1
                first.append(drainEnd - commit.time)
            }
        }
    }
    if options.sustainTrace, !first.isEmpty {
        var buckets: [Int: [UInt64]] = [:]
        for (j, commit) in commits.prefix(first.count).enumerated() { buckets[Int((commit.time - writeStart) / 100_000_000), default: []].append(first[j]) }
        var evs: [Int: Int] = [:]
        for o in observers.indices { for t in histories[o].times where t >= writeStart { evs[Int((t - writeStart) / 100_000_000), default: 0] += 1 } }
        for b in buckets.keys.sorted() {
            log("    trace \(b): \(buckets[b]!.count) commits, first p50 \(fmt(micros(Measure.median(buckets[b]!)) / 1000)) ms, \(evs[b, default: 0]) rising callbacks")
        }
    }
    var each: [UInt64] = []
    var byKind: [String: [UInt64]] = [:]
    for (o, observer) in observers.enumerated() {
        let h = histories[o]
        var e = 0
        for c in concerned[o] {
            let commit = commits[c]
            while e < h.values.count && h.values[e] < commit.value { e += 1 }
            let delay = e < h.values.count ? (h.times[e] > commit.time ? h.times[e] - commit.time : 0) : drainEnd - commit.time
            each.append(delay)
            byKind[observer.kind, default: []].append(delay)
        }
    }
    histories.removeAll()
    try store.close()

    let ms = { (ns: UInt64) in micros(ns) / 1000 }
    let q = { (values: [UInt64], p: Double) -> Double? in values.isEmpty ? nil : ms(Measure.quantile(values, p)) }
    let writeS = seconds(writeEnd - writeStart)
    let result = SustainedResult(
        engine: engine.name, observed: observed, observers: observers.count, commits: commits.count, writeSeconds: writeS,
        commitsPerSecond: Double(commits.count) / writeS,
        commitP50Us: callNs.isEmpty ? 0 : micros(Measure.quantile(callNs, 0.5)),
        commitP99Us: callNs.isEmpty ? 0 : micros(Measure.quantile(callNs, 0.99)),
        baselineRSS: baseline, peakRSS: peak, peakReset: peakReset, registrationMs: ms(registration), callbacks: callbacks,
        drainMs: drainMs, unreflected: unreflected,
        firstP50Ms: q(first, 0.5), firstP99Ms: q(first, 0.99), firstMaxMs: first.max().map(ms),
        eachP50Ms: q(each, 0.5), eachP99Ms: q(each, 0.99),
        kinds: byKind.mapValues { [ms(Measure.quantile($0, 0.5)), ms(Measure.quantile($0, 0.99))] })
    var line = "  \(what): \(commits.count) commits, \(fmt(result.commitsPerSecond))/s; peak RSS \(fmt(Double(peak) / 1e6)) MB"
    if observed {
        line += "; \(callbacks) callbacks; first callback p50/p99 \(fmt(result.firstP50Ms ?? 0))/\(fmt(result.firstP99Ms ?? 0)) ms, "
            + "each observer p50/p99 \(fmt(result.eachP50Ms ?? 0))/\(fmt(result.eachP99Ms ?? 0)) ms; "
            + (drainMs.map { "drained \(fmt($0)) ms after the writers stopped" } ?? "NOT drained after \(drainLimit / 1_000_000_000) s")
        if unreflected > 0 { line += "; \(unreflected) commits never reflected" }
    }
    log(line)
    let json = try JSONEncoder().encode(result)
    print("W12 " + String(decoding: json, as: UTF8.self))
}

/// The W12 lines printed after the table.
@MainActor var sustainLines: [String] = []

/// Runs W12: each configuration in a child process, alternating engines
/// and modes, `--sustain-rounds` times; medians over the rounds.
@MainActor func runW12() throws {
    let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    var k = options.sustainObservers
    log("W12 sustained load: \(options.sustainWriters) writers at full speed on \(options.dogs) durable dogs (single-dog age changes "
        + "to the first \(min(1_000, options.dogs)) dogs), \(options.sustainSeconds) s per configuration, "
        + "with \(k) observers and without, \(options.sustainRounds) round(s), each configuration in a child process")
    var results: [String: [SustainedResult]] = [:]
    for round in 0..<options.sustainRounds {
        let modes = round % 2 == 0 ? [false, true] : [true, false]
        for (m, observed) in modes.enumerated() {
            let order = (round + m) % 2 == 0 ? engines : engines.reversed()
            for engine in order {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: exe)
                process.arguments = [
                    "--w12-child", engine.name, observed ? "observed" : "bare", "--dogs", "\(options.dogs)",
                    "--sustain-seconds", "\(options.sustainSeconds)", "--sustain-writers", "\(options.sustainWriters)",
                    "--sustain-observers", "\(options.sustainObservers)",
                ] + (options.sustainKinds.map { ["--sustain-kinds", $0.sorted().joined(separator: ",")] } ?? [])
                    + (options.sustainTrace ? ["--sustain-trace"] : [])
                let out = Pipe()
                process.standardOutput = out
                try process.run()
                let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                guard process.terminationStatus == 0,
                    let line = output.split(separator: "\n").last(where: { $0.hasPrefix("W12 ") })
                else {
                    fatalError("W12 \(engine.name) \(observed ? "observed" : "bare"): the child exited with \(process.terminationStatus)")
                }
                let result = try JSONDecoder().decode(SustainedResult.self, from: Data(line.dropFirst(4).utf8))
                results["\(engine.name) \(observed)", default: []].append(result)
            }
        }
    }
    k = results["Shoal true"]?.first?.observers ?? k
    func median(_ engine: String, _ observed: Bool, _ value: (SustainedResult) -> Double?) -> Double {
        let values = (results["\(engine) \(observed)"] ?? []).compactMap(value).sorted()
        return values.isEmpty ? .nan : values[(values.count - 1) / 2]
    }
    func both(_ observed: Bool, _ value: (SustainedResult) -> Double?) -> (shoal: Double, grdb: Double) {
        (median("Shoal", observed, value), median("GRDB", observed, value))
    }
    let name = "W12.sustained"
    let mb = { (bytes: Int) in Double(bytes) / 1e6 }
    let bareRate = both(false) { $0.commitsPerSecond }, obsRate = both(true) { $0.commitsPerSecond }
    let barePeak = both(false) { mb($0.peakRSS) }, obsPeak = both(true) { mb($0.peakRSS) }
    let first50 = both(true) { $0.firstP50Ms }, first99 = both(true) { $0.firstP99Ms }
    let each50 = both(true) { $0.eachP50Ms }, each99 = both(true) { $0.eachP99Ms }
    let drain = both(true) { $0.drainMs ?? .infinity }
    record(name, "commits/s, no observers", shoal: bareRate.shoal, grdb: bareRate.grdb, higherIsBetter: true)
    record(name, "commits/s, \(k) observers", shoal: obsRate.shoal, grdb: obsRate.grdb, higherIsBetter: true)
    let rateRatio = (shoal: bareRate.shoal / obsRate.shoal, grdb: bareRate.grdb / obsRate.grdb)
    record(name, "commit rate: none ÷ \(k) observers", shoal: rateRatio.shoal, grdb: rateRatio.grdb, higherIsBetter: false)
    record(name, "commit→first callback p50 ms", shoal: first50.shoal, grdb: first50.grdb, higherIsBetter: false)
    record(name, "commit→first callback p99 ms", shoal: first99.shoal, grdb: first99.grdb, higherIsBetter: false)
    record(name, "commit→each concerned observer p50 ms", shoal: each50.shoal, grdb: each50.grdb, higherIsBetter: false)
    record(name, "commit→each concerned observer p99 ms", shoal: each99.shoal, grdb: each99.grdb, higherIsBetter: false)
    record(name, "drain after the writers stop, ms", shoal: drain.shoal, grdb: drain.grdb, higherIsBetter: false)
    record(name, "peak RSS MB, no observers", shoal: barePeak.shoal, grdb: barePeak.grdb, higherIsBetter: false)
    record(name, "peak RSS MB, \(k) observers", shoal: obsPeak.shoal, grdb: obsPeak.grdb, higherIsBetter: false)
    let peakRatio = (shoal: obsPeak.shoal / barePeak.shoal, grdb: obsPeak.grdb / barePeak.grdb)
    record(name, "peak RSS: \(k) observers ÷ none", shoal: peakRatio.shoal, grdb: peakRatio.grdb, higherIsBetter: false)

    for engine in ["Shoal", "GRDB"] {
        for observed in [false, true] {
            for r in results["\(engine) \(observed)"] ?? [] {
                var line = "W12 \(engine), \(observed ? "\(k) observers" : "no observers"): \(r.commits) commits in \(fmt(r.writeSeconds)) s; "
                    + "commit call p50/p99 \(fmt(r.commitP50Us))/\(fmt(r.commitP99Us)) µs; RSS \(fmt(mb(r.baselineRSS))) MB after seeding, "
                    + "peak \(fmt(mb(r.peakRSS))) MB\(r.peakReset ? "" : " (including seeding)")"
                if observed {
                    line += "; \(r.callbacks) callbacks; registration \(fmt(r.registrationMs)) ms"
                    if r.unreflected > 0 { line += "; \(r.unreflected) commits never reflected (their delay counted to the end of the drain)" }
                    let kinds = r.kinds.keys.sorted().map { "\($0) \(fmt(r.kinds[$0]![0]))/\(fmt(r.kinds[$0]![1]))" }
                    line += "; each observer p50/p99 ms by kind: " + kinds.joined(separator: ", ")
                }
                sustainLines.append(line)
            }
        }
    }
    let verdict = { (met: Bool) in met ? "met" : "MISSED" }
    targetLines.append("W12 (\(options.sustainWriters) durable writers, \(k) observers, \(options.sustainSeconds) s): "
        + "peak RSS with observers ÷ without = \(String(format: "%.2f", peakRatio.shoal))× (target ≤ 2×: \(verdict(peakRatio.shoal <= 2))); "
        + "commit→first callback p99 \(fmt(first99.shoal)) ms (target < 50 ms: \(verdict(first99.shoal < 50))); "
        + "commit rate without observers ÷ with = \(String(format: "%.2f", rateRatio.shoal))× (target ≤ 1.3×: \(verdict(rateRatio.shoal <= 1.3))). "
        + "GRDB: \(String(format: "%.2f", peakRatio.grdb))×, \(fmt(first99.grdb)) ms, \(String(format: "%.2f", rateRatio.grdb))×")
}
