public import ENCore
internal import ENCrypto
public import ENExportFormat
public import Foundation

/// A signing key the app trusts for key files (`ENExportFormat`'s type, named here): with it,
/// `import ExposureNotificationKit` alone sets up an ``ENEnvironment``.
public typealias ENExportVerificationKey = ENExportFormat.ENExportVerificationKey

extension ENExportVerificationKey {
    /// A trusted key from its PEM text (`-----BEGIN PUBLIC KEY-----`, an ECDSA P-256 SubjectPublicKeyInfo), as a
    /// health authority publishes it, for the signatures with this key id and key version.
    ///
    /// - Throws: the `ENError` of `P256VerifyingKey(pemRepresentation:)` when the text is not a P-256 public key
    ///   in PEM.
    public init(keyID: String, keyVersion: String, pemRepresentation: String) throws(ENError) {
        self.init(
            keyID: keyID, keyVersion: keyVersion, publicKey: try P256VerifyingKey(pemRepresentation: pemRepresentation))
    }

    /// A trusted key from its base64 SubjectPublicKeyInfo (the PEM body on one line, as Google's verification
    /// server and many apps' configurations give it), for the signatures with this key id and key version.
    ///
    /// - Throws: `ENError.Code.badFormat` when the text is not a base64 P-256 SubjectPublicKeyInfo.
    public init(keyID: String, keyVersion: String, base64SubjectPublicKeyInfo: String) throws(ENError) {
        self.init(
            keyID: keyID, keyVersion: keyVersion,
            publicKey: try P256VerifyingKey(base64SubjectPublicKeyInfo: base64SubjectPublicKeyInfo))
    }

    /// A trusted key from its raw public point: 64 bytes `x || y` (CryptoKit's `rawRepresentation`) or 65 bytes
    /// `04 || x || y` (X9.63), for the signatures with this key id and key version.
    ///
    /// - Throws: `ENError.Code.badFormat` for another length or a point not on the P-256 curve.
    public init(keyID: String, keyVersion: String, rawRepresentation: Data) throws(ENError) {
        let point = rawRepresentation.count == 64 ? Data([0x04]) + rawRepresentation : rawRepresentation
        self.init(keyID: keyID, keyVersion: keyVersion, publicKey: try P256VerifyingKey(x963Representation: point))
    }
}
