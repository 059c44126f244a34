import ArgumentParser
import ENCore
import ENCrypto
import ENExportFormat
import Foundation

/// `entool export`: writes signed export files from keys.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write signed diagnosis-key export zip files from a JSON list of keys.",
        discussion: """
            KEYS.json is a JSON array of keys in the shape `entool inspect --json` prints: \
            {"keyData": HEX, "rollingStartIntervalNumber": N, "rollingPeriod": N, "transmissionRiskLevel": N, \
            "reportType": N, "daysSinceOnsetOfSymptoms": N}; only keyData and rollingStartIntervalNumber are \
            required. An object {"keys": [...], "revisedKeys": [...]} (inspect's whole output) works too. Keys \
            are shuffled. When they exceed --max-keys-per-file (or 16 MiB), several files are written: \
            PATH-1.zip, PATH-2.zip, ... with distinct end timestamps; otherwise exactly PATH.
            """
    )

    @Option(help: "The keys, as JSON.")
    var keys: String

    @Option(name: .customLong("signing-key"), help: "The ECDSA P-256 private key (PEM, PKCS#8 or SEC1).")
    var signingKeyPath: String

    @Option(name: .customLong("key-id"), help: "The verification_key_id written into the files.")
    var keyID: String

    @Option(name: .customLong("key-version"), help: "The verification_key_version written into the files.")
    var keyVersion: String

    @Option(help: "The region, for example US, DE or an MCC.")
    var region: String

    @Option(help: "Where to write the zip (several files get -1, -2, ... before the extension).")
    var output: String

    @Option(name: .customLong("max-keys-per-file"), help: "The most keys in one file.")
    var maxKeysPerFile: Int = 750_000

    @Option(
        name: .customLong("start-timestamp"),
        help: "Start of the keys' arrival window, UTC seconds (default: end - 1 day).")
    var startTimestamp: UInt64?

    @Option(name: .customLong("end-timestamp"), help: "End of the keys' arrival window, UTC seconds (default: now).")
    var endTimestamp: UInt64?

    @OptionGroup var outputOptions: OutputOptions

    /// The JSON shape of `entool export --json`.
    struct Result: Encodable {
        struct File: Encodable {
            var path: String
            var keyCount: Int
            var revisedKeyCount: Int
            var startTimestamp: UInt64
            var endTimestamp: UInt64
        }
        var files: [File]
    }

    func run() throws {
        guard maxKeysPerFile >= 1 else { throw EntoolFailure.badInput("--max-keys-per-file must be at least 1") }
        let lists = try ExportKeyReader.read(path: keys)
        let pem = String(decoding: try readInputFile(signingKeyPath, what: "signing key"), as: UTF8.self)
        let signer = ENExportSigner(
            signingKey: try P256SigningKey(pemRepresentation: pem), keyID: keyID, keyVersion: keyVersion)
        let end = endTimestamp ?? UInt64(Date().timeIntervalSince1970)
        let start = startTimestamp ?? (end >= 86_400 ? end - 86_400 : 0)
        var writer = ENExportWriter(region: region, startTimestamp: start, endTimestamp: end, signers: [signer])
        writer.maximumKeysPerFile = maxKeysPerFile
        let archives = try writer.archives(keys: lists.keys, revisedKeys: lists.revisedKeys)

        let base = URL(fileURLWithPath: output)
        var files: [Result.File] = []
        for (index, archive) in archives.enumerated() {
            var url = base
            if archives.count > 1 {
                let stem = base.deletingPathExtension().lastPathComponent
                let ext = base.pathExtension.isEmpty ? "zip" : base.pathExtension
                url = base.deletingLastPathComponent().appendingPathComponent("\(stem)-\(index + 1).\(ext)")
            }
            try archive.write(to: url)
            let metadata = try archive.keyScanner()
            files.append(
                .init(
                    path: url.path, keyCount: metadata.keyCount, revisedKeyCount: metadata.revisedKeyCount,
                    startTimestamp: start, endTimestamp: metadata.metadata.endTimestamp ?? end))
        }
        if outputOptions.json {
            try printJSON(Result(files: files))
        } else {
            for file in files {
                print(
                    "wrote \(file.path): \(file.keyCount) keys, \(file.revisedKeyCount) revised, end \(file.endTimestamp)"
                )
            }
        }
    }
}
