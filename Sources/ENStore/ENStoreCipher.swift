public import ENCore
public import Foundation

/// An authenticated cipher that seals the key history and sightings before they reach the disk.
///
/// `ENStore` never touches cryptography itself (only `ENCrypto` links OpenSSL), so encryption at rest is
/// injected: pass a cipher in ``ENStoreConfiguration/cipher`` and the store seals every own key and every
/// sighting with it. A conforming type must be an AEAD such as AES-GCM: ``seal(_:authenticating:)`` returns
/// the nonce, ciphertext and tag in one value, and ``open(_:authenticating:)`` must throw when the key is
/// wrong or the sealed bytes or the associated data were altered.
///
/// The associated data binds each sealed value to its row (the table and the interval), so a value copied
/// to another row does not open.
public protocol ENStoreCipher: Sendable {
    /// Encrypts and authenticates `plaintext`, binding it to `associatedData`.
    ///
    /// - Returns: everything ``open(_:authenticating:)`` needs (for AES-GCM: nonce, ciphertext and tag).
    func seal(_ plaintext: Data, authenticating associatedData: Data) throws(ENError) -> Data

    /// Verifies and decrypts a value returned by ``seal(_:authenticating:)``.
    ///
    /// - Throws: an `ENError` when the key is wrong, or the value or the associated data were altered.
    func open(_ sealed: Data, authenticating associatedData: Data) throws(ENError) -> Data
}
