internal import CENDeflate
internal import CENZlib
import ENCore
import Foundation

/// The zip container of an export file: reading (bounds-checked directory, one-call inflation with libdeflate, the
/// limits applied) and writing (deflation with zlib, in parallel pieces; local headers, central directory).
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
            guard !path.hasSuffix("/") else {
                throw .badFormat("zip entry is not a regular file", context: .init(section: path))
            }
            guard !path.contains("/"), !path.contains("\\") else {
                throw .badFormat("zip entry is not at the root of the archive", context: .init(section: path))
            }
            if path.hasSuffix(".bin"), binName == nil {
                binName = path
            } else if path.hasSuffix(".sig"), sigName == nil {
                sigName = path
            } else {
                throw .badFormat(
                    "zip has an unexpected entry; expected only .bin and .sig", context: .init(section: path))
            }
        }
        guard let binName else { throw .badFormat("zip has no .bin entry", context: .init(section: "export.bin")) }
        guard let sigName else { throw .badFormat("zip has no .sig entry", context: .init(section: "export.sig")) }
        guard binName.dropLast(4) == sigName.dropLast(4) else {
            throw .badFormat("zip entries \"\(binName)\" and \"\(sigName)\" do not share a base name")
        }
        for entry in directory.entries {
            let limit = entry.name == binName ? limits.maximumExportBinarySize : limits.maximumSignatureFileSize
            guard entry.uncompressedSize <= UInt64(limit) else {
                throw .badFormat(
                    "zip entry declares \(entry.uncompressedSize) bytes, over the limit of \(limit)",
                    context: .init(section: entry.name, field: "uncompressed size"))
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

    /// Inflates one entry in a single libdeflate call into a buffer of its declared size: a declared size over
    /// `limit` is refused before anything is allocated, and inflation stops as soon as the output would pass the
    /// declared size. The CRC-32 must match the central directory's.
    private static func extract(_ entry: ZipDirectory.Entry, from data: Data, limit: Int) throws(ENError) -> Data {
        let declared = entry.uncompressedSize
        guard declared <= UInt64(limit) else {
            throw .badFormat(
                "zip entry declares \(declared) bytes, over the limit of \(limit)",
                context: .init(section: entry.name, field: "uncompressed size"))
        }
        let bound = Int(declared)
        let compressed = entry.dataOffset..<(entry.dataOffset + Int(entry.compressedSize))
        var output: Data
        if entry.method == 0 {
            guard entry.compressedSize == declared else {
                throw .badFormat(
                    "zip entry is stored with \(entry.compressedSize) bytes, declared \(declared)",
                    context: .init(section: entry.name, field: "uncompressed size"))
            }
            output = Data(data[(data.startIndex + compressed.lowerBound)..<(data.startIndex + compressed.upperBound)])
        } else {
            output = Data(count: bound)
            var produced = 0
            let status = try data.withBytes { input in
                output.withUnsafeMutableBytes { out in
                    // An empty output may have no base address; libdeflate writes nothing with a zero capacity.
                    CENDeflate_inflate_raw(
                        input.baseAddress! + compressed.lowerBound, compressed.count,
                        out.baseAddress ?? UnsafeMutableRawPointer(mutating: input.baseAddress!), out.count, &produced)
                }
            }
            switch status {
            case CENDEFLATE_OK:
                break
            case CENDEFLATE_OVERRUN:
                throw .badFormat(
                    "zip entry inflates to more than its declared \(declared) bytes (a zip bomb?)",
                    context: .init(section: entry.name, field: "uncompressed size"))
            case CENDEFLATE_BAD_DATA:
                throw .badFormat(
                    "zip entry cannot be inflated (invalid or truncated DEFLATE data)",
                    context: .init(section: entry.name, field: "file data"))
            default:
                throw .badFormat(
                    "zip entry cannot be inflated (libdeflate could not allocate its state)",
                    context: .init(section: entry.name, field: "file data"))
            }
            output.count = produced
        }
        guard output.count == bound else {
            throw .badFormat(
                "zip entry inflates to \(output.count) bytes, declared \(declared)",
                context: .init(section: entry.name, field: "uncompressed size"))
        }
        let checksum = output.withUnsafeBytes { libdeflate_crc32(0, $0.baseAddress, $0.count) }
        guard checksum == entry.checksum else {
            throw .badFormat("zip entry fails its CRC-32 check", context: .init(section: entry.name, field: "crc-32"))
        }
        return output
    }

    /// The DEFLATE level of written entries: 5, within 1.5 % of level 6 (zlib's default) in size at 1.7 times its
    /// speed on export files (see Documentation/ExportFormat.md).
    static let compressionLevel: Int32 = 5
    /// Entries are deflated in pieces of this size, in parallel (see ``deflate(_:name:into:at:)``).
    static let deflatePieceSize = 1 << 20

    /// A zip with `export.bin` then `export.sig`, both DEFLATE-compressed, as Google's and Apple's readers take
    /// it: no data descriptors, no extra fields, dated 1980-01-01, Unix mode 0644.
    static func write(exportBinary: Data, signatureFile: Data) throws(ENError) -> Data {
        let entries = [("export.bin", exportBinary), ("export.sig", signatureFile)]
        var capacity = ZipDirectory.endRecordSize
        for (name, contents) in entries {
            guard contents.count < Int(UInt32.max) else {
                throw .badParameter(
                    "\(contents.count) bytes, too large for a zip without ZIP64", context: .init(section: name))
            }
            capacity += ZipDirectory.localHeaderSize + ZipDirectory.centralHeaderSize + 2 * name.utf8.count
            capacity += deflateCapacity(contents.count)
        }
        // One buffer: each entry is compressed after its local header, then the directory follows.
        var zip = Data(count: capacity)
        let size = try zip.withMutableBytes { (output) throws(ENError) -> Int in
            var directory: [ZipDirectory.Entry] = []
            var position = 0
            for (name, contents) in entries {
                let nameLength = name.utf8.count
                let dataOffset = position + ZipDirectory.localHeaderSize + nameLength
                let (compressedSize, checksum) = try contents.withBytes { (input) throws(ENError) in
                    try deflate(input, name: name, into: output, at: dataOffset)
                }
                let entry = ZipDirectory.Entry(
                    name: name, flags: 0, method: 8, compressedSize: UInt64(compressedSize),
                    uncompressedSize: UInt64(contents.count), checksum: checksum, dataOffset: dataOffset)
                ZipDirectory.writeLocalHeader(entry, into: output, at: position)
                directory.append(entry)
                position = dataOffset + compressedSize
            }
            return ZipDirectory.writeCentralDirectory(directory, into: output, at: position)
        }
        zip.count = size
        return zip
    }

    /// The most bytes ``deflate(_:name:into:at:)`` can produce from `count` bytes: zlib's bound for each piece,
    /// plus the few bytes of each piece's sync flush.
    private static func deflateCapacity(_ count: Int) -> Int {
        let pieceCount = max(1, (count + deflatePieceSize - 1) / deflatePieceSize)
        return pieceCount * (CENZlib_deflate_bound(min(count, deflatePieceSize)) + 16)
    }

    /// Deflates `input` into `output` at `offset`: the compressed size and the CRC-32 of `input`.
    ///
    /// Pieces of ``deflatePieceSize`` bytes are compressed in parallel, each primed with the 32 KiB before it
    /// (as pigz does), into one stream: the output depends only on the input, not on the threads, and is
    /// within a few hundred bytes of a one-piece stream's size.
    private static func deflate(
        _ input: UnsafeRawBufferPointer, name: String, into output: UnsafeMutableRawBufferPointer, at offset: Int
    ) throws(ENError) -> (size: Int, checksum: UInt32) {
        // An empty input may have no base address; zlib takes any pointer with a zero length.
        let source = input.baseAddress ?? UnsafeRawPointer(output.baseAddress!)
        let checksum = libdeflate_crc32(0, source, input.count)
        let pieceCount = max(1, (input.count + deflatePieceSize - 1) / deflatePieceSize)
        if pieceCount == 1 {
            var produced = 0
            let status = CENZlib_deflate_raw(
                source, input.count, nil, 0, 1, output.baseAddress! + offset, output.count - offset, compressionLevel,
                &produced)
            guard status == CENZLIB_OK else {
                throw .internal("zlib cannot compress it (deflate failed)", context: .init(section: name))
            }
            return (produced, checksum)
        }
        let pieces = DeflatePieces(input: UnsafeRawBufferPointer(start: source, count: input.count), count: pieceCount)
        defer { pieces.deallocate() }
        DispatchQueue.concurrentPerform(iterations: pieceCount) { pieces.compress($0) }
        var size = 0
        for index in 0..<pieceCount {
            guard let piece = pieces.output(index), piece.count <= output.count - offset - size else {
                throw .internal("zlib cannot compress it (deflate failed)", context: .init(section: name))
            }
            (output.baseAddress! + offset + size).copyMemory(from: piece.baseAddress!, byteCount: piece.count)
            size += piece.count
        }
        return (size, checksum)
    }

    /// Scratch space for compressing the pieces of one entry in parallel: each piece writes only its own slot.
    private struct DeflatePieces: @unchecked Sendable {
        let input: UnsafeRawBufferPointer
        let count: Int
        let slotSize: Int
        let scratch: UnsafeMutableRawBufferPointer
        /// Bytes produced per piece, or -1 when zlib failed.
        let produced: UnsafeMutableBufferPointer<Int>

        init(input: UnsafeRawBufferPointer, count: Int) {
            self.input = input
            self.count = count
            slotSize = CENZlib_deflate_bound(deflatePieceSize) + 16
            scratch = .allocate(byteCount: slotSize * count, alignment: 16)
            produced = .allocate(capacity: count)
            produced.initialize(repeating: -1)
        }

        func compress(_ index: Int) {
            let start = index * deflatePieceSize
            let end = min(input.count, start + deflatePieceSize)
            let dictionaryLength = min(start, 32 << 10)
            var bytes = 0
            let status = CENZlib_deflate_raw(
                input.baseAddress! + start, end - start, input.baseAddress! + start - dictionaryLength,
                dictionaryLength, index == count - 1 ? 1 : 0, scratch.baseAddress! + index * slotSize, slotSize,
                compressionLevel, &bytes)
            produced[index] = status == CENZLIB_OK ? bytes : -1
        }

        /// The compressed piece, or nil when zlib failed.
        func output(_ index: Int) -> UnsafeRawBufferPointer? {
            produced[index] < 0
                ? nil : UnsafeRawBufferPointer(start: scratch.baseAddress! + index * slotSize, count: produced[index])
        }

        func deallocate() {
            scratch.deallocate()
            produced.deallocate()
        }
    }
}
