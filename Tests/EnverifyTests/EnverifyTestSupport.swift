import ArgumentParser
import ENCore
import ENCrypto
import ENKeyServer
import ENTestSupport
import ENVerificationServer
import EnverifyKit
import Foundation
import HTTPTypes

extension HTTPField.Name {
    static let apiKey = HTTPField.Name("X-API-Key")!
    static let chaff = HTTPField.Name("X-Chaff")!
}

/// Today's UTC date as `YYYY-MM-DD`, a symptom date every issue request accepts.
func todayUTC() -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd"
    return formatter.string(from: Date())
}

/// A JSON object from a body.
func jsonObject(_ data: Data) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
}

/// Keys an app publishes, and the HMAC secret it certifies them with.
struct AppKeys {
    let keys: [ENPublishExposureKey] = (1...3).map { index in
        ENPublishExposureKey(
            key: Data(repeating: UInt8(index), count: 16).base64EncodedString(),
            rollingStartNumber: Int32(2_660_000 + index * 144), rollingPeriod: 144, transmissionRisk: index)
    }
    let secret = Data((0..<32).map { UInt8($0) })

    var hmac: String { ENVerificationClient.exposureKeyHMAC(of: keys, key: secret).base64EncodedString() }

    func request(certificate: String) -> ENPublishRequest {
        ENPublishRequest(
            temporaryExposureKeys: keys, healthAuthorityID: "test", verificationPayload: certificate,
            hmacKey: secret.base64EncodedString())
    }
}

/// The key server's verifier (what `enserver --verifier certificate` builds) for certificates of `issuer`,
/// `audience`, signed with `key` under `keyID`.
func keyServerVerifier(issuer: String, audience: String, keyID: String, key: P256SigningKey) throws
    -> ENVerificationCertificateVerifier
{
    ENVerificationCertificateVerifier(healthAuthorities: [
        .init(issuer: issuer, audience: audience, keys: [.init(version: keyID, publicKey: try key.publicKey)])
    ])
}

/// A directory with what `enverify serve` needs: the secret file, the two private keys (owner-only), and the
/// options naming them and a database in it.
struct EnverifySetup {
    let directory: TemporaryDirectory
    let certificateKey: P256SigningKey
    let secretPath: String

    init() throws {
        directory = try TemporaryDirectory(prefix: "enverify")
        certificateKey = try P256SigningKey()
        secretPath = directory.path("secret")
        try writeSecret(String(repeating: "s", count: 40) + "\n", toFile: secretPath)
        try writeSecret(certificateKey.pemRepresentation, toFile: directory.path("certificate.pem"))
        try writeSecret(try P256SigningKey().pemRepresentation, toFile: directory.path("token.pem"))
    }

    var storageOptions: [String] { ["--database", directory.path("verify.db"), "--secret-file", secretPath] }

    var serveOptions: [String] {
        ["serve"] + storageOptions + [
            "--issuer", "example.gov", "--audience", "exposure-notifications-server",
            "--certificate-key", directory.path("certificate.pem"), "--certificate-key-id", "v7",
            "--token-key", directory.path("token.pem"),
        ]
    }

    var verifier: ENVerificationCertificateVerifier {
        get throws {
            try keyServerVerifier(
                issuer: "example.gov", audience: "exposure-notifications-server", keyID: "v7", key: certificateKey)
        }
    }
}

/// Parses `arguments` as `enverify` does, and runs the command.
func runEnverify(_ arguments: [String]) async throws {
    let command = try Enverify.parseAsRoot(arguments)
    if var asyncCommand = command as? any AsyncParsableCommand {
        try await asyncCommand.run()
    } else {
        var command = command
        try command.run()
    }
}
