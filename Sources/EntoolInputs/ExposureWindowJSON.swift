package import ENCore
package import ENRiskV2
import Foundation

/// The JSON shape of one exposure window in `entool score v2` input and `entool detect` output (DESIGN's
/// WINDOW): Apple's property names, enums as Apple's raw numbers, the date as UTC `YYYY-MM-DD`.
///
/// `variantOfConcernType` may be absent from input (unknown); output always has it.
package struct ExposureWindowJSON: Codable {
    /// One scan instance of a window.
    package struct Scan: Codable {
        package var minimumAttenuation: Int
        package var typicalAttenuation: Int
        package var secondsSinceLastScan: Int
    }

    package var date: String
    package var diagnosisReportType: Int
    package var infectiousness: Int
    package var calibrationConfidence: Int
    package var variantOfConcernType: Int?
    package var scanInstances: [Scan]

    package init(_ window: ENExposureWindow) {
        date = ScoreInput.formatDay(window.date)
        diagnosisReportType = Int(window.diagnosisReportType.rawValue)
        infectiousness = Int(window.infectiousness.rawValue)
        calibrationConfidence = Int(window.calibrationConfidence.rawValue)
        variantOfConcernType = Int(window.variantOfConcernType.rawValue)
        scanInstances = window.scanInstances.map {
            Scan(
                minimumAttenuation: Int($0.minimumAttenuation), typicalAttenuation: Int($0.typicalAttenuation),
                secondsSinceLastScan: $0.secondsSinceLastScan)
        }
    }

    /// The window this JSON describes; `path` names it in errors (for example `windows[3]`).
    package func window(where path: String) throws(ENError) -> ENExposureWindow {
        guard let reportType = UInt32(exactly: diagnosisReportType).flatMap(ENDiagnosisReportType.init) else {
            throw ENError.badParameter("\(path).diagnosisReportType must be 0...5, got \(diagnosisReportType)")
        }
        guard let infectiousness = UInt32(exactly: infectiousness).flatMap(ENInfectiousness.init) else {
            throw ENError.badParameter("\(path).infectiousness must be 0...2, got \(self.infectiousness)")
        }
        guard let confidence = UInt8(exactly: calibrationConfidence).flatMap(ENCalibrationConfidence.init) else {
            throw ENError.badParameter("\(path).calibrationConfidence must be 0...3, got \(calibrationConfidence)")
        }
        let variantRaw = variantOfConcernType ?? 0
        guard let variant = UInt32(exactly: variantRaw).flatMap(ENVariantOfConcernType.init) else {
            throw ENError.badParameter("\(path).variantOfConcernType must be 0...4, got \(variantRaw)")
        }
        var scans: [ENScanInstance] = []
        for (scanIndex, scan) in scanInstances.enumerated() {
            let scanPath = "\(path).scanInstances[\(scanIndex)]"
            scans.append(
                ENScanInstance(
                    minimumAttenuation: try ScoreInput.attenuation(
                        scan.minimumAttenuation, "\(scanPath).minimumAttenuation"),
                    typicalAttenuation: try ScoreInput.attenuation(
                        scan.typicalAttenuation, "\(scanPath).typicalAttenuation"),
                    secondsSinceLastScan: scan.secondsSinceLastScan))
        }
        return ENExposureWindow(
            calibrationConfidence: confidence, date: try ScoreInput.day(date, "\(path).date"),
            diagnosisReportType: reportType, infectiousness: infectiousness, scanInstances: scans,
            variantOfConcernType: variant)
    }
}
