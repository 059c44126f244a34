public import Foundation

/// An authenticated cipher (AEAD): what seals data at rest, such as the store's key history and sightings.
///
/// The protocol lives in `ENCore` so that a module that stores data (`ENStore`) and the module that implements
/// the cryptography (`ENCrypto`, whose `AESGCM.Key` conforms) need not know each other: the embedder passes the
/// cipher in. A conforming type must be an AEAD such as AES-GCM: ``seal(_:authenticating:)`` returns the nonce,
/// ciphertext and tag in one value, and ``open(_:authenticating:)`` must throw when the key is wrong or the
/// sealed bytes or the associated data were altered.
///
/// The associated data binds each sealed value to its context (for the store: the table and the row), so a
/// value copied elsewhere does not open.
public protocol ENAuthenticatedCipher: Sendable {
    /// Encrypts and authenticates `plaintext`, binding it to `associatedData`.
    ///
    /// - Returns: everything ``open(_:authenticating:)`` needs (for AES-GCM: nonce, ciphertext and tag).
    func seal(_ plaintext: Data, authenticating associatedData: Data) throws(ENError) -> Data

    /// Verifies and decrypts a value returned by ``seal(_:authenticating:)``.
    ///
    /// - Throws: an `ENError` when the key is wrong, or the value or the associated data were altered.
    func open(_ sealed: Data, authenticating associatedData: Data) throws(ENError) -> Data
}
