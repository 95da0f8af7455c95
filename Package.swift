// swift-tools-version:6.1
import PackageDescription

let upcomingFeatures: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// Realm's example apps as command-line programs (Tests/RealmExamples), which
/// `RealmExampleAppTests` runs; compiled as a Realm user's code is, without the
/// upcoming features the library adopts.
let realmExamples = ["Simple", "Backlink", "GettingStarted", "TableView", "GroupedTableView"]

/// Realm's Migration example defines the same names once per schema version
/// (Examples/Example_v0.swift ... v5, each under its own `#if`; Realm builds
/// the app once per version): each version is a module compiled with its
/// condition, in Swift 5 mode as Realm's example project is (its files keep
/// closures in global constants), and the program RealmExampleMigration runs
/// the app delegate's logic over all of them.
let migrationExampleVersions = (0...5).map { version in
    Target.target(
        name: "RealmExampleMigrationV\(version)", dependencies: ["Shoal", "RealmExampleMigrationSupport"],
        path: "Tests/RealmExamples/MigrationV\(version)",
        swiftSettings: (version < 5 ? [.define("SCHEMA_VERSION_\(version)")] : []) + [.swiftLanguageMode(.v5)])
}

let package = Package(
    name: "shoal",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Shoal", targets: ["Shoal"]),
        // Realm's Combine publishers through OpenCombine; only clients of this
        // product build (or fetch) OpenCombine.
        .library(name: "ShoalCombine", targets: ["ShoalCombine"]),
        .executable(name: "shoal", targets: ["ShoalCLI"]),
        .executable(name: "shoal-demo", targets: ["ShoalDemo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Warnings a user should see that no call returns (a failed background compaction).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        // `swift package generate-documentation` (DocC); a command plugin, linked into nothing.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLZ4",
            pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"])]
        ),
        .systemLibrary(
            name: "CXXHash",
            pkgConfig: "libxxhash",
            providers: [.apt(["libxxhash-dev"])]
        ),
        // The Swift runtime's conditional retain (``InstanceHandle``); a header only.
        .systemLibrary(name: "CSwiftRuntime"),
        // Vector scans of packed integers (SSE2 where there is SSE2); a header only.
        .systemLibrary(name: "CShoalScan"),
        .target(
            name: "Shoal",
            dependencies: [
                "CLZ4",
                "CXXHash",
                "CSwiftRuntime",
                "CShoalScan",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Log/FORMAT.md"],
            swiftSettings: upcomingFeatures
        ),
        .target(
            name: "ShoalCombine",
            dependencies: [
                "Shoal",
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
            ],
            swiftSettings: upcomingFeatures
        ),
        .executableTarget(
            name: "ShoalCLI",
            dependencies: [
                "Shoal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: upcomingFeatures
        ),
        .executableTarget(
            name: "ShoalDemo",
            dependencies: ["Shoal"],
            swiftSettings: upcomingFeatures
        ),
        .target(
            name: "ShoalTestSupport",
            dependencies: ["Shoal"],
            path: "Tests/ShoalTestSupport",
            swiftSettings: upcomingFeatures
        ),
        .executableTarget(
            name: "ShoalCrashWorker",
            dependencies: ["Shoal", "ShoalTestSupport"],
            path: "Tests/ShoalCrashWorker",
            swiftSettings: upcomingFeatures
        ),
        .executableTarget(
            name: "ShoalFixtureGenerator",
            dependencies: ["Shoal", "ShoalTestSupport"],
            path: "Fixtures/Generator",
            swiftSettings: upcomingFeatures
        ),
        .testTarget(
            name: "ShoalAPITests",
            dependencies: ["Shoal", "ShoalTestSupport"] + realmExamples.map { .target(name: "RealmExample\($0)") }
                + [.target(name: "RealmExampleMigration")],
            swiftSettings: upcomingFeatures
        ),
        .testTarget(
            name: "ShoalTests",
            dependencies: [
                "Shoal", "ShoalTestSupport", "ShoalCrashWorker",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: upcomingFeatures
        ),
        .testTarget(
            name: "ShoalCombineTests",
            dependencies: [
                "Shoal", "ShoalCombine", "ShoalTestSupport",
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
            ],
            swiftSettings: upcomingFeatures
        ),
        .testTarget(
            name: "ShoalCLITests",
            dependencies: ["Shoal", "ShoalTestSupport", "ShoalCLI"],
            swiftSettings: upcomingFeatures
        ),
        .target(name: "RealmExampleSupport", path: "Tests/RealmExamples/Support"),
    ] + realmExamples.map {
        .executableTarget(name: "RealmExample\($0)", dependencies: ["Shoal", "RealmExampleSupport"],
            path: "Tests/RealmExamples/\($0)")
    } + migrationExampleVersions + [
        .target(name: "RealmExampleMigrationSupport", dependencies: ["Shoal"], path: "Tests/RealmExamples/MigrationSupport"),
        .executableTarget(
            name: "RealmExampleMigration",
            dependencies: ["Shoal", "RealmExampleMigrationSupport"] + (0...5).map { .target(name: "RealmExampleMigrationV\($0)") },
            path: "Tests/RealmExamples/Migration"),
    ],
    swiftLanguageModes: [.v6]
)
