import ArgumentParser
import ENCore
import ENCrypto
import ENHTTPServer
import ENVerificationServer
import Foundation
import Logging

#if PostgreSQL
    import ENVerificationServerPostgres
    import PostgresNIO
#endif

/// Where `enverify` keeps codes, tokens and API keys, and the HMAC master secret they are stored under: the
/// options every subcommand shares.
///
/// The secret comes from the file `--secret-file` or `ENVERIFY_SECRET_FILE` names (readable by its owner only), or
/// from `ENVERIFY_SECRET`; never from the command line. It is at least 32 bytes (its text, a trailing newline
/// removed).
struct EnverifyStorageOptions: ParsableArguments {
    @Option(help: "The SQLite database file (created when missing).")
    var database: String?

    @Option(
        help: """
            A PostgreSQL database instead of --database: postgres://USER@HOST:PORT/DATABASE (the password from \
            --postgres-password-file or ENVERIFY_POSTGRES_PASSWORD, never in the URL on the command line), with optional \
            ?sslmode=require|verify-full (disable|prefer on loopback only), sslrootcert=CA-FILE, search_path=SCHEMA, \
            pool_max=N, host=/SOCKET/DIR.
            """)
    var postgres: String?

    @Option(
        help: """
            A file holding the PostgreSQL password (owner-only; or the environment variable \
            ENVERIFY_POSTGRES_PASSWORD), when the --postgres URL has none.
            """)
    var postgresPasswordFile: String?

    @Option(help: "A PEM file of the CA certificates that may sign the PostgreSQL server's certificate.")
    var postgresCa: String?

    @Option(
        help: """
            A file holding the HMAC master secret (owner-only, at least 32 bytes); default ENVERIFY_SECRET_FILE, \
            then the secret itself from ENVERIFY_SECRET.
            """)
    var secretFile: String?

    /// The most bytes read from a secret or key file.
    static let maximumFileBytes = 65_536

    /// The HMAC secrets, derived from the master secret.
    func secrets() throws -> ENVerificationSecrets {
        let environment = EnverifyEnvironment.current
        var text: String
        if let path = secretFile ?? environment["ENVERIFY_SECRET_FILE"] {
            let option = secretFile != nil ? "--secret-file" : "ENVERIFY_SECRET_FILE"
            text = try OptionFile.text(path, option: option, maximumBytes: Self.maximumFileBytes)
        } else if let secret = environment["ENVERIFY_SECRET"] {
            text = secret
        } else {
            throw EnverifyFailure(
                "no HMAC master secret: give --secret-file FILE, ENVERIFY_SECRET_FILE or ENVERIFY_SECRET (at least 32 bytes)"
            )
        }
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        do {
            return try ENVerificationSecrets(masterKey: Data(text.utf8))
        } catch {
            throw EnverifyFailure(error, option: "the HMAC master secret")
        }
    }

    /// Opens the storage the options name (the SQLite file, or PostgreSQL with its connection pool running and the
    /// schema migrated), runs `body` with it, and closes it.
    ///
    /// - Throws: ``EnverifyFailure``: exit 2 for bad options (naming the option), 1 for a database that cannot be
    ///   opened, reached or migrated.
    func withStorage<Value: Sendable>(
        logger: Logger = Logger(label: "enverify"), _ body: (any ENVerificationStorage) async throws -> Value
    ) async throws -> Value {
        switch (database, postgres) {
        case (nil, nil): throw EnverifyFailure("give --database FILE or --postgres URL")
        case (.some, .some): throw EnverifyFailure("--database and --postgres: give one of them, not both")
        case (.some(let path), nil):
            let store: ENVerificationSQLiteStore
            do {
                store = try ENVerificationSQLiteStore(path: path)
            } catch {
                throw EnverifyFailure(error, option: "--database \(path)")
            }
            defer { try? store.close() }
            return try await body(store)
        case (nil, .some(let url)):
            #if PostgreSQL
                if let components = URLComponents(string: url), components.password != nil {
                    throw EnverifyFailure(
                        "--postgres: the URL carries a password, which every user of this machine can read on a "
                            + "command line; give it in --postgres-password-file or ENVERIFY_POSTGRES_PASSWORD")
                }
                let configuration: PostgresClient.Configuration
                do {
                    configuration = try ENVerificationPostgresStore.clientConfiguration(
                        url: url, password: try postgresPassword(), rootCertificates: postgresCa)
                } catch let error as ENError {
                    throw EnverifyFailure("--postgres \(url): \(error.reason)")
                }
                let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
                return try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { await client.run() }
                    defer { group.cancelAll() }
                    let store = ENVerificationPostgresStore(client: client, logger: logger)
                    do throws(ENError) {
                        try await store.migrate()
                    } catch {
                        throw EnverifyFailure(
                            "--postgres \(url): \(error.reason)", exitCode: error.code == .badFormat ? 2 : 1)
                    }
                    return try await body(store)
                }
            #else
                throw EnverifyFailure(
                    "--postgres: this enverify was built without the PostgreSQL trait; use --database FILE")
            #endif
        }
    }

    /// The PostgreSQL password from `--postgres-password-file` (owner-only) or `ENVERIFY_POSTGRES_PASSWORD`, if any.
    private func postgresPassword() throws -> String? {
        if let postgresPasswordFile {
            return try OptionFile.text(
                postgresPasswordFile, option: "--postgres-password-file", maximumBytes: Self.maximumFileBytes
            )
            .trimmingCharacters(in: .newlines)
        }
        return EnverifyEnvironment.current["ENVERIFY_POSTGRES_PASSWORD"]
    }

    /// Runs `body` with a service on this storage and secret with `configuration` and `clock` (the storage open while
    /// it runs);
    /// the token and certificate keys generated when not given (creating API keys signs nothing).
    func withService<Value: Sendable>(
        configuration: ENVerificationConfiguration, tokenKey: P256SigningKey? = nil,
        certificateKey: P256SigningKey? = nil, clock: @escaping @Sendable () -> Date = { Date() },
        logger: Logger = Logger(label: "enverify"), _ body: (ENVerificationService) async throws -> Value
    ) async throws -> Value {
        let secrets = try secrets()
        func orGenerated(_ key: P256SigningKey?) throws(ENError) -> P256SigningKey {
            if let key { return key }
            return try P256SigningKey()
        }
        return try await withStorage(logger: logger) { storage in
            let service: ENVerificationService
            do throws(ENError) {
                service = try ENVerificationService(
                    configuration: configuration, secrets: secrets, tokenKey: try orGenerated(tokenKey),
                    certificateKey: try orGenerated(certificateKey), storage: storage, clock: clock)
            } catch {
                throw EnverifyFailure(error)
            }
            return try await body(service)
        }
    }
}
