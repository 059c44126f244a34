import ArgumentParser
import ENCore
import ENExportFormat
import Foundation

/// `entool inspect`: the contents of an export file.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Print the contents of a diagnosis-key export file (a zip, or a bare export.bin).",
        discussion: """
            Keys show effective values: an absent rolling period prints 144. Enums print as numbers (Apple's raw \
            values); absent optional fields are omitted. The signature is not checked; use `entool verify`.
            """
    )

    @Argument(help: "The export file: a zip with export.bin and export.sig, or a bare export.bin.")
    var file: String

    @OptionGroup var output: OutputOptions

    /// The JSON shape of `entool inspect --json`.
    struct Result: Encodable {
        struct SignatureInfo: Encodable {
            var verificationKeyId: String?
            var verificationKeyVersion: String?
            var signatureAlgorithm: String?
        }
        var startTimestamp: UInt64?
        var endTimestamp: UInt64?
        var region: String?
        var batchNum: Int?
        var batchSize: Int?
        var signatureInfos: [SignatureInfo]
        var keys: [ExportKeyJSON]
        var revisedKeys: [ExportKeyJSON]
    }

    func run() throws {
        let archive = try ENExportArchive(contentsOf: URL(fileURLWithPath: file))
        let scanner = try archive.keyScanner()
        let metadata = scanner.metadata
        let result = Result(
            startTimestamp: metadata.startTimestamp, endTimestamp: metadata.endTimestamp, region: metadata.region,
            batchNum: metadata.batchNumber, batchSize: metadata.batchSize,
            signatureInfos: metadata.signatureInfos.map {
                .init(
                    verificationKeyId: $0.verificationKeyID, verificationKeyVersion: $0.verificationKeyVersion,
                    signatureAlgorithm: $0.signatureAlgorithm)
            },
            keys: try scanner.allKeys(in: .keys).map(ExportKeyJSON.init),
            revisedKeys: try scanner.allKeys(in: .revisedKeys).map(ExportKeyJSON.init))
        if output.json {
            try printJSON(result)
            return
        }
        func date(_ seconds: UInt64?) -> String {
            guard let seconds else { return "-" }
            return "\(seconds) (\(Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601)))"
        }
        print("file:        \(file)\(archive.signatureFile == nil ? " (bare export.bin, no export.sig)" : "")")
        print("region:      \(result.region ?? "-")")
        print("start:       \(date(result.startTimestamp))")
        print("end:         \(date(result.endTimestamp))")
        print("batch:       \(result.batchNum.map(String.init) ?? "-") of \(result.batchSize.map(String.init) ?? "-")")
        for info in result.signatureInfos {
            print(
                "signature:   key id \(info.verificationKeyId ?? "-"), version \(info.verificationKeyVersion ?? "-"), "
                    + "algorithm \(info.signatureAlgorithm ?? "-")")
        }
        print("keys:        \(result.keys.count)")
        print("revised:     \(result.revisedKeys.count)")
        for (label, keys) in [("key", result.keys), ("revised", result.revisedKeys)] {
            for key in keys {
                var line =
                    "\(label) \(key.keyData) start \(key.rollingStartIntervalNumber) period \(key.rollingPeriod ?? 144)"
                line += " risk \(key.transmissionRiskLevel ?? 0)"
                if let type = key.reportType { line += " report \(type)" }
                if let days = key.daysSinceOnsetOfSymptoms { line += " onset \(days)" }
                if let variant = key.variantOfConcern { line += " variant \(variant)" }
                print(line)
            }
        }
    }
}
