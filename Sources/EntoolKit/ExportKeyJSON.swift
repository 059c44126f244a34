import ENCore
import Foundation

/// The JSON shape of one key in `entool inspect` output (DESIGN's KEY; `entool export` reads it back with
/// ``ExportKeyReader``).
///
/// Effective values: the rolling period is always printed (144 when the file omits it); numbers stand for
/// enums (Apple's raw values); `daysSinceOnsetOfSymptoms` is omitted when unknown, and `reportType` and
/// `variantOfConcern` when unknown (0).
struct ExportKeyJSON: Encodable {
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
}
