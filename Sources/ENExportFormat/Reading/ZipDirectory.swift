import ENCore
import Foundation

/// The zip structure: a bounds-checked reading of the end-of-central-directory record, central directory and
/// local headers, and the writing of the same records.
///
/// Every offset and size read is checked against the real length, so an entry's data range (`dataOffset`,
/// `compressedSize`) is always inside the archive.
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

    /// The fixed part of a local file header (the name follows).
    static let localHeaderSize = 30
    /// The fixed part of a central directory entry (the name follows).
    static let centralHeaderSize = 46
    /// The end-of-central-directory record, without a comment.
    static let endRecordSize = 22

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
        guard count >= endRecordSize else { throw .badFormat("not a zip archive: \(count) bytes is too short") }
        var eocd = count - endRecordSize
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
            guard position + centralHeaderSize <= directoryEnd, u32(position) == Self.centralSignature else {
                throw .badFormat("zip central directory entry is malformed", context: .init(index: index))
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
            let next = position + centralHeaderSize + nameLength + extraLength + commentLength
            guard next <= directoryEnd else {
                throw .badFormat("zip central directory entry runs past the directory", context: .init(index: index))
            }
            let name = String(
                decoding: UnsafeRawBufferPointer(
                    rebasing: bytes[(position + centralHeaderSize)..<(position + centralHeaderSize + nameLength)]),
                as: UTF8.self)
            guard flags & 1 == 0 else {
                throw .badFormat(
                    "zip entry is encrypted", context: .init(section: name, field: "general purpose bit flag"))
            }
            guard method == 0 || method == 8 else {
                throw .badFormat(
                    "zip entry uses compression method \(method); expected deflate or stored",
                    context: .init(section: name, field: "compression method"))
            }
            guard localOffset + localHeaderSize <= count, u32(localOffset) == Self.localSignature else {
                throw .badFormat(
                    "zip entry has no local header at offset \(localOffset)",
                    context: .init(section: name, field: "relative offset of local header"))
            }
            let dataOffset = localOffset + localHeaderSize + Int(u16(localOffset + 26)) + Int(u16(localOffset + 28))
            guard dataOffset + Int(compressedSize) <= count, u16(localOffset + 8) == method else {
                throw .badFormat(
                    "zip entry (\(compressedSize) compressed bytes) runs past the archive",
                    context: .init(section: name, field: "compressed size"))
            }
            entries.append(
                Entry(
                    name: name, flags: flags, method: method, compressedSize: compressedSize,
                    uncompressedSize: uncompressedSize, checksum: checksum, dataOffset: dataOffset))
            position = next
        }
        return entries
    }

    // MARK: Writing

    /// What written entries record: "version needed" 2.0 (DEFLATE), "made by" Unix 2.0, modified 1980-01-01
    /// 00:00 (DOS date 0x0021, time 0: a fixed date keeps files reproducible), mode 0644 (a regular file).
    private static let versionNeeded: UInt16 = 20
    private static let versionMadeBy: UInt16 = 3 << 8 | 20
    private static let dosDate: UInt16 = 0x0021
    private static let unixMode: UInt32 = 0o100644 << 16

    /// Writes the local header of `entry`, with its name, `localHeaderSize + name` bytes at `offset`.
    static func writeLocalHeader(_ entry: Entry, into output: UnsafeMutableRawBufferPointer, at offset: Int) {
        var writer = LittleEndianWriter(output, at: offset)
        writer.u32(localSignature)
        writer.u16(versionNeeded)
        writer.common(entry)
        writer.u16(0)  // extra field length
        writer.name(entry.name)
    }

    /// Writes the central directory for `entries` (each local header at `dataOffset - localHeaderSize - name`)
    /// and the end record at `offset`; returns the end of the archive.
    static func writeCentralDirectory(
        _ entries: [Entry], into output: UnsafeMutableRawBufferPointer, at offset: Int
    ) -> Int {
        var writer = LittleEndianWriter(output, at: offset)
        for entry in entries {
            writer.u32(centralSignature)
            writer.u16(versionMadeBy)
            writer.u16(versionNeeded)
            writer.common(entry)
            writer.u16(0)  // extra field length
            writer.u16(0)  // comment length
            writer.u16(0)  // disk number
            writer.u16(0)  // internal attributes
            writer.u32(unixMode)
            writer.u32(UInt32(entry.dataOffset - localHeaderSize - entry.name.utf8.count))
            writer.name(entry.name)
        }
        let directorySize = writer.position - offset
        writer.u32(eocdSignature)
        writer.u16(0)  // this disk
        writer.u16(0)  // the directory's disk
        writer.u16(UInt16(entries.count))
        writer.u16(UInt16(entries.count))
        writer.u32(UInt32(directorySize))
        writer.u32(UInt32(offset))
        writer.u16(0)  // comment length
        return writer.position
    }

    /// Little-endian fields written in order; writing past the buffer traps.
    private struct LittleEndianWriter {
        let output: UnsafeMutableRawBufferPointer
        var position: Int

        init(_ output: UnsafeMutableRawBufferPointer, at position: Int) {
            self.output = output
            self.position = position
        }

        mutating func u16(_ value: UInt16) {
            precondition(position + 2 <= output.count)
            output.storeBytes(of: value.littleEndian, toByteOffset: position, as: UInt16.self)
            position += 2
        }

        mutating func u32(_ value: UInt32) {
            precondition(position + 4 <= output.count)
            output.storeBytes(of: value.littleEndian, toByteOffset: position, as: UInt32.self)
            position += 4
        }

        /// The fields local headers and central entries share, from flags to the name length.
        mutating func common(_ entry: Entry) {
            u16(entry.flags)
            u16(entry.method)
            u16(0)  // DOS time
            u16(ZipDirectory.dosDate)
            u32(entry.checksum)
            u32(UInt32(entry.compressedSize))
            u32(UInt32(entry.uncompressedSize))
            u16(UInt16(entry.name.utf8.count))
        }

        mutating func name(_ name: String) {
            let bytes = Array(name.utf8)
            precondition(position + bytes.count <= output.count)
            output.baseAddress!.advanced(by: position).copyMemory(from: bytes, byteCount: bytes.count)
            position += bytes.count
        }
    }
}
