internal import ENCrypto
import Foundation

/// Random numbers from OpenSSL's DRBG (``SecureRandom``), fetched 4 KiB at a time.
///
/// `SystemRandomNumberGenerator` makes a system call per number on Linux: shuffling a million keys made a
/// million `getrandom` calls. Should the DRBG fail, the rest comes from `SystemRandomNumberGenerator`.
struct SecureRandomNumberGenerator: RandomNumberGenerator {
    private var buffer: [UInt64] = []
    private var system: SystemRandomNumberGenerator?

    mutating func next() -> UInt64 {
        if let popped = buffer.popLast() { return popped }
        if system == nil, let bytes = try? SecureRandom.bytes(count: 4096) {
            buffer = bytes.withUnsafeBytes { raw in
                (0..<raw.count / 8).map { raw.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self) }
            }
            return buffer.removeLast()
        }
        system = system ?? SystemRandomNumberGenerator()
        return system!.next()
    }
}
