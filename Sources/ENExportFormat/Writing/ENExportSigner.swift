public import ENCrypto
public import Foundation

/// A signing key and the `SignatureInfo` that names it in the files it signs.
public struct ENExportSigner: Sendable {
    /// The ECDSA P-256 private key.
    public var signingKey: P256SigningKey
    /// How files name the key: id, version and algorithm.
    public var signatureInfo: ENExportSignatureInfo
    /// From when a key server signs with this key; `nil`: from the start. A key server's rotation adds a key
    /// ahead of its use this way (Google's operators add a `SignatureInfo` to the export configuration then).
    public var activeFrom: Date?
    /// Until when, inclusive, a key server signs with this key; `nil`: for as long as it is configured (Google's
    /// `SignatureInfo.EndTimestamp`, `thru_timestamp`, a key being used while `thru_timestamp >= now`).
    public var activeUntil: Date?

    /// Creates a signer; the algorithm is always ECDSA P-256 with SHA-256.
    ///
    /// - Parameters:
    ///   - signingKey: the ECDSA P-256 private key.
    ///   - keyID: the files' `verification_key_id` (an MCC for Apple, e.g. `310`).
    ///   - keyVersion: the files' `verification_key_version` (e.g. `v1`).
    ///   - activeFrom: from when a key server signs with it; `nil`: from the start.
    ///   - activeUntil: until when, inclusive, a key server signs with it; `nil`: with no end.
    public init(
        signingKey: P256SigningKey, keyID: String, keyVersion: String, activeFrom: Date? = nil,
        activeUntil: Date? = nil
    ) {
        self.signingKey = signingKey
        self.signatureInfo = ENExportSignatureInfo(
            verificationKeyID: keyID, verificationKeyVersion: keyVersion,
            signatureAlgorithm: ENExportSignatureInfo.ecdsaP256SHA256)
        self.activeFrom = activeFrom
        self.activeUntil = activeUntil
    }

    /// Whether a key server signs with this key at `date`: on or after ``activeFrom`` and on or before
    /// ``activeUntil``.
    public func isActive(at date: Date) -> Bool {
        if let activeFrom, date < activeFrom { return false }
        if let activeUntil, date > activeUntil { return false }
        return true
    }
}
