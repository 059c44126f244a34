import ENCore
import ENCrypto
import ENExportFormat
import Foundation
import Testing

/// Loads a fixture from `Fixtures/<path>`.
func fixture(_ path: String) throws -> Data {
    let url = try fixtureURL(path)
    return try Data(contentsOf: url)
}

/// The URL of a fixture from `Fixtures/<path>`.
func fixtureURL(_ path: String) throws -> URL {
    let name = (path as NSString).deletingPathExtension
    let ext = (path as NSString).pathExtension
    return try #require(Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "Fixtures"))
}

/// The real export files and what their origins document (see Fixtures/ORIGINS.md).
struct RealExportFile: Sendable, CustomTestStringConvertible {
    var path: String
    var keyCount: Int
    var region: String
    var isSigned: Bool
    /// The PEM fixture of the published key that verifies the file, if any.
    var publicKey: String?

    var testDescription: String { path }

    static let all: [RealExportFile] = [
        .init(
            path: "ens-example/testExport-2-records-1-of-1.zip", keyCount: 2, region: "US", isSigned: true,
            publicKey: "ens-example/public.pem"),
        .init(
            path: "ens-example-2020-05-20/testExport-2-records-1-of-1.zip", keyCount: 2, region: "US",
            isSigned: true, publicKey: "ens-example/public.pem"),
        .init(
            path: "en-internals/sample_diagnosis_key_file.zip", keyCount: 140, region: "US", isSigned: true,
            publicKey: "en-internals/pubkey_310-v1.pem"),
        .init(
            path: "en-android/sample_diagnosis_key_file_174cf0d.zip", keyCount: 110, region: "US", isSigned: true,
            publicKey: "en-internals/pubkey_ExampleServer-v1.pem"),
        .init(
            path: "xamarin-signed-example/export.zip", keyCount: 2, region: "US", isSigned: true,
            publicKey: "xamarin-signed-example/public.pem"),
        .init(path: "cwa-android/keys.bin.zip", keyCount: 24_131, region: "DE", isSigned: true, publicKey: nil),
        .init(path: "en-internals/app_raw_export.bin", keyCount: 110, region: "US", isSigned: false, publicKey: nil),
        .init(
            path: "en-internals/cpp_testdata_export.bin", keyCount: 200, region: "US", isSigned: false,
            publicKey: nil),
        .init(path: "immuni/export.bin", keyCount: 3, region: "222", isSigned: false, publicKey: nil),
    ]

    static let publicKeys = [
        "ens-example/public.pem", "en-internals/pubkey_310-v1.pem", "en-internals/pubkey_ExampleServer-v1.pem",
    ]
}

/// Runs an external program found on `PATH`; `nil` when it is not installed.
func runTool(_ name: String, _ arguments: [String], stdin: Data? = nil) throws -> (
    status: Int32, stdout: Data, stderr: Data
)? {
    let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        .map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    guard let path else { return nil }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let input = Pipe()
    let output = Pipe()
    let error = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = error
    try process.run()
    if let stdin { input.fileHandleForWriting.write(stdin) }
    try input.fileHandleForWriting.close()
    let out = output.fileHandleForReading.readDataToEndOfFile()
    let err = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, out, err)
}

/// A fresh temporary directory, removed by the caller.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("ENExportFormatTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A deterministic generator (SplitMix64) for property tests.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A random valid key, every optional field sometimes present.
func randomKey(using rng: inout SeededGenerator) -> ENTemporaryExposureKey {
    var bytes = [UInt8](repeating: 0, count: 16)
    for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255, using: &rng) }
    return ENTemporaryExposureKey(
        keyData: Data(bytes),
        rollingStartNumber: ENIntervalNumber(UInt32.random(in: 0...3_000_000, using: &rng)),
        rollingPeriod: UInt32.random(in: 1...144, using: &rng),
        transmissionRiskLevel: UInt8.random(in: 0...8, using: &rng),
        diagnosisReportType: ENDiagnosisReportType.allCases.randomElement(using: &rng)!,
        daysSinceOnsetOfSymptoms: Bool.random(using: &rng)
            ? Int.random(in: -14...14, using: &rng) : ENDaysSinceOnsetOfSymptomsUnknown,
        variantOfConcern: ENVariantOfConcernType.allCases.randomElement(using: &rng)!
    )
}

/// Keys in a canonical order, for comparing sets of keys regardless of file order.
func sorted(_ keys: [ENTemporaryExposureKey]) -> [ENTemporaryExposureKey] {
    keys.sorted { a, b in
        a.keyData.lexicographicallyPrecedes(b.keyData)
            || (a.keyData == b.keyData && a.rollingStartNumber < b.rollingStartNumber)
    }
}

/// The `export.proto` this package ships, for `protoc`.
var protoDirectory: String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/ENExportFormat/Protos").path
}
