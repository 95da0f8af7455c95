import Benchmark
import WorkloadBenchmarks
import Workloads

// The workloads of shared/WORKLOADS.md against Shoal. GRDBBenchmarks
// registers the same names against GRDB, so the two tables pair up.
let benchmarks: @Sendable () -> Void = {
    registerWorkloads(ShoalEngine.self)
}
