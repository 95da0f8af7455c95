// swift-tools-version:6.1
import PackageDescription

// A separate package so that users of Shoal never resolve the benchmark
// dependencies (STYLE.md point 23).

let upcomingFeatures: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "ShoalBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "shoal", path: "../"),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        // glibc's heap statistics, for W9.
        .target(name: "CHeapInfo"),
        // Shared model, seeded data and the workloads, for both engines.
        .target(
            name: "Workloads",
            dependencies: [
                "CHeapInfo",
                .product(name: "Shoal", package: "shoal"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The package-benchmark registrations, once for both engines.
        .target(
            name: "WorkloadBenchmarks",
            dependencies: [
                "Workloads",
                .product(name: "Benchmark", package: "benchmark"),
            ]
        ),
        // Side-by-side runner: both engines, one process, ratios.
        .executableTarget(
            name: "compare",
            dependencies: ["Workloads"],
            path: "Sources/Compare"
        ),
        .executableTarget(
            name: "ShoalBenchmarks",
            dependencies: [
                "Workloads",
                "WorkloadBenchmarks",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/ShoalBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "GRDBBenchmarks",
            dependencies: [
                "Workloads",
                "WorkloadBenchmarks",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/GRDBBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .system && target.name != "CHeapInfo" {
    target.swiftSettings = (target.swiftSettings ?? []) + upcomingFeatures
}
