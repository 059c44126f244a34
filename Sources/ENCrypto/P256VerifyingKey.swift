internal import CLibCrypto
public import ENCore
public import Foundation

/// An ECDSA P-256 public key: what an app trusts to verify diagnosis-key export files.
///
/// Health authorities publish it as a base64 `SubjectPublicKeyInfo` (the `MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE…`
/// strings) or as PEM; iOS stores the last 65 bytes (the uncompressed point). All three forms are accepted.
public struct P256VerifyingKey: Sendable {
    let box: PKeyBox
    /// The digests and signatures this key (and its copies) verified most recently; see
    /// `isValidSignature(_:forDigest:)`.
    private let verified = VerifiedDigests()

    /// The DER prefix of a P-256 `SubjectPublicKeyInfo` that precedes the 65-byte uncompressed point.
    private static let spkiPrefix = Data(hexString: "3059301306072a8648ce3d020106082a8648ce3d030107034200")!

    /// Reads a PEM public key (`-----BEGIN PUBLIC KEY-----`, a `SubjectPublicKeyInfo`).
    ///
    /// - Throws: `ENError.Code.badFormat` when the text is not such a PEM block,
    ///   `ENError.Code.badParameter` when the key is not on P-256.
    public init(pemRepresentation: String) throws(ENError) {
        box = try PKeyBox.parsedP256(
            OpenSSLBytes.withMemoryBIO(Data(pemRepresentation.utf8)) { PEM_read_bio_PUBKEY($0, nil, nil, nil) },
            what: "the public key", failure: "not a PEM-encoded public key (expected BEGIN PUBLIC KEY)")
    }

    /// Reads a DER `SubjectPublicKeyInfo`.
    ///
    /// - Throws: `ENError.Code.badFormat` when the bytes are not one (or have trailing bytes),
    ///   `ENError.Code.badParameter` when the key is not on P-256.
    public init(derRepresentation: Data) throws(ENError) {
        box = try PKeyBox.parsedP256(
            OpenSSLBytes.decodeDER(derRepresentation) { d2i_PUBKEY(nil, $0, $1) },
            what: "the public key", failure: "not a DER-encoded SubjectPublicKeyInfo, \(derRepresentation.count) bytes")
    }

    /// Reads the 65-byte uncompressed point `04 || X || Y` (the form iOS keeps).
    ///
    /// - Throws: `ENError.Code.badFormat` when the bytes are not a point on P-256.
    public init(x963Representation: Data) throws(ENError) {
        guard x963Representation.count == 65, x963Representation.first == 0x04 else {
            throw .badFormat(
                "an uncompressed P-256 point is 65 bytes starting with 04, got \(x963Representation.count)")
        }
        try self.init(derRepresentation: Self.spkiPrefix + x963Representation)
    }

    /// Reads the base64 of a `SubjectPublicKeyInfo`, as health authorities publish it.
    ///
    /// - Throws: `ENError.Code.badFormat` when the text is not base64 of such a key.
    public init(base64SubjectPublicKeyInfo text: String) throws(ENError) {
        guard let der = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw .badFormat("the public key is not valid base64")
        }
        try self.init(derRepresentation: der)
    }

    /// The key as DER `SubjectPublicKeyInfo`.
    public var derRepresentation: Data {
        get throws(ENError) { try OpenSSLBytes.der("i2d_PUBKEY") { i2d_PUBKEY(box.pkey, $0) } }
    }

    /// The key as PEM (`-----BEGIN PUBLIC KEY-----`).
    public var pemRepresentation: String {
        get throws(ENError) {
            let data = try OpenSSLBytes.writingToMemoryBIO("PEM_write_bio_PUBKEY") { bio in
                PEM_write_bio_PUBKEY(bio, box.pkey)
            }
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// The 65-byte uncompressed point.
    public var x963Representation: Data {
        get throws(ENError) { try derRepresentation.suffix(65) }
    }

    /// Whether `signature` is a valid signature of the SHA-256 digest of `data` by this key.
    public func isValidSignature(_ signature: P256Signature, for data: some DataProtocol) -> Bool {
        guard let mdctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(mdctx) }
        guard EVP_DigestVerifyInit_ex(mdctx, nil, "SHA256", nil, nil, box.pkey, nil) == 1 else {
            ENError.clearOpenSSLErrors()
            return false
        }
        for region in data.regions {
            let ok = region.withUnsafeBytes { EVP_DigestVerifyUpdate(mdctx, $0.baseAddress, $0.count) }
            guard ok == 1 else {
                ENError.clearOpenSSLErrors()
                return false
            }
        }
        let verified = signature.derRepresentation.withUnsafeBytes {
            EVP_DigestVerifyFinal(mdctx, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), $0.count)
        }
        ENError.clearOpenSSLErrors()
        return verified == 1
    }

    /// Whether the DER `signature` is a valid signature of the SHA-256 digest of `data` by this key.
    ///
    /// A malformed signature (truncated, trailing bytes, not DER) is simply not valid; use
    /// ``P256Signature/init(derRepresentation:)`` to learn why a signature is malformed.
    public func isValidSignature(_ signature: Data, for data: some DataProtocol) -> Bool {
        guard let parsed = try? P256Signature(derRepresentation: signature) else { return false }
        return isValidSignature(parsed, for: data)
    }

    /// Whether `signature` is valid for a precomputed 32-byte SHA-256 `digest` (for data hashed in a stream).
    ///
    /// The key remembers the last few digests and signatures it found valid, and answers those again without
    /// the elliptic-curve arithmetic: many phones in one process (a simulated town) verify the same published
    /// file with one trusted key. ECDSA verification is a function of the key, the digest and the signature
    /// alone, so a remembered answer is the answer; only valid pairs are remembered, and at most
    /// 32 of them (about 4 KB).
    public func isValidSignature(_ signature: P256Signature, forDigest digest: Data) -> Bool {
        guard digest.count == SHA256.byteCount else { return false }
        if verified.contains(digest: digest, signature: signature.derRepresentation) { return true }
        guard verifyWithoutMemo(signature, forDigest: digest) else { return false }
        verified.insert(digest: digest, signature: signature.derRepresentation)
        return true
    }

    private func verifyWithoutMemo(_ signature: P256Signature, forDigest digest: Data) -> Bool {
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, box.pkey, nil) else { return false }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_verify_init(ctx) == 1 else {
            ENError.clearOpenSSLErrors()
            return false
        }
        let verified = signature.derRepresentation.withUnsafeBytes { sig in
            digest.withUnsafeBytes { dig in
                EVP_PKEY_verify(
                    ctx, sig.baseAddress!.assumingMemoryBound(to: UInt8.self), sig.count,
                    dig.baseAddress!.assumingMemoryBound(to: UInt8.self), dig.count)
            }
        }
        ENError.clearOpenSSLErrors()
        return verified == 1
    }

    /// Whether the DER `signature` is valid for a precomputed SHA-256 `digest`.
    public func isValidSignature(_ signature: Data, forDigest digest: Data) -> Bool {
        guard let parsed = try? P256Signature(derRepresentation: signature) else { return false }
        return isValidSignature(parsed, forDigest: digest)
    }
}

/// The last digest and signature pairs a verifying key found valid (at most ``capacity``, the oldest replaced
/// first), shared by the key's copies.
private final class VerifiedDigests: Sendable {
    static let capacity = 32

    private struct State {
        var pairs: [Data] = []
        var next = 0
    }

    private let state = Locked(State())

    func contains(digest: Data, signature: Data) -> Bool {
        let pair = digest + signature
        return state.withLock { $0.pairs.contains(pair) }
    }

    func insert(digest: Data, signature: Data) {
        let pair = digest + signature
        state.withLock { state in
            guard !state.pairs.contains(pair) else { return }
            if state.pairs.count < Self.capacity {
                state.pairs.append(pair)
            } else {
                state.pairs[state.next] = pair
                state.next = (state.next + 1) % Self.capacity
            }
        }
    }
}
