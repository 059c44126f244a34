import ENCore
import Foundation
internal import ZIPFoundation

/// Reads and writes the zip container of an export file with ZIPFoundation, with the limits applied.
enum ZipContainer {
    /// Whether `data` starts with a zip local-file or end-of-central-directory signature.
    static func looksLikeZip(_ data: Data) -> Bool {
        guard data.count >= 4 else { return false }
        let magic = Array(data.prefix(4))
        return magic == [0x50, 0x4B, 0x03, 0x04] || magic == [0x50, 0x4B, 0x05, 0x06]
    }

    /// Reads `<name>.bin` and `<name>.sig` from a zip, refusing anything else.
    static func read(_ data: Data, limits: ENExportLimits) throws(ENError) -> (bin: Data, sig: Data) {
        // Structure first, with every offset bounds-checked, so that ZIPFoundation only sees sane archives.
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

        let archive: Archive
        do {
            archive = try Archive(data: data, accessMode: .read)
        } catch {
            throw .badFormat("not a readable zip archive (\(error))")
        }
        guard let binEntry = archive[binName], let sigEntry = archive[sigName], binEntry.type == .file,
            sigEntry.type == .file
        else {
            throw .badFormat("zip entries \"\(binName)\" and \"\(sigName)\" cannot be read")
        }
        let bin = try extract(binEntry, from: archive, limit: limits.maximumExportBinarySize)
        let sig = try extract(sigEntry, from: archive, limit: limits.maximumSignatureFileSize)
        return (bin, sig)
    }

    /// Inflates one entry, refusing a declared size over `limit` before starting and stopping as soon as the
    /// produced bytes pass the declared size (or the limit).
    private static func extract(_ entry: Entry, from archive: Archive, limit: Int) throws(ENError) -> Data {
        let declared = entry.uncompressedSize
        guard declared <= UInt64(limit) else {
            throw .badFormat("zip entry \"\(entry.path)\" declares \(declared) bytes, over the limit of \(limit)")
        }
        let bound = Int(declared)
        var output = Data()
        output.reserveCapacity(bound)
        let checksum: CRC32
        do {
            checksum = try archive.extract(entry, bufferSize: 64 << 10, skipCRC32: false) { chunk in
                guard output.count + chunk.count <= bound else { throw InflationOverrun() }
                output.append(chunk)
            }
        } catch is InflationOverrun {
            throw .badFormat(
                "zip entry \"\(entry.path)\" inflates to more than its declared \(declared) bytes (a zip bomb?)")
        } catch {
            throw .badFormat("zip entry \"\(entry.path)\" cannot be inflated (\(error))")
        }
        guard output.count == bound else {
            throw .badFormat("zip entry \"\(entry.path)\" inflates to \(output.count) bytes, declared \(declared)")
        }
        guard checksum == entry.checksum else {
            throw .badFormat("zip entry \"\(entry.path)\" fails its CRC-32 check")
        }
        return output
    }

    private struct InflationOverrun: Error {}

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
