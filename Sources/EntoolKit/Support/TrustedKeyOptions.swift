import ArgumentParser
import ENCrypto
import ENExportFormat

/// The key that export files must be signed with (`verify`, `detect`): a public key, trusted for one key id and
/// version, or for any when they are not given.
struct TrustedKeyOptions: ParsableArguments {
    @Option(name: .customLong("public-key"), help: "The signer's public key (PEM SubjectPublicKeyInfo).")
    var publicKeyPath: String

    @Option(name: .customLong("key-id"), help: "Trust the key only for this verification_key_id.")
    var keyID: String?

    @Option(name: .customLong("key-version"), help: "Trust the key only for this verification_key_version.")
    var keyVersion: String?

    /// Reads the public key; a `nil` key id or version matches any (``ENExportVerificationKey/matches(_:)``).
    func verificationKey() throws -> ENExportVerificationKey {
        let pem = String(decoding: try readInputFile(publicKeyPath, what: "public key"), as: UTF8.self)
        return ENExportVerificationKey(
            keyID: keyID, keyVersion: keyVersion, publicKey: try P256VerifyingKey(pemRepresentation: pem))
    }
}
