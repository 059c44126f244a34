internal import CLibCrypto
public import Foundation

extension HMAC {
    /// The length of an HMAC-SHA512 authentication code: 64 bytes.
    public static let sha512ByteCount = 64

    /// The HMAC-SHA512 of `message` keyed with `key` (any length, empty included), as Google's verification
    /// server keeps its codes and API keys in its database.
    public static func sha512AuthenticationCode(for message: some DataProtocol, using key: some DataProtocol) -> Data {
        let keyBytes = [UInt8](key) + [0]
        let messageBytes = [UInt8](message) + [0]
        var output = [UInt8](repeating: 0, count: sha512ByteCount)
        var length: UInt32 = 0
        let ok =
            CLibCrypto.HMAC(
                EVP_sha512(), keyBytes, Int32(keyBytes.count - 1), messageBytes, messageBytes.count - 1, &output,
                &length) != nil
        // OpenSSL fails only when it cannot allocate, which stops the process elsewhere in Swift too.
        precondition(ok && length == UInt32(sha512ByteCount), "HMAC-SHA512 failed in OpenSSL")
        return Data(output)
    }
}
