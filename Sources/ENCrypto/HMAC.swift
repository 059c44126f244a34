internal import CLibCrypto
public import Foundation

/// HMAC with SHA-256 (RFC 2104), through OpenSSL's one-shot `HMAC`.
///
/// ```swift
/// let mac = HMAC.authenticationCode(for: Data("message".utf8), using: secret)   // 32 bytes
/// let ok = HMAC.isValidAuthenticationCode(mac, for: Data("message".utf8), using: secret)
/// ```
///
/// The key schedule's HKDF computes its HMACs on a specialised path; this is the general form (for example
/// for the `tekmac` of a verification certificate).
public enum HMAC {
    /// The length of an HMAC-SHA256 authentication code: 32 bytes.
    public static let byteCount = 32

    /// The HMAC-SHA256 of `message` keyed with `key` (any length, empty included, as RFC 2104 allows).
    public static func authenticationCode(for message: some DataProtocol, using key: some DataProtocol) -> Data {
        // Arrays of at least one byte, so that an empty key or message still has an address.
        let keyBytes = [UInt8](key) + [0]
        let messageBytes = [UInt8](message) + [0]
        let keyCount = keyBytes.count - 1
        let messageCount = messageBytes.count - 1
        var output = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let ok =
            CLibCrypto.HMAC(
                EVP_sha256(), keyBytes, Int32(keyCount), messageBytes, messageCount, &output, &length) != nil
        // OpenSSL fails only when it cannot allocate, which stops the process elsewhere in Swift too.
        precondition(ok && length == UInt32(byteCount), "HMAC-SHA256 failed in OpenSSL")
        return Data(output)
    }

    /// Whether `code` is the HMAC-SHA256 of `message` keyed with `key`, compared in constant time.
    public static func isValidAuthenticationCode(
        _ code: some DataProtocol, for message: some DataProtocol, using key: some DataProtocol
    ) -> Bool {
        let expected = authenticationCode(for: message, using: key)
        let code = Data(code)
        guard code.count == expected.count else { return false }
        return code.withUnsafeBytes { a in
            expected.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 }
        }
    }
}
