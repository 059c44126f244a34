import ENCore
import ENExportFormat
import Foundation
import SwiftProtobuf

/// An independent reading and writing of export files with swift-protobuf (generated from the same
/// `export.proto`), for cross-checking the module's own wire decoder and encoder.
///
/// On top of swift-protobuf's decoding it applies the package's documented rules for effective values and
/// refusals (Documentation/ExportFormat.md), written here from the rules, not from the module's code. What
/// it cannot judge: a known field sent with the wrong wire type (swift-protobuf files it among the unknown
/// fields; the module refuses it), so inputs for comparisons use the schema's wire types.
enum SwiftProtobufOracle {
    /// The export as the package's rules read it, or `nil` when they refuse it.
    static func export(_ exportBinary: Data) -> ENKeyExport? {
        guard exportBinary.count >= 16, exportBinary.prefix(16).elementsEqual(ENKeyExport.header),
            let message = try? PB_TemporaryExposureKeyExport(serializedBytes: exportBinary.dropFirst(16))
        else { return nil }
        var keys: [ENTemporaryExposureKey] = []
        for key in message.keys {
            guard let key = self.key(key) else { return nil }
            keys.append(key)
        }
        var revisedKeys: [ENTemporaryExposureKey] = []
        for key in message.revisedKeys {
            guard let key = self.key(key) else { return nil }
            revisedKeys.append(key)
        }
        return ENKeyExport(
            startTimestamp: message.hasStartTimestamp ? message.startTimestamp : nil,
            endTimestamp: message.hasEndTimestamp ? message.endTimestamp : nil,
            region: message.hasRegion ? message.region : nil,
            batchNumber: message.hasBatchNum ? Int(message.batchNum) : nil,
            batchSize: message.hasBatchSize ? Int(message.batchSize) : nil,
            signatureInfos: message.signatureInfos.map(info), keys: keys, revisedKeys: revisedKeys)
    }

    /// A key's effective values, or `nil` when the rules refuse it: key data present and 16 bytes, a rolling
    /// start that is not negative, a rolling period 1...144 (absent: 144), a transmission risk 0...8 (absent:
    /// 0); an enum value swift-protobuf does not recognise and days since onset outside -14...14 read as unknown.
    static func key(_ message: PB_TemporaryExposureKey) -> ENTemporaryExposureKey? {
        guard message.hasKeyData, message.keyData.count == 16, message.rollingStartIntervalNumber >= 0,
            (1...144).contains(message.rollingPeriod), (0...8).contains(message.transmissionRiskLevel)
        else { return nil }
        let days = Int(message.daysSinceOnsetOfSymptoms)
        return ENTemporaryExposureKey(
            keyData: message.keyData,
            rollingStartNumber: ENIntervalNumber(message.rollingStartIntervalNumber),
            rollingPeriod: UInt32(message.rollingPeriod),
            transmissionRiskLevel: UInt8(message.transmissionRiskLevel),
            diagnosisReportType: ENDiagnosisReportType(rawValue: UInt32(message.reportType.rawValue))!,
            daysSinceOnsetOfSymptoms: message.hasDaysSinceOnsetOfSymptoms && (-14...14).contains(days)
                ? days : ENDaysSinceOnsetOfSymptomsUnknown,
            variantOfConcern: ENVariantOfConcernType(rawValue: UInt32(message.variantOfConcern.rawValue))!)
    }

    static func info(_ message: PB_SignatureInfo) -> ENExportSignatureInfo {
        ENExportSignatureInfo(
            verificationKeyID: message.hasVerificationKeyID ? message.verificationKeyID : nil,
            verificationKeyVersion: message.hasVerificationKeyVersion ? message.verificationKeyVersion : nil,
            signatureAlgorithm: message.hasSignatureAlgorithm ? message.signatureAlgorithm : nil)
    }

    /// The signatures of an `export.sig`, or `nil` when swift-protobuf cannot decode it.
    static func signatures(_ signatureFile: Data) -> [ENExportSignature]? {
        guard let list = try? PB_TEKSignatureList(serializedBytes: signatureFile) else { return nil }
        return list.signatures.map { message in
            ENExportSignature(
                signatureInfo: message.hasSignatureInfo ? info(message.signatureInfo) : nil,
                batchNumber: message.hasBatchNum ? Int(message.batchNum) : nil,
                batchSize: message.hasBatchSize ? Int(message.batchSize) : nil,
                signature: message.signature)
        }
    }

    /// swift-protobuf's serialization of `export` with the writing rules: every key field explicit, the
    /// rolling period included; an unknown report type, days since onset or variant left out.
    static func exportBinary(_ export: ENKeyExport) throws -> Data {
        var message = PB_TemporaryExposureKeyExport()
        if let value = export.startTimestamp { message.startTimestamp = value }
        if let value = export.endTimestamp { message.endTimestamp = value }
        if let value = export.region { message.region = value }
        if let value = export.batchNumber { message.batchNum = Int32(value) }
        if let value = export.batchSize { message.batchSize = Int32(value) }
        message.signatureInfos = export.signatureInfos.map(message(for:))
        message.keys = export.keys.map(message(for:))
        message.revisedKeys = export.revisedKeys.map(message(for:))
        return ENKeyExport.header + (try message.serializedBytes())
    }

    /// swift-protobuf's serialization of a `TEKSignatureList`.
    static func signatureFile(_ signatures: [ENExportSignature]) throws -> Data {
        var list = PB_TEKSignatureList()
        list.signatures = signatures.map { signature in
            var message = PB_TEKSignature()
            if let info = signature.signatureInfo { message.signatureInfo = self.message(for: info) }
            if let value = signature.batchNumber { message.batchNum = Int32(value) }
            if let value = signature.batchSize { message.batchSize = Int32(value) }
            message.signature = signature.signature
            return message
        }
        return try list.serializedBytes()
    }

    private static func message(for info: ENExportSignatureInfo) -> PB_SignatureInfo {
        var message = PB_SignatureInfo()
        if let value = info.verificationKeyID { message.verificationKeyID = value }
        if let value = info.verificationKeyVersion { message.verificationKeyVersion = value }
        if let value = info.signatureAlgorithm { message.signatureAlgorithm = value }
        return message
    }

    private static func message(for key: ENTemporaryExposureKey) -> PB_TemporaryExposureKey {
        var message = PB_TemporaryExposureKey()
        message.keyData = key.keyData
        message.transmissionRiskLevel = Int32(key.transmissionRiskLevel)
        message.rollingStartIntervalNumber = Int32(key.rollingStartNumber)
        message.rollingPeriod = Int32(key.rollingPeriod)
        if key.diagnosisReportType != .unknown {
            message.reportType = .init(rawValue: Int(key.diagnosisReportType.rawValue))!
        }
        if key.hasKnownDaysSinceOnsetOfSymptoms {
            message.daysSinceOnsetOfSymptoms = Int32(key.daysSinceOnsetOfSymptoms)
        }
        if key.variantOfConcern != .unknown {
            message.variantOfConcern = .init(rawValue: Int(key.variantOfConcern.rawValue))!
        }
        return message
    }
}
