internal import CLibCrypto
import ENCore
import Foundation

/// HKDF-SHA256 specialised to the Exposure Notification key schedule, on OpenSSL's `SHA256_Transform`.
///
/// `RPIK = HKDF(IKM = TEK, salt = none, info = "EN-RPIK", L = 16)` and likewise `AEMK` with `"EN-AEMK"`.
/// Because the salt is constant (no salt = an all-zero HMAC key), its inner and outer pad states are
/// computed once per process; because L = 16 fits in one expand block, HKDF reduces to exactly six SHA-256
/// compressions per derived key, with no allocation, no context object and no provider fetch:
///
/// 1. extract, inner: `compress(ipadState(0), TEK || padding)`
/// 2. extract, outer: `compress(opadState(0), inner || padding)` = PRK
/// 3. expand, inner pad: `compress(IV, PRK ^ ipad)`
/// 4. expand, message: `compress(3, info || 0x01 || padding)`
/// 5. expand, outer pad: `compress(IV, PRK ^ opad)`
/// 6. expand, outer: `compress(5, 4 || padding)`; OKM = the first 16 bytes
///
/// Every intermediate value is overwritten with zeros before returning. The output is checked against the official
/// test vectors and against OpenSSL's generic HKDF in tests.
enum KeyScheduleHKDF {
    /// The key to derive, named by its HKDF info string.
    enum Output {
        /// The rolling proximity identifier key, info `"EN-RPIK"`.
        case rpik
        /// The associated encrypted metadata key, info `"EN-AEMK"`.
        case aemk

        /// `info || 0x01` (the expand block's counter) as the little-endian load of those 8 bytes.
        var infoWord: UInt64 {
            switch self {
            case .rpik: Self.rpikInfo
            case .aemk: Self.aemkInfo
            }
        }

        private static let rpikInfo = word("EN-RPIK")
        private static let aemkInfo = word("EN-AEMK")

        private static func word(_ text: String) -> UInt64 {
            var word: UInt64 = 0
            for (i, byte) in (Array(text.utf8) + [0x01]).enumerated() { word |= UInt64(byte) << (8 * UInt64(i)) }
            return word
        }
    }

    /// The states after compressing the zero-salt pad blocks `0x36 * 64` and `0x5c * 64`.
    private static let zeroSaltStates: (inner: SHA256_CTX, outer: SHA256_CTX) = {
        var inner = SHA256_CTX()
        var outer = SHA256_CTX()
        SHA256_Init(&inner)
        SHA256_Init(&outer)
        withUnsafeTemporaryAllocation(byteCount: 64, alignment: 16) { block in
            block.initializeMemory(as: UInt8.self, repeating: 0x36)
            SHA256_Transform(&inner, block.baseAddress!.assumingMemoryBound(to: UInt8.self))
            block.initializeMemory(as: UInt8.self, repeating: 0x5c)
            SHA256_Transform(&outer, block.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return (inner, outer)
    }()

    /// SHA-256's initial state.
    private static let initialState: SHA256_CTX = {
        var ctx = SHA256_CTX()
        SHA256_Init(&ctx)
        return ctx
    }()

    /// Writes the 32-byte big-endian digest held in `ctx.h` to `output`.
    @inline(__always)
    private static func storeDigest(_ ctx: inout SHA256_CTX, to output: UnsafeMutableRawPointer) {
        withUnsafeBytes(of: &ctx.h) { words in
            for i in 0..<8 {
                output.storeBytes(
                    of: words.load(fromByteOffset: 4 * i, as: UInt32.self).bigEndian, toByteOffset: 4 * i,
                    as: UInt32.self)
            }
        }
    }

    /// Writes SHA-256 padding after `length` message bytes at the start of the 64-byte `block`, with the bit
    /// length of one previously compressed pad block plus the message.
    @inline(__always)
    private static func pad(_ block: UnsafeMutableRawPointer, messageLength length: Int) {
        block.storeBytes(of: 0x80, toByteOffset: length, as: UInt8.self)
        (block + length + 1).initializeMemory(as: UInt8.self, repeating: 0, count: 55 - length)
        block.storeBytes(of: (UInt64(64 + length) * 8).bigEndian, toByteOffset: 56, as: UInt64.self)
    }

    /// One expand step: `HMAC(PRK, info)` from the PRK's pad states, truncated to 16 bytes.
    @inline(__always)
    private static func expand(
        info: UInt64, inner: SHA256_CTX, outer: SHA256_CTX, block: UnsafeMutableRawPointer,
        to destination: UnsafeMutableRawPointer
    ) {
        let block8 = block.assumingMemoryBound(to: UInt8.self)
        var innerCtx = inner
        block.storeBytes(of: info.littleEndian, as: UInt64.self)
        pad(block, messageLength: 8)
        SHA256_Transform(&innerCtx, block8)
        storeDigest(&innerCtx, to: block)
        pad(block, messageLength: 32)
        var outerCtx = outer
        SHA256_Transform(&outerCtx, block8)
        storeDigest(&outerCtx, to: block)
        destination.copyMemory(from: block, byteCount: 16)
        OPENSSL_cleanse(&innerCtx, MemoryLayout<SHA256_CTX>.size)
        OPENSSL_cleanse(&outerCtx, MemoryLayout<SHA256_CTX>.size)
    }

    /// Derives the 16-byte key `output` from the 16-byte TEK at `tek` into `destination`, then overwrites every
    /// intermediate value with zeros.
    private static func derive(_ output: Output, tek: UnsafeRawPointer, into destination: UnsafeMutableRawPointer) {
        withUnsafeTemporaryAllocation(byteCount: 128, alignment: 16) { scratch in
            let block = scratch.baseAddress!
            let digest = block + 64
            let block8 = block.assumingMemoryBound(to: UInt8.self)

            // Extract: PRK = HMAC(zero salt, TEK).
            var ctx = zeroSaltStates.inner
            block.copyMemory(from: tek, byteCount: 16)
            pad(block, messageLength: 16)
            SHA256_Transform(&ctx, block8)
            storeDigest(&ctx, to: block)
            pad(block, messageLength: 32)
            ctx = zeroSaltStates.outer
            SHA256_Transform(&ctx, block8)
            storeDigest(&ctx, to: digest)  // PRK

            // Expand pad states for the key PRK || 0^32.
            var expandInner = initialState
            var expandOuter = initialState
            for i in 0..<4 {
                let word = digest.load(fromByteOffset: 8 * i, as: UInt64.self)
                block.storeBytes(of: word ^ 0x3636_3636_3636_3636, toByteOffset: 8 * i, as: UInt64.self)
            }
            (block + 32).initializeMemory(as: UInt8.self, repeating: 0x36, count: 32)
            SHA256_Transform(&expandInner, block8)
            for i in 0..<4 {
                let word = digest.load(fromByteOffset: 8 * i, as: UInt64.self)
                block.storeBytes(of: word ^ 0x5c5c_5c5c_5c5c_5c5c, toByteOffset: 8 * i, as: UInt64.self)
            }
            (block + 32).initializeMemory(as: UInt8.self, repeating: 0x5c, count: 32)
            SHA256_Transform(&expandOuter, block8)

            // Expand: T1 = HMAC(PRK, info || 0x01).
            expand(info: output.infoWord, inner: expandInner, outer: expandOuter, block: block, to: destination)
            OPENSSL_cleanse(scratch.baseAddress, scratch.count)
            OPENSSL_cleanse(&ctx, MemoryLayout<SHA256_CTX>.size)
            OPENSSL_cleanse(&expandInner, MemoryLayout<SHA256_CTX>.size)
            OPENSSL_cleanse(&expandOuter, MemoryLayout<SHA256_CTX>.size)
        }
    }

    /// Derives one 16-byte key from 16 bytes of TEK data into zeroing storage.
    ///
    /// - Throws: `ENError.Code.badParameter` when `keyData` is not 16 bytes.
    static func derivedKey(_ output: Output, from keyData: Data) throws(ENError) -> SecureBytes {
        guard keyData.count == ENTemporaryExposureKey.keyLength else {
            throw .badParameter("temporary exposure key data must be 16 bytes, got \(keyData.count)")
        }
        return keyData.withUnsafeBytes { tek in
            SecureBytes(count: 16) { out in derive(output, tek: tek.baseAddress!, into: out.baseAddress!) }
        }
    }
}
