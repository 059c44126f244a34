import ENCore
import Foundation

/// The JSON shape of one key in `entool inspect` output and `entool export --keys` input (DESIGN's KEY).
///
/// Effective values: the rolling period is always printed (144 when the file omits it); numbers stand for
/// enums (Apple's raw values); `daysSinceOnsetOfSymptoms` is omitted when unknown, and `reportType` and
/// `variantOfConcern` when unknown (0).
struct ExportKeyJSON: Codable {
    var keyData: String
    var rollingStartIntervalNumber: UInt32
    var rollingPeriod: UInt32?
    var transmissionRiskLevel: Int?
    var reportType: UInt32?
    var daysSinceOnsetOfSymptoms: Int?
    var variantOfConcern: UInt32?

    init(_ key: ENTemporaryExposureKey) {
        keyData = key.keyData.hexString
        rollingStartIntervalNumber = key.rollingStartNumber
        rollingPeriod = key.rollingPeriod
        transmissionRiskLevel = Int(key.transmissionRiskLevel)
        reportType = key.diagnosisReportType == .unknown ? nil : key.diagnosisReportType.rawValue
        daysSinceOnsetOfSymptoms = key.hasKnownDaysSinceOnsetOfSymptoms ? key.daysSinceOnsetOfSymptoms : nil
        variantOfConcern = key.variantOfConcern == .unknown ? nil : key.variantOfConcern.rawValue
    }

    /// The key this JSON describes; `where` names it in errors (for example `keys[3]`).
    func key(where location: String) throws(EntoolFailure) -> ENTemporaryExposureKey {
        guard let data = Data(hexString: keyData), data.count == ENTemporaryExposureKey.keyLength else {
            throw .badInput("\(location).keyData must be 16 bytes as 32 hex digits, got '\(keyData)'")
        }
        let risk = transmissionRiskLevel ?? 0
        guard (0...8).contains(risk) else {
            throw .badInput("\(location).transmissionRiskLevel must be 0...8, got \(risk)")
        }
        let type = ENDiagnosisReportType(rawValue: reportType ?? 0)
        guard let type else { throw .badInput("\(location).reportType must be 0...5, got \(reportType ?? 0)") }
        let variant = ENVariantOfConcernType(rawValue: variantOfConcern ?? 0)
        guard let variant else {
            throw .badInput("\(location).variantOfConcern must be 0...4, got \(variantOfConcern ?? 0)")
        }
        let key = ENTemporaryExposureKey(
            keyData: data, rollingStartNumber: ENIntervalNumber(rollingStartIntervalNumber),
            rollingPeriod: rollingPeriod ?? ENTemporaryExposureKey.defaultRollingPeriod,
            transmissionRiskLevel: ENRiskLevel(risk), diagnosisReportType: type,
            daysSinceOnsetOfSymptoms: daysSinceOnsetOfSymptoms ?? ENDaysSinceOnsetOfSymptomsUnknown,
            variantOfConcern: variant)
        do {
            try key.validate()
        } catch {
            throw .badInput("\(location).\(error.context.field ?? "key"): \(error.reason)")
        }
        return key
    }
}
