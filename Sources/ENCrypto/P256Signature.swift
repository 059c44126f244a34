internal import CLibCrypto
public import ENCore
public import Foundation

/// An ECDSA P-256 signature, checked to be well-formed: DER `SEQUENCE { INTEGER r, INTEGER s }` with nothing
/// after it, or the 64-byte raw `r || s` form.
public struct P256Signature: Hashable, Sendable {
    /// The DER encoding (X9.62), as stored in `export.sig`.
    public let derRepresentation: Data

    /// Parses a DER signature.
    ///
    /// - Throws: ``ENError/Code/badFormat`` when the bytes are empty, truncated, not a DER
    ///   `SEQUENCE` of two integers, or followed by extra bytes.
    public init(derRepresentation: Data) throws(ENError) {
        guard !derRepresentation.isEmpty else { throw .badFormat("the signature is empty") }
        guard derRepresentation.count <= 80 else {
            throw .badFormat("a P-256 DER signature is at most 72 bytes, got \(derRepresentation.count)")
        }
        let parsed = OpenSSLBytes.decodeDER(derRepresentation) { cursor, count in d2i_ECDSA_SIG(nil, cursor, count) }
        guard let sig = parsed else {
            ENError.clearOpenSSLErrors()
            throw .badFormat(
                "the signature is not a DER ECDSA signature (truncated or malformed, \(derRepresentation.count) bytes)")
        }
        ECDSA_SIG_free(sig)
        self.derRepresentation = derRepresentation
    }

    /// Builds a signature from the 64-byte raw form `r || s` (big-endian, 32 bytes each).
    ///
    /// - Throws: ``ENError/Code/badFormat`` when `rawRepresentation` is not 64 bytes.
    public init(rawRepresentation: Data) throws(ENError) {
        guard rawRepresentation.count == 64 else {
            throw .badFormat("a raw P-256 signature is 64 bytes, got \(rawRepresentation.count)")
        }
        guard let sig = ECDSA_SIG_new() else { throw .openSSL("ECDSA_SIG_new") }
        defer { ECDSA_SIG_free(sig) }
        let (r, s) = rawRepresentation.withUnsafeBytes { raw in
            let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            return (BN_bin2bn(base, 32, nil), BN_bin2bn(base + 32, 32, nil))
        }
        guard let r, let s, ECDSA_SIG_set0(sig, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            throw .openSSL("ECDSA_SIG_set0")
        }
        derRepresentation = try OpenSSLBytes.der("i2d_ECDSA_SIG") { i2d_ECDSA_SIG(sig, $0) }
    }

    /// The 64-byte raw form `r || s`.
    public var rawRepresentation: Data {
        let parsed = OpenSSLBytes.decodeDER(derRepresentation) { cursor, count in d2i_ECDSA_SIG(nil, cursor, count) }
        guard let sig = parsed else { return Data() }
        defer { ECDSA_SIG_free(sig) }
        var raw = Data(count: 64)
        raw.withUnsafeMutableBytes { out in
            let base = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
            _ = BN_bn2binpad(ECDSA_SIG_get0_r(sig), base, 32)
            _ = BN_bn2binpad(ECDSA_SIG_get0_s(sig), base + 32, 32)
        }
        return raw
    }
}
