internal import CLibCrypto
public import ENCore
import Foundation

/// Derives the identifiers of many keys quickly: the batch path of the key schedule.
///
/// One generator holds one fetched AES-128-ECB cipher context and one buffer of padded interval blocks.
/// For each key it runs the six-compression HKDF (no allocation, no context object), re-keys the cipher
/// without re-fetching it, and encrypts all identifiers of the key with a single OpenSSL call. The padded
/// inputs are cached per rolling start (16 of them, about 36 KiB), so the keys of a 14-day window reuse them
/// unchanged.
///
/// A generator is not thread-safe: create one per thread (it is cheap) and reuse it for many keys.
///
/// It is meant for published diagnosis keys, which are not secret: unlike ``RollingProximityIdentifierKey``,
/// it does not scrub intermediate values from the stack (its own RPIK buffer is zeroed on release).
///
/// ```swift
/// let generator = try RollingProximityIdentifierGenerator()
/// for key in keys {
///     let identifiers = try generator.identifiers(for: key)
/// }
/// ```
public final class RollingProximityIdentifierGenerator {
    private let cipher: CipherContext
    private var blocks: PaddedIntervalBlocks
    private let rpik: UnsafeMutableRawBufferPointer

    /// The number of identifiers one call encrypts at most (a day's worth).
    public static let maximumCount = 144

    /// Creates a generator.
    ///
    /// - Throws: `ENError.Code.internal` when OpenSSL cannot provide AES-128-ECB.
    public init() throws(ENError) {
        cipher = try CipherContext(cipher: try FetchedAlgorithms.shared().aes128ECB)
        blocks = PaddedIntervalBlocks(slots: 16)
        rpik = .allocate(byteCount: 16, alignment: 16)
    }

    deinit {
        OPENSSL_cleanse(rpik.baseAddress, 16)
        rpik.deallocate()
    }

    /// Writes the 16-byte RPIK of the 16-byte key data at `keyData` to `output`.
    public func deriveRollingProximityIdentifierKey(
        keyData: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) throws(ENError) {
        guard keyData.count == 16 else { throw .badParameter("key data must be 16 bytes, got \(keyData.count)") }
        guard output.count >= 16 else { throw .badParameter("the output needs 16 bytes, has \(output.count)") }
        KeyScheduleHKDF.derive(
            tek: keyData.baseAddress!, outputs: .rpik, rpik: output.baseAddress!, aemk: nil, scrub: false)
    }

    /// Derives the identifiers of `count` (at most 144) consecutive intervals from `start` for the 16-byte key
    /// data at `keyData`, and writes them (16 bytes each) to `output`. Allocates nothing.
    ///
    /// - Throws: `ENError.Code.badParameter` for wrong buffer sizes or a count outside 0...144.
    public func deriveIdentifiers(
        keyData: UnsafeRawBufferPointer, startingAt start: ENIntervalNumber, count: Int,
        into output: UnsafeMutableRawBufferPointer
    ) throws(ENError) {
        guard keyData.count == 16 else { throw .badParameter("key data must be 16 bytes, got \(keyData.count)") }
        guard (0...Self.maximumCount).contains(count) else {
            throw .badParameter("identifier count must be 0...144, got \(count)")
        }
        guard output.count >= 16 * count else {
            throw .badParameter("the output needs \(16 * count) bytes, has \(output.count)")
        }
        guard count > 0 else { return }
        KeyScheduleHKDF.derive(
            tek: keyData.baseAddress!, outputs: .rpik, rpik: rpik.baseAddress!, aemk: nil, scrub: false)
        try cipher.setKey(rpik.baseAddress!)
        try blocks.encrypt(start: start, count: count, with: cipher, into: output.baseAddress!)
    }

    /// Encrypts the identifiers of `count` (at most 144) consecutive intervals from `start` under an already
    /// derived 16-byte RPIK: the AES half of ``deriveIdentifiers(keyData:startingAt:count:into:)``.
    ///
    /// - Throws: `ENError.Code.badParameter` for wrong buffer sizes or a count outside 0...144.
    public func encryptIdentifiers(
        rollingProximityIdentifierKey key: UnsafeRawBufferPointer, startingAt start: ENIntervalNumber, count: Int,
        into output: UnsafeMutableRawBufferPointer
    ) throws(ENError) {
        guard key.count == 16 else { throw .badParameter("an RPIK must be 16 bytes, got \(key.count)") }
        guard (0...Self.maximumCount).contains(count) else {
            throw .badParameter("identifier count must be 0...144, got \(count)")
        }
        guard output.count >= 16 * count else {
            throw .badParameter("the output needs \(16 * count) bytes, has \(output.count)")
        }
        guard count > 0 else { return }
        try cipher.setKey(key.baseAddress!)
        try blocks.encrypt(start: start, count: count, with: cipher, into: output.baseAddress!)
    }

    /// The identifiers of every interval of `key`'s rolling period.
    ///
    /// - Throws: `ENError.Code.badParameter` when the key is invalid (see `ENTemporaryExposureKey.validate()`).
    public func identifiers(for key: ENTemporaryExposureKey) throws(ENError) -> [RollingProximityIdentifier] {
        try key.validate()
        let count = Int(key.rollingPeriod)
        var result = [RollingProximityIdentifier]()
        result.reserveCapacity(count)
        try typedThrows {
            try withUnsafeTemporaryAllocation(byteCount: 16 * count, alignment: 16) { out in
                try key.keyData.withUnsafeBytes { tek in
                    try deriveIdentifiers(keyData: tek, startingAt: key.rollingStartNumber, count: count, into: out)
                }
                for i in 0..<count {
                    result.append(
                        RollingProximityIdentifier(
                            lowWord: UInt64(littleEndian: out.loadUnaligned(fromByteOffset: 16 * i, as: UInt64.self)),
                            highWord: UInt64(
                                littleEndian: out.loadUnaligned(fromByteOffset: 16 * i + 8, as: UInt64.self))))
                }
            }
        }
        return result
    }
}
