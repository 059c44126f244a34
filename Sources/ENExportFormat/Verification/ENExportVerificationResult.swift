/// The outcome of verifying an export file: which key verified it, or why nothing did.
public enum ENExportVerificationResult: Hashable, Sendable, CustomStringConvertible {
    /// The first signature verified with an allowed key; the associated value names that key.
    case verified(ENExportSignatureInfo)
    /// There is no `export.sig` (a bare `export.bin`).
    case missingSignatureFile
    /// `export.sig` holds no signature.
    case noSignatures
    /// The first signature names a key id and version that no allowed key stands for.
    case unknownKey(ENExportSignatureInfo)
    /// The first signature uses an algorithm other than ECDSA P-256 with SHA-256.
    case unsupportedAlgorithm(ENExportSignatureInfo)
    /// The first signature does not verify with any allowed key for its id and version: the file was
    /// altered after signing, or signed with another key.
    case signatureMismatch(ENExportSignatureInfo)
    /// ``ENExportVerifier/Rule/anyTrustedSignature`` only: `export.sig` holds another number of signatures than
    /// `export.bin` lists signature infos (Android refuses such a file).
    case signatureCountMismatch(signatures: Int, signatureInfos: Int)

    /// Whether the file verified.
    public var isVerified: Bool {
        if case .verified = self { return true }
        return false
    }

    /// A sentence for a person.
    public var description: String {
        switch self {
        case .verified(let info): "verified with key \(Self.describe(info))"
        case .missingSignatureFile: "not verified: there is no export.sig"
        case .noSignatures: "not verified: export.sig holds no signature"
        case .unknownKey(let info): "not verified: no allowed key for \(Self.describe(info))"
        case .unsupportedAlgorithm(let info):
            "not verified: unsupported signature algorithm \"\(info.signatureAlgorithm ?? "")\""
        case .signatureMismatch(let info):
            "not verified: the signature does not match export.bin for key \(Self.describe(info))"
        case .signatureCountMismatch(let signatures, let signatureInfos):
            "not verified: export.sig holds \(signatures) signatures but export.bin lists \(signatureInfos)"
        }
    }

    private static func describe(_ info: ENExportSignatureInfo) -> String {
        "id \"\(info.verificationKeyID ?? "(none)")\" version \"\(info.verificationKeyVersion ?? "(none)")\""
    }
}
