internal import CLibCrypto
public import ENCore
public import Foundation

/// The associated encrypted metadata key (AEMK) of a temporary exposure key:
/// `HKDF-SHA256(TEK, salt: none, info: "EN-AEMK", 16 bytes)`.
///
/// It encrypts the 4 metadata bytes broadcast with each identifier:
/// `AEM = AES-128-CTR(AEMK, counter block = RPI, metadata)`. Decryption is the same operation.
/// The metadata is not authenticated: check ``BluetoothMetadata/isSupportedVersion`` after decrypting.
public struct AssociatedEncryptedMetadataKey: Sendable {
    let storage: SecureBytes

    /// Derives the key from a temporary exposure key.
    ///
    /// - Throws: `ENError.Code.badParameter` when the key data is not 16 bytes.
    public init(temporaryExposureKey: ENTemporaryExposureKey) throws(ENError) {
        try self.init(keyData: temporaryExposureKey.keyData)
    }

    /// Derives the key from 16 bytes of temporary-exposure-key data.
    ///
    /// - Throws: `ENError.Code.badParameter` when `keyData` is not 16 bytes.
    public init(keyData: Data) throws(ENError) {
        storage = try KeyScheduleHKDF.derivedKey(.aemk, from: keyData)
    }

    /// A copy of the 16 key bytes. The copy is an ordinary `Data` and is not zeroed on release.
    public var keyBytes: Data { storage.withUnsafeBytes { Data($0) } }

    /// Encrypts metadata for broadcast beside `identifier`.
    public func encrypt(_ metadata: BluetoothMetadata, for identifier: RollingProximityIdentifier) throws(ENError)
        -> AssociatedEncryptedMetadata
    {
        let output = try crypt(metadata.bytes, identifier: identifier)
        return try AssociatedEncryptedMetadata(bytes: output)
    }

    /// Decrypts metadata received beside `identifier`. Any 4 bytes decrypt; a wrong key gives garbage.
    public func decrypt(_ metadata: AssociatedEncryptedMetadata, for identifier: RollingProximityIdentifier)
        throws(ENError) -> BluetoothMetadata
    {
        let output = try crypt(metadata.bytes, identifier: identifier)
        return try BluetoothMetadata(bytes: output)
    }

    private func crypt(_ input: [UInt8], identifier: RollingProximityIdentifier) throws(ENError) -> [UInt8] {
        let algorithms = try FetchedAlgorithms.shared()
        let cipher = try CipherContext(cipher: algorithms.aes128CTR)
        let iv = identifier.bytes
        var output = [UInt8](repeating: 0, count: input.count)
        try storage.withUnsafeBytes { key throws(ENError) in
            try iv.withUnsafeBufferPointer { iv throws(ENError) in
                try cipher.setKey(key.baseAddress!, iv: iv.baseAddress!)
            }
        }
        try input.withUnsafeBufferPointer { inBytes throws(ENError) in
            try output.withUnsafeMutableBufferPointer { outBytes throws(ENError) in
                try cipher.encrypt(inBytes.baseAddress!, outBytes.baseAddress!, count: input.count)
            }
        }
        return output
    }
}
