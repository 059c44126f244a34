public import ENCrypto

/// A signing key and the `SignatureInfo` that names it in the files it signs.
public struct ENExportSigner: Sendable {
    /// The ECDSA P-256 private key.
    public var signingKey: P256SigningKey
    /// How files name the key: id, version and algorithm.
    public var signatureInfo: ENExportSignatureInfo

    /// Creates a signer; the algorithm is always ECDSA P-256 with SHA-256.
    public init(signingKey: P256SigningKey, keyID: String, keyVersion: String) {
        self.signingKey = signingKey
        self.signatureInfo = ENExportSignatureInfo(
            verificationKeyID: keyID, verificationKeyVersion: keyVersion,
            signatureAlgorithm: ENExportSignatureInfo.ecdsaP256SHA256)
    }
}
