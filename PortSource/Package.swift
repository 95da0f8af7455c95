// swift-tools-version:6.1
import PackageDescription

// `shoal-port-source`, the mechanical part of porting Realm Swift code to
// Shoal. A separate package so that neither Shoal's users nor its tests
// resolve or build swift-syntax (README, "Porting Realm code").

let upcomingFeatures: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "ShoalPortSource",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "shoal-port-source", targets: ["shoal-port-source"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // The rewrites, on syntax trees; no file system or process here.
        .target(
            name: "PortSourceKit",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
                .product(name: "SwiftParserDiagnostics", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ],
            swiftSettings: upcomingFeatures
        ),
        // The command: walks a directory, prints a diff, writes with --write.
        .executableTarget(
            name: "shoal-port-source",
            dependencies: [
                "PortSourceKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/PortSourceCommand",
            swiftSettings: upcomingFeatures
        ),
        .testTarget(
            name: "PortSourceTests",
            dependencies: ["PortSourceKit", "shoal-port-source"],
            swiftSettings: upcomingFeatures
        ),
    ],
    swiftLanguageModes: [.v6]
)
