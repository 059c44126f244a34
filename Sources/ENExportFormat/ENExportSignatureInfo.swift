/// Which key signed an export file, and with which algorithm: the `SignatureInfo` message.
///
/// Every field is optional on the wire, and old files leave some out (no key version, no key id), so each
/// property is an optional: `nil` means the field was absent. The deprecated fields 1 and 2
/// (`app_bundle_id`, `android_package`) that old files still carry are skipped when reading.
public struct ENExportSignatureInfo: Hashable, Sendable, Codable {
    /// The signing key's identifier, for example an MCC such as `"310"`.
    public var verificationKeyID: String?
    /// The signing key's version, for example `"v1"`, so that keys can rotate.
    public var verificationKeyVersion: String?
    /// The ASN.1 OID of the signature algorithm, normally ``ecdsaP256SHA256``.
    public var signatureAlgorithm: String?

    /// `"1.2.840.10045.4.3.2"`: ECDSA with SHA-256, the only algorithm Apple accepts.
    public static let ecdsaP256SHA256 = "1.2.840.10045.4.3.2"

    /// Creates signature information.
    public init(
        verificationKeyID: String?,
        verificationKeyVersion: String?,
        signatureAlgorithm: String? = ENExportSignatureInfo.ecdsaP256SHA256
    ) {
        self.verificationKeyID = verificationKeyID
        self.verificationKeyVersion = verificationKeyVersion
        self.signatureAlgorithm = signatureAlgorithm
    }

    /// Whether ``signatureAlgorithm`` names ECDSA P-256 with SHA-256.
    ///
    /// Accepted: the OID ``ecdsaP256SHA256``; the text `"ECDSA p-256 SHA-256"` (any case) that Google's early
    /// sample files carry; and an absent field (iOS never reads it). Anything else, including
    /// `"1.2.840.10045.4.3.4"` (ECDSA with SHA-512, which only Android accepts), is unsupported.
    public var hasSupportedAlgorithm: Bool {
        guard let signatureAlgorithm else { return true }
        return signatureAlgorithm == Self.ecdsaP256SHA256
            || signatureAlgorithm.lowercased() == "ecdsa p-256 sha-256"
    }
}
