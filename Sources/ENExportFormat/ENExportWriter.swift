public import ENCore
internal import ENCrypto
import Foundation

/// Writes signed export files from keys, as a key server publishes them.
///
/// Keys (new and revised together) are shuffled, so that no file groups them by user as uploaded, then cut
/// into files of at most ``maximumKeysPerFile`` keys and ``maximumExportBinarySize`` bytes (Apple's advice:
/// 750,000 keys and 16 MB). Each file is batch 1 of 1 (iOS does not support multi-file batches) and gets a
/// distinct end timestamp (`endTimestamp + i` for the i-th file, 0-based), because Android drops files whose
/// (start, end, batch number) repeat. Each file is signed by every signer, in order: list the current key
/// first, since iOS checks only the first signature.
///
/// ```swift
/// let writer = ENExportWriter(region: "US", startTimestamp: start, endTimestamp: end,
///                             signers: [ENExportSigner(signingKey: key, keyID: "310", keyVersion: "v1")])
/// for (i, archive) in try writer.archives(keys: keys).enumerated() {
///     try archive.write(to: directory.appending(path: "export-\(i + 1).zip"))
/// }
/// ```
public struct ENExportWriter: Sendable {
    /// The region written into every file, for example `"US"` or an MCC.
    public var region: String
    /// The start of the window in which the keys arrived at the server, in UTC seconds.
    public var startTimestamp: UInt64
    /// The end of that window, in UTC seconds (the i-th file gets `endTimestamp + i`).
    public var endTimestamp: UInt64
    /// Who signs every file, the current key first. One to ten signers.
    public var signers: [ENExportSigner]
    /// The most keys (new plus revised) in one file. Default 750,000.
    public var maximumKeysPerFile: Int = 750_000
    /// The largest `export.bin` of one file, in bytes. Default 16 MiB. The zip is never much larger,
    /// because key data is random and does not compress.
    public var maximumExportBinarySize: Int = 16 << 20

    /// The most signatures a file may carry.
    public static let maximumSignerCount = 10

    /// Creates a writer.
    public init(region: String, startTimestamp: UInt64, endTimestamp: UInt64, signers: [ENExportSigner]) {
        self.region = region
        self.startTimestamp = startTimestamp
        self.endTimestamp = endTimestamp
        self.signers = signers
    }

    /// Writes signed files for the keys, shuffled with a cryptographically secure generator (OpenSSL's DRBG).
    ///
    /// - Throws: `ENError.Code.badParameter` for an invalid key (naming it), no signer or more than
    ///   ten, a start after the end, or limits too small for a single key.
    public func archives(
        keys: [ENTemporaryExposureKey], revisedKeys: [ENTemporaryExposureKey] = []
    ) throws(ENError) -> [ENExportArchive] {
        var generator = SecureRandomNumberGenerator()
        return try archives(keys: keys, revisedKeys: revisedKeys, using: &generator)
    }

    /// Writes signed files for the keys, shuffled with `generator` (for reproducible tests).
    public func archives(
        keys: [ENTemporaryExposureKey], revisedKeys: [ENTemporaryExposureKey] = [],
        using generator: inout some RandomNumberGenerator
    ) throws(ENError) -> [ENExportArchive] {
        guard !signers.isEmpty else { throw .badParameter("an export file needs at least one signer") }
        guard signers.count <= Self.maximumSignerCount else {
            throw .badParameter(
                "an export file carries at most \(Self.maximumSignerCount) signatures, got \(signers.count)")
        }
        guard startTimestamp <= endTimestamp else {
            throw .badParameter("start timestamp \(startTimestamp) is after end timestamp \(endTimestamp)")
        }
        guard maximumKeysPerFile >= 1 else {
            throw .badParameter("maximum keys per file must be at least 1, got \(maximumKeysPerFile)")
        }
        let input = KeyInput(keys: keys, revisedKeys: revisedKeys)
        try input.validate()
        var order = input.allPositions
        order.shuffle(using: &generator)
        return try plan(order, of: input).map { (file) throws(ENError) in try archive(file, of: input) }
    }

    /// The keys to write: new and revised, addressed together by a position (new keys first).
    struct KeyInput {
        let keys: [ENTemporaryExposureKey]
        let revisedKeys: [ENTemporaryExposureKey]

        /// Every position, in order.
        var allPositions: [KeyPosition] { (0..<UInt32(keys.count + revisedKeys.count)).map(KeyPosition.init) }

        /// Whether the key at `position` is a revised key.
        func isRevised(_ position: KeyPosition) -> Bool { Int(position.value) >= keys.count }

        subscript(position: KeyPosition) -> ENTemporaryExposureKey {
            let index = Int(position.value)
            return index < keys.count ? keys[index] : revisedKeys[index - keys.count]
        }

        /// Refuses the first invalid key with `badParameter`, naming it as given (`revised_keys[3]: ...`).
        func validate() throws(ENError) {
            for (index, key) in keys.enumerated() {
                try KeyMessage.validateForWriting(key, section: .keys, index: index)
            }
            for (index, key) in revisedKeys.enumerated() {
                try KeyMessage.validateForWriting(key, section: .revisedKeys, index: index)
            }
        }
    }

    /// A key's place in ``KeyInput``: 4 bytes, so that shuffling a million keys moves 4 MB, not 50.
    struct KeyPosition {
        var value: UInt32
    }

    /// One file to write: its number (0-based) and its keys, in the shuffled order.
    struct FilePlan {
        var number: Int
        var keys: ArraySlice<KeyPosition>
    }

    /// Cuts the shuffled keys into files of at most ``maximumKeysPerFile`` keys and
    /// ``maximumExportBinarySize`` bytes, each file taking as many keys as fit (every key's size is exact).
    func plan(_ order: [KeyPosition], of input: KeyInput) throws(ENError) -> [FilePlan] {
        let overhead = ENKeyExport.header.count + ENKeyExport.MetadataFields(metadata(fileNumber: 0)).encodedSize
        var files: [FilePlan] = []
        var start = 0
        var size = overhead
        for (index, position) in order.enumerated() {
            let keySize = ENKeyExport.keyFieldSize(input[position])
            guard overhead + keySize <= maximumExportBinarySize else {
                throw .badParameter(
                    "maximum export.bin size \(maximumExportBinarySize) is too small for even one key")
            }
            if index - start == maximumKeysPerFile || size + keySize > maximumExportBinarySize {
                files.append(FilePlan(number: files.count, keys: order[start..<index]))
                start = index
                size = overhead
            }
            size += keySize
        }
        files.append(FilePlan(number: files.count, keys: order[start...]))
        return files
    }

    /// Everything but the keys of the file numbered `fileNumber` (0-based): batch 1 of 1, and an end
    /// timestamp of ``endTimestamp`` plus the number.
    func metadata(fileNumber: Int) -> ENKeyExport {
        ENKeyExport(
            startTimestamp: startTimestamp, endTimestamp: endTimestamp + UInt64(fileNumber), region: region,
            batchNumber: 1, batchSize: 1, signatureInfos: signers.map(\.signatureInfo))
    }

    /// Encodes and signs one planned file: its new keys in field 7, then its revised keys in field 8.
    func archive(_ file: FilePlan, of input: KeyInput) throws(ENError) -> ENExportArchive {
        let metadata = metadata(fileNumber: file.number)
        let binary = ENKeyExport.encode(
            metadata: metadata,
            keys: file.keys.lazy.filter { !input.isRevised($0) }.map { input[$0] },
            revisedKeys: file.keys.lazy.filter { input.isRevised($0) }.map { input[$0] })
        return try Self.sign(binary, batchNumber: metadata.batchNumber, batchSize: metadata.batchSize, with: signers)
    }

    /// Serializes `export` and signs its `export.bin` with every signer, in order.
    public static func sign(_ export: ENKeyExport, with signers: [ENExportSigner]) throws(ENError) -> ENExportArchive {
        try sign(export.exportBinary(), batchNumber: export.batchNumber, batchSize: export.batchSize, with: signers)
    }

    /// Signs `binary` with every signer, in order, and makes the archive.
    private static func sign(
        _ binary: Data, batchNumber: Int?, batchSize: Int?, with signers: [ENExportSigner]
    ) throws(ENError) -> ENExportArchive {
        var signatures: [ENExportSignature] = []
        for signer in signers {
            signatures.append(
                ENExportSignature(
                    signatureInfo: signer.signatureInfo, batchNumber: batchNumber, batchSize: batchSize,
                    signature: try signer.signingKey.signature(for: binary).derRepresentation))
        }
        return ENExportArchive(exportBinary: binary, signatureFile: try ENExportSignature.encodeList(signatures))
    }
}
