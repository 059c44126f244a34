import Foundation

/// Builds zip archives with full control over names, methods, declared sizes and checksums, for the bad-input
/// tests. Entries are stored (method 0) unless given raw DEFLATE data with method 8.
enum TestZip {
    struct Entry {
        var name: String
        /// The entry's bytes as they sit in the zip (compressed for method 8).
        var data: Data
        var declaredSize: UInt32?
        var method: UInt16 = 0
        /// The bytes the CRC-32 is computed over; `data` when nil.
        var checksummed: Data?
    }

    /// `data` (at most 65,535 bytes) as a raw DEFLATE stream of one final stored block.
    static func deflateStored(_ data: Data) -> Data {
        let length = UInt16(data.count)
        return Data([0x01]) + le16(length) + le16(~length) + data
    }

    static func make(_ entries: [Entry]) -> Data {
        var body = Data()
        var central = Data()
        for entry in entries {
            let name = Data(entry.name.utf8)
            let crc = crc32(entry.checksummed ?? entry.data)
            let size = UInt32(entry.data.count)
            let declared = entry.declaredSize ?? size
            let offset = UInt32(body.count)
            body += le32(0x0403_4B50) + le16(20) + le16(0) + le16(entry.method) + le16(0) + le16(0x21)
            body += le32(crc) + le32(size) + le32(declared) + le16(UInt16(name.count)) + le16(0) + name + entry.data
            central += le32(0x0201_4B50) + le16(20) + le16(20) + le16(0) + le16(entry.method) + le16(0) + le16(0x21)
            central += le32(crc) + le32(size) + le32(declared) + le16(UInt16(name.count)) + le16(0) + le16(0)
            central += le16(0) + le16(0) + le32(0) + le32(offset) + name
        }
        let eocd =
            le32(0x0605_4B50) + le16(0) + le16(0) + le16(UInt16(entries.count)) + le16(UInt16(entries.count))
            + le32(UInt32(central.count)) + le32(UInt32(body.count)) + le16(0)
        return body + central + eocd
    }

    private static func le16(_ v: UInt16) -> Data { withUnsafeBytes(of: v.littleEndian) { Data($0) } }
    private static func le32(_ v: UInt32) -> Data { withUnsafeBytes(of: v.littleEndian) { Data($0) } }

    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }
}
