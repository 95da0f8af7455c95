import Benchmark
import Foundation
public import Workloads

/// Sizes for the package-benchmark runs. WORKLOADS.md's defaults, except
/// where a full run of both executables would not fit in about ten minutes
/// on a 2-core shared machine; override with the environment variables
/// `SHOAL_BENCH_DOGS`, `SHOAL_BENCH_COMMITS`, `SHOAL_BENCH_LOOKUPS`,
/// `SHOAL_BENCH_OBSERVERS`, `SHOAL_BENCH_SORTED_DOGS`.
public enum Sizes {
    static func env(_ name: String, _ fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap { Int($0) } ?? fallback
    }
    public static let dogs = env("SHOAL_BENCH_DOGS", 100_000)
    /// Single-object commits per measured iteration of W2.
    public static let commitsPerIteration = env("SHOAL_BENCH_COMMITS", 1_000)
    public static let lookups = env("SHOAL_BENCH_LOOKUPS", 100_000)
    /// W4's observers (WORKLOADS.md: 1 to 10,000; `compare` runs them all;
    /// GRDB refetches every observer per commit, so 10,000 would take
    /// minutes here).
    public static let observers = env("SHOAL_BENCH_OBSERVERS", 1_000)
    /// W5's dogs (WORKLOADS.md: 10,000 and 100,000; `compare` runs both).
    public static let sortedDogs = env("SHOAL_BENCH_SORTED_DOGS", 10_000)
    /// Commits per measured iteration of W4, W5 and W8.
    public static let notifyCommitsPerIteration = 100
}

/// What a benchmark's setup builds and its closure uses.
final class Fixture<T>: @unchecked Sendable {
    // Safe because: package-benchmark runs setup, the measured closure and
    // teardown one after another, never concurrently.
    var value: T?
}

/// Registers every workload of `engine` under the shared names
/// (`W1.insert-memory`, …), so that the Shoal and GRDB tables pair up.
///
/// Only counts (`mallocCountTotal`, `instructions`) are meant for
/// thresholds; time is reported, not gated (STYLE.md point 23).
public func registerWorkloads(_ engine: any Engine.Type) {
    let metrics: [BenchmarkMetric] = [.wallClock, .cpuTotal, .throughput, .mallocCountTotal, .instructions, .peakMemoryResident]
    let data = Fixture<Dataset>()
    let makeData: () -> Dataset = {
        if let d = data.value { return d }
        let d = Dataset(dogs: Sizes.dogs)
        data.value = d
        return d
    }

    // W1: N dogs (and N/10 people) in one write transaction, a fresh store per iteration.
    for storage in Storage.allCases {
        let fixture = Fixture<Dataset>()
        Benchmark(
            "W1.insert-\(storage.rawValue)",
            configuration: .init(metrics: metrics, warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 5),
            closure: { benchmark in
                let data = fixture.value!
                for _ in benchmark.scaledIterations {
                    let path = Disk.scratch("w1-\(engine.name)-\(storage.rawValue)")
                    benchmark.startMeasurement()
                    let bytes = try engine.insertAll(data, storage: storage, path: path)
                    benchmark.stopMeasurement()
                    blackHole(bytes)
                    Disk.remove(path)
                }
            },
            setup: { fixture.value = makeData() },
            teardown: { fixture.value = nil }
        )
    }

    // W2: single-object write transactions on a store of N dogs; one
    // iteration is `commitsPerIteration` commits.
    for storage in [Storage.durable, .relaxed] {
        let fixture = Fixture<(committer: any Committer, path: String)>()
        let counter = Fixture<Int>()
        Benchmark(
            "W2.commit-\(storage.rawValue)",
            configuration: .init(metrics: metrics, warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 10),
            closure: { benchmark in
                let committer = fixture.value!.committer
                var next = counter.value ?? 0
                for _ in benchmark.scaledIterations {
                    for _ in 0..<Sizes.commitsPerIteration {
                        try committer.commit(next &* 7919)
                        next += 1
                    }
                }
                counter.value = next
            },
            setup: {
                let path = Disk.scratch("w2-\(engine.name)-\(storage.rawValue)")
                fixture.value = (try engine.makeCommitter(makeData(), storage: storage, path: path), path)
            },
            teardown: {
                if let (committer, path) = fixture.value {
                    try committer.close()
                    Disk.remove(path)
                }
                fixture.value = nil
            }
        )
    }

    // W3: queries on an in-memory store of N dogs.
    let queries = Fixture<any Queries>()
    let keys = Fixture<[Int]>()
    let rangeStarts = Fixture<[Int]>()
    let w3Setup: () throws -> Void = {
        if queries.value == nil { queries.value = try engine.makeQueries(makeData()) }
        if keys.value == nil { keys.value = makeData().lookupKeys(Sizes.lookups) }
        if rangeStarts.value == nil { rangeStarts.value = makeData().pkRangeStarts(20) }
    }
    let w3Config = Benchmark.Configuration(metrics: metrics, warmupIterations: 2, maxDuration: .seconds(5), maxIterations: 20)
    Benchmark("W3.range-sorted", configuration: w3Config, closure: { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try queries.value!.rangeSorted()) }
    }, setup: { try w3Setup() })
    Benchmark("W3.pk-lookup", configuration: w3Config, closure: { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try queries.value!.lookup(keys.value!)) }
    }, setup: { try w3Setup() })
    Benchmark("W3.pk-range", configuration: w3Config, closure: { benchmark in
        for _ in benchmark.scaledIterations {
            for x in rangeStarts.value! { blackHole(try queries.value!.pkRange(x, x + Dataset.pkRangeWidth - 1)) }
        }
    }, setup: { try w3Setup() })
    var breed = 0
    Benchmark("W3.count-breed", configuration: w3Config, closure: { benchmark in
        for _ in benchmark.scaledIterations {
            breed += 1
            blackHole(try queries.value!.countBreed(Dataset.breeds[breed % Dataset.breeds.count]))
        }
    }, setup: { try w3Setup() }, teardown: { queries.value = nil })

    registerNotificationWorkloads(engine, metrics: metrics, makeData: makeData)

    // W6: reopen a durable store of N dogs and count one breed.
    let reopenPath = Fixture<String>()
    Benchmark(
        "W6.reopen",
        configuration: .init(metrics: metrics, warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 10),
        closure: { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try engine.reopenAndCount(path: reopenPath.value!, breed: "Pug"))
            }
        },
        setup: {
            let path = Disk.scratch("w6-\(engine.name)")
            try engine.populate(makeData(), path: path, compact: false)
            reopenPath.value = path
        },
        teardown: {
            if let path = reopenPath.value { Disk.remove(path) }
            reopenPath.value = nil
        }
    )
}

/// W4, W5, W8: change notifications; one iteration is
/// `notifyCommitsPerIteration` commits, each waiting for its callback (W4,
/// W5), or followed by a drain of the observers' work (W8).
func registerNotificationWorkloads(_ engine: any Engine.Type, metrics: [BenchmarkMetric], makeData: @escaping () -> Dataset) {
    let config = Benchmark.Configuration(metrics: metrics, warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 20)
    let commits = Sizes.notifyCommitsPerIteration

    let w4 = Fixture<(store: any ObservedStore, probe: Probe)>()
    let w4Next = Fixture<Int>()
    Benchmark("W4.latency", configuration: config, closure: { benchmark in
        let (store, probe) = w4.value!
        var next = w4Next.value ?? 0
        for _ in benchmark.scaledIterations {
            for _ in 0..<commits {
                try store.bumpAge(next % Dataset.dogsPerOwner)
                blackHole(probe.wait("W4.latency"))
                next += 1
            }
        }
        w4Next.value = next
    }, setup: {
        let data = makeData()
        let store = try engine.makeObserved(data)
        let probe = Probe(awaiting: 0)
        try store.observeOwners(0..<min(Sizes.observers, data.people.count), nameOnly: false) { owner, changed in
            probe.hit(owner, changed: changed)
        }
        w4.value = (store, probe)
    }, teardown: {
        try w4.value?.store.close()
        w4.value = nil
    })

    let w5 = Fixture<(store: any ObservedStore, probe: Probe)>()
    let w5Next = Fixture<Int>()
    Benchmark("W5.sorted", configuration: config, closure: { benchmark in
        let (store, probe) = w5.value!
        var next = w5Next.value ?? 0
        for _ in benchmark.scaledIterations {
            for _ in 0..<commits {
                try store.bumpAge((next &* 7919) % Sizes.sortedDogs)
                blackHole(probe.wait("W5.sorted"))
                next += 1
            }
        }
        w5Next.value = next
    }, setup: {
        let store = try engine.makeObserved(Dataset(dogs: Sizes.sortedDogs))
        let probe = Probe(awaiting: 0)
        try store.observeSorted { changed in probe.hit(0, changed: changed) }
        w5.value = (store, probe)
    }, teardown: {
        try w5.value?.store.close()
        w5.value = nil
    })

    let w8 = Fixture<any ObservedStore>()
    let w8Next = Fixture<Int>()
    let w8Observers = 1_000
    Benchmark("W8.keypath-filter", configuration: config, closure: { benchmark in
        let store = w8.value!
        var next = w8Next.value ?? 0
        for _ in benchmark.scaledIterations {
            for _ in 0..<commits {
                try store.bumpAge((next &* 7919) % (w8Observers * Dataset.dogsPerOwner))
                next += 1
            }
            try store.drain()
        }
        w8Next.value = next
    }, setup: {
        let data = makeData()
        let store = try engine.makeObserved(data)
        try store.observeOwners(0..<min(w8Observers, data.people.count), nameOnly: true) { owner, _ in
            fatalError("W8: the observer of owner \(owner) was called for an age change")
        }
        w8.value = store
    }, teardown: {
        try w8.value?.close()
        w8.value = nil
    })
}
