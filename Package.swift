// swift-tools-version: 6.2
// swift-exposure-notification: an open Swift implementation of the Google/Apple Exposure Notification system.
// Copyright the swift-exposure-notification authors. Licensed under the Apache License, Version 2.0 (see
// LICENSE); third-party test data and its provenance are listed in NOTICE.
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
        .library(name: "ENEvaluation", targets: ["ENEvaluation"]),
        .library(name: "ENKeyServer", targets: ["ENKeyServer"]),
        .library(name: "ENKeyServerSQLite", targets: ["ENKeyServerSQLite"]),
        .library(name: "ENKeyServerPostgres", targets: ["ENKeyServerPostgres"]),
        .library(name: "ENVerificationServer", targets: ["ENVerificationServer"]),
        .library(name: "ENVerificationServerPostgres", targets: ["ENVerificationServerPostgres"]),
        .library(name: "ExposureNotificationKit", targets: ["ExposureNotificationKit"]),
        .library(name: "ExposureNotificationKitTesting", targets: ["ExposureNotificationKitTesting"]),
        .library(name: "ENSimulator", targets: ["ENSimulator"]),
        .executable(name: "entool", targets: ["entool"]),
        .executable(name: "enserver", targets: ["enserver"]),
        .executable(name: "enverify", targets: ["enverify"]),
    ],
    traits: [
        // PostgreSQL storage for the key server (ENKeyServerPostgres, enserver --postgres), through postgres-nio.
        // On by default; `--disable-default-traits` builds without it (and without postgres-nio, swift-nio-ssl and
        // swift-crypto), as the sanitizer jobs of .ci/run do.
        .trait(name: "PostgreSQL", description: "The key server's PostgreSQL storage, through postgres-nio."),
        // HTTPS for enserver and enverify (--tls-certificate, --tls-key), through HummingbirdTLS and swift-nio-ssl. On by default;
        // `--disable-default-traits` builds without it (both then refuse the TLS options).
        .trait(name: "TLS", description: "HTTPS for enserver and enverify, through HummingbirdTLS and swift-nio-ssl."),
        .default(enabledTraits: ["PostgreSQL", "TLS"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // enserver only: an app that depends on the library products builds none of these.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // The request limits of enserver's listeners are channel handlers (NIOCore) on Hummingbird's HTTP parts
        // (NIOHTTPTypes).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        // MARK: System libraries and C kernels
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        // zlib, for writing the zip container of export files (deflate, in parallel pieces).
        .systemLibrary(name: "CENZlib", providers: [.apt(["zlib1g-dev"])]),
        // libdeflate, for reading it (inflate, twice zlib's speed) and for its CRC-32.
        .systemLibrary(
            name: "CENDeflate",
            pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"]), .brew(["libdeflate"])]
        ),
        // Hand-written multi-buffer SHA-256 / wide AES for the matcher. No unsafe flags (they would make the
        // package unusable as a dependency): CPU features are enabled per function and dispatched at run time.
        .target(name: "CENMatchingKernel", dependencies: ["CLibCrypto"]),

        // MARK: Library modules, bottom to top
        .target(name: "ENCore"),
        .target(name: "ENCrypto", dependencies: ["ENCore", "CLibCrypto"]),
        .target(
            name: "ENExportFormat", dependencies: ["ENCore", "ENCrypto", "CENDeflate", "CENZlib"], exclude: ["Protos"]),
        .target(name: "ENMatching", dependencies: ["ENCore", "ENCrypto", "CENMatchingKernel"]),
        .target(name: "ENRiskV1", dependencies: ["ENCore"]),
        .target(name: "ENRiskV2", dependencies: ["ENCore"]),
        // Configuration evaluation: labelled encounters scored by ENRiskV1/ENRiskV2 and the apps' rules. Pure.
        .target(name: "ENEvaluation", dependencies: ["ENCore", "ENRiskV1", "ENRiskV2"]),
        // The SQLite plumbing the device store and the key server's SQLite backend share (not a product): opening,
        // checking and migrating a database file, its error mapping, column codecs. Package access only.
        .target(name: "ENSQLite", dependencies: ["ENCore", .product(name: "GRDB", package: "GRDB.swift")]),
        .target(name: "ENStore", dependencies: ["ENCore", "ENSQLite", .product(name: "GRDB", package: "GRDB.swift")]),
        // A key server's domain, with no storage engine (as NIOCore): the publish rules, revision tokens,
        // certificate verification, the exporter, batch windows, the storage protocols.
        .target(name: "ENKeyServer", dependencies: ["ENBoundedFetch", "ENCore", "ENCrypto", "ENExportFormat"]),
        // A key server's storage on SQLite (as NIOPosix is NIOCore's engine).
        .target(
            name: "ENKeyServerSQLite",
            dependencies: ["ENCore", "ENKeyServer", "ENSQLite", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // A key server's storage on PostgreSQL (the PostgreSQL trait; empty without it).
        .target(
            name: "ENKeyServerPostgres",
            dependencies: [
                "ENCore", "ENKeyServer", .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(
                    name: "_ConnectionPoolModule", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
            ]
        ),
        // One HTTP(S) request whose response body is read up to a limit as it streams in (URLSession, and
        // FoundationNetworking on Linux): the device's key-file downloads and the verification client share it.
        .target(name: "ENBoundedFetch", dependencies: ["ENCore"]),
        // A verification server's domain (Google's exposure-notifications-verification-server, one realm): codes,
        // tokens and certificates, API keys, its storage protocol and the SQLite store, the in-process service, the
        // app's client over a transport protocol. No HTTP.
        .target(
            name: "ENVerificationServer",
            dependencies: [
                "ENBoundedFetch", "ENCore", "ENCrypto", "ENKeyServer", "ENSQLite", .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // A verification server's storage on PostgreSQL (the PostgreSQL trait; empty without it), on the key server's
        // PostgreSQL client settings, transactions and migrations (ENKeyServerPostgres).
        .target(
            name: "ENVerificationServerPostgres",
            dependencies: [
                "ENCore", "ENVerificationServer", "ENKeyServerPostgres",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
            ]
        ),
        // The facade: Apple's ENManager on any platform, over the modules above.
        .target(
            name: "ExposureNotificationKit",
            dependencies: [
                "ENBoundedFetch", "ENCore", "ENCrypto", "ENExportFormat", "ENMatching", "ENRiskV1", "ENRiskV2", "ENStore",
            ]
        ),
        // The test doubles an app's tests need (a scripted ExposureManaging; a fixed consent, silent and replaying
        // radios, a fixed clock, a manual scheduler), shipped as a product (as swift-nio ships NIOEmbedded).
        .target(name: "ExposureNotificationKitTesting", dependencies: ["ENCore", "ExposureNotificationKit"]),
        // Whole systems in one process on a virtual clock: devices, radio, key server, detection (as swift-nio
        // ships NIOEmbedded).
        .target(
            name: "ENSimulator",
            dependencies: [
                "ENCore", "ENCrypto", "ENExportFormat", "ENKeyServer", "ENKeyServerSQLite", "ENMatching", "ENRiskV1",
                "ENRiskV2", "ENStore", "ENVerificationServer", "ExposureNotificationKit", "ExposureNotificationKitTesting",
            ]
        ),

        // MARK: Executables
        // entool's input readers (score inputs, exposure windows, sightings), apart from the commands so that the
        // fuzz targets reach them without the command line's dependencies.
        .target(name: "EntoolInputs", dependencies: ["ENCore", "ENRiskV1", "ENRiskV2"]),
        // entool's commands, as a library so that the tests reach them.
        .target(
            name: "EntoolKit",
            dependencies: [
                "ENCore", "ENCrypto", "ENEvaluation", "ENExportFormat", "ENKeyServer", "ENRiskV1", "ENRiskV2",
                "ENSimulator", "ENVerificationServer", "EntoolInputs", "ExposureNotificationKit", "ExposureNotificationKitTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "entool", dependencies: ["EntoolKit"]),
        // What enserver and enverify share to be served on the internet: listeners with limits (timeouts, connection
        // cap, body cap), HTTPS behind the TLS trait, the serving loop, and the option readers (durations, owner-only
        // secret files, the failure with its exit status).
        .target(
            name: "ENHTTPServer",
            dependencies: [
                "ENCore",
                "ENCrypto",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HummingbirdTLS", package: "hummingbird", condition: .when(traits: ["TLS"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["TLS"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // enserver's commands and HTTP routes, as a library so that the tests reach them.
        .target(
            name: "EnserverKit",
            dependencies: [
                "ENCore", "ENCrypto", "ENExportFormat", "ENHTTPServer", "ENKeyServer", "ENKeyServerSQLite",
                "ENKeyServerPostgres", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
            ]
        ),
        .executableTarget(name: "enserver", dependencies: ["EnserverKit"]),
        // enverify's commands and HTTP listeners (the verification server's device and admin APIs), as a library so
        // that the tests reach them.
        .target(
            name: "EnverifyKit",
            dependencies: [
                "ENCore", "ENCrypto", "ENHTTPServer", "ENVerificationServer", "ENVerificationServerPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
            ]
        ),
        .executableTarget(name: "enverify", dependencies: ["EnverifyKit"]),
        // The seed sample app's non-UI code (../shared/seeds) as a runnable example: app code written for Apple's
        // framework (Swift 5 mode, as the sample was written), its data in its own SQLite file through GRDB, its
        // server an ENKeyServer, on ENSimulator's virtual clock and radio. SampleAppTests runs it.
        .executableTarget(
            name: "SampleAppExample",
            dependencies: [
                "ExposureNotificationKit", "ExposureNotificationKitTesting", "ENCrypto", "ENExportFormat",
                "ENKeyServer", "ENKeyServerSQLite", "ENSimulator", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Examples/SampleAppExample",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // Test support: writes detections in a loop until killed (ENStoreTests' crash-safety test).
        .executableTarget(name: "ENStoreCrashHelper", dependencies: ["ENCore", "ENStore"]),
        // Test support: exports key-server batches in a loop until killed (ENKeyServerTests' crash test).
        .executableTarget(
            name: "ENKeyServerCrashHelper",
            dependencies: [
                "ENCore", "ENCrypto", "ENExportFormat", "ENKeyServer", "ENKeyServerSQLite", "ENKeyServerPostgres",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
            ]),
        // Fuzzing: the targets and their rules (a library the regression tests replay through), and the driver
        // that Scripts/fuzz.sh builds as a libFuzzer binary (or that replays inputs when built normally).
        .target(
            name: "ENFuzzTargets",
            dependencies: [
                "ENCore", "ENCrypto", "ENExportFormat", "ENKeyServer", "ENStore", "EntoolInputs",
                "ENVerificationServer",
            ]),
        .target(name: "CLibFuzzer"),
        .executableTarget(name: "enfuzz", dependencies: ["ENFuzzTargets", "CLibFuzzer"]),
        .executableTarget(
            name: "Benchmarks",
            dependencies: [
                "ENSimulator", "ENCore", "ENCrypto", "ENEvaluation", "ENExportFormat", "ENKeyServer",
                "ENKeyServerSQLite", "ENMatching", "ENRiskV1", "ENRiskV2", "ENStore", "ExposureNotificationKit",
                "ExposureNotificationKitTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks"
        ),

        // MARK: Tests
        // Shared by the test targets only (not a product): the fixtures (one copy of each, provenance in
        // NOTICE), a seeded random number generator, temporary directories and the external tools.
        .target(
            name: "ENTestSupport", dependencies: ["ENCore"], path: "Tests/ENTestSupport",
            resources: [.copy("Fixtures")]),
        .testTarget(name: "ENCoreTests", dependencies: ["ENCore", "ENTestSupport"]),
        .testTarget(
            name: "EnserverTests",
            dependencies: [
                "ENCore", "ENCrypto", "ENExportFormat", "ENHTTPServer", "ENKeyServer", "ENKeyServerSQLite",
                "ENKeyServerPostgres", "ENSimulator", "EnserverKit", "ENTestSupport", "ExposureNotificationKit",
                "ExposureNotificationKitTesting", .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
            ]
        ),
        .testTarget(
            name: "FuzzRegressionTests",
            dependencies: [
                "ENCore", "ENFuzzTargets", "ENKeyServer", "ENStore", "ENTestSupport", "ENVerificationServer",
            ]),
        .testTarget(name: "ENCryptoTests", dependencies: ["ENCore", "ENCrypto", "ENTestSupport"]),
        // swift-protobuf decodes and encodes export files independently of the module, for cross-checks.
        .testTarget(
            name: "ENExportFormatTests",
            dependencies: [
                "ENCore", "ENCrypto", "ENExportFormat", "ENTestSupport",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ]
        ),
        .testTarget(
            name: "ENMatchingTests",
            dependencies: ["ENCore", "ENCrypto", "ENExportFormat", "ENMatching", "ENTestSupport"]),
        .testTarget(name: "ENRiskV1Tests", dependencies: ["ENCore", "ENRiskV1", "ENTestSupport"]),
        .testTarget(name: "ENEvaluationTests", dependencies: ["ENCore", "ENEvaluation", "ENRiskV2", "ENTestSupport"]),
        .testTarget(name: "ENRiskV2Tests", dependencies: ["ENCore", "ENRiskV2", "ENTestSupport"]),
        .testTarget(
            name: "ENStoreTests",
            dependencies: [
                "ENCore", "ENCrypto", "ENSQLite", "ENStore", "ENStoreCrashHelper", "ENTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "ENKeyServerTests",
            dependencies: [
                "ENCore", "ENCrypto", "ENExportFormat", "ENKeyServer", "ENKeyServerCrashHelper", "ENKeyServerSQLite",
                "ENKeyServerPostgres", "ENSQLite", "ENTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
            ]
        ),
        .testTarget(
            name: "EnverifyTests",
            dependencies: [
                "ENCore", "ENCrypto", "ENExportFormat", "ENHTTPServer", "ENKeyServer", "ENRiskV2", "ENSimulator",
                "ENVerificationServer", "ENVerificationServerPostgres", "EnverifyKit", "ENTestSupport", "enserver",
                "enverify",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "ENVerificationServerTests",
            dependencies: [
                "ENCore", "ENCrypto", "ENKeyServer", "ENVerificationServer", "ENVerificationServerPostgres",
                "ENTestSupport", .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
            ]
        ),
        .testTarget(
            name: "ExposureNotificationKitTests",
            dependencies: [
                "ExposureNotificationKit", "ExposureNotificationKitTesting", "ENCrypto", "ENExportFormat", "ENStore",
                "ENKeyServer", "ENKeyServerSQLite", "ENSimulator", "ENTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "ENSimulatorTests",
            dependencies: [
                "ENCore", "ENKeyServer", "ENKeyServerSQLite", "ENRiskV1", "ENRiskV2", "ENSimulator", "ENStore",
                "ExposureNotificationKit", "ExposureNotificationKitTesting", "ENTestSupport",
            ]
        ),
        // The seed sample's tests: the ported sample in process, and the example run as a program.
        // Swift 5 mode, as the apps' code it holds was written (the sample's flow, Corona-Warn-App's manager).
        .testTarget(
            name: "SampleAppTests",
            dependencies: [
                "SampleAppExample", "ExposureNotificationKit", "ExposureNotificationKitTesting", "ENCrypto",
                "ENExportFormat", "ENKeyServer", "ENKeyServerSQLite", "ENSimulator", "ENStore", "ENTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "EntoolTests",
            dependencies: [
                "ENCore", "ENCrypto", "ENExportFormat", "ENKeyServer", "ENStore", "entool", "ENTestSupport",
            ]),
    ]
)

// Strictness for every target of ours (dependencies are untouched): Swift 6 mode comes from the tools
// version; these add the upcoming features the house style relies on and make warnings errors.
for target in package.targets where target.type != .system {
    var swiftSettings = target.swiftSettings ?? []
    // The sample app (and the apps' code in SampleAppTests) keeps the settings an app written for Apple's framework
    // had; only warnings are errors.
    guard target.name != "SampleAppExample" && target.name != "SampleAppTests" else {
        swiftSettings.append(.treatAllWarnings(as: .error))
        target.swiftSettings = swiftSettings
        continue
    }
    swiftSettings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    swiftSettings.append(.enableUpcomingFeature("ExistentialAny"))
    swiftSettings.append(.enableUpcomingFeature("MemberImportVisibility"))
    swiftSettings.append(.treatAllWarnings(as: .error))
    target.swiftSettings = swiftSettings
}

// EN_PACKAGE_SCOPE, for .ci/run's sanitizer jobs: `libraries` is every library module, the simulator and the sample,
// with their tests, without the command-line tools (entool, enserver, enverify), the servers' HTTP layer
// (ENHTTPServer) and the benchmarks, and so without Hummingbird and swift-nio; `libraries,entool` adds entool and its
// tests. Unset, the package is whole. Documentation/Reliability.md says why these scopes are enough.
if let scope = Context.environment["EN_PACKAGE_SCOPE"] {
    var left: Set<String> = [
        "ENHTTPServer", "EnserverKit", "enserver", "EnverifyKit", "enverify", "Benchmarks", "EnserverTests",
        "EnverifyTests",
    ]
    if !scope.split(separator: ",").contains("entool") { left.formUnion(["EntoolKit", "entool", "EntoolTests"]) }
    package.targets.removeAll { left.contains($0.name) }
    package.products.removeAll { left.contains($0.name) }
    // The packages only the servers use (SwiftPM warns about a dependency no target uses).
    let serversOnly = ["swift-metrics", "swift-nio", "swift-nio-extras", "swift-prometheus", "swift-service-lifecycle"]
    package.dependencies.removeAll { dependency in
        guard case .sourceControl(_, let location, _) = dependency.kind else { return false }
        return serversOnly.contains { location.hasSuffix("/\($0)") }
    }
}
