internal import CENZlib
import ENCore
import Foundation
internal import ZIPFoundation

/// Reads the zip container of an export file (own bounds-checked directory reading, zlib inflation), with the
/// limits applied, and writes it with ZIPFoundation.
enum ZipContainer {
    /// Whether `data` starts with a zip local-file or end-of-central-directory signature.
    static func looksLikeZip(_ data: Data) -> Bool {
        guard data.count >= 4 else { return false }
        let magic = Array(data.prefix(4))
        return magic == [0x50, 0x4B, 0x03, 0x04] || magic == [0x50, 0x4B, 0x05, 0x06]
    }

    /// Reads `<name>.bin` and `<name>.sig` from a zip, refusing anything else.
    static func read(_ data: Data, limits: ENExportLimits) throws(ENError) -> (bin: Data, sig: Data) {
        // Structure first, with every offset bounds-checked.
        // Sizes come from the central directory: every real file sets flag bit 3 (sizes in a data descriptor,
        // zero in the local header).
        let directory = try ZipDirectory(data, maximumEntries: 2)
        var binName: String?
        var sigName: String?
        for entry in directory.entries {
            let path = entry.name
            guard !path.hasSuffix("/") else { throw .badFormat("zip entry \"\(path)\" is not a regular file") }
            guard !path.contains("/"), !path.contains("\\") else {
                throw .badFormat("zip entry \"\(path)\" is not at the root of the archive")
            }
            if path.hasSuffix(".bin"), binName == nil {
                binName = path
            } else if path.hasSuffix(".sig"), sigName == nil {
                sigName = path
            } else {
                throw .badFormat("zip has an unexpected entry \"\(path)\"; expected only .bin and .sig")
            }
        }
        guard let binName else { throw .badFormat("zip has no export.bin entry") }
        guard let sigName else { throw .badFormat("zip has no export.sig entry") }
        guard binName.dropLast(4) == sigName.dropLast(4) else {
            throw .badFormat("zip entries \"\(binName)\" and \"\(sigName)\" do not share a base name")
        }
        for entry in directory.entries {
            let limit = entry.name == binName ? limits.maximumExportBinarySize : limits.maximumSignatureFileSize
            guard entry.uncompressedSize <= UInt64(limit) else {
                throw .badFormat(
                    "zip entry \"\(entry.name)\" declares \(entry.uncompressedSize) bytes, over the limit of \(limit)")
            }
        }

        guard let binEntry = directory.entries.first(where: { $0.name == binName }),
            let sigEntry = directory.entries.first(where: { $0.name == sigName })
        else {
            throw .badFormat("zip entries \"\(binName)\" and \"\(sigName)\" cannot be read")
        }
        let bin = try extract(binEntry, from: data, limit: limits.maximumExportBinarySize)
        let sig = try extract(sigEntry, from: data, limit: limits.maximumSignatureFileSize)
        return (bin, sig)
    }

    /// Inflates one entry in a single zlib call into a buffer of its declared size (plus one byte, to notice
    /// more): a declared size over `limit` is refused before anything is allocated, and inflation stops as
    /// soon as the output passes the declared size. The CRC-32 must match the central directory's.
    private static func extract(_ entry: ZipDirectory.Entry, from data: Data, limit: Int) throws(ENError) -> Data {
        let declared = entry.uncompressedSize
        guard declared <= UInt64(limit) else {
            throw .badFormat("zip entry \"\(entry.name)\" declares \(declared) bytes, over the limit of \(limit)")
        }
        let bound = Int(declared)
        let compressed = entry.dataOffset..<(entry.dataOffset + Int(entry.compressedSize))
        var output: Data
        if entry.method == 0 {
            guard entry.compressedSize == declared else {
                throw .badFormat(
                    "zip entry \"\(entry.name)\" is stored with \(entry.compressedSize) bytes, declared \(declared)")
            }
            output = Data(data[(data.startIndex + compressed.lowerBound)..<(data.startIndex + compressed.upperBound)])
        } else {
            output = Data(count: bound + 1)
            var produced = 0
            let status = try data.withBytes { input in
                output.withUnsafeMutableBytes { out in
                    CENZlib_inflate_raw(
                        input.baseAddress! + compressed.lowerBound, compressed.count, out.baseAddress!, out.count,
                        &produced)
                }
            }
            switch status {
            case CENZLIB_OK:
                break
            case CENZLIB_OVERRUN:
                throw .badFormat(
                    "zip entry \"\(entry.name)\" inflates to more than its declared \(declared) bytes (a zip bomb?)")
            case CENZLIB_TRUNCATED:
                throw .badFormat("zip entry \"\(entry.name)\" cannot be inflated (its DEFLATE data is truncated)")
            case CENZLIB_DATA_ERROR:
                throw .badFormat("zip entry \"\(entry.name)\" cannot be inflated (invalid DEFLATE data)")
            default:
                throw .badFormat("zip entry \"\(entry.name)\" cannot be inflated (zlib failed)")
            }
            guard produced <= bound else {
                throw .badFormat(
                    "zip entry \"\(entry.name)\" inflates to more than its declared \(declared) bytes (a zip bomb?)")
            }
            output.count = produced
        }
        guard output.count == bound else {
            throw .badFormat("zip entry \"\(entry.name)\" inflates to \(output.count) bytes, declared \(declared)")
        }
        let checksum = output.withUnsafeBytes { UInt32(truncatingIfNeeded: CENZlib_crc32(0, $0.baseAddress, $0.count)) }
        guard checksum == entry.checksum else {
            throw .badFormat("zip entry \"\(entry.name)\" fails its CRC-32 check")
        }
        return output
    }

    /// A zip with `export.bin` then `export.sig`, both DEFLATE-compressed.
    static func write(exportBinary: Data, signatureFile: Data) throws(ENError) -> Data {
        do {
            let archive = try Archive(accessMode: .create)
            for (name, contents) in [("export.bin", exportBinary), ("export.sig", signatureFile)] {
                try archive.addEntry(
                    with: name, type: .file, uncompressedSize: Int64(contents.count),
                    modificationDate: Date(timeIntervalSince1970: 315_532_800), compressionMethod: .deflate
                ) { position, size in
                    contents.subdata(in: Int(position)..<Int(position) + size)
                }
            }
            guard let data = archive.data else { throw ENError.internal("the zip archive has no data") }
            return data
        } catch let error as ENError {
            throw error
        } catch {
            throw .internal("cannot build the zip archive (\(error))")
        }
    }
}
