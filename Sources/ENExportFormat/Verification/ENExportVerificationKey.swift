public import ENCrypto

/// A public key an app trusts for export files, addressed by key id and key version.
///
/// A `nil` id or version matches any value, including an absent one; use that when the key's
/// distribution channel already ties it to one server (as `entool verify` does without `--key-id`).
public struct ENExportVerificationKey: Sendable {
    /// The `verification_key_id` this key stands for, or `nil` for any.
    public var keyID: String?
    /// The `verification_key_version` this key stands for, or `nil` for any.
    public var keyVersion: String?
    /// The ECDSA P-256 public key.
    public var publicKey: P256VerifyingKey

    /// Creates an allow-list entry.
    public init(keyID: String?, keyVersion: String?, publicKey: P256VerifyingKey) {
        self.keyID = keyID
        self.keyVersion = keyVersion
        self.publicKey = publicKey
    }

    /// Whether this entry stands for the key that `info` names.
    public func matches(_ info: ENExportSignatureInfo) -> Bool {
        (keyID == nil || keyID == info.verificationKeyID)
            && (keyVersion == nil || keyVersion == info.verificationKeyVersion)
    }
}
