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

    /// Writes signed files for the keys, shuffled with the system's random generator.
    ///
    /// - Throws: `ENError.Code.badParameter` for an invalid key (naming it), no signer or more than
    ///   ten, a start after the end, or limits too small for a single key.
    public func archives(
        keys: [ENTemporaryExposureKey], revisedKeys: [ENTemporaryExposureKey] = []
    ) throws(ENError) -> [ENExportArchive] {
        var generator = SystemRandomNumberGenerator()
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
        for (section, list) in [(ENExportKeySection.keys, keys), (.revisedKeys, revisedKeys)] {
            for (index, key) in list.enumerated() {
                try ENKeyExport.validateForWriting(key, section: section, index: index)
            }
        }
        var entries = keys.map { ($0, false) } + revisedKeys.map { ($0, true) }
        entries.shuffle(using: &generator)

        let infos = signers.map(\.signatureInfo)
        let overhead = try ENKeyExport(
            startTimestamp: startTimestamp, endTimestamp: endTimestamp, region: region,
            signatureInfos: infos
        ).exportBinary().count
        var files: [[(ENTemporaryExposureKey, Bool)]] = [[]]
        var size = overhead
        for entry in entries {
            let entrySize = Self.encodedSize(of: entry.0)
            guard overhead + entrySize <= maximumExportBinarySize else {
                throw .badParameter(
                    "maximum export.bin size \(maximumExportBinarySize) is too small for even one key")
            }
            if files[files.count - 1].count == maximumKeysPerFile || size + entrySize > maximumExportBinarySize {
                files.append([])
                size = overhead
            }
            files[files.count - 1].append(entry)
            size += entrySize
        }

        var archives: [ENExportArchive] = []
        archives.reserveCapacity(files.count)
        for (number, file) in files.enumerated() {
            let export = ENKeyExport(
                startTimestamp: startTimestamp, endTimestamp: endTimestamp + UInt64(number), region: region,
                batchNumber: 1, batchSize: 1, signatureInfos: infos,
                keys: file.filter { !$0.1 }.map(\.0), revisedKeys: file.filter { $0.1 }.map(\.0))
            archives.append(try Self.sign(export, with: signers))
        }
        return archives
    }

    /// Serializes `export` and signs its `export.bin` with every signer, in order.
    public static func sign(_ export: ENKeyExport, with signers: [ENExportSigner]) throws(ENError) -> ENExportArchive {
        let binary = try export.exportBinary()
        var signatures: [ENExportSignature] = []
        for signer in signers {
            signatures.append(
                ENExportSignature(
                    signatureInfo: signer.signatureInfo, batchNumber: export.batchNumber, batchSize: export.batchSize,
                    signature: try signer.signingKey.signature(for: binary).derRepresentation))
        }
        return ENExportArchive(exportBinary: binary, signatureFile: try ENExportSignature.encodeList(signatures))
    }

    /// The bytes one key takes in `export.bin` as ``ENKeyExport/exportBinary()`` writes it: the field tag, the
    /// length prefix and the message.
    static func encodedSize(of key: ENTemporaryExposureKey) -> Int {
        func varintSize(_ value: UInt64) -> Int {
            var value = value
            var size = 1
            while value >= 0x80 {
                value >>= 7
                size += 1
            }
            return size
        }
        var body = 2 + key.keyData.count  // tag 1, length, bytes
        body += 1 + varintSize(UInt64(key.transmissionRiskLevel))
        body += 1 + varintSize(UInt64(key.rollingStartNumber))
        body += 1 + varintSize(UInt64(key.rollingPeriod))
        if key.diagnosisReportType != .unknown { body += 1 + varintSize(UInt64(key.diagnosisReportType.rawValue)) }
        if key.hasKnownDaysSinceOnsetOfSymptoms {
            let dsos = Int32(key.daysSinceOnsetOfSymptoms)
            body += 1 + varintSize(UInt64(UInt32(bitPattern: (dsos << 1) ^ (dsos >> 31))))
        }
        if key.variantOfConcern != .unknown { body += 1 + varintSize(UInt64(key.variantOfConcern.rawValue)) }
        return 1 + varintSize(UInt64(body)) + body
    }
}
