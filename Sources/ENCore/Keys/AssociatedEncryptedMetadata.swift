public import Foundation

/// Associated encrypted metadata (AEM): the 4 encrypted bytes broadcast beside a rolling proximity identifier.
///
/// Decrypting it takes the key of the broadcasting device (see `ENCrypto`); until then it is opaque.
public struct AssociatedEncryptedMetadata: Hashable, Sendable {
    /// The 4 bytes packed little-endian: byte 0 is the least significant.
    public let rawValue: UInt32

    /// The length of the metadata: 4 bytes.
    public static let length = 4

    /// Creates metadata from its packed value.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Creates metadata from exactly 4 bytes; throws ``ENError/Code/badParameter`` otherwise.
    public init(bytes: some Collection<UInt8>) throws(ENError) {
        guard bytes.count == Self.length else {
            throw .badParameter("associated encrypted metadata is 4 bytes, got \(bytes.count)")
        }
        var value: UInt32 = 0
        for (offset, byte) in bytes.enumerated() { value |= UInt32(byte) << (8 * UInt32(offset)) }
        self.rawValue = value
    }

    /// Creates metadata from 4 hexadecimal-encoded bytes.
    public init(hexString: String) throws(ENError) {
        guard let data = Data(hexString: hexString) else {
            throw .badParameter("associated encrypted metadata must be hexadecimal, got \"\(hexString)\"")
        }
        try self.init(bytes: data)
    }

    /// The 4 bytes.
    public var bytes: [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> (8 * UInt32($0))) } }

    /// The 4 bytes as `Data`.
    public var data: Data { Data(bytes) }
}

extension AssociatedEncryptedMetadata: CustomStringConvertible {
    /// The metadata in lower-case hexadecimal.
    public var description: String { data.hexString }
}
