// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "swift-exposure-notification",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "ENCore", targets: ["ENCore"]),
        .library(name: "ENCrypto", targets: ["ENCrypto"]),
        .library(name: "ENExportFormat", targets: ["ENExportFormat"]),
        .library(name: "ENMatching", targets: ["ENMatching"]),
        .library(name: "ENRiskV1", targets: ["ENRiskV1"]),
        .library(name: "ENRiskV2", targets: ["ENRiskV2"]),
        .library(name: "ENStore", targets: ["ENStore"]),
        .executable(name: "entool", targets: ["entool"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: System libraries and C kernels
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        // zlib, for the zip container of export files (inflate, deflate, CRC-32).
        .systemLibrary(name: "CENZlib", providers: [.apt(["zlib1g-dev"])]),
        // Hand-written multi-buffer SHA-256 / wide AES for the matcher. No unsafe flags (they would make the
        // package unusable as a dependency): CPU features are enabled per function and dispatched at run time.
        .target(name: "CENMatchingKernel", dependencies: ["CLibCrypto"]),

        // MARK: Library modules, bottom to top
        .target(name: "ENCore"),
        .target(name: "ENCrypto", dependencies: ["ENCore", "CLibCrypto"]),
        .target(name: "ENExportFormat", dependencies: ["ENCore", "ENCrypto", "CENZlib"], exclude: ["Protos"]),
        .target(name: "ENMatching", dependencies: ["ENCore", "ENCrypto", "CENMatchingKernel"]),
        .target(name: "ENRiskV1", dependencies: ["ENCore"]),
        .target(name: "ENRiskV2", dependencies: ["ENCore"]),
        .target(
            name: "ENStore",
            dependencies: ["ENCore", .product(name: "GRDB", package: "GRDB.swift")]
        ),

        // MARK: Executables
        .executableTarget(
            name: "entool",
            dependencies: [
                "ENCore", "ENCrypto", "ENExportFormat", "ENMatching", "ENRiskV1", "ENRiskV2", "ENStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Test support: writes detections in a loop until killed (ENStoreTests' crash-safety test).
        .executableTarget(name: "ENStoreCrashHelper", dependencies: ["ENCore", "ENStore"]),
        .executableTarget(
            name: "Benchmarks",
            dependencies: [
                "ENCore", "ENCrypto", "ENExportFormat", "ENMatching", "ENRiskV1", "ENRiskV2", "ENStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks"
        ),

        // MARK: Tests
        .testTarget(name: "ENCoreTests", dependencies: ["ENCore"]),
        .testTarget(name: "ENCryptoTests", dependencies: ["ENCore", "ENCrypto"], resources: [.copy("Fixtures")]),
        // swift-protobuf decodes and encodes export files independently of the module, for cross-checks.
        .testTarget(
            name: "ENExportFormatTests",
            dependencies: [
                "ENCore", "ENCrypto", "ENExportFormat", .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "ENMatchingTests", dependencies: ["ENCore", "ENCrypto", "ENMatching"]),
        .testTarget(name: "ENRiskV1Tests", dependencies: ["ENCore", "ENRiskV1"], resources: [.copy("Fixtures")]),
        .testTarget(name: "ENRiskV2Tests", dependencies: ["ENCore", "ENRiskV2"], resources: [.copy("Fixtures")]),
        .testTarget(
            name: "ENStoreTests",
            dependencies: ["ENCore", "ENCrypto", "ENStore", "ENStoreCrashHelper"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "EntoolTests",
            dependencies: ["ENCore", "ENCrypto", "entool"],
            resources: [.copy("Fixtures")]
        ),
    ]
)

// Strictness for every target of ours (dependencies are untouched): Swift 6 mode comes from the tools
// version; these add the upcoming features the house style relies on and make warnings errors.
for target in package.targets where target.type != .system {
    var swiftSettings = target.swiftSettings ?? []
    swiftSettings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    swiftSettings.append(.enableUpcomingFeature("ExistentialAny"))
    swiftSettings.append(.enableUpcomingFeature("MemberImportVisibility"))
    swiftSettings.append(.treatAllWarnings(as: .error))
    target.swiftSettings = swiftSettings
}
