public import ENCore
public import Foundation

/// The rolling proximity identifier key (RPIK) of a temporary exposure key:
/// `HKDF-SHA256(TEK, salt: none, info: "EN-RPIK", 16 bytes)`.
///
/// It encrypts the padded interval number into each broadcast identifier:
/// `RPI_j = AES-128(RPIK, "EN-RPI" || 0x00 * 6 || LE32(ENIN_j))`.
///
/// The key bytes live in storage that is zeroed when the last copy of the value is released.
///
/// ```swift
/// let rpik = try RollingProximityIdentifierKey(temporaryExposureKey: tek)
/// let rpi = try rpik.identifier(for: 2_642_976)
/// let day = try rpik.identifiers(startingAt: tek.rollingStartNumber, count: 144)
/// ```
public struct RollingProximityIdentifierKey: Sendable {
    let storage: SecureBytes

    /// `"EN-RPI" || 0x00 0x00`, the first 8 bytes of every padded block, as their little-endian load.
    private static let paddedPrefix: UInt64 = 0x0000_4950_522D_4E45

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
        storage = try KeyScheduleHKDF.derivedKey(.rpik, from: keyData)
    }

    /// Wraps 16 bytes of an already derived RPIK.
    ///
    /// - Throws: `ENError.Code.badParameter` when `derivedKeyBytes` is not 16 bytes.
    public init(derivedKeyBytes: Data) throws(ENError) {
        guard derivedKeyBytes.count == 16 else {
            throw .badParameter("a rolling proximity identifier key is 16 bytes, got \(derivedKeyBytes.count)")
        }
        storage = derivedKeyBytes.withUnsafeBytes { SecureBytes(copying: $0) }
    }

    /// A copy of the 16 key bytes. The copy is an ordinary `Data` and is not zeroed on release.
    public var keyBytes: Data { storage.withUnsafeBytes { Data($0) } }

    /// The identifier broadcast during `interval`.
    public func identifier(for interval: ENIntervalNumber) throws(ENError) -> RollingProximityIdentifier {
        try identifiers(startingAt: interval, count: 1)[0]
    }

    /// The identifiers of `count` consecutive intervals from `start`, encrypted with one OpenSSL call per day
    /// (144 intervals).
    ///
    /// - Throws: `ENError.Code.badParameter` when `count` is negative or runs past the end of the
    ///   interval range.
    public func identifiers(startingAt start: ENIntervalNumber, count: Int) throws(ENError)
        -> [RollingProximityIdentifier]
    {
        guard count >= 0 else { throw .badParameter("identifier count must not be negative, got \(count)") }
        guard UInt64(start) + UInt64(count) <= UInt64(UInt32.max) + 1 else {
            throw .badParameter("\(count) intervals from \(start) run past the end of the interval range")
        }
        if count == 0 { return [] }
        let cipher = try CipherContext(cipher: FetchedAlgorithms.shared().aes128ECB)
        try storage.withUnsafeBytes { (key: UnsafeRawBufferPointer) throws(ENError) in
            try cipher.setKey(key.baseAddress!)
        }
        var result: [RollingProximityIdentifier] = []
        result.reserveCapacity(count)
        // Up to a day of padded blocks per OpenSSL call; only the interval fields change between calls.
        let chunk = min(count, 144)
        try withUnsafeTemporaryAllocation(byteCount: 32 * chunk, alignment: 16) { buffer throws(ENError) in
            let blocks = buffer.baseAddress!
            let encrypted = blocks + 16 * chunk
            for i in 0..<chunk {
                blocks.storeBytes(of: Self.paddedPrefix.littleEndian, toByteOffset: 16 * i, as: UInt64.self)
                blocks.storeBytes(of: 0, toByteOffset: 16 * i + 8, as: UInt32.self)
            }
            var done = 0
            while done < count {
                let n = min(chunk, count - done)
                for i in 0..<n {
                    let interval = start &+ UInt32(done + i)
                    blocks.storeBytes(of: interval.littleEndian, toByteOffset: 16 * i + 12, as: UInt32.self)
                }
                try cipher.encrypt(blocks, encrypted, count: 16 * n)
                for i in 0..<n {
                    result.append(
                        RollingProximityIdentifier(
                            lowWord: UInt64(littleEndian: encrypted.load(fromByteOffset: 16 * i, as: UInt64.self)),
                            highWord: UInt64(
                                littleEndian: encrypted.load(fromByteOffset: 16 * i + 8, as: UInt64.self))))
                }
                done += n
            }
        }
        return result
    }
}
