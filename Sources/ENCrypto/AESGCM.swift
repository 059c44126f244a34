internal import CLibCrypto
public import ENCore
public import Foundation

/// AES-GCM authenticated encryption (128- or 256-bit keys, 96-bit random nonces, 128-bit tags).
///
/// Used for data at rest. A sealed box is `nonce (12 bytes) || ciphertext || tag (16 bytes)`; opening it
/// checks the tag and the optional additional authenticated data, so any change is detected.
///
/// ```swift
/// let key = try AESGCM.Key.generate()
/// let sealed = try AESGCM.seal(plaintext, using: key, authenticating: Data("sightings".utf8))
/// let opened = try AESGCM.open(sealed, using: key, authenticating: Data("sightings".utf8))
/// ```
public enum AESGCM {
    /// The nonce length: 12 bytes.
    public static let nonceByteCount = 12
    /// The tag length: 16 bytes.
    public static let tagByteCount = 16

    /// A symmetric AES key, 16 or 32 bytes, zeroed when released.
    public struct Key: Sendable {
        let storage: SecureBytes

        /// Wraps 16 (AES-128) or 32 (AES-256) key bytes.
        ///
        /// - Throws: `ENError.Code.badParameter` for any other length.
        public init(data: Data) throws(ENError) {
            guard data.count == 16 || data.count == 32 else {
                throw .badParameter("an AES-GCM key is 16 or 32 bytes, got \(data.count)")
            }
            storage = data.withUnsafeBytes { SecureBytes(copying: $0) }
        }

        /// A new random 256-bit key.
        public static func generate() throws(ENError) -> Key {
            try Key(data: SecureRandom.bytes(count: 32))
        }

        /// The key length in bytes.
        public var byteCount: Int { storage.count }
    }

    /// Encrypts and authenticates `plaintext` (and authenticates `additionalData`) with a fresh random nonce.
    public static func seal(
        _ plaintext: Data, using key: Key, authenticating additionalData: Data = Data()
    ) throws(ENError) -> Data {
        let nonce = try SecureRandom.bytes(count: nonceByteCount)
        var output = nonce
        output.append(Data(count: plaintext.count + tagByteCount))
        try run(
            encrypt: true, key: key, nonce: nonce, input: plaintext, additionalData: additionalData,
            output: &output, outputOffset: nonceByteCount)
        return output
    }

    /// Checks and decrypts a sealed box made by ``seal(_:using:authenticating:)``.
    ///
    /// - Throws: `ENError.Code.badFormat` when the box is too short, or when the tag does not match (the data,
    ///   the additional data or the key differ from those used to seal).
    public static func open(
        _ sealed: Data, using key: Key, authenticating additionalData: Data = Data()
    ) throws(ENError) -> Data {
        guard sealed.count >= nonceByteCount + tagByteCount else {
            throw .badFormat(
                "an AES-GCM sealed box is at least \(nonceByteCount + tagByteCount) bytes, got \(sealed.count)")
        }
        let start = sealed.startIndex
        let nonce = sealed[start..<(start + nonceByteCount)]
        let body = sealed[(start + nonceByteCount)...]
        var output = Data(count: body.count - tagByteCount)
        try run(
            encrypt: false, key: key, nonce: Data(nonce), input: Data(body), additionalData: additionalData,
            output: &output, outputOffset: 0)
        return output
    }

    /// One GCM operation. For encryption `input` is the plaintext and the tag is appended to the output; for
    /// decryption `input` is `ciphertext || tag`.
    private static func run(
        encrypt: Bool, key: Key, nonce: Data, input: Data, additionalData: Data, output: inout Data, outputOffset: Int
    ) throws(ENError) {
        guard let ctx = EVP_CIPHER_CTX_new() else { throw .openSSL("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let name = key.byteCount == 16 ? "AES-128-GCM" : "AES-256-GCM"
        guard let cipher = EVP_CIPHER_fetch(nil, name, nil) else { throw .openSSL("EVP_CIPHER_fetch(\(name))") }
        defer { EVP_CIPHER_free(cipher) }
        let bodyCount = encrypt ? input.count : input.count - tagByteCount
        try key.storage.withUnsafeBytes { keyBytes throws(ENError) in
            try nonce.withBytes { nonceBytes throws(ENError) in
                let k = keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
                let n = nonceBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
                let ok =
                    encrypt
                    ? EVP_EncryptInit_ex2(ctx, cipher, k, n, nil) : EVP_DecryptInit_ex2(ctx, cipher, k, n, nil)
                guard ok == 1 else { throw .openSSL("AES-GCM init") }
            }
        }
        var length: Int32 = 0
        if !additionalData.isEmpty {
            let ok = additionalData.withUnsafeBytes { aad in
                let a = aad.baseAddress!.assumingMemoryBound(to: UInt8.self)
                return encrypt
                    ? EVP_EncryptUpdate(ctx, nil, &length, a, Int32(aad.count))
                    : EVP_DecryptUpdate(ctx, nil, &length, a, Int32(aad.count))
            }
            guard ok == 1 else { throw .openSSL("AES-GCM additional data") }
        }
        try input.withBytes { inBytes throws(ENError) in
            try output.withMutableBytes { outBytes throws(ENError) in
                let out = outBytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + outputOffset
                let inp = inBytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
                if bodyCount > 0 {
                    let ok =
                        encrypt
                        ? EVP_EncryptUpdate(ctx, out, &length, inp, Int32(bodyCount))
                        : EVP_DecryptUpdate(ctx, out, &length, inp, Int32(bodyCount))
                    guard ok == 1 else { throw .openSSL("AES-GCM update") }
                }
                if encrypt {
                    guard EVP_EncryptFinal_ex(ctx, out + bodyCount, &length) == 1 else {
                        throw .openSSL("AES-GCM final")
                    }
                    guard
                        EVP_CIPHER_CTX_ctrl(
                            ctx, EVP_CTRL_GCM_GET_TAG, Int32(tagByteCount), out + bodyCount) == 1
                    else { throw .openSSL("AES-GCM get tag") }
                } else {
                    let tag = UnsafeMutableRawPointer(mutating: inBytes.baseAddress! + bodyCount)
                    guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, Int32(tagByteCount), tag) == 1 else {
                        throw .openSSL("AES-GCM set tag")
                    }
                    var finalLength: Int32 = 0
                    guard EVP_DecryptFinal_ex(ctx, out + bodyCount, &finalLength) == 1 else {
                        ENError.clearOpenSSLErrors()
                        throw .badFormat(
                            "AES-GCM authentication failed: the data, the additional data or the key differ")
                    }
                }
            }
        }
    }
}
