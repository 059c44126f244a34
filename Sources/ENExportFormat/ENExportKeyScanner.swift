public import ENCore
public import Foundation

/// Reads the keys of an `export.bin` in chunks, without materialising the whole protobuf message.
///
/// Creating a scanner checks the header, walks the top-level fields once (validating every length,
/// counting keys and decoding the file's metadata), and keeps only the bytes it was given. Keys are then
/// decoded on demand, a chunk at a time, by a hand-written wire reader that agrees with swift-protobuf on
/// every value (the tests cross-check the two on every fixture and on random files):
///
/// ```swift
/// let scanner = try ENExportKeyScanner(exportBinary: archive.exportBinary)
/// var chunks = scanner.chunks(ofSize: 4096)
/// while let keys = try chunks.next() {
///     matcher.add(keys)
/// }
/// ```
///
/// Memory stays at the file's bytes plus one chunk of keys, whatever the file's size.
public struct ENExportKeyScanner: Sendable {
    /// The `export.bin` bytes, header included.
    public let exportBinary: Data
    /// The file's metadata: every field of ``ENKeyExport`` except the keys, which are left empty.
    public let metadata: ENKeyExport
    /// The number of keys in field 7 (`keys`).
    public let keyCount: Int
    /// The number of keys in field 8 (`revised_keys`).
    public let revisedKeyCount: Int

    /// Checks the header and the top-level structure of `exportBinary` and reads its metadata.
    ///
    /// - Throws: `ENError.Code.badFormat` for a wrong or short header, a truncated or malformed
    ///   message, a field of the wrong type, or more keys than `limits` allow.
    public init(exportBinary: Data, limits: ENExportLimits = .default) throws(ENError) {
        guard exportBinary.count <= limits.maximumExportBinarySize else {
            throw .badFormat(
                "export.bin is \(exportBinary.count) bytes, over the limit of \(limits.maximumExportBinarySize)")
        }
        try Self.checkHeader(exportBinary)
        self.exportBinary = exportBinary
        let result = try exportBinary.withBytes { (buffer) throws(ENError) in
            try Self.scanTopLevel(buffer, limits: limits)
        }
        (metadata, keyCount, revisedKeyCount) = result
    }

    /// Throws `badFormat` unless `data` starts with ``ENKeyExport/header``.
    static func checkHeader(_ data: Data) throws(ENError) {
        let header = ENKeyExport.header
        guard data.count >= header.count else {
            throw .badFormat("export.bin is \(data.count) bytes, shorter than its 16-byte header")
        }
        guard data.prefix(header.count).elementsEqual(header) else {
            let found = Data(data.prefix(header.count)).hexString
            throw .badFormat("export.bin header is \(found), expected \(header.hexString) (\"EK Export v1    \")")
        }
    }

    private static func scanTopLevel(
        _ buffer: UnsafeRawBufferPointer, limits: ENExportLimits
    ) throws(ENError) -> (ENKeyExport, Int, Int) {
        let context = "export.bin TemporaryExposureKeyExport"
        var reader = WireReader(buffer, from: ENKeyExport.header.count, to: buffer.count)
        var metadata = ENKeyExport(batchNumber: nil, batchSize: nil)
        var counts = [0, 0]
        while !reader.isAtEnd {
            let (field, wireType) = try reader.readTag(context)
            switch field {
            case 1:
                try reader.expect(wireType, .fixed64, "start_timestamp", context)
                metadata.startTimestamp = try reader.readFixed64(context)
            case 2:
                try reader.expect(wireType, .fixed64, "end_timestamp", context)
                metadata.endTimestamp = try reader.readFixed64(context)
            case 3:
                try reader.expect(wireType, .lengthDelimited, "region", context)
                metadata.region = try reader.readString(context, "region")
            case 4:
                try reader.expect(wireType, .varint, "batch_num", context)
                metadata.batchNumber = Int(try reader.readInt32(context))
            case 5:
                try reader.expect(wireType, .varint, "batch_size", context)
                metadata.batchSize = Int(try reader.readInt32(context))
            case 6:
                try reader.expect(wireType, .lengthDelimited, "signature_infos", context)
                let range = try reader.readLengthDelimited(context)
                metadata.signatureInfos.append(try readSignatureInfo(buffer, range))
            case 7, 8:
                let name = field == 7 ? "keys" : "revised_keys"
                try reader.expect(wireType, .lengthDelimited, name, context)
                _ = try reader.readLengthDelimited(context)
                counts[Int(field) - 7] += 1
                guard counts[0] + counts[1] <= limits.maximumKeyCount else {
                    throw .badFormat("export.bin holds more than \(limits.maximumKeyCount) keys")
                }
            default:
                try reader.skip(wireType, field: field, context)
            }
        }
        return (metadata, counts[0], counts[1])
    }

    /// Decodes a `SignatureInfo` message, skipping the deprecated fields 1 and 2 and any unknown field.
    static func readSignatureInfo(
        _ buffer: UnsafeRawBufferPointer, _ range: Range<Int>
    ) throws(ENError) -> ENExportSignatureInfo {
        let context = "SignatureInfo"
        var reader = WireReader(buffer, from: range.lowerBound, to: range.upperBound)
        var info = ENExportSignatureInfo(verificationKeyID: nil, verificationKeyVersion: nil, signatureAlgorithm: nil)
        while !reader.isAtEnd {
            let (field, wireType) = try reader.readTag(context)
            switch field {
            case 3:
                try reader.expect(wireType, .lengthDelimited, "verification_key_version", context)
                info.verificationKeyVersion = try reader.readString(context, "verification_key_version")
            case 4:
                try reader.expect(wireType, .lengthDelimited, "verification_key_id", context)
                info.verificationKeyID = try reader.readString(context, "verification_key_id")
            case 5:
                try reader.expect(wireType, .lengthDelimited, "signature_algorithm", context)
                info.signatureAlgorithm = try reader.readString(context, "signature_algorithm")
            default:
                try reader.skip(wireType, field: field, context)
            }
        }
        return info
    }

    /// Decodes one `TemporaryExposureKey` message.
    static func readKey(
        _ buffer: UnsafeRawBufferPointer, _ range: Range<Int>, section: ENExportKeySection, index: Int
    ) throws(ENError) -> ENTemporaryExposureKey {
        if let key = readCommonKey(buffer, range) { return key }
        do {
            return try readKeyFields(buffer, range).makeKey(section: section, index: index)
        } catch {
            // Name the key only on failure: building the text for every key would cost more than decoding it.
            guard error.reason.hasPrefix("TemporaryExposureKey") else { throw error }
            throw .badFormat("export.bin \(section.fieldName)[\(index)]" + error.reason.dropFirst(20))
        }
    }

    /// The common case in one pass over the bytes, with nothing allocated and no error paths: the known fields
    /// with one-byte tags and their declared wire types, 16-byte key data, varints of at most 5 bytes, and
    /// values that need no refusal or defaulting beyond absent fields (every real file's keys). Anything else
    /// returns nil, and the general decoder below decides, with its errors and lenient rules; both give the
    /// same key for any message this one accepts (the tests compare them with swift-protobuf).
    @inline(__always)
    private static func readCommonKey(_ buffer: UnsafeRawBufferPointer, _ range: Range<Int>)
        -> ENTemporaryExposureKey?
    {
        var position = range.lowerBound
        let end = range.upperBound
        /// A varint of at most 5 bytes whose value fits 32 bits, or nil.
        func varint() -> UInt32? {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while position < end && shift < 35 {
                let byte = buffer[position]
                position += 1
                result |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return result <= UInt64(UInt32.max) ? UInt32(result) : nil }
                shift += 7
            }
            return nil
        }
        var keyData: Range<Int>?
        var risk: UInt32 = 0
        var start: UInt32 = 0
        var period: UInt32 = ENTemporaryExposureKey.defaultRollingPeriod
        var reportType = ENDiagnosisReportType.unknown
        var days = ENDaysSinceOnsetOfSymptomsUnknown
        var variant = ENVariantOfConcernType.unknown
        while position < end {
            let tag = buffer[position]
            position += 1
            switch tag {
            case 0x0A:  // 1 key_data, length-delimited: exactly 16 bytes
                guard position < end, buffer[position] == 16, end - position > 16 else { return nil }
                keyData = (position + 1)..<(position + 17)
                position += 17
            case 0x10:  // 2 transmission_risk_level
                guard let value = varint(), value <= 8 else { return nil }
                risk = value
            case 0x18:  // 3 rolling_start_interval_number, non-negative int32
                guard let value = varint(), value <= UInt32(Int32.max) else { return nil }
                start = value
            case 0x20:  // 4 rolling_period
                guard let value = varint(), value >= 1, value <= ENTemporaryExposureKey.defaultRollingPeriod else {
                    return nil
                }
                period = value
            case 0x28:  // 5 report_type: a value outside the enum is kept aside (proto2), not assigned
                guard let value = varint(), value <= UInt32(Int32.max) else { return nil }
                reportType = ENDiagnosisReportType(rawValue: value) ?? reportType
            case 0x30:  // 6 days_since_onset_of_symptoms, sint32: outside -14...14 reads as unknown
                guard let value = varint() else { return nil }
                let decoded = Int(Int32(bitPattern: value >> 1) ^ -Int32(bitPattern: value & 1))
                days =
                    ENTemporaryExposureKey.daysSinceOnsetRange.contains(decoded)
                    ? decoded : ENDaysSinceOnsetOfSymptomsUnknown
            case 0x40:  // 8 variant_of_concern: a value outside the enum is kept aside (proto2), not assigned
                guard let value = varint(), value <= UInt32(Int32.max) else { return nil }
                variant = ENVariantOfConcernType(rawValue: value) ?? variant
            default:
                return nil
            }
        }
        guard let keyData else { return nil }
        return ENTemporaryExposureKey(
            keyDataBytes: UnsafeRawBufferPointer(rebasing: buffer[keyData]),
            rollingStartNumber: ENIntervalNumber(start), rollingPeriod: period,
            transmissionRiskLevel: ENRiskLevel(risk), diagnosisReportType: reportType,
            daysSinceOnsetOfSymptoms: days, variantOfConcern: variant)
    }

    /// The fields of one `TemporaryExposureKey` message.
    @inline(__always)
    private static func readKeyFields(
        _ buffer: UnsafeRawBufferPointer, _ range: Range<Int>
    ) throws(ENError) -> RawExportKey {
        let context = "TemporaryExposureKey"
        var reader = WireReader(buffer, from: range.lowerBound, to: range.upperBound)
        var raw = RawExportKey()
        while !reader.isAtEnd {
            let (field, wireType) = try reader.readTag(context)
            switch field {
            case 1:
                try reader.expect(wireType, .lengthDelimited, "key_data", context)
                let bytes = try reader.readLengthDelimited(context)
                raw.keyData = .borrowed(UnsafeRawBufferPointer(rebasing: buffer[bytes]))
            case 2:
                try reader.expect(wireType, .varint, "transmission_risk_level", context)
                raw.transmissionRiskLevel = try reader.readInt32(context)
            case 3:
                try reader.expect(wireType, .varint, "rolling_start_interval_number", context)
                raw.rollingStartIntervalNumber = try reader.readInt32(context)
            case 4:
                try reader.expect(wireType, .varint, "rolling_period", context)
                raw.rollingPeriod = try reader.readInt32(context)
            case 5:
                // proto2 keeps an unrecognised enum value aside: it does not replace an earlier recognised one.
                try reader.expect(wireType, .varint, "report_type", context)
                let value = try reader.readInt32(context)
                if value >= 0, ENDiagnosisReportType(rawValue: UInt32(value)) != nil { raw.reportType = value }
            case 6:
                try reader.expect(wireType, .varint, "days_since_onset_of_symptoms", context)
                raw.daysSinceOnsetOfSymptoms = try reader.readSInt32(context)
            case 8:
                try reader.expect(wireType, .varint, "variant_of_concern", context)
                let value = try reader.readInt32(context)
                if value >= 0, ENVariantOfConcernType(rawValue: UInt32(value)) != nil { raw.variantOfConcern = value }
            default:
                try reader.skip(wireType, field: field, context)
            }
        }
        return raw
    }

    /// An iterator over the keys of one section, `size` keys at a time.
    ///
    /// - Parameters:
    ///   - size: the most keys in one chunk.
    ///   - section: new keys (field 7) or revised keys (field 8).
    ///   - invalidKeys: whether a key with a bad value (wrong key length, rolling period outside 1...144, ...)
    ///     ends the read with an error (``ENExportInvalidKeyPolicy/reject``, the default) or is left out and
    ///     counted (``ENExportInvalidKeyPolicy/skip``). A broken file structure always throws.
    public func chunks(
        ofSize size: Int = 4096, in section: ENExportKeySection = .keys,
        invalidKeys: ENExportInvalidKeyPolicy = .reject
    ) -> ChunkIterator {
        ChunkIterator(scanner: self, section: section, chunkSize: max(1, size), policy: invalidKeys)
    }

    /// Every key of one section, decoded at once.
    public func allKeys(in section: ENExportKeySection = .keys) throws(ENError) -> [ENTemporaryExposureKey] {
        var keys: [ENTemporaryExposureKey] = []
        keys.reserveCapacity(section == .keys ? keyCount : revisedKeyCount)
        var iterator = chunks(ofSize: 65_536, in: section)
        while let chunk = try iterator.next() { keys.append(contentsOf: chunk) }
        return keys
    }

    /// Yields the keys of one section of an ``ENExportKeyScanner`` in chunks.
    public struct ChunkIterator: Sendable {
        let scanner: ENExportKeyScanner
        let section: ENExportKeySection
        let chunkSize: Int
        let policy: ENExportInvalidKeyPolicy
        var position = ENKeyExport.header.count
        var index = 0

        /// How many keys ``ENExportInvalidKeyPolicy/skip`` left out so far.
        public private(set) var skippedKeyCount = 0
        /// Why keys were left out: the first ``maximumRecordedReasons`` reasons, naming each key and field.
        public private(set) var skippedKeyReasons: [String] = []
        /// The most skip reasons kept (the count goes on).
        public static let maximumRecordedReasons = 100

        /// The next chunk of at most the chunk size, or `nil` after the last key.
        ///
        /// - Throws: `ENError.Code.badFormat` naming the key and field when a key is malformed or
        ///   out of range (wrong key length, rolling period outside 1...144, ...).
        public mutating func next() throws(ENError) -> [ENTemporaryExposureKey]? {
            let wanted = Int(section.rawValue)
            let chunkSize = self.chunkSize
            let section = self.section
            var position = self.position
            var index = self.index
            let policy = self.policy
            var skipped = self.skippedKeyCount
            var reasons = self.skippedKeyReasons
            defer {
                self.skippedKeyCount = skipped
                self.skippedKeyReasons = reasons
            }
            let keys = try scanner.exportBinary.withBytes { (buffer) throws(ENError) -> [ENTemporaryExposureKey] in
                var keys: [ENTemporaryExposureKey] = []
                keys.reserveCapacity(chunkSize)
                var reader = WireReader(buffer, from: position, to: buffer.count)
                let context = "export.bin TemporaryExposureKeyExport"
                while keys.count < chunkSize && !reader.isAtEnd {
                    let (field, wireType) = try reader.readTag(context)
                    if field == wanted && wireType == .lengthDelimited {
                        let range = try reader.readLengthDelimited(context)
                        do throws(ENError) {
                            keys.append(try ENExportKeyScanner.readKey(buffer, range, section: section, index: index))
                        } catch {
                            guard policy == .skip else { throw error }
                            skipped += 1
                            if reasons.count < Self.maximumRecordedReasons { reasons.append(error.reason) }
                        }
                        index += 1
                    } else {
                        try reader.skip(wireType, field: field, context)
                    }
                }
                position = reader.position
                return keys
            }
            self.position = position
            self.index = index
            return keys.isEmpty ? nil : keys
        }
    }
}
