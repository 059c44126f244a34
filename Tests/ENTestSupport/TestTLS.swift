import ENCore
import Foundation

/// HTTPS for tests of `enserver` and `enverify`: a certificate for 127.0.0.1 made by OpenSSL at test time, and curl
/// as the client that trusts it (`--cacert`) or not.
public enum TestTLS {
    /// curl, when installed.
    public static let curl = ExternalTool("curl")

    /// Whether OpenSSL and curl are both installed.
    public static var isAvailable: Bool { ExternalTool.openssl.isAvailable && curl.isAvailable }

    /// A self-signed P-256 certificate for 127.0.0.1 and localhost and its key (owner-only), in `directory`.
    public static func makeCertificate(in directory: TemporaryDirectory) throws -> (certificate: String, key: String) {
        let (certificate, key) = (directory.path("tls-cert.pem"), directory.path("tls-key.pem"))
        let made = try ExternalTool.openssl.run([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
            "-out", certificate, "-days", "2", "-subj", "/CN=127.0.0.1", "-addext",
            "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ])
        guard made.status == 0 else {
            throw ENError(.dataInaccessible, "openssl req: \(String(decoding: made.stderr, as: UTF8.self))")
        }
        guard chmod(key, 0o600) == 0 else { throw POSIXError(.EPERM) }
        return (certificate, key)
    }

    /// `curl -s --max-time 20 ARGUMENTS`: its exit status and output, off the cooperative pool.
    public static func curl(_ arguments: [String]) async -> (status: Int32, output: String) {
        await offThePool {
            guard let result = try? curl.run(["-s", "--max-time", "20"] + arguments) else { return (-1, "") }
            return (result.status, result.output)
        }
    }
}
