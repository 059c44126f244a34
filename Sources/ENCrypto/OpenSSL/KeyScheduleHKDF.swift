internal import CLibCrypto

/// HKDF-SHA256 specialised to the Exposure Notification key schedule, on OpenSSL's `SHA256_Transform`.
///
/// `RPIK = HKDF(IKM = TEK, salt = none, info = "EN-RPIK", L = 16)` and likewise `AEMK` with `"EN-AEMK"`.
/// Because the salt is constant (no salt = 64 zero bytes as HMAC key), its inner and outer pad states are
/// computed once per process; because L = 16 fits in one expand block, HKDF reduces to exactly six SHA-256
/// compressions per derived key and no allocation, no context object and no provider fetch:
///
/// 1. extract, inner: `compress(ipadState(0), TEK || padding)`
/// 2. extract, outer: `compress(opadState(0), inner || padding)` = PRK
/// 3. expand, inner pad: `compress(IV, PRK ^ ipad)`
/// 4. expand, message: `compress(3, info || 0x01 || padding)`
/// 5. expand, outer pad: `compress(IV, PRK ^ opad)`
/// 6. expand, outer: `compress(5, 4 || padding)`; OKM = the first 16 bytes
///
/// Deriving RPIK and AEMK together shares steps 1, 2, 3 and 5 (eight compressions for both keys).
/// The output is checked against the official test vectors and against OpenSSL's generic HKDF in tests.
enum KeyScheduleHKDF {
    /// `"EN-RPIK" || 0x01`: the info string followed by the first expand counter.
    static let rpikInfo: [UInt8] = Array("EN-RPIK".utf8) + [0x01]
    /// `"EN-AEMK" || 0x01`.
    static let aemkInfo: [UInt8] = Array("EN-AEMK".utf8) + [0x01]

    private static let zeroSaltStates: (inner: SHA256_CTX, outer: SHA256_CTX) = {
        (padState(key: nil, pad: 0x36), padState(key: nil, pad: 0x5c))
    }()

    /// The SHA-256 state after compressing one block `(key || zeros) ^ pad`.
    private static func padState(key: UnsafeRawPointer?, pad: UInt8) -> SHA256_CTX {
        var ctx = SHA256_CTX()
        SHA256_Init(&ctx)
        withUnsafeTemporaryAllocation(byteCount: 64, alignment: 16) { block in
            for i in 0..<64 { block[i] = pad }
            if let key {
                for i in 0..<32 { block[i] = key.load(fromByteOffset: i, as: UInt8.self) ^ pad }
            }
            SHA256_Transform(&ctx, block.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return ctx
    }

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

    /// Fills `block` with `length` bytes already at its start, SHA-256 padding, and the bit length of
    /// `64 + length` bytes (one previously compressed pad block plus the message).
    @inline(__always)
    private static func pad(_ block: UnsafeMutableRawBufferPointer, messageLength length: Int) {
        block[length] = 0x80
        for i in (length + 1)..<56 { block[i] = 0 }
        let bits = UInt64(64 + length) * 8
        block.baseAddress!.storeBytes(of: bits.bigEndian, toByteOffset: 56, as: UInt64.self)
    }

    /// Derives the 16-byte keys for each of `infos` (each 8 bytes: a 7-byte info plus 0x01) from a 16-byte
    /// TEK, writing them one after another to `output` (16 bytes per info).
    static func derive(
        tek: UnsafeRawPointer, infos: [[UInt8]], into output: UnsafeMutableRawPointer
    ) {
        withUnsafeTemporaryAllocation(byteCount: 64 * 3, alignment: 16) { scratch in
            let block = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<64])
            let prk = UnsafeMutableRawBufferPointer(rebasing: scratch[64..<96])
            let inner = UnsafeMutableRawBufferPointer(rebasing: scratch[96..<128])
            let block8 = block.baseAddress!.assumingMemoryBound(to: UInt8.self)

            // Extract: PRK = HMAC(zero salt, TEK).
            var ctx = zeroSaltStates.inner
            block.baseAddress!.copyMemory(from: tek, byteCount: 16)
            pad(block, messageLength: 16)
            SHA256_Transform(&ctx, block8)
            storeDigest(&ctx, to: block.baseAddress!)
            pad(block, messageLength: 32)
            var outer = zeroSaltStates.outer
            SHA256_Transform(&outer, block8)
            storeDigest(&outer, to: prk.baseAddress!)

            // Expand: T1 = HMAC(PRK, info || 0x01).
            let expandInner = padState(key: prk.baseAddress!, pad: 0x36)
            let expandOuter = padState(key: prk.baseAddress!, pad: 0x5c)
            for (index, info) in infos.enumerated() {
                var innerCtx = expandInner
                for i in 0..<8 { block[i] = info[i] }
                pad(block, messageLength: 8)
                SHA256_Transform(&innerCtx, block8)
                storeDigest(&innerCtx, to: inner.baseAddress!)
                block.baseAddress!.copyMemory(from: inner.baseAddress!, byteCount: 32)
                pad(block, messageLength: 32)
                var outerCtx = expandOuter
                SHA256_Transform(&outerCtx, block8)
                storeDigest(&outerCtx, to: block.baseAddress!)
                (output + 16 * index).copyMemory(from: block.baseAddress!, byteCount: 16)
            }
            OPENSSL_cleanse(scratch.baseAddress, scratch.count)
        }
    }
}
