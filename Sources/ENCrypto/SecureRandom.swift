internal import CLibCrypto
public import ENCore
public import Foundation

/// Cryptographically secure random bytes from OpenSSL's DRBG (seeded by the operating system).
public enum SecureRandom {
    /// `count` random bytes.
    ///
    /// - Throws: ``ENError/Code/badParameter`` for a negative count, ``ENError/Code/internal`` when the
    ///   generator cannot be seeded.
    public static func bytes(count: Int) throws(ENError) -> Data {
        guard count >= 0 else { throw .badParameter("random byte count must not be negative, got \(count)") }
        var data = Data(count: count)
        guard count > 0 else { return data }
        let ok = data.withUnsafeMutableBytes {
            RAND_bytes($0.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(count))
        }
        guard ok == 1 else { throw .openSSL("RAND_bytes") }
        return data
    }
}
