import ENCore
import ENCrypto
import ENExportFormat
import ENTestSupport
import Foundation
import Testing

/// The real export files and what their origins document (provenance in NOTICE).
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
            path: "export/ens-example/testExport-2-records-1-of-1.zip", keyCount: 2, region: "US", isSigned: true,
            publicKey: "export/ens-example/public.pem"),
        .init(
            path: "export/ens-example-2020-05-20/testExport-2-records-1-of-1.zip", keyCount: 2, region: "US",
            isSigned: true, publicKey: "export/ens-example/public.pem"),
        .init(
            path: "export/en-internals/sample_diagnosis_key_file.zip", keyCount: 140, region: "US", isSigned: true,
            publicKey: "export/en-internals/pubkey_310-v1.pem"),
        .init(
            path: "export/en-android/sample_diagnosis_key_file_174cf0d.zip", keyCount: 110, region: "US",
            isSigned: true,
            publicKey: "export/en-internals/pubkey_ExampleServer-v1.pem"),
        .init(
            path: "export/xamarin-signed-example/export.zip", keyCount: 2, region: "US", isSigned: true,
            publicKey: "export/xamarin-signed-example/public.pem"),
        .init(path: "export/cwa-android/keys.bin.zip", keyCount: 24_131, region: "DE", isSigned: true, publicKey: nil),
        .init(
            path: "export/en-internals/app_raw_export.bin", keyCount: 110, region: "US", isSigned: false, publicKey: nil
        ),
        .init(
            path: "export/en-internals/cpp_testdata_export.bin", keyCount: 200, region: "US", isSigned: false,
            publicKey: nil),
        .init(path: "export/generated/bare-export.bin", keyCount: 3, region: "222", isSigned: false, publicKey: nil),
    ]

    static let publicKeys = [
        "export/ens-example/public.pem", "export/en-internals/pubkey_310-v1.pem",
        "export/en-internals/pubkey_ExampleServer-v1.pem",
    ]
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
