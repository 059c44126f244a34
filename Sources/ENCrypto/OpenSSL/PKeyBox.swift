internal import CLibCrypto
import ENCore
import Foundation

/// Owns an `EVP_PKEY`.
///
/// `@unchecked Sendable`: the key is never modified after construction, and OpenSSL 3 allows a key object to
/// be used by several threads at once for signing and verification (each operation gets its own context).
final class PKeyBox: @unchecked Sendable {
    let pkey: OpaquePointer

    init(_ pkey: OpaquePointer) { self.pkey = pkey }

    deinit { EVP_PKEY_free(pkey) }

    /// Takes ownership of a key that an OpenSSL parser returned and checks that it is on P-256.
    ///
    /// - Throws: `ENError.Code.badFormat` with `failure` when the parser returned nil (its error queue is
    ///   cleared), `ENError.Code.badParameter` naming `what` when the key is not an EC key on P-256.
    static func parsedP256(_ parsed: OpaquePointer?, what: String, failure: @autoclosure () -> String)
        throws(ENError) -> PKeyBox
    {
        guard let parsed else {
            ENError.clearOpenSSLErrors()
            throw .badFormat(failure())
        }
        let box = PKeyBox(parsed)
        try box.requireP256(what)
        return box
    }

    /// Throws `ENError.Code.badParameter` unless the key is an EC key on P-256.
    private func requireP256(_ what: String) throws(ENError) {
        guard EVP_PKEY_is_a(pkey, "EC") == 1 else {
            throw .badParameter("\(what) is not an elliptic-curve key (ECDSA P-256 is required)")
        }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(pkey, &name, name.count, &length) == 1 else {
            ENError.clearOpenSSLErrors()
            throw .badParameter("\(what) has no named curve (ECDSA P-256 is required)")
        }
        let curve = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard curve == "prime256v1" || curve == "P-256" || curve == "secp256r1" else {
            throw .badParameter("\(what) is on curve \(curve), but ECDSA P-256 (prime256v1) is required")
        }
    }
}

/// Helpers shared by the key types for moving bytes in and out of OpenSSL.
enum OpenSSLBytes {
    /// Runs `body` with a read-only memory BIO over `data`.
    static func withMemoryBIO<R>(_ data: Data, _ body: (OpaquePointer) -> R?) -> R? {
        data.withUnsafeBytes { bytes -> R? in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    /// Collects what `write` puts into a memory BIO.
    static func writingToMemoryBIO(_ operation: String, _ write: (OpaquePointer) -> Int32) throws(ENError) -> Data {
        guard let bio = BIO_new(BIO_s_mem()) else { throw .openSSL("BIO_new") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw .openSSL(operation) }
        var pointer: UnsafeMutablePointer<CChar>?
        let length = CLibCrypto_BIO_get_mem_data(bio, &pointer)
        guard let pointer, length > 0 else { throw .openSSL(operation) }
        return Data(bytes: pointer, count: length)
    }

    /// Collects the output of an `i2d_*` function.
    static func der(_ operation: String, _ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>) -> Int32)
        throws(ENError) -> Data
    {
        var out: UnsafeMutablePointer<UInt8>?
        let length = encode(&out)
        guard length > 0, let out else { throw .openSSL(operation) }
        defer { CLibCrypto_free(out) }
        return Data(bytes: out, count: Int(length))
    }

    /// Runs a `d2i_*` decoder over all of `data`; nil when it fails or leaves bytes unread.
    static func decodeDER<R>(_ data: Data, _ decode: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> R?) -> R? {
        data.withUnsafeBytes { bytes -> R? in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 0 else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            guard let result = decode(&cursor, bytes.count) else { return nil }
            guard let end = cursor, end - base == bytes.count else { return nil }
            return result
        }
    }
}
