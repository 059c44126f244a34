public import ENCore
public import Foundation
internal import SwiftProtobuf

extension ENKeyExport {
    /// Decodes an `export.bin`: the 16-byte header, then the whole `TemporaryExposureKeyExport` message.
    ///
    /// Unknown and deprecated fields are skipped. Every key gets its effective values and is checked:
    /// 16-byte key data, rolling period 1...144 (absent means 144), transmission risk 0...8.
    ///
    /// - Throws: `ENError.Code.badFormat` for a wrong or short header, a truncated or malformed
    ///   message, a field of the wrong type, a bad key (naming it and the field), or more keys than `limits`.
    public init(exportBinary: Data, limits: ENExportLimits = .default) throws(ENError) {
        // The scanner validates the header, the structure, the size and the key count without allocating
        // per key, so that a hostile file is refused before swift-protobuf builds millions of messages.
        _ = try ENExportKeyScanner(exportBinary: exportBinary, limits: limits)
        let message: PB_TemporaryExposureKeyExport
        do {
            message = try PB_TemporaryExposureKeyExport(serializedBytes: exportBinary.dropFirst(Self.header.count))
        } catch {
            throw .badFormat("export.bin is not a valid TemporaryExposureKeyExport (\(error))")
        }
        self.init(
            startTimestamp: message.hasStartTimestamp ? message.startTimestamp : nil,
            endTimestamp: message.hasEndTimestamp ? message.endTimestamp : nil,
            region: message.hasRegion ? message.region : nil,
            batchNumber: message.hasBatchNum ? Int(message.batchNum) : nil,
            batchSize: message.hasBatchSize ? Int(message.batchSize) : nil,
            signatureInfos: message.signatureInfos.map(ENExportSignatureInfo.init(message:)),
            keys: try Self.keys(message.keys, section: .keys),
            revisedKeys: try Self.keys(message.revisedKeys, section: .revisedKeys)
        )
    }

    private static func keys(
        _ messages: [PB_TemporaryExposureKey], section: ENExportKeySection
    ) throws(ENError) -> [ENTemporaryExposureKey] {
        var keys: [ENTemporaryExposureKey] = []
        keys.reserveCapacity(messages.count)
        for (index, message) in messages.enumerated() {
            let raw = try RawExportKey(message: message, section: section, index: index)
            keys.append(try raw.makeKey(section: section, index: index))
        }
        return keys
    }

    /// The `export.bin` bytes: the 16-byte header and the serialized message.
    ///
    /// Keys are written with every field explicit (rolling period included, so that readers that do not
    /// apply the proto2 default still see 144); an unknown days-since-onset, report type or variant is omitted.
    ///
    /// - Throws: `ENError.Code.badParameter` naming the first key that fails
    ///   `ENTemporaryExposureKey.validate()`.
    public func exportBinary() throws(ENError) -> Data {
        var message = PB_TemporaryExposureKeyExport()
        if let startTimestamp { message.startTimestamp = startTimestamp }
        if let endTimestamp { message.endTimestamp = endTimestamp }
        if let region { message.region = region }
        if let batchNumber { message.batchNum = Int32(clamping: batchNumber) }
        if let batchSize { message.batchSize = Int32(clamping: batchSize) }
        message.signatureInfos = signatureInfos.map(\.message)
        message.keys = try Self.messages(keys, section: .keys)
        message.revisedKeys = try Self.messages(revisedKeys, section: .revisedKeys)
        do {
            let body: Data = try message.serializedBytes()
            return Self.header + body
        } catch {
            throw .internal("cannot serialize TemporaryExposureKeyExport (\(error))")
        }
    }

    private static func messages(
        _ keys: [ENTemporaryExposureKey], section: ENExportKeySection
    ) throws(ENError) -> [PB_TemporaryExposureKey] {
        var messages: [PB_TemporaryExposureKey] = []
        messages.reserveCapacity(keys.count)
        for (index, key) in keys.enumerated() {
            try validateForWriting(key, section: section, index: index)
            messages.append(PB_TemporaryExposureKey(key))
        }
        return messages
    }

    /// Checks a key before it is written: `ENTemporaryExposureKey.validate()`, and a rolling start
    /// that fits the file's `int32` field.
    static func validateForWriting(
        _ key: ENTemporaryExposureKey, section: ENExportKeySection, index: Int
    ) throws(ENError) {
        do {
            try key.validate()
        } catch {
            throw error.adding(.init(section: section.fieldName, index: index))
        }
        guard key.rollingStartNumber <= UInt32(Int32.max) else {
            throw .badParameter(
                "\(section.fieldName)[\(index)]: rolling start \(key.rollingStartNumber) does not fit an int32"
            )
        }
    }
}

extension RawExportKey {
    /// The fields of a decoded key message.
    ///
    /// swift-protobuf files a known field that arrives with the wrong wire type among the unknown fields;
    /// this refuses it, as the streaming scanner does, instead of silently taking the default.
    init(message: PB_TemporaryExposureKey, section: ENExportKeySection, index: Int) throws(ENError) {
        let unknown = message.unknownFields.data
        if !unknown.isEmpty {
            let context = "export.bin \(section.fieldName)[\(index)]"
            try unknown.withBytes { (buffer) throws(ENError) in
                var reader = WireReader(buffer, from: 0, to: buffer.count)
                while !reader.isAtEnd {
                    let (field, wireType) = try reader.readTag(context)
                    // Field 1 is bytes, 2...6 and 8 varints. An unknown enum value (5 or 8 as a varint) lands
                    // here too, legitimately: it reads as unknown.
                    let expected: WireReader.WireType? =
                        field == 1 ? .lengthDelimited : [2, 3, 4, 5, 6, 8].contains(field) ? .varint : nil
                    if let expected, expected != wireType {
                        throw .badFormat(
                            "\(context): field \(field) has wire type \(wireType.rawValue), which its type does not allow"
                        )
                    }
                    try reader.skip(wireType, field: field, context)
                }
            }
        }
        self.init(
            keyData: message.hasKeyData ? .copied(message.keyData) : nil,
            transmissionRiskLevel: message.hasTransmissionRiskLevel ? message.transmissionRiskLevel : nil,
            rollingStartIntervalNumber: message.hasRollingStartIntervalNumber
                ? message.rollingStartIntervalNumber : nil,
            rollingPeriod: message.hasRollingPeriod ? message.rollingPeriod : nil,
            reportType: message.hasReportType ? Int32(message.reportType.rawValue) : nil,
            daysSinceOnsetOfSymptoms: message.hasDaysSinceOnsetOfSymptoms ? message.daysSinceOnsetOfSymptoms : nil,
            variantOfConcern: message.hasVariantOfConcern ? Int32(message.variantOfConcern.rawValue) : nil
        )
    }
}

extension PB_TemporaryExposureKey {
    /// The message for a validated key.
    init(_ key: ENTemporaryExposureKey) {
        self.init()
        keyData = key.keyData
        transmissionRiskLevel = Int32(key.transmissionRiskLevel)
        rollingStartIntervalNumber = Int32(bitPattern: key.rollingStartNumber)
        rollingPeriod = Int32(key.rollingPeriod)
        if key.diagnosisReportType != .unknown,
            let type = PB_TemporaryExposureKey.ReportType(rawValue: Int(key.diagnosisReportType.rawValue))
        {
            reportType = type
        }
        if key.hasKnownDaysSinceOnsetOfSymptoms { daysSinceOnsetOfSymptoms = Int32(key.daysSinceOnsetOfSymptoms) }
        if key.variantOfConcern != .unknown,
            let variant = PB_TemporaryExposureKey.VariantOfConcern(rawValue: Int(key.variantOfConcern.rawValue))
        {
            variantOfConcern = variant
        }
    }
}

extension ENExportSignatureInfo {
    init(message: PB_SignatureInfo) {
        self.init(
            verificationKeyID: message.hasVerificationKeyID ? message.verificationKeyID : nil,
            verificationKeyVersion: message.hasVerificationKeyVersion ? message.verificationKeyVersion : nil,
            signatureAlgorithm: message.hasSignatureAlgorithm ? message.signatureAlgorithm : nil
        )
    }

    var message: PB_SignatureInfo {
        var message = PB_SignatureInfo()
        if let verificationKeyID { message.verificationKeyID = verificationKeyID }
        if let verificationKeyVersion { message.verificationKeyVersion = verificationKeyVersion }
        if let signatureAlgorithm { message.signatureAlgorithm = signatureAlgorithm }
        return message
    }
}
