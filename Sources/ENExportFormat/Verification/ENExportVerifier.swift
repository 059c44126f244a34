public import ENCore
internal import ENCrypto
package import Foundation

/// Verifies export files against an allow-list of public keys, with iOS's rule (the first signature in
/// `export.sig` decides) or Android's (any signature by an allowed key).
///
/// iOS reads only the first `TEKSignature` (servers list the most recent signing key first), so a file
/// whose first signature fails is refused even if a later one would verify. Android accepts a file when any
/// signature made by an allowed key verifies, ignoring the others, provided `export.sig` holds as many signatures
/// as `export.bin` lists signature infos (ENI's `SignatureVerifier`, `ignoreUnmatchedSignatures`). During a
/// key server's signing-key rotation the files carry both keys, the new one first: a phone with Android's rule
/// that trusts only the old key still verifies them, one with iOS's rule needs the new key. The signature covers
/// the whole of `export.bin`, header included.
///
/// ```swift
/// let verifier = ENExportVerifier(trustedKeys: [
///     ENExportVerificationKey(keyID: "310", keyVersion: "v1", publicKey: try P256VerifyingKey(pemRepresentation: pem))
/// ])
/// let result = try verifier.verify(archive)
/// guard result.isVerified else { print(result); return }
/// ```
public struct ENExportVerifier: Sendable {
    /// Which signatures of a file decide.
    public enum Rule: Hashable, Sendable {
        /// iOS's: the first signature alone.
        case firstSignature
        /// Android's: any signature by an allowed key; `export.sig` must hold as many signatures as `export.bin`
        /// lists signature infos.
        case anyTrustedSignature
    }

    /// The allowed keys.
    public var trustedKeys: [ENExportVerificationKey]
    /// Which signatures decide; iOS's rule by default.
    public var rule: Rule

    /// Creates a verifier for an allow-list, with iOS's rule unless told otherwise.
    public init(trustedKeys: [ENExportVerificationKey], rule: Rule = .firstSignature) {
        self.trustedKeys = trustedKeys
        self.rule = rule
    }

    /// Verifies an archive's signatures over its `export.bin`, by the ``rule``.
    ///
    /// - Returns: which key verified the file, or why none did (for the first signature, or with Android's rule
    ///   the first signature no allowed key verified when none did).
    /// - Throws: `ENError.Code.badFormat` when `export.sig` is not a valid `TEKSignatureList` (or, with Android's
    ///   rule, `export.bin` is not a valid export).
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
        guard !signatures.isEmpty else { return .noSignatures }
        switch rule {
        case .firstSignature:
            return verify(signatures[0], exportBinaryDigest: exportBinaryDigest)
        case .anyTrustedSignature:
            let infos = try archive.keyScanner().metadata.signatureInfos.count
            guard infos == signatures.count else {
                return .signatureCountMismatch(signatures: signatures.count, signatureInfos: infos)
            }
            var digest: Data?
            var firstFailure: ENExportVerificationResult?
            for signature in signatures {
                let result = verify(signature) {
                    if let digest { return digest }
                    let computed = exportBinaryDigest()
                    digest = computed
                    return computed
                }
                if result.isVerified { return result }
                firstFailure = firstFailure ?? result
            }
            return firstFailure ?? .noSignatures
        }
    }

    /// One signature against the allowed keys for the key it names.
    private func verify(
        _ signature: ENExportSignature, exportBinaryDigest: () -> Data
    ) -> ENExportVerificationResult {
        let info =
            signature.signatureInfo
            ?? ENExportSignatureInfo(verificationKeyID: nil, verificationKeyVersion: nil, signatureAlgorithm: nil)
        guard info.hasSupportedAlgorithm else { return .unsupportedAlgorithm(info) }
        let candidates = trustedKeys.filter { $0.matches(info) }
        guard !candidates.isEmpty else { return .unknownKey(info) }
        let digest = exportBinaryDigest()
        for candidate in candidates where candidate.publicKey.isValidSignature(signature.signature, forDigest: digest) {
            return .verified(info)
        }
        return .signatureMismatch(info)
    }
}
