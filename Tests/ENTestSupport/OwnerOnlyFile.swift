import Foundation

/// Writes a secret (a private key, a password, token keys, an HMAC secret) to `path`, readable by its owner only,
/// as `enserver` and `enverify` require of secret files.
public func writeSecret(_ text: String, toFile path: String) throws {
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    guard chmod(path, 0o600) == 0 else { throw POSIXError(.EPERM) }
}
