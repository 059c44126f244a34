import ENCore
import Foundation

/// A bounds-checked reading of a zip's end-of-central-directory record, central directory and local headers.
///
/// Every offset and size is checked against the real length, so an entry's data range (`dataOffset`,
/// `compressedSize`) is always inside the archive. (ZIPFoundation, which writes our zips, trusts the offsets it
/// reads: with an in-memory archive an offset past the end traps; it is not used for reading.)
struct ZipDirectory {
    struct Entry {
        var name: String
        var flags: UInt16
        var method: UInt16
        var compressedSize: UInt64
        var uncompressedSize: UInt64
        /// The CRC-32 of the uncompressed data, from the central directory.
        var checksum: UInt32
        /// Where the entry's (compressed) data starts: after its local header, name and extra field.
        var dataOffset: Int
    }

    var entries: [Entry]

    private static let eocdSignature: UInt32 = 0x0605_4B50
    private static let centralSignature: UInt32 = 0x0201_4B50
    private static let localSignature: UInt32 = 0x0403_4B50
    private static let zip64LocatorSignature: UInt32 = 0x0706_4B50

    /// Reads the directory, refusing anything out of bounds, encrypted, ZIP64, or with more than `maximumEntries`.
    init(_ data: Data, maximumEntries: Int) throws(ENError) {
        entries = try data.withBytes { (bytes) throws(ENError) in
            try Self.readEntries(bytes, maximumEntries: maximumEntries)
        }
    }

    private static func readEntries(_ bytes: UnsafeRawBufferPointer, maximumEntries: Int) throws(ENError) -> [Entry] {
        let count = bytes.count
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }

        // The end-of-central-directory record: the last signature, as ZIPFoundation finds it.
        guard count >= 22 else { throw .badFormat("not a zip archive: \(count) bytes is too short") }
        var eocd = count - 22
        while eocd >= 0 && u32(eocd) != Self.eocdSignature { eocd -= 1 }
        guard eocd >= 0 else { throw .badFormat("not a zip archive: no end-of-central-directory record") }
        if eocd >= 20 && u32(eocd - 20) == Self.zip64LocatorSignature {
            throw .badFormat("zip archive uses ZIP64, which an export file never needs")
        }
        let entryCount = Int(u16(eocd + 10))
        let directorySize = Int(u32(eocd + 12))
        let directoryOffset = Int(u32(eocd + 16))
        guard directoryOffset + directorySize <= eocd else {
            throw .badFormat(
                "zip central directory (offset \(directoryOffset), \(directorySize) bytes) is out of bounds")
        }
        guard entryCount <= maximumEntries else {
            throw .badFormat("zip has \(entryCount) entries; expected only .bin and .sig")
        }

        var entries: [Entry] = []
        var position = directoryOffset
        let directoryEnd = directoryOffset + directorySize
        for index in 0..<entryCount {
            guard position + 46 <= directoryEnd, u32(position) == Self.centralSignature else {
                throw .badFormat("zip central directory entry \(index) is malformed")
            }
            let flags = u16(position + 8)
            let method = u16(position + 10)
            let checksum = u32(position + 16)
            let compressedSize = UInt64(u32(position + 20))
            let uncompressedSize = UInt64(u32(position + 24))
            let nameLength = Int(u16(position + 28))
            let extraLength = Int(u16(position + 30))
            let commentLength = Int(u16(position + 32))
            let localOffset = Int(u32(position + 42))
            let next = position + 46 + nameLength + extraLength + commentLength
            guard next <= directoryEnd else {
                throw .badFormat("zip central directory entry \(index) runs past the directory")
            }
            let name = String(
                decoding: UnsafeRawBufferPointer(rebasing: bytes[(position + 46)..<(position + 46 + nameLength)]),
                as: UTF8.self)
            guard flags & 1 == 0 else { throw .badFormat("zip entry \"\(name)\" is encrypted") }
            guard method == 0 || method == 8 else {
                throw .badFormat("zip entry \"\(name)\" uses compression method \(method); expected deflate or stored")
            }
            guard localOffset + 30 <= count, u32(localOffset) == Self.localSignature else {
                throw .badFormat("zip entry \"\(name)\" has no local header at offset \(localOffset)")
            }
            let dataOffset = localOffset + 30 + Int(u16(localOffset + 26)) + Int(u16(localOffset + 28))
            guard dataOffset + Int(compressedSize) <= count, u16(localOffset + 8) == method else {
                throw .badFormat("zip entry \"\(name)\" (\(compressedSize) compressed bytes) runs past the archive")
            }
            entries.append(
                Entry(
                    name: name, flags: flags, method: method, compressedSize: compressedSize,
                    uncompressedSize: uncompressedSize, checksum: checksum, dataOffset: dataOffset))
            position = next
        }
        return entries
    }
}
