import Benchmark
import Foundation
public import Workloads

/// Sizes for the package-benchmark runs. WORKLOADS.md's defaults, except
/// where a full run of both executables would not fit in about ten minutes
/// on a 2-core shared machine; override with the environment variables
/// `SHOAL_BENCH_DOGS`, `SHOAL_BENCH_COMMITS`, `SHOAL_BENCH_LOOKUPS`.
public enum Sizes {
    static func env(_ name: String, _ fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap { Int($0) } ?? fallback
    }
    public static let dogs = env("SHOAL_BENCH_DOGS", 100_000)
    /// Single-object commits per measured iteration of W2.
    public static let commitsPerIteration = env("SHOAL_BENCH_COMMITS", 1_000)
    public static let lookups = env("SHOAL_BENCH_LOOKUPS", 100_000)
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
