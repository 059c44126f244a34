import ArgumentParser
import ENCore
import ENCrypto
import ENExportFormat
import ENKeyServer
import ENKeyServerSQLite
import Foundation
import Logging

#if PostgreSQL
    import ENKeyServerPostgres
    import PostgresNIO
#endif

/// The options `enserver` and `enserver export` share: storage, exports, signing, publishing and verification.
struct EnserverOptions: ParsableArguments {
    @Option(help: "The SQLite database file (created if missing).")
    var database: String?

    @Option(
        help: """
            A PostgreSQL database instead of --database: postgres://USER:PASSWORD@HOST:PORT/DATABASE, with optional \
            ?sslmode=disable|prefer|require, search_path=SCHEMA, pool_max=N, host=/SOCKET/DIR.
            """)
    var postgres: String?

    @Option(help: "Also write the export files and index.txt under this directory (for a static server or CDN).")
    var exportDir: String?

    @Option(help: "The path prefix of files and index.txt, e.g. `exposureKeyExport-US` (default: none).")
    var exportRoot: String = ""

    @Option(help: "The region written into every export file.")
    var region: String

    @Option(help: "The PEM file of the P-256 private key that signs the export files.")
    var signingKey: String

    @Option(help: "The signing key's id (`verification_key_id`, an MCC for Apple, e.g. 310).")
    var keyID: String

    @Option(help: "The signing key's version (`verification_key_version`).")
    var keyVersion: String = "v1"

    @Option(help: "The export period: a duration dividing 24 hours (e.g. 4h, 30m, 86400s); 4h or more recommended.")
    var exportPeriod: String = "4h"

    @Option(help: "The most keys in one export file (Google: 500000).")
    var maxKeysPerFile: Int = 500_000

    @Option(help: "The health authority id apps send as `healthAuthorityID`.")
    var healthAuthorityID: String

    @Option(
        help: """
            How publish requests are verified: certificate (the verification server's ES256 certificate), or \
            accept-all (tests and simulations; loopback only).
            """)
    var verifier: VerifierKind = .certificate

    @Option(help: "The certificate issuer (`iss`) of the health authority's verification server.")
    var certificateIssuer: String?

    @Option(help: "The certificate audience (`aud`) this server expects.")
    var certificateAudience: String?

    @Option(help: "A verification server public key, KID=PEM-FILE (repeat for several).")
    var certificateKey: [String] = []

    @Option(
        help: """
            A revision-token key, ID=BASE64 of 32 bytes (repeat; the first is current). Instances behind one load \
            balancer need the same keys; without one, a random key lives as long as the process.
            """)
    var revisionTokenKey: [String] = []

    @Option(help: "A JSON file with the exposure configuration served at /v1/exposure-configuration.json.")
    var exposureConfiguration: String?

    init() {}

    enum VerifierKind: String, ExpressibleByArgument, CaseIterable {
        case acceptAll = "accept-all"
        case certificate
    }

    /// The export settings and the publish API's settings, from the options; checked before any storage opens.
    func makeSettings() throws(EnserverFailure) -> (ENKeyServerConfiguration, ENPublishConfiguration) {
        switch (database, postgres) {
        case (nil, nil): throw EnserverFailure("--database FILE or --postgres URL is required")
        case (.some, .some): throw EnserverFailure("--database and --postgres exclude each other: give one")
        default: break
        }
        let period = try Self.duration(exportPeriod, option: "--export-period")
        let signer = ENExportSigner(
            signingKey: try Self.read(signingKey, option: "--signing-key") { pem throws(ENError) in
                try P256SigningKey(pemRepresentation: pem)
            },
            keyID: keyID, keyVersion: keyVersion)
        var exposure = ENExposureConfiguration()
        if let exposureConfiguration {
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: exposureConfiguration))
                exposure = try JSONDecoder().decode(ENExposureConfiguration.self, from: data)
            } catch {
                throw EnserverFailure("--exposure-configuration \(exposureConfiguration): \(error)")
            }
        }
        let configuration = ENKeyServerConfiguration(
            region: region, signers: [signer], maximumKeysPerFile: maxKeysPerFile, exposureConfiguration: exposure,
            exportPeriod: period, exportDirectory: exportDir.map { URL(fileURLWithPath: $0, isDirectory: true) },
            exportRoot: exportRoot)
        do {
            try configuration.validateExportSettings()
        } catch {
            throw EnserverFailure(error)
        }
        let publish = ENPublishConfiguration(
            authorizedApps: [
                ENPublishAuthorizedApp(healthAuthorityID: healthAuthorityID, verifier: try makeVerifier())
            ],
            revisionTokenKeys: try makeRevisionTokenKeys())
        return (configuration, publish)
    }

    /// Opens the storage the options name (the SQLite file, or PostgreSQL with its connection pool running and the
    /// schema migrated), runs `body` with the exporter and the publish API on it, and closes it.
    func withServer<Value: Sendable>(
        clock: @escaping @Sendable () -> Date, logger: Logger,
        _ body: (ENKeyServerExporter, ENPublishHandler) async throws -> Value
    ) async throws -> Value {
        let (configuration, publishConfiguration) = try makeSettings()
        func run(_ storage: any ENKeyServerStorage) async throws -> Value {
            try await body(
                ENKeyServerExporter(storage: storage, configuration: configuration, clock: clock),
                ENPublishHandler(storage: storage, configuration: publishConfiguration, clock: clock))
        }
        if let database {
            let store: ENKeyServerSQLiteStore
            do {
                store = try ENKeyServerSQLiteStore(path: database, clock: clock)
            } catch {
                throw EnserverFailure(error)
            }
            return try await run(store)
        }
        guard let postgres else { throw EnserverFailure("--database FILE or --postgres URL is required") }
        #if PostgreSQL
            let clientConfiguration: PostgresClient.Configuration
            do {
                clientConfiguration = try ENKeyServerPostgresStore.clientConfiguration(url: postgres)
            } catch {
                throw EnserverFailure("--postgres \(ENKeyServerPostgresStore.redacted(postgres)): \(error.reason)")
            }
            let client = PostgresClient(configuration: clientConfiguration, backgroundLogger: logger)
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                let store = ENKeyServerPostgresStore(client: client, logger: logger)
                do throws(ENError) {
                    try await store.migrate()
                } catch {
                    throw EnserverFailure(
                        "--postgres \(ENKeyServerPostgresStore.redacted(postgres)): \(error.reason)", exitCode: 1)
                }
                return try await run(store)
            }
        #else
            throw EnserverFailure(
                "--postgres: this enserver was built without the PostgreSQL trait; use --database FILE")
        #endif
    }

    private func makeVerifier() throws(EnserverFailure) -> any ENPublishCertificateVerifier {
        switch verifier {
        case .acceptAll:
            return ENAcceptAllCertificateVerifier()
        case .certificate:
            guard let certificateIssuer, let certificateAudience, !certificateKey.isEmpty else {
                throw EnserverFailure(
                    "--verifier certificate needs --certificate-issuer, --certificate-audience and --certificate-key")
            }
            var keys: [ENVerificationCertificateVerifier.Key] = []
            for pair in certificateKey {
                let (version, path) = try Self.split(pair, option: "--certificate-key")
                let key = try Self.read(path, option: "--certificate-key") { pem throws(ENError) in
                    try P256VerifyingKey(pemRepresentation: pem)
                }
                keys.append(ENVerificationCertificateVerifier.Key(version: version, publicKey: key))
            }
            return ENVerificationCertificateVerifier(healthAuthorities: [
                ENVerificationCertificateVerifier.HealthAuthority(
                    issuer: certificateIssuer, audience: certificateAudience, keys: keys)
            ])
        }
    }

    private func makeRevisionTokenKeys() throws(EnserverFailure) -> ENRevisionTokenKeys {
        guard !revisionTokenKey.isEmpty else {
            do { return try ENRevisionTokenKeys.generate() } catch { throw EnserverFailure(error) }
        }
        var keys: [Int64: AESGCM.Key] = [:]
        var current: Int64?
        for pair in revisionTokenKey {
            let (id, base64) = try Self.split(pair, option: "--revision-token-key")
            guard let number = Int64(id), let data = Data(base64Encoded: base64), data.count == 32,
                let key = try? AESGCM.Key(data: data)
            else {
                throw EnserverFailure("--revision-token-key \(id)=…: want a decimal id and base64 of 32 bytes")
            }
            keys[number] = key
            current = current ?? number
        }
        return ENRevisionTokenKeys(currentKeyID: current!, keys: keys)
    }

    // MARK: Parsing

    /// `4h`, `30m`, `90s`, `1d` or plain seconds, as whole seconds.
    static func duration(_ text: String, option: String) throws(EnserverFailure) -> TimeInterval {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var number = Substring(text)
        var unit = 1.0
        if let last = text.last, let scale = units[last] {
            number = number.dropLast()
            unit = scale
        }
        guard let value = Double(number), value.isFinite, value > 0 else {
            throw EnserverFailure("\(option) \(text): want a positive duration such as 4h, 30m or 3600s")
        }
        return value * unit
    }

    static func split(_ pair: String, option: String) throws(EnserverFailure) -> (String, String) {
        guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
            throw EnserverFailure("\(option) \(pair): want NAME=VALUE")
        }
        return (String(pair[..<equals]), String(pair[pair.index(after: equals)...]))
    }

    static func read<Value>(
        _ path: String, option: String, _ parse: (String) throws(ENError) -> Value
    ) throws(EnserverFailure) -> Value {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw EnserverFailure("\(option) \(path): cannot read the file: \(error.localizedDescription)")
        }
        do {
            return try parse(text)
        } catch {
            throw EnserverFailure("\(option) \(path): \(error.reason)")
        }
    }
}
