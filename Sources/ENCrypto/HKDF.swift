internal import CLibCrypto
public import Foundation
public import ENCore

/// HKDF with SHA-256 (RFC 5869), through OpenSSL's generic key-derivation API.
///
/// The Exposure Notification key schedule uses a faster specialised path internally (see
/// ``RollingProximityIdentifierKey``); this general form is for other uses and as an independent cross-check.
public enum HKDF {
    /// Derives `outputByteCount` bytes from `inputKeyMaterial`, an optional `salt` (none = zero-length) and `info`.
    ///
    /// - Throws: ``ENError/Code/badParameter`` when the output length is outside 1...8160 (255 SHA-256 blocks)
    ///   or the key material is empty.
    public static func deriveKey(
        inputKeyMaterial: Data, salt: Data? = nil, info: Data, outputByteCount: Int
    ) throws(ENError) -> Data {
        guard (1...(255 * 32)).contains(outputByteCount) else {
            throw .badParameter("HKDF output length must be 1...8160 bytes, got \(outputByteCount)")
        }
        guard !inputKeyMaterial.isEmpty else { throw .badParameter("HKDF input key material is empty") }
        guard let ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nil) else { throw .openSSL("EVP_PKEY_CTX_new_id(HKDF)") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_derive_init(ctx) == 1 else { throw .openSSL("EVP_PKEY_derive_init") }
        guard EVP_PKEY_CTX_set_hkdf_md(ctx, EVP_sha256()) == 1 else { throw .openSSL("EVP_PKEY_CTX_set_hkdf_md") }
        let keyOK = inputKeyMaterial.withUnsafeBytes {
            EVP_PKEY_CTX_set1_hkdf_key(ctx, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32($0.count))
        }
        guard keyOK == 1 else { throw .openSSL("EVP_PKEY_CTX_set1_hkdf_key") }
        if let salt, !salt.isEmpty {
            let ok = salt.withUnsafeBytes {
                EVP_PKEY_CTX_set1_hkdf_salt(ctx, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32($0.count))
            }
            guard ok == 1 else { throw .openSSL("EVP_PKEY_CTX_set1_hkdf_salt") }
        }
        if !info.isEmpty {
            let ok = info.withUnsafeBytes {
                EVP_PKEY_CTX_add1_hkdf_info(ctx, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32($0.count))
            }
            guard ok == 1 else { throw .openSSL("EVP_PKEY_CTX_add1_hkdf_info") }
        }
        var output = Data(count: outputByteCount)
        var length = outputByteCount
        let ok = output.withUnsafeMutableBytes {
            EVP_PKEY_derive(ctx, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), &length)
        }
        guard ok == 1, length == outputByteCount else { throw .openSSL("EVP_PKEY_derive") }
        return output
    }
}
