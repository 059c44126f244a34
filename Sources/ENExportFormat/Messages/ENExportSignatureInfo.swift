internal import Foundation

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
    /// iOS never reads the field, and real files spell it many ways, so every spelling of that one algorithm is
    /// accepted and anything else refused. Compared without case, spaces, hyphens, underscores or slashes:
    /// - the OID ``ecdsaP256SHA256`` (`1.2.840.10045.4.3.2`), which Google's server writes;
    /// - `"ECDSA p-256 SHA-256"`, the text of Google's early sample files;
    /// - Java's `"SHA256withECDSA"`, which Apple's sample server writes;
    /// - `"ecdsa-with-SHA256"` (the OID's ASN.1 name) and JOSE's `"ES256"`;
    /// - an absent or empty field.
    ///
    /// Refused, for example: `"1.2.840.10045.4.3.4"` and `"SHA512withECDSA"` (ECDSA with SHA-512, which only
    /// Android accepts), `"SHA256withRSA"`.
    public var hasSupportedAlgorithm: Bool {
        guard let signatureAlgorithm else { return true }
        let trimmed = signatureAlgorithm.trimmingCharacters(in: .whitespaces)
        if trimmed == Self.ecdsaP256SHA256 { return true }
        let normalized = String(
            trimmed.lowercased().unicodeScalars.filter { !" -_/".unicodeScalars.contains($0) }.map(Character.init))
        return Self.acceptedSpellings.contains(normalized)
    }

    /// The normalized spellings of ECDSA P-256 with SHA-256 (see ``hasSupportedAlgorithm``).
    static let acceptedSpellings: Set<String> = ["", "ecdsap256sha256", "sha256withecdsa", "ecdsawithsha256", "es256"]
}
