import ArgumentParser
import ENCore
import ENCrypto
import ENExportFormat
import ENHTTPServer
import ENKeyServer
import Foundation

/// The options of an import of another key server's files: `enserver import`'s, and `serve`'s when it imports on an
/// interval.
struct ImportOptions: ParsableArguments {
    @Option(help: "The import's name on this server: it records the files imported and marks their keys.")
    var importName: String?

    @Option(help: "The other server's index.txt (http or https URL).")
    var importIndex: String?

    @Option(help: "The URL the names in index.txt are relative to (default: the index's scheme, host and port).")
    var importRoot: String?

    @Option(help: "The region the imported keys are stored with.")
    var importRegion: String?

    @Flag(help: "The imported keys count as travellers' keys.")
    var importTraveler = false

    @Option(
        help: """
            A public key of the other server's files, KEY-ID/KEY-VERSION=PEM-FILE (its verification_key_id and \
            verification_key_version); repeat for several (a rotation).
            """)
    var importPublicKey: [String] = []

    @Option(
        help: """
            KEY-ID/KEY-VERSION=DATE: the --import-public-key of that id and version is trusted until DATE (ISO 8601, \
            exclusive), the end of the other server's key rotation; repeat for several.
            """)
    var importPublicKeyThru: [String] = []

    @Option(help: "How long after each failed try a file is tried again (Google: 6h).")
    var importRetry: String = "6h"

    init() {}

    /// The import's configuration from the options; `nil` without `--import-name` unless `required`.
    ///
    /// - Throws: `EnserverFailure` (exit 2) naming the option that is missing or wrong.
    func configuration(required: Bool) throws(EnserverFailure) -> ENExportImportConfiguration? {
        guard let importName else {
            if required { throw EnserverFailure("--import-name is required") }
            if importIndex != nil || importRegion != nil || !importPublicKey.isEmpty || importRoot != nil
                || importTraveler || !importPublicKeyThru.isEmpty
            {
                throw EnserverFailure("the --import-* options need --import-name")
            }
            return nil
        }
        guard let importIndex else { throw EnserverFailure("--import-index is required with --import-name") }
        guard let importRegion else { throw EnserverFailure("--import-region is required with --import-name") }
        guard let index = URL(string: importIndex), let scheme = index.scheme, let host = index.host else {
            throw EnserverFailure("--import-index \(importIndex): want an http or https URL")
        }
        var root: URL
        if let importRoot {
            guard let url = URL(string: importRoot) else {
                throw EnserverFailure("--import-root \(importRoot): want an http or https URL")
            }
            root = url
        } else {
            var components = URLComponents()
            components.scheme = scheme
            components.host = host
            components.port = index.port
            guard let url = components.url else {
                throw EnserverFailure("--import-index \(importIndex): want an http or https URL")
            }
            root = url
        }
        let retry = try OptionDuration.seconds(importRetry, option: "--import-retry")
        var thru = try publicKeysThru()
        var keys: [ENExportImportPublicKey] = []
        for spec in importPublicKey {
            let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
            let names = parts.first?.split(separator: "/", omittingEmptySubsequences: false).map(String.init) ?? []
            guard parts.count == 2, names.count == 2, !names[0].isEmpty, !names[1].isEmpty else {
                throw EnserverFailure("--import-public-key \(spec): want KEY-ID/KEY-VERSION=PEM-FILE")
            }
            let pem: String
            do {
                pem = try String(contentsOfFile: parts[1], encoding: .utf8)
            } catch {
                throw EnserverFailure("--import-public-key \(spec): cannot read \(parts[1])")
            }
            do {
                let key = ENExportVerificationKey(
                    keyID: names[0], keyVersion: names[1], publicKey: try P256VerifyingKey(pemRepresentation: pem))
                keys.append(ENExportImportPublicKey(key, thru: thru.removeValue(forKey: parts[0])))
            } catch {
                throw EnserverFailure("--import-public-key \(spec): \(error.reason)")
            }
        }
        if let name = thru.keys.sorted().first {
            throw EnserverFailure("--import-public-key-thru \(name): no --import-public-key \(name)=PEM-FILE")
        }
        let configuration = ENExportImportConfiguration(
            name: importName, indexURL: index, exportRoot: root, region: importRegion, traveler: importTraveler,
            trustedKeys: keys, retryInterval: retry)
        do {
            try configuration.validate()
        } catch {
            let option =
                switch error.context.field {
                case "name": "--import-name"
                case "region": "--import-region"
                case "trustedKeys": "--import-public-key"
                case "indexURL": "--import-index"
                case "exportRoot": "--import-root"
                default: "--import-retry"
                }
            throw EnserverFailure("\(option): \(error.reason)")
        }
        return configuration
    }

    /// `--import-public-key-thru`: each KEY-ID/KEY-VERSION's date.
    ///
    /// - Throws: `EnserverFailure` (exit 2) for a value that is not `KEY-ID/KEY-VERSION=DATE` or names a key twice.
    func publicKeysThru() throws(EnserverFailure) -> [String: Date] {
        var thru: [String: Date] = [:]
        for spec in importPublicKeyThru {
            let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
            let names = parts.first?.split(separator: "/", omittingEmptySubsequences: false) ?? []
            guard parts.count == 2, names.count == 2, !names[0].isEmpty, !names[1].isEmpty else {
                throw EnserverFailure("--import-public-key-thru \(spec): want KEY-ID/KEY-VERSION=DATE")
            }
            guard thru[parts[0]] == nil else {
                throw EnserverFailure("--import-public-key-thru \(spec): \(parts[0]) is given twice")
            }
            thru[parts[0]] = try OptionDate.date(parts[1], option: "--import-public-key-thru")
        }
        return thru
    }
}
