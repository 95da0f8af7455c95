import Benchmark
import WorkloadBenchmarks
import Workloads

// The workloads of shared/WORKLOADS.md against GRDB (SQLite). ShoalBenchmarks
// registers the same names against Shoal, so the two tables pair up.
let benchmarks: @Sendable () -> Void = {
    registerWorkloads(GRDBEngine.self)
}
