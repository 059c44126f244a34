public import ENCore
internal import ENCrypto
package import Foundation

/// Verifies export files against an allow-list of public keys, with iOS's rule: the first signature in
/// `export.sig` decides.
///
/// iOS reads only the first `TEKSignature` (servers list the most recent signing key first), so a file
/// whose first signature fails is refused even if a later one would verify. The signature covers the
/// whole of `export.bin`, header included.
///
/// ```swift
/// let verifier = ENExportVerifier(trustedKeys: [
///     ENExportVerificationKey(keyID: "310", keyVersion: "v1", publicKey: try P256VerifyingKey(pemRepresentation: pem))
/// ])
/// let result = try verifier.verify(archive)
/// guard result.isVerified else { print(result); return }
/// ```
public struct ENExportVerifier: Sendable {
    /// The allowed keys.
    public var trustedKeys: [ENExportVerificationKey]

    /// Creates a verifier for an allow-list.
    public init(trustedKeys: [ENExportVerificationKey]) {
        self.trustedKeys = trustedKeys
    }

    /// Verifies an archive's first signature over its `export.bin`.
    ///
    /// - Returns: which key verified the file, or why none did.
    /// - Throws: `ENError.Code.badFormat` when `export.sig` is not a valid `TEKSignatureList`.
    public func verify(_ archive: ENExportArchive) throws(ENError) -> ENExportVerificationResult {
        try verify(archive, exportBinaryDigest: { SHA256.hash(archive.exportBinary) })
    }

    /// ``verify(_:)`` for a caller that hashes `export.bin` anyway (a detection identifies files by that hash):
    /// `exportBinaryDigest` gives its SHA-256, asked for only when a trusted key could have signed the file.
    package func verify(
        _ archive: ENExportArchive, exportBinaryDigest: () -> Data
    ) throws(ENError) -> ENExportVerificationResult {
        guard let signatureFile = archive.signatureFile else { return .missingSignatureFile }
        let signatures = try ENExportSignature.decodeList(signatureFile)
        guard let first = signatures.first else { return .noSignatures }
        let info =
            first.signatureInfo
            ?? ENExportSignatureInfo(verificationKeyID: nil, verificationKeyVersion: nil, signatureAlgorithm: nil)
        guard info.hasSupportedAlgorithm else { return .unsupportedAlgorithm(info) }
        let candidates = trustedKeys.filter { $0.matches(info) }
        guard !candidates.isEmpty else { return .unknownKey(info) }
        let digest = exportBinaryDigest()
        for candidate in candidates where candidate.publicKey.isValidSignature(first.signature, forDigest: digest) {
            return .verified(info)
        }
        return .signatureMismatch(info)
    }
}
