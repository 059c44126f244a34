internal import CLibCrypto
import ENCore

/// Reusable buffers of padded RPI inputs `"EN-RPI" || 0x00 * 6 || LE32(ENIN)`, cached per start interval.
///
/// Each slot holds the 144 padded blocks of one start interval (a prefix serves any shorter count). The
/// constant 12-byte prefix is written once at allocation; a slot is refilled only when a key with a start
/// that maps to it differs from the one it holds. With 16 slots, the keys of a 14-day window (one start per
/// day) never refill after their first use, so deriving a key costs the AES call and nothing else.
struct PaddedIntervalBlocks: ~Copyable {
    /// Blocks per slot: a day of intervals.
    static let blocksPerSlot = 144
    private static let slotBytes = 16 * blocksPerSlot

    private let slotCount: Int
    private let input: UnsafeMutableRawBufferPointer
    private let output: UnsafeMutableRawBufferPointer
    private let slotStarts: UnsafeMutablePointer<UInt32>
    private let slotFilled: UnsafeMutablePointer<Bool>

    /// The constant prefix of every padded block.
    static let prefix: [UInt8] = Array("EN-RPI".utf8) + [UInt8](repeating: 0, count: 6)

    /// Creates `slots` slots (at least 1).
    init(slots: Int) {
        slotCount = max(slots, 1)
        input = .allocate(byteCount: Self.slotBytes * slotCount, alignment: 64)
        output = .allocate(byteCount: Self.slotBytes, alignment: 64)
        slotStarts = .allocate(capacity: slotCount)
        slotStarts.initialize(repeating: 0, count: slotCount)
        slotFilled = .allocate(capacity: slotCount)
        slotFilled.initialize(repeating: false, count: slotCount)
        for block in 0..<(Self.blocksPerSlot * slotCount) {
            for (i, byte) in Self.prefix.enumerated() { input[16 * block + i] = byte }
            input.storeBytes(of: 0, toByteOffset: 16 * block + 12, as: UInt32.self)
        }
    }

    deinit {
        OPENSSL_cleanse(output.baseAddress, output.count)
        input.deallocate()
        output.deallocate()
        slotStarts.deallocate()
        slotFilled.deallocate()
    }

    /// The 144 padded blocks for the intervals `start ..< start + 144`, filled if needed.
    private mutating func blocks(start: UInt32) -> UnsafeRawPointer {
        let slot = Int((start / 144 &+ start % 144) % UInt32(slotCount))
        let base = input.baseAddress! + slot * Self.slotBytes
        if !slotFilled[slot] || slotStarts[slot] != start {
            for i in 0..<Self.blocksPerSlot {
                base.storeBytes(of: (start &+ UInt32(i)).littleEndian, toByteOffset: 16 * i + 12, as: UInt32.self)
            }
            slotStarts[slot] = start
            slotFilled[slot] = true
        }
        return UnsafeRawPointer(base)
    }

    /// Encrypts the blocks of `count` (at most 144) intervals from `start` in one call into `destination`.
    mutating func encrypt(
        start: UInt32, count: Int, with cipher: CipherContext, into destination: UnsafeMutableRawPointer
    ) throws(ENError) {
        precondition(count <= Self.blocksPerSlot)
        try cipher.encrypt(blocks(start: start), destination, count: 16 * count)
    }

    /// Encrypts the blocks of `count` (at most 144) intervals from `start` into the internal output buffer,
    /// read back with ``identifier(at:)``.
    mutating func encrypt(start: UInt32, count: Int, with cipher: CipherContext) throws(ENError) {
        try encrypt(start: start, count: count, with: cipher, into: output.baseAddress!)
    }

    /// The encrypted block `index` of the last ``encrypt(start:count:with:)`` as an identifier.
    func identifier(at index: Int) -> RollingProximityIdentifier {
        RollingProximityIdentifier(
            lowWord: UInt64(littleEndian: output.loadUnaligned(fromByteOffset: 16 * index, as: UInt64.self)),
            highWord: UInt64(littleEndian: output.loadUnaligned(fromByteOffset: 16 * index + 8, as: UInt64.self)))
    }
}
