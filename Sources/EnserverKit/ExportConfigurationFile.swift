import ENCore
import ENExportFormat
import ENHTTPServer
import ENKeyServer
import Foundation

/// One `--export-config FILE`: another export configuration on the server's store, as a JSON object.
///
/// ```json
/// {
///   "name": "ca", "root": "exposureKeyExport-CA", "region": "CA", "period": "4h",
///   "inputRegions": ["CA", "US"], "excludedRegions": ["EU"], "includeTravelers": true, "onlyNonTravelers": false,
///   "signingKeys": [{"file": "ca-key.pem", "keyID": "302", "keyVersion": "v1", "passphraseFile": "ca-pass.txt",
///                    "from": "2026-11-01T00:00:00Z", "until": "2027-11-01T00:00:00Z"}]
/// }
/// ```
///
/// `name`, `root`, `region` and `signingKeys` (one to ten, newest first) are required; `period` defaults to
/// `--export-period`. Key and passphrase files are named, never inlined, and read as `--signing-key` reads its own
/// (owner-only; without a `passphraseFile`, an encrypted key takes `ENSERVER_SIGNING_KEY_PASSPHRASE`); a relative
/// path is relative to the JSON file's folder. The rest (export directory, retention, file
/// size, exposure configuration) is the server's. Unknown keys are refused.
struct ExportConfigurationFile: Decodable {
    /// One signing key.
    struct SigningKey: Decodable {
        var file: String
        var keyID: String
        var keyVersion: String
        var passphraseFile: String?
        var from: String?
        var until: String?

        static let keys: Set<String> = ["file", "keyID", "keyVersion", "passphraseFile", "from", "until"]
    }

    var name: String
    var root: String
    var region: String
    var period: String?
    var inputRegions: [String]?
    var excludedRegions: [String]?
    var includeTravelers: Bool?
    var onlyNonTravelers: Bool?
    var signingKeys: [SigningKey]

    static let keys: Set<String> = [
        "name", "root", "region", "period", "inputRegions", "excludedRegions", "includeTravelers", "onlyNonTravelers",
        "signingKeys",
    ]

    /// A decoding path as messages give it: `signingKeys.0.keyVersion`.
    static func keyPath(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }

    /// The option's name in messages.
    static let option = "--export-config"

    /// The configuration the file at `path` describes, over the server-wide settings of `base` (the default
    /// configuration).
    ///
    /// - Throws: ``EnserverFailure`` (exit 2) naming `--export-config`, the file and what is wrong.
    static func configuration(
        _ path: String, base: ENKeyServerConfiguration, environment: [String: String]
    ) throws(EnserverFailure) -> ENKeyServerConfiguration {
        func failure(_ reason: String) -> EnserverFailure { EnserverFailure("\(option) \(path): \(reason)") }
        let text = try OptionFile.text(path, option: option, secret: false, maximumBytes: 64 << 10)
        let file: ExportConfigurationFile
        do {
            let data = Data(text.utf8)
            guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw failure("want a JSON object")
            }
            if let unknown = Set(object.keys).subtracting(keys).sorted().first {
                throw failure("unknown key \"\(unknown)\" (known: \(keys.sorted().joined(separator: ", ")))")
            }
            for (index, key) in (object["signingKeys"] as? [Any] ?? []).enumerated() {
                let names = Set((key as? [String: Any])?.keys.map { $0 } ?? [])
                if let unknown = names.subtracting(SigningKey.keys).sorted().first {
                    throw failure("signingKeys[\(index)]: unknown key \"\(unknown)\"")
                }
            }
            file = try JSONDecoder().decode(ExportConfigurationFile.self, from: data)
        } catch let failure as EnserverFailure {
            throw failure
        } catch let DecodingError.keyNotFound(key, context) {
            throw failure("missing \"\(keyPath(context.codingPath + [key]))\"")
        } catch let DecodingError.typeMismatch(_, context) {
            throw failure("\"\(keyPath(context.codingPath))\" has the wrong type")
        } catch let DecodingError.valueNotFound(_, context) {
            throw failure("\"\(keyPath(context.codingPath))\" is null")
        } catch {
            throw failure("not a valid export configuration: \(error.localizedDescription)")
        }
        guard !file.name.isEmpty else {
            throw failure("\"name\" is empty (the empty name is the default configuration's, from the options)")
        }
        guard !file.signingKeys.isEmpty else { throw failure("\"signingKeys\" is empty: a file is never unsigned") }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        func resolve(_ name: String) -> String {
            name.hasPrefix("/") ? name : folder.appendingPathComponent(name).path
        }
        var signers: [ENExportSigner] = []
        for (index, key) in file.signingKeys.enumerated() {
            var bounds: [String: Date] = [:]
            for (field, value) in [("from", key.from), ("until", key.until)] {
                guard let value else { continue }
                guard let date = RFC3339.date(from: value) else {
                    throw failure(
                        "signingKeys[\(index)].\(field) \(value) is not an ISO 8601 date such as 2026-11-24T12:00:00Z")
                }
                bounds[field] = date
            }
            let reader = PrivateKeyFile(
                option: "\(option) \(path): signingKeys[\(index)].file",
                passphraseOption: "\(option) \(path): signingKeys[\(index)].passphraseFile",
                passphraseVariable: "ENSERVER_SIGNING_KEY_PASSPHRASE")
            let signingKey = try reader.read(
                resolve(key.file), passphraseFile: key.passphraseFile.map(resolve), environment: environment)
            signers.append(
                ENExportSigner(
                    signingKey: signingKey, keyID: key.keyID, keyVersion: key.keyVersion,
                    activeFrom: bounds["from"], activeUntil: bounds["until"]))
        }
        var configuration = base
        configuration.exportName = file.name
        configuration.exportRoot = file.root
        configuration.region = file.region
        configuration.signers = signers
        if let period = file.period {
            configuration.exportPeriod = try OptionDuration.seconds(period, option: "\(option) \(path): period")
        }
        configuration.selection = ENExportSelection(
            inputRegions: file.inputRegions ?? [], excludedRegions: file.excludedRegions ?? [],
            includesTravelers: file.includeTravelers ?? false, onlyNonTravelers: file.onlyNonTravelers ?? false)
        do {
            try configuration.validateExportSettings()
        } catch {
            let field = error.context.field ?? error.context.section ?? "the configuration"
            throw failure("\(field): \(error.reason)")
        }
        return configuration
    }
}

extension EnserverOptions {
    /// The default configuration `base` (from the export options), then one per `--export-config`, checked together
    /// (``ENKeyServerExportGroup/validate(_:)``) before any storage opens.
    ///
    /// - Throws: ``EnserverFailure`` (exit 2) naming `--export-config` and the file.
    func makeExportConfigurations(
        default base: ENKeyServerConfiguration
    ) throws(EnserverFailure) -> [ENKeyServerConfiguration] {
        var configurations = [base]
        for path in exportConfig {
            configurations.append(
                try ExportConfigurationFile.configuration(path, base: base, environment: EnserverEnvironment.current))
        }
        do {
            try ENKeyServerExportGroup.validate(configurations)
        } catch {
            let index = error.context.index ?? 0
            let source =
                index == 0 ? "the export options" : "\(ExportConfigurationFile.option) \(exportConfig[index - 1])"
            throw EnserverFailure("\(source): \(error.reason)")
        }
        return configurations
    }

    /// The group of `configurations` (checked by ``makeExportConfigurations(default:)``) on `storage`.
    func exportGroup(
        storage: any ENKeyServerStorage, configurations: [ENKeyServerConfiguration],
        clock: @escaping @Sendable () -> Date
    ) throws -> ENKeyServerExportGroup {
        let exporterID = UUID().uuidString
        return ENKeyServerExportGroup(
            checkedExporters: configurations.map {
                ENKeyServerExporter(storage: storage, configuration: $0, clock: clock, exporterID: exporterID)
            })
    }
}

extension ENKeyServerExportGroup {
    /// Cuts every configuration's due batches and names the new files: the first configuration's as they are (as
    /// `enserver` named them with one configuration), the others' as `ROOT/NAME` (their names may repeat the first's).
    func publishNames() async throws(ENError) -> [String] {
        var names: [String] = []
        for (index, exporter) in exporters.enumerated() {
            let root = exporter.configuration.exportRoot
            names += try await exporter.publish().map { index == 0 || root.isEmpty ? $0.name : "\(root)/\($0.name)" }
        }
        return names
    }
}
