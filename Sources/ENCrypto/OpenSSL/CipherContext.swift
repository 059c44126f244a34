internal import CLibCrypto
import ENCore

/// An owned `EVP_CIPHER_CTX` for AES-128 in ECB or CTR mode, re-keyed without re-fetching the cipher.
///
/// Not thread-safe: one per thread or per operation. Freed (and cleansed by OpenSSL) on deinit.
final class CipherContext {
    private let context: OpaquePointer
    private let cipher: OpaquePointer
    private var initialised = false

    init(cipher: OpaquePointer) throws(ENError) {
        guard let context = EVP_CIPHER_CTX_new() else { throw .openSSL("EVP_CIPHER_CTX_new") }
        self.context = context
        self.cipher = cipher
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
    }

    /// Sets a 16-byte key (and for CTR a 16-byte initial counter block). After the first call only the key
    /// schedule is redone: the cipher is passed as nil, which avoids OpenSSL's per-init provider work.
    func setKey(_ key: UnsafeRawPointer, iv: UnsafeRawPointer? = nil) throws(ENError) {
        let keyBytes = key.assumingMemoryBound(to: UInt8.self)
        let ivBytes = iv?.assumingMemoryBound(to: UInt8.self)
        let ok: Int32
        if initialised {
            ok = EVP_EncryptInit_ex2(context, nil, keyBytes, ivBytes, nil)
        } else {
            ok = EVP_EncryptInit_ex2(context, cipher, keyBytes, ivBytes, nil)
            if ok == 1 { EVP_CIPHER_CTX_set_padding(context, 0) }
        }
        guard ok == 1 else { throw .openSSL("EVP_EncryptInit_ex2") }
        initialised = true
    }

    /// Encrypts `count` bytes (a multiple of 16 for ECB) from `input` to `output` in one call.
    func encrypt(_ input: UnsafeRawPointer, _ output: UnsafeMutableRawPointer, count: Int) throws(ENError) {
        var written: Int32 = 0
        let ok = EVP_EncryptUpdate(
            context, output.assumingMemoryBound(to: UInt8.self), &written,
            input.assumingMemoryBound(to: UInt8.self), Int32(count))
        guard ok == 1, Int(written) == count else { throw .openSSL("EVP_EncryptUpdate") }
    }
}
