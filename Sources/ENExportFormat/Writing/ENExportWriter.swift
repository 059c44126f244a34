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
/// That is the default ``ENExportLayout/shuffled`` layout. ``layout`` ``ENExportLayout/googleServer`` writes
/// files as Google's exposure-notifications-server does instead (sorted keys, new keys before revised keys,
/// default fields left out), and ``padding`` adds random keys to small batches as that server does.
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

    /// How keys are ordered, cut into files and encoded. Default ``ENExportLayout/shuffled``.
    public var layout: ENExportLayout = .shuffled
    /// Random keys added to a small batch's last file; `nil` (the default) for none.
    public var padding: ENExportPadding?

    /// Writes signed files for the keys, in the writer's ``layout`` (shuffled with a cryptographically secure
    /// generator, OpenSSL's DRBG), padded by ``padding``.
    ///
    /// - Throws: `ENError.Code.badParameter` for an invalid key (naming it), no signer or more than
    ///   ten, a start after the end, limits too small for a single key, or a negative padding.
    public func archives(
        keys: [ENTemporaryExposureKey], revisedKeys: [ENTemporaryExposureKey] = []
    ) throws(ENError) -> [ENExportArchive] {
        try write(keys: keys, revisedKeys: revisedKeys).archives
    }

    /// Writes signed files for the keys, shuffled (and padded) with `generator` (for reproducible tests).
    public func archives(
        keys: [ENTemporaryExposureKey], revisedKeys: [ENTemporaryExposureKey] = [],
        using generator: inout some RandomNumberGenerator
    ) throws(ENError) -> [ENExportArchive] {
        try write(keys: keys, revisedKeys: revisedKeys, using: &generator).archives
    }

    /// Writes signed files for the keys and returns them with the padding keys added; see
    /// ``archives(keys:revisedKeys:)``.
    public func write(
        keys: [ENTemporaryExposureKey], revisedKeys: [ENTemporaryExposureKey] = []
    ) throws(ENError) -> ENExportWriterOutput {
        var generator = SecureRandomNumberGenerator()
        return try write(keys: keys, revisedKeys: revisedKeys, using: &generator)
    }

    /// Writes signed files for the keys with `generator` for the shuffle and the padding keys, and returns them
    /// with the padding keys added.
    public func write(
        keys: [ENTemporaryExposureKey], revisedKeys: [ENTemporaryExposureKey] = [],
        using generator: inout some RandomNumberGenerator
    ) throws(ENError) -> ENExportWriterOutput {
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
        if let padding, padding.minimumKeys < 0 || padding.range < 0 {
            throw .badParameter(
                "padding needs a minimum and a range of at least 0, got \(padding.minimumKeys) and \(padding.range)")
        }
        var input = KeyInput(keys: keys, revisedKeys: revisedKeys)
        try input.validate()
        var order: [KeyPosition]
        switch layout {
        case .shuffled:
            order = input.allPositions
            order.shuffle(using: &generator)
        case .googleServer:
            order = input.sorted(input.newPositions) + input.sorted(input.revisedPositions)
        }
        var files = try plan(order, of: input)
        let paddingKeys = pad(&files, of: &input, using: &generator)
        let archives = try files.map { (file) throws(ENError) in
            try archive(file, of: input, isSplit: files.count > 1)
        }
        return ENExportWriterOutput(archives: archives, paddingKeys: paddingKeys)
    }

    /// Adds ``padding``'s random keys to the last file (see ``ENExportPadding``) and to `input`; returns them.
    func pad(
        _ files: inout [FilePlan], of input: inout KeyInput, using generator: inout some RandomNumberGenerator
    ) -> [ENTemporaryExposureKey] {
        guard let padding, input.keys.count < padding.minimumKeys, var last = files.popLast() else { return [] }
        defer { files.append(last) }
        let real = last.keys.filter { !input.isRevised($0) }.map { input[$0] }
        guard !real.isEmpty else { return [] }
        let target = padding.minimumKeys + Int.random(in: 0...padding.range, using: &generator)
        var size =
            ENKeyExport.header.count + ENKeyExport.MetadataFields(metadata(fileNumber: last.number)).encodedSize
            + last.keys.reduce(0) { $0 + ENKeyExport.keyFieldSize(input[$1], layout: layout) }
        var generated: [ENTemporaryExposureKey] = []
        var count = real.count
        rounds: while count < target {
            for source in real {
                var key = source
                key.keyData = withUnsafeBytes(of: (generator.next(), generator.next())) { Data($0) }
                size += ENKeyExport.keyFieldSize(key, layout: layout)
                guard size <= maximumExportBinarySize else { break rounds }
                generated.append(key)
                count += 1
                if count >= maximumKeysPerFile { break rounds }
            }
        }
        input.paddingKeys = generated
        var positions = Array(last.keys.filter { !input.isRevised($0) }) + input.paddingPositions
        let revised = last.keys.filter { input.isRevised($0) }
        switch layout {
        case .shuffled:
            positions += revised
            positions.shuffle(using: &generator)
        case .googleServer:
            positions = input.sorted(positions) + revised
        }
        last.keys = positions[...]
        return generated
    }

    /// The keys to write: new, revised and padding keys, addressed together by a position (new keys, then
    /// revised keys, then padding keys).
    struct KeyInput {
        let keys: [ENTemporaryExposureKey]
        let revisedKeys: [ENTemporaryExposureKey]
        var paddingKeys: [ENTemporaryExposureKey] = []

        /// Every position of a new or revised key, in order.
        var allPositions: [KeyPosition] { (0..<UInt32(keys.count + revisedKeys.count)).map(KeyPosition.init) }
        /// The positions of the new keys.
        var newPositions: [KeyPosition] { (0..<UInt32(keys.count)).map(KeyPosition.init) }
        /// The positions of the revised keys.
        var revisedPositions: [KeyPosition] {
            (UInt32(keys.count)..<UInt32(keys.count + revisedKeys.count)).map(KeyPosition.init)
        }
        /// The positions of the padding keys.
        var paddingPositions: [KeyPosition] {
            let first = UInt32(keys.count + revisedKeys.count)
            return (first..<first + UInt32(paddingKeys.count)).map(KeyPosition.init)
        }

        /// Whether the key at `position` is a revised key.
        func isRevised(_ position: KeyPosition) -> Bool {
            Int(position.value) >= keys.count && Int(position.value) < keys.count + revisedKeys.count
        }

        subscript(position: KeyPosition) -> ENTemporaryExposureKey {
            let index = Int(position.value)
            if index < keys.count { return keys[index] }
            if index < keys.count + revisedKeys.count { return revisedKeys[index - keys.count] }
            return paddingKeys[index - keys.count - revisedKeys.count]
        }

        /// `positions` sorted by their keys' bytes (lexicographically, as Go's `bytes.Compare`).
        func sorted(_ positions: [KeyPosition]) -> [KeyPosition] {
            positions.map { position in
                let key = self[position]
                let words =
                    key.keyDataWords
                    ?? key.keyData.withUnsafeBytes { bytes in
                        (
                            bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                            bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                        )
                    }
                // The words hold the bytes little-endian: byte-swapped, they compare as the bytes do.
                return (
                    UInt64(littleEndian: words.low).byteSwapped, UInt64(littleEndian: words.high).byteSwapped,
                    position
                )
            }
            .sorted { ($0.0, $0.1) < ($1.0, $1.1) }
            .map(\.2)
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
            let keySize = ENKeyExport.keyFieldSize(input[position], layout: layout)
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
    /// timestamp of ``endTimestamp`` plus the number (``ENExportLayout/shuffled``), or plus the 1-based number
    /// in a batch of several files (``ENExportLayout/googleServer``).
    func metadata(fileNumber: Int, isSplit: Bool = true) -> ENKeyExport {
        let offset: Int
        switch layout {
        case .shuffled: offset = fileNumber
        case .googleServer: offset = isSplit ? fileNumber + 1 : 0
        }
        return ENKeyExport(
            startTimestamp: startTimestamp, endTimestamp: endTimestamp + UInt64(offset), region: region,
            batchNumber: 1, batchSize: 1, signatureInfos: signers.map(\.signatureInfo))
    }

    /// Encodes and signs one planned file: its new keys in field 7, then its revised keys in field 8.
    func archive(_ file: FilePlan, of input: KeyInput, isSplit: Bool) throws(ENError) -> ENExportArchive {
        let metadata = metadata(fileNumber: file.number, isSplit: isSplit)
        let binary = ENKeyExport.encode(
            metadata: metadata,
            keys: file.keys.lazy.filter { !input.isRevised($0) }.map { input[$0] },
            revisedKeys: file.keys.lazy.filter { input.isRevised($0) }.map { input[$0] },
            omittingDefaults: layout == .googleServer)
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
