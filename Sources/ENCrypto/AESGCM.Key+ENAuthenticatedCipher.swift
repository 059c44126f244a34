public import ENCore
public import Foundation

extension AESGCM.Key: ENAuthenticatedCipher {
    /// Seals with this key: `nonce || ciphertext || tag` (see ``AESGCM/seal(_:using:authenticating:)``).
    ///
    /// This makes an AES-GCM key usable wherever the package takes an `ENAuthenticatedCipher`, such as
    /// `ENStoreConfiguration.cipher` for encryption at rest.
    public func seal(_ plaintext: Data, authenticating associatedData: Data) throws(ENError) -> Data {
        try AESGCM.seal(plaintext, using: self, authenticating: associatedData)
    }

    /// Opens a value sealed with this key (see ``AESGCM/open(_:using:authenticating:)``).
    public func open(_ sealed: Data, authenticating associatedData: Data) throws(ENError) -> Data {
        try AESGCM.open(sealed, using: self, authenticating: associatedData)
    }
}
