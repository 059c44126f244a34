import ENCore
import ENCrypto
import ENTestSupport
import Foundation
import Testing

/// Private keys encrypted with a passphrase, as OpenSSL's command line writes them: read with the passphrase, refused
/// without it or with another, never a prompt.
@Suite("P-256 keys encrypted with a passphrase")
struct EncryptedKeyTests {
    static let passphrase = "correct horse battery staple"

    /// Writes `arguments`' output key with openssl into `directory` and returns its PEM text and the public key
    /// openssl derives from it.
    static func openSSLKey(
        _ directory: URL, _ arguments: (String) -> [String]
    ) throws -> (pem: String, publicKey: P256VerifyingKey) {
        let path = directory.appendingPathComponent("key-\(UUID().uuidString).pem").path
        let made = try ExternalTool.openssl.run(arguments(path))
        #expect(made.status == 0, "\(String(decoding: made.stderr, as: UTF8.self))")
        let pub = try ExternalTool.openssl.run(["pkey", "-in", path, "-passin", "pass:\(passphrase)", "-pubout"])
        #expect(pub.status == 0, "\(String(decoding: pub.stderr, as: UTF8.self))")
        return (
            try String(contentsOfFile: path, encoding: .utf8),
            try P256VerifyingKey(pemRepresentation: String(decoding: pub.stdout, as: UTF8.self))
        )
    }

    @Test(
        "keys openssl encrypted (PKCS#8 with AES-256 and scrypt or PBKDF2, legacy SEC1) read with the passphrase",
        .enabled(if: ExternalTool.openssl.isAvailable))
    func readsOpenSSLEncryptedKeys() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pass = "pass:\(Self.passphrase)"
        let plain = directory.appendingPathComponent("plain.pem").path
        let ours = try P256SigningKey()
        try writeSecret(ours.pemRepresentation, toFile: plain)
        let keys = [
            try Self.openSSLKey(directory) {
                [
                    "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-aes-256-cbc", "-pass",
                    pass, "-out", $0,
                ]
            },
            try Self.openSSLKey(directory) {
                ["pkcs8", "-topk8", "-v2", "aes-256-cbc", "-in", plain, "-passout", pass, "-out", $0]
            },
            try Self.openSSLKey(directory) {
                ["pkcs8", "-topk8", "-scrypt", "-in", plain, "-passout", pass, "-out", $0]
            },
            try Self.openSSLKey(directory) {
                ["ec", "-in", plain, "-aes256", "-passout", pass, "-out", $0]
            },
        ]
        for (index, key) in keys.enumerated() {
            #expect(P256SigningKey.isEncrypted(pemRepresentation: key.pem), "\(index)")
            let read = try P256SigningKey(pemRepresentation: key.pem, passphrase: Self.passphrase)
            #expect(try read.publicKey.derRepresentation == key.publicKey.derRepresentation, "\(index)")
            // It signs what the public key openssl derived verifies.
            let message = Data("export.bin".utf8)
            #expect(key.publicKey.isValidSignature(try read.signature(for: message), for: message), "\(index)")
            if index > 0 { #expect(try read.publicKey.derRepresentation == ours.publicKey.derRepresentation) }
            // Another passphrase, or none, is refused with a clear error.
            #expect(throws: ENError(.badFormat)) {
                try P256SigningKey(pemRepresentation: key.pem, passphrase: "wrong")
            }
            do {
                _ = try P256SigningKey(pemRepresentation: key.pem)
                Issue.record("an encrypted key read without its passphrase")
            } catch {
                #expect(error.code == .badFormat)
                #expect(error.description.contains("encrypted"), "\(error)")
            }
        }
    }

    @Test("an unencrypted key reads with a passphrase too; a NUL in the passphrase and other text are refused")
    func unencryptedAndBadInput() throws {
        let key = try P256SigningKey()
        #expect(!P256SigningKey.isEncrypted(pemRepresentation: try key.pemRepresentation))
        let read = try P256SigningKey(pemRepresentation: key.pemRepresentation, passphrase: "unused")
        #expect(try read.publicKey.derRepresentation == key.publicKey.derRepresentation)
        #expect(throws: ENError(.badParameter)) {
            try P256SigningKey(pemRepresentation: key.pemRepresentation, passphrase: "a\u{0}b")
        }
        #expect(throws: ENError(.badFormat)) { try P256SigningKey(pemRepresentation: "not a key", passphrase: "x") }
        let truncated =
            "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEF\n"
            + "-----END ENCRYPTED PRIVATE KEY-----\n"
        #expect(throws: ENError(.badFormat)) { try P256SigningKey(pemRepresentation: truncated, passphrase: "x") }
    }
}
