internal import CLibCrypto
import ENCore

/// A reusable buffer of padded RPI inputs `"EN-RPI" || 0x00 * 6 || LE32(ENIN)` and their encryptions.
///
/// The constant 12-byte prefix is written once at allocation; refilling for a new start interval rewrites
/// only the interval fields, and refilling for the same start (keys of the same day) writes nothing.
struct PaddedIntervalBlocks: ~Copyable {
    let capacity: Int
    private let input: UnsafeMutableRawBufferPointer
    private let output: UnsafeMutableRawBufferPointer
    private var filledStart: UInt32?
    private var filledCount = 0

    /// The constant prefix of every padded block.
    static let prefix: [UInt8] = Array("EN-RPI".utf8) + [UInt8](repeating: 0, count: 6)

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        input = .allocate(byteCount: 16 * self.capacity, alignment: 64)
        output = .allocate(byteCount: 16 * self.capacity, alignment: 64)
        for block in 0..<self.capacity {
            for (i, byte) in Self.prefix.enumerated() { input[16 * block + i] = byte }
            input.storeBytes(of: 0, toByteOffset: 16 * block + 12, as: UInt32.self)
        }
    }

    deinit {
        OPENSSL_cleanse(output.baseAddress, output.count)
        input.deallocate()
        output.deallocate()
    }

    /// Writes the intervals `start ..< start + count` into the first `count` blocks.
    mutating func fill(start: UInt32, count: Int) {
        precondition(count <= capacity)
        if filledStart == start && filledCount >= count { return }
        for i in 0..<count {
            input.storeBytes(of: (start &+ UInt32(i)).littleEndian, toByteOffset: 16 * i + 12, as: UInt32.self)
        }
        filledStart = start
        filledCount = count
    }

    /// Encrypts the first `count` blocks in one call.
    func encrypt(with cipher: CipherContext, count: Int) throws(ENError) {
        try cipher.encrypt(input.baseAddress!, output.baseAddress!, count: 16 * count)
    }

    /// Copies the encrypted blocks to `destination` (16 bytes each).
    func copyOutput(count: Int, to destination: UnsafeMutableRawPointer) {
        destination.copyMemory(from: output.baseAddress!, byteCount: 16 * count)
    }

    /// The encrypted block `index` as an identifier.
    func identifier(at index: Int) -> RollingProximityIdentifier {
        RollingProximityIdentifier(
            lowWord: UInt64(littleEndian: output.loadUnaligned(fromByteOffset: 16 * index, as: UInt64.self)),
            highWord: UInt64(littleEndian: output.loadUnaligned(fromByteOffset: 16 * index + 8, as: UInt64.self)))
    }
}
