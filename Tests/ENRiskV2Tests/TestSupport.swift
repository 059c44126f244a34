import ENCore
import ENRiskV2
import ENTestSupport
import Foundation
import Testing

/// 2020-07-01 00:00:00 UTC.
let day0 = Date(timeIntervalSince1970: 1_593_561_600)

func sighting(at date: Date, rssi: Int8, txPower: Int8? = 0, confidence: ENCalibrationConfidence = .high)
    -> ENMatchedSighting
{
    ENMatchedSighting(
        sighting: ENSighting(
            rpi: RollingProximityIdentifier(lowWord: 1, highWord: 2), aem: AssociatedEncryptedMetadata(rawValue: 0),
            timestamp: date, rssi: rssi, calibrationConfidence: confidence),
        derivedInterval: ENIntervalNumber(date: date), txPower: txPower)
}

/// The test day's key (TestKeys' key with data 0x07...), with risk level 3 and the given report type, onset and variant.
func key(
    reportType: ENDiagnosisReportType = .confirmedTest, daysSinceOnset: Int = 0,
    variant: ENVariantOfConcernType = .unknown
) -> ENTemporaryExposureKey {
    TestKeys.key(
        data: Data(repeating: 7, count: 16), start: ENIntervalNumber(date: day0), transmissionRiskLevel: 3,
        reportType: reportType, daysSinceOnset: daysSinceOnset, variant: variant)
}

func scan(_ typical: ENAttenuation, _ seconds: Int, minimum: ENAttenuation? = nil) -> ENScanInstance {
    ENScanInstance(minimumAttenuation: minimum ?? typical, typicalAttenuation: typical, secondsSinceLastScan: seconds)
}

func window(
    date: Date = day0, type: ENDiagnosisReportType = .confirmedTest, infectiousness: ENInfectiousness = .standard,
    _ scans: [ENScanInstance]
) -> ENExposureWindow {
    ENExposureWindow(date: date, diagnosisReportType: type, infectiousness: infectiousness, scanInstances: scans)
}

/// A configuration that scores every day since onset as standard infectiousness.
func standardConfiguration() -> ENExposureConfiguration {
    var configuration = ENExposureConfiguration()
    for day in -14...14 { configuration.infectiousnessByDaysSinceOnsetOfSymptoms[day] = .standard }
    configuration.infectiousnessByDaysSinceOnsetOfSymptoms[ENDaysSinceOnsetOfSymptomsUnknown] = .standard
    return configuration
}
