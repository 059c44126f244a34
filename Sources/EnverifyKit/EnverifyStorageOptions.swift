import ArgumentParser
import ENCore
import ENCrypto
import ENHTTPServer
import ENVerificationServer
import Foundation

/// Where `enverify` keeps codes, tokens and API keys, and the HMAC master secret they are stored under: the
/// options every subcommand shares.
///
/// The secret comes from the file `--secret-file` or `ENVERIFY_SECRET_FILE` names (readable by its owner only), or
/// from `ENVERIFY_SECRET`; never from the command line. It is at least 32 bytes (its text, a trailing newline
/// removed).
struct EnverifyStorageOptions: ParsableArguments {
    @Option(help: "The SQLite database file (created when missing).")
    var database: String?

    @Option(help: "A PostgreSQL URL (not supported yet: exits 2).")
    var postgres: String?

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

    /// The storage: the SQLite file `--database`.
    func storage() throws -> ENVerificationSQLiteStore {
        switch (database, postgres) {
        case (nil, nil): throw EnverifyFailure("give --database FILE or --postgres URL")
        case (.some, .some): throw EnverifyFailure("--database and --postgres: give one of them, not both")
        case (nil, .some):
            throw EnverifyFailure(
                "--postgres: PostgreSQL storage for the verification server is not built yet; use --database FILE")
        case (.some(let path), nil):
            do {
                return try ENVerificationSQLiteStore(path: path)
            } catch {
                throw EnverifyFailure(error, option: "--database \(path)")
            }
        }
    }

    /// A service on this storage and secret with `configuration`; the token and certificate keys generated when
    /// not given (creating API keys signs nothing).
    func service(
        configuration: ENVerificationConfiguration, tokenKey: P256SigningKey? = nil,
        certificateKey: P256SigningKey? = nil
    ) throws -> ENVerificationService {
        let secrets = try secrets()
        let storage = try storage()
        func orGenerated(_ key: P256SigningKey?) throws(ENError) -> P256SigningKey {
            if let key { return key }
            return try P256SigningKey()
        }
        do {
            return try ENVerificationService(
                configuration: configuration, secrets: secrets, tokenKey: try orGenerated(tokenKey),
                certificateKey: try orGenerated(certificateKey), storage: storage)
        } catch {
            throw EnverifyFailure(error)
        }
    }

    /// The P-256 private key in the PEM file at `path`, readable by its owner only.
    static func privateKey(_ path: String, option: String) throws -> P256SigningKey {
        let text = try OptionFile.text(path, option: option, maximumBytes: maximumFileBytes)
        do {
            return try P256SigningKey(pemRepresentation: text)
        } catch {
            throw EnverifyFailure("\(option) \(path): not a P-256 private key in PEM (\(error))")
        }
    }
}
