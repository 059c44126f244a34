internal import CLibCrypto
public import ENCore
public import Foundation

/// An ECDSA P-256 private key: what a diagnosis-key server signs export files with.
///
/// Signatures are SHA-256 digests signed with ECDSA and DER-encoded (X9.62 `SEQUENCE { r, s }`), the
/// `1.2.840.10045.4.3.2` algorithm of export files, identical to `openssl dgst -sha256 -sign`.
///
/// ```swift
/// let key = try P256SigningKey()                       // a new key
/// try key.pemRepresentation.write(to: url, atomically: true, encoding: .utf8)
/// let signature = try key.signature(for: exportBin)
/// let ok = try key.publicKey.isValidSignature(signature, for: exportBin)
/// ```
public struct P256SigningKey: Sendable {
    let box: PKeyBox

    /// Generates a new random key pair.
    ///
    /// - Throws: `ENError.Code.internal` when OpenSSL cannot generate the key.
    public init() throws(ENError) {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw .openSSL("EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_keygen_init(ctx) == 1 else { throw .openSSL("EVP_PKEY_keygen_init") }
        guard EVP_PKEY_CTX_set_group_name(ctx, "P-256") == 1 else { throw .openSSL("EVP_PKEY_CTX_set_group_name") }
        var pkey: OpaquePointer?
        guard EVP_PKEY_generate(ctx, &pkey) == 1, let pkey else { throw .openSSL("EVP_PKEY_generate") }
        box = PKeyBox(pkey)
    }

    /// Reads a PEM private key: PKCS#8 (`BEGIN PRIVATE KEY`) or SEC1 (`BEGIN EC PRIVATE KEY`), unencrypted.
    ///
    /// An encrypted key is refused at once (never a prompt for its passphrase): read it with
    /// ``init(pemRepresentation:passphrase:)``.
    ///
    /// - Throws: `ENError.Code.badFormat` when the text is not such a PEM block or the key is encrypted,
    ///   `ENError.Code.badParameter` when the key is not on P-256.
    public init(pemRepresentation: String) throws(ENError) {
        guard !Self.isEncrypted(pemRepresentation: pemRepresentation) else {
            throw .badFormat("the private key is encrypted: its passphrase is needed")
        }
        box = try PKeyBox.parsedP256(
            OpenSSLBytes.withMemoryBIO(Data(pemRepresentation.utf8)) {
                // No passphrase callback of OpenSSL's own, which would prompt on the terminal.
                PEM_read_bio_PrivateKey($0, nil, { _, _, _, _ in -1 }, nil)
            },
            what: "the private key",
            failure: "not a PEM-encoded private key (expected BEGIN PRIVATE KEY or BEGIN EC PRIVATE KEY)")
    }

    /// Reads a PEM private key encrypted with `passphrase`: PKCS#8 (`BEGIN ENCRYPTED PRIVATE KEY`, as
    /// `openssl genpkey -aes-256-cbc` or `openssl pkcs8 -topk8 -v2 aes-256-cbc` write it) or SEC1 with OpenSSL's
    /// legacy `Proc-Type: 4,ENCRYPTED` header. An unencrypted key is read as ``init(pemRepresentation:)`` reads it.
    ///
    /// - Throws: `ENError.Code.badFormat` when the text is not such a PEM block, or the passphrase does not
    ///   decrypt it; `ENError.Code.badParameter` when the key is not on P-256 or the passphrase holds a NUL byte.
    public init(pemRepresentation: String, passphrase: String) throws(ENError) {
        guard !passphrase.utf8.contains(0) else { throw .badParameter("the passphrase holds a NUL byte") }
        let encrypted = Self.isEncrypted(pemRepresentation: pemRepresentation)
        box = try PKeyBox.parsedP256(
            passphrase.withCString { secret in
                OpenSSLBytes.withMemoryBIO(Data(pemRepresentation.utf8)) {
                    // No callback: OpenSSL takes `u` as the NUL-terminated passphrase.
                    PEM_read_bio_PrivateKey($0, nil, nil, UnsafeMutableRawPointer(mutating: secret))
                }
            },
            what: "the private key",
            failure: encrypted
                ? "the passphrase does not decrypt the private key"
                : "not a PEM-encoded private key (expected BEGIN ENCRYPTED PRIVATE KEY, BEGIN PRIVATE KEY or "
                    + "BEGIN EC PRIVATE KEY)")
    }

    /// Whether `pemRepresentation` holds an encrypted private key (`BEGIN ENCRYPTED PRIVATE KEY`, or OpenSSL's
    /// legacy `Proc-Type: 4,ENCRYPTED`): one that ``init(pemRepresentation:passphrase:)`` reads.
    public static func isEncrypted(pemRepresentation pem: String) -> Bool {
        pem.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") || pem.contains("Proc-Type: 4,ENCRYPTED")
    }

    /// Reads a DER private key: PKCS#8 `PrivateKeyInfo` or SEC1 `ECPrivateKey`.
    ///
    /// - Throws: `ENError.Code.badFormat` when the bytes are not such a structure (or have trailing bytes),
    ///   `ENError.Code.badParameter` when the key is not on P-256.
    public init(derRepresentation: Data) throws(ENError) {
        box = try PKeyBox.parsedP256(
            OpenSSLBytes.decodeDER(derRepresentation) { d2i_AutoPrivateKey(nil, $0, $1) },
            what: "the private key",
            failure: "not a DER-encoded private key (PKCS#8 or SEC1), \(derRepresentation.count) bytes")
    }

    /// The key as PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    public var pemRepresentation: String {
        get throws(ENError) {
            let data = try OpenSSLBytes.writingToMemoryBIO("PEM_write_bio_PKCS8PrivateKey") { bio in
                PEM_write_bio_PKCS8PrivateKey(bio, box.pkey, nil, nil, 0, nil, nil)
            }
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// The key as PKCS#8 DER.
    public var derRepresentation: Data {
        get throws(ENError) {
            guard let info = EVP_PKEY2PKCS8(box.pkey) else { throw .openSSL("EVP_PKEY2PKCS8") }
            defer { PKCS8_PRIV_KEY_INFO_free(info) }
            return try OpenSSLBytes.der("i2d_PKCS8_PRIV_KEY_INFO") { i2d_PKCS8_PRIV_KEY_INFO(info, $0) }
        }
    }

    /// The matching public key.
    public var publicKey: P256VerifyingKey {
        get throws(ENError) {
            let spki = try OpenSSLBytes.der("i2d_PUBKEY") { i2d_PUBKEY(box.pkey, $0) }
            return try P256VerifyingKey(derRepresentation: spki)
        }
    }

    /// Signs the SHA-256 digest of `data`. The signature's ``P256Signature/derRepresentation`` (usually 70 to 72
    /// bytes) is what `export.sig` stores.
    public func signature(for data: some DataProtocol) throws(ENError) -> P256Signature {
        guard let mdctx = EVP_MD_CTX_new() else { throw .openSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(mdctx) }
        guard EVP_DigestSignInit_ex(mdctx, nil, "SHA256", nil, nil, box.pkey, nil) == 1 else {
            throw .openSSL("EVP_DigestSignInit_ex")
        }
        for region in data.regions {
            let ok = region.withUnsafeBytes { EVP_DigestSignUpdate(mdctx, $0.baseAddress, $0.count) }
            guard ok == 1 else { throw .openSSL("EVP_DigestSignUpdate") }
        }
        var length = 0
        guard EVP_DigestSignFinal(mdctx, nil, &length) == 1 else { throw .openSSL("EVP_DigestSignFinal") }
        var signature = Data(count: length)
        let ok = signature.withUnsafeMutableBytes {
            EVP_DigestSignFinal(mdctx, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), &length)
        }
        guard ok == 1 else { throw .openSSL("EVP_DigestSignFinal") }
        return try P256Signature(derRepresentation: signature.prefix(length))
    }
}
