public import Foundation

/// A rolling proximity identifier (RPI): the 16 bytes a device broadcasts for one 10-minute interval.
///
/// Stored as two 64-bit words (the bytes in memory order, loaded little-endian), so that equality and
/// hashing are two word operations: the matcher compares millions of these.
public struct RollingProximityIdentifier: Hashable, Sendable {
    /// Bytes 0..<8 loaded as a little-endian `UInt64`.
    public let lowWord: UInt64
    /// Bytes 8..<16 loaded as a little-endian `UInt64`.
    public let highWord: UInt64

    /// The length of an identifier: 16 bytes.
    public static let length = 16

    /// Creates an identifier from its two little-endian words.
    public init(lowWord: UInt64, highWord: UInt64) {
        self.lowWord = lowWord
        self.highWord = highWord
    }

    /// Creates an identifier from exactly 16 bytes; throws ``ENError/Code/badParameter`` otherwise.
    public init(bytes: some Collection<UInt8>) throws(ENError) {
        guard bytes.count == Self.length else {
            throw .badParameter("a rolling proximity identifier is 16 bytes, got \(bytes.count)")
        }
        var low: UInt64 = 0
        var high: UInt64 = 0
        for (offset, byte) in bytes.enumerated() {
            if offset < 8 {
                low |= UInt64(byte) << (8 * UInt64(offset))
            } else {
                high |= UInt64(byte) << (8 * UInt64(offset - 8))
            }
        }
        self.init(lowWord: low, highWord: high)
    }

    /// Creates an identifier from 16 hexadecimal-encoded bytes.
    public init(hexString: String) throws(ENError) {
        guard let data = Data(hexString: hexString) else {
            throw .badParameter("a rolling proximity identifier must be hexadecimal, got \"\(hexString)\"")
        }
        try self.init(bytes: data)
    }

    /// The 16 bytes.
    public var bytes: [UInt8] {
        var result = [UInt8](repeating: 0, count: Self.length)
        for i in 0..<8 {
            result[i] = UInt8(truncatingIfNeeded: lowWord >> UInt64(8 * i))
            result[i + 8] = UInt8(truncatingIfNeeded: highWord >> UInt64(8 * i))
        }
        return result
    }

    /// The 16 bytes as `Data`.
    public var data: Data { Data(bytes) }
}

extension RollingProximityIdentifier: CustomStringConvertible {
    /// The identifier in lower-case hexadecimal.
    public var description: String { data.hexString }
}
