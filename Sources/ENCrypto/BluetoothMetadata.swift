public import ENCore

/// The 4 bytes of Bluetooth metadata that the associated encrypted metadata carries (spec v1.2):
/// byte 0 the version (bits 7-6 major, bits 5-4 minor), byte 1 the transmit power as a signed dBm value,
/// bytes 2 and 3 reserved.
public struct BluetoothMetadata: Hashable, Sendable {
    /// The major version, 0...3. Version 1 is the only one defined.
    public var majorVersion: UInt8
    /// The minor version, 0...3.
    public var minorVersion: UInt8
    /// The transmit power level in dBm, -127...127.
    public var txPower: Int8
    /// The low four bits of the version byte, reserved.
    public var reservedVersionBits: UInt8
    /// Bytes 2 and 3, reserved.
    public var reservedBytes: UInt16

    /// Metadata of version 1.0 with the given transmit power.
    public init(txPower: Int8, majorVersion: UInt8 = 1, minorVersion: UInt8 = 0) {
        self.majorVersion = majorVersion & 0x03
        self.minorVersion = minorVersion & 0x03
        self.txPower = txPower
        self.reservedVersionBits = 0
        self.reservedBytes = 0
    }

    /// Parses 4 bytes. Every bit pattern is accepted; check ``isSupportedVersion`` before trusting the power.
    ///
    /// - Throws: ``ENError/Code/badParameter`` when `bytes` is not 4 bytes long.
    public init(bytes: some Collection<UInt8>) throws(ENError) {
        let b = Array(bytes)
        guard b.count == 4 else { throw .badParameter("Bluetooth metadata is 4 bytes, got \(b.count)") }
        majorVersion = b[0] >> 6
        minorVersion = (b[0] >> 4) & 0x03
        reservedVersionBits = b[0] & 0x0F
        txPower = Int8(bitPattern: b[1])
        reservedBytes = UInt16(b[2]) | UInt16(b[3]) << 8
    }

    /// The 4 bytes.
    public var bytes: [UInt8] {
        [
            majorVersion << 6 | minorVersion << 4 | (reservedVersionBits & 0x0F),
            UInt8(bitPattern: txPower),
            UInt8(truncatingIfNeeded: reservedBytes),
            UInt8(truncatingIfNeeded: reservedBytes >> 8),
        ]
    }

    /// Whether the major version is 1, the only version whose layout is defined. Decrypting with the wrong key
    /// gives random bytes, which fail this check three times in four.
    public var isSupportedVersion: Bool { majorVersion == 1 }
}
