import ArgumentParser
import ENCore
import ENCrypto
import ENExportFormat
import ENHTTPServer
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
    @Option(
        help: """
            A JSON file of options (keys are option names without dashes); the command line and ENSERVER_* \
            environment variables win over it.
            """)
    var config: String?

    @Option(help: "The SQLite database file (created if missing).")
    var database: String?

    @Option(
        help: """
            A PostgreSQL database instead of --database: postgres://USER@HOST:PORT/DATABASE (the password from --postgres-password-file or the environment), with optional \
            ?sslmode=require|verify-full (disable|prefer on loopback only), sslrootcert=CA-FILE, search_path=SCHEMA, pool_max=N, host=/SOCKET/DIR.
            """)
    var postgres: String?

    @Option(help: "Also write the export files and index.txt under this directory (for a static server or CDN).")
    var exportDir: String?

    @Option(help: "The path prefix of files and index.txt, e.g. `exposureKeyExport-US` (default: none).")
    var exportRoot: String = ""

    @Option(help: "The region written into every export file.")
    var region: String

    @Option(
        help: """
            A region the health authority's keys are stored with (Google's allowed regions; repeat for several; \
            default: --region).
            """)
    var healthAuthorityRegion: [String] = []

    @Option(help: "A region whose keys the files carry (repeat for several; default: --region).")
    var inputRegion: [String] = []

    @Option(help: "A region whose keys the files never carry, a traveller's neither (repeat for several).")
    var excludeRegion: [String] = []

    @Flag(help: "The files also carry the keys of every traveller, whatever their regions.")
    var includeTravelers = false

    @Flag(help: "The files carry only the keys of users who did not travel.")
    var onlyNonTravelers = false

    @Option(help: "The PEM file of the P-256 private key that signs the export files (owner-only; may be encrypted).")
    var signingKey: String

    @Option(
        help: """
            A file holding the passphrase of an encrypted --signing-key (or the environment variable \
            ENSERVER_SIGNING_KEY_PASSPHRASE). Never on the command line.
            """)
    var signingKeyPassphraseFile: String?

    @Option(help: "The signing key's id (`verification_key_id`, an MCC for Apple, e.g. 310).")
    var keyID: String

    @Option(help: "The signing key's version (`verification_key_version`).")
    var keyVersion: String = "v1"

    @Option(
        help: """
            Another key that signs the files beside --signing-key, for a rotation: VERSION=PEM-FILE[,from=ISO8601]\
            [,until=ISO8601] (the same --key-id and passphrase); it signs from its start until its end, inclusive, \
            without a restart. Repeat for several, newest first; at most ten keys in all.
            """)
    var additionalSigningKey: [String] = []

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
            A file of revision-token keys, one ID=BASE64 (32 bytes) per line, the first current; or the environment \
            variable ENSERVER_REVISION_TOKEN_KEYS (keys separated by commas). Instances behind one load balancer need \
            the same keys. Never on the command line.
            """)
    var revisionTokenKeysFile: String?

    @Flag(
        help: """
            Run without revision-token keys: a random key lives as long as the process, so revision tokens break \
            after a restart and across instances.
            """)
    var ephemeralRevisionTokens = false

    @Option(
        help: """
            A file holding the PostgreSQL password (or the environment variable ENSERVER_POSTGRES_PASSWORD), when \
            the --postgres URL has none. Never on the command line.
            """)
    var postgresPasswordFile: String?

    @Option(help: "A PEM file of the CA certificates that may sign the PostgreSQL server's certificate.")
    var postgresCa: String?

    @Option(help: "A JSON file with the exposure configuration served at /v1/exposure-configuration.json.")
    var exposureConfiguration: String?

    @Option(
        help: """
            Another export configuration on the same store, from a JSON file (name, root, region, period, input and \
            excluded regions, traveller options, signing key files; see enserver.md): its own batches, files and \
            ROOT/index.txt. Repeat for several; the export options above are the default configuration.
            """)
    var exportConfig: [String] = []

    init() {}

    enum VerifierKind: String, ExpressibleByArgument, CaseIterable {
        case acceptAll = "accept-all"
        case certificate
    }

    /// The export settings and the publish API's settings, from the options; checked before any storage opens.
    /// With `requiresRevisionTokenKeys` (`serve`), revision-token keys must be given unless
    /// `--ephemeral-revision-tokens` says otherwise.
    func makeSettings(
        requiresRevisionTokenKeys: Bool = false
    ) throws(EnserverFailure) -> (ENKeyServerConfiguration, ENPublishConfiguration) {
        switch (database, postgres) {
        case (nil, nil): throw EnserverFailure("--database FILE or --postgres URL is required")
        case (.some, .some): throw EnserverFailure("--database and --postgres exclude each other: give one")
        default: break
        }
        let period = try OptionDuration.seconds(exportPeriod, option: "--export-period")
        let signers = try makeSigners()
        var exposure = ENExposureConfiguration()
        if let exposureConfiguration {
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: exposureConfiguration))
                exposure = try JSONDecoder().decode(ENExposureConfiguration.self, from: data)
            } catch {
                throw EnserverFailure("--exposure-configuration \(exposureConfiguration): \(error)")
            }
        }
        for (option, regions) in [
            ("--region", [region]), ("--health-authority-region", healthAuthorityRegion),
            ("--input-region", inputRegion), ("--exclude-region", excludeRegion),
        ] {
            for value in regions {
                do {
                    try ENKeyServerKeyOrigin.validate(region: value)
                } catch {
                    throw EnserverFailure("\(option): \(error.reason)")
                }
            }
        }
        let configuration = ENKeyServerConfiguration(
            region: region, signers: signers, maximumKeysPerFile: maxKeysPerFile, exposureConfiguration: exposure,
            exportPeriod: period, exportDirectory: exportDir.map { URL(fileURLWithPath: $0, isDirectory: true) },
            exportRoot: exportRoot,
            selection: ENExportSelection(
                inputRegions: inputRegion, excludedRegions: excludeRegion, includesTravelers: includeTravelers,
                onlyNonTravelers: onlyNonTravelers))
        do {
            try configuration.validateExportSettings()
        } catch {
            throw EnserverFailure(error)
        }
        let publish = ENPublishConfiguration(
            authorizedApps: [
                ENPublishAuthorizedApp(
                    healthAuthorityID: healthAuthorityID, verifier: try makeVerifier(), regions: healthAuthorityRegion)
            ],
            revisionTokenKeys: try makeRevisionTokenKeys(required: requiresRevisionTokenKeys), defaultRegion: region)
        return (configuration, publish)
    }

    /// Opens the storage the options name (the SQLite file, or PostgreSQL with its connection pool running and the
    /// schema migrated), runs `body` with the default configuration's exporter and the publish API on it, and closes
    /// it.
    func withServer<Value: Sendable>(
        clock: @escaping @Sendable () -> Date, logger: Logger, requiresRevisionTokenKeys: Bool = false,
        _ body: (ENKeyServerExporter, ENPublishHandler) async throws -> Value
    ) async throws -> Value {
        try await withExportGroup(
            clock: clock, logger: logger, requiresRevisionTokenKeys: requiresRevisionTokenKeys
        ) { group, publish in
            try await body(group.exporters[0], publish)
        }
    }

    /// Opens the storage as ``withServer(clock:logger:requiresRevisionTokenKeys:_:)`` does and runs `body` with every
    /// export configuration (the default one first, then each `--export-config` in order) and the publish API.
    func withExportGroup<Value: Sendable>(
        clock: @escaping @Sendable () -> Date, logger: Logger, requiresRevisionTokenKeys: Bool = false,
        _ body: (ENKeyServerExportGroup, ENPublishHandler) async throws -> Value
    ) async throws -> Value {
        let (configuration, publishConfiguration) = try makeSettings(
            requiresRevisionTokenKeys: requiresRevisionTokenKeys)
        let configurations = try makeExportConfigurations(default: configuration)
        func run(_ storage: any ENKeyServerStorage) async throws -> Value {
            try await body(
                try exportGroup(storage: storage, configurations: configurations, clock: clock),
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
            let password = try postgresPassword()
            do {
                clientConfiguration = try ENKeyServerPostgresStore.clientConfiguration(
                    url: postgres, password: password, rootCertificates: postgresCa)
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
                let key = try OptionFile.read(path, option: "--certificate-key", secret: false) { pem throws(ENError) in
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

    private func makeRevisionTokenKeys(required: Bool) throws(EnserverFailure) -> ENRevisionTokenKeys {
        let environment = EnserverEnvironment.current
        let text: String
        let source: String
        if let revisionTokenKeysFile {
            text = try OptionFile.read(revisionTokenKeysFile, option: "--revision-token-keys-file", secret: true) { $0 }
            source = "--revision-token-keys-file \(revisionTokenKeysFile)"
        } else if let value = environment["ENSERVER_REVISION_TOKEN_KEYS"], !value.isEmpty {
            text = value
            source = "ENSERVER_REVISION_TOKEN_KEYS"
        } else {
            guard !required || ephemeralRevisionTokens else {
                throw EnserverFailure(
                    "revision-token keys are required: give --revision-token-keys-file FILE or "
                        + "ENSERVER_REVISION_TOKEN_KEYS (the same keys on every instance), or --ephemeral-revision-tokens "
                        + "to accept tokens that break after a restart")
            }
            do { return try ENRevisionTokenKeys.generate() } catch { throw EnserverFailure(error) }
        }
        var keys: [Int64: AESGCM.Key] = [:]
        var current: Int64?
        let entries = text.split(whereSeparator: { $0 == "\n" || $0 == "," || $0 == "\r" })
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        for (line, pair) in entries.enumerated() {
            // The message names the entry, never its key.
            guard let equals = pair.firstIndex(of: "="), let number = Int64(pair[..<equals]),
                let data = Data(base64Encoded: String(pair[pair.index(after: equals)...])), data.count == 32,
                let key = try? AESGCM.Key(data: data)
            else {
                throw EnserverFailure(
                    "\(source): entry \(line + 1): want ID=BASE64 with a decimal id and base64 of 32 bytes")
            }
            guard keys[number] == nil else {
                throw EnserverFailure("\(source): entry \(line + 1): the id \(number) is given twice")
            }
            keys[number] = key
            current = current ?? number
        }
        guard let current else { throw EnserverFailure("\(source): no key (want lines ID=BASE64)") }
        return ENRevisionTokenKeys(currentKeyID: current, keys: keys)
    }

    /// `--signing-key`, then each `--additional-signing-key` in the order given.
    private func makeSigners() throws(EnserverFailure) -> [ENExportSigner] {
        let reader = PrivateKeyFile(
            option: "--signing-key", passphraseOption: "--signing-key-passphrase-file",
            passphraseVariable: "ENSERVER_SIGNING_KEY_PASSPHRASE")
        let environment = EnserverEnvironment.current
        var signers = [
            ENExportSigner(
                signingKey: try reader.read(
                    signingKey, passphraseFile: signingKeyPassphraseFile, environment: environment),
                keyID: keyID, keyVersion: keyVersion)
        ]
        for spec in additionalSigningKey {
            let option = "--additional-signing-key"
            let parts = spec.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let (version, path) = try Self.split(parts[0], option: option)
            guard !path.isEmpty else { throw EnserverFailure("\(option) \(spec): want VERSION=PEM-FILE") }
            var bounds: [String: Date] = [:]
            for part in parts.dropFirst() {
                let (name, value) = try Self.split(part, option: option)
                guard name == "from" || name == "until", bounds[name] == nil else {
                    throw EnserverFailure("\(option) \(spec): \"\(name)\" is not from= or until= (each once)")
                }
                guard let date = RFC3339.date(from: value) else {
                    throw EnserverFailure(
                        "\(option) \(spec): \(name)=\(value) is not an ISO 8601 date such as 2026-11-24T12:00:00Z")
                }
                bounds[name] = date
            }
            if let from = bounds["from"], let until = bounds["until"], until < from {
                throw EnserverFailure("\(option) \(spec): until= is before from=")
            }
            guard !signers.contains(where: { $0.signatureInfo.verificationKeyVersion == version }) else {
                throw EnserverFailure("\(option) \(spec): the key version \(version) is given twice")
            }
            var keyReader = reader
            keyReader.option = option
            signers.append(
                ENExportSigner(
                    signingKey: try keyReader.read(
                        path, passphraseFile: signingKeyPassphraseFile, environment: environment),
                    keyID: keyID, keyVersion: version, activeFrom: bounds["from"], activeUntil: bounds["until"]))
        }
        guard signers.count <= ENExportWriter.maximumSignerCount else {
            throw EnserverFailure(
                "--additional-signing-key: at most \(ENExportWriter.maximumSignerCount) signing keys in all, got "
                    + "\(signers.count)")
        }
        return signers
    }

    /// The PostgreSQL password from `--postgres-password-file` or `ENSERVER_POSTGRES_PASSWORD`, if any.
    private func postgresPassword() throws(EnserverFailure) -> String? {
        if let postgresPasswordFile {
            return try OptionFile.read(postgresPasswordFile, option: "--postgres-password-file", secret: true) { text in
                text.trimmingCharacters(in: .newlines)
            }
        }
        return EnserverEnvironment.current["ENSERVER_POSTGRES_PASSWORD"]
    }

    // MARK: Parsing

    /// `NAME=VALUE` as its two halves.
    static func split(_ pair: String, option: String) throws(EnserverFailure) -> (String, String) {
        guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
            throw EnserverFailure("\(option) \(pair): want NAME=VALUE")
        }
        return (String(pair[..<equals]), String(pair[pair.index(after: equals)...]))
    }
}
