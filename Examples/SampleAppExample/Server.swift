// The seed sample's `Server` (main article: "Share Diagnosis Keys with the Server", "Ask Users to Share COVID-19
// Indicators", "Configure Criteria to Estimate Risk"): the class head, `postDiagnosisKeys` and
// `getExposureConfiguration` as the article shows them; each edit is marked `// EDIT:` (all are of the kinds the
// issue allows). The article's class listing stops after
// `diagnosisKeys`; the closing brace is added. `getDiagnosisKeyFileURLs`, `downloadDiagnosisKeyFile`,
// `CodableDiagnosisKey` and `CodableExposureConfiguration` are not shown: they are in Glue.swift.
import ExposureNotificationKit  // EDIT: import line
import Foundation

// Replace this class with your own class that communicates with your server.
class Server {

    static let shared = Server()

    // For testing purposes, this object stores all of the TEKs it receives locally on device
    // In a real implementation, these would be stored on a remote server
    @Persisted(
        userDefaultsKey: "diagnosisKeys", notificationName: .init("ServerDiagnosisKeysDidChange"), defaultValue: [])
    var diagnosisKeys: [CodableDiagnosisKey]

    func postDiagnosisKeys(_ diagnosisKeys: [ENTemporaryExposureKey], completion: (Error?) -> Void) {

        // Convert keys to something that can be encoded to JSON and upload them.
        let codableDiagnosisKeys = diagnosisKeys.compactMap { diagnosisKey -> CodableDiagnosisKey? in
            return CodableDiagnosisKey(
                keyData: diagnosisKey.keyData,
                rollingPeriod: diagnosisKey.rollingPeriod,
                rollingStartNumber: diagnosisKey.rollingStartNumber,
                transmissionRiskLevel: diagnosisKey.transmissionRiskLevel)
        }

        // In a real implementation, these keys would be uploaded with URLSession instead of being saved here.
        // Your server needs to handle de-duplicating keys.
        for codableDiagnosisKey in codableDiagnosisKeys where !self.diagnosisKeys.contains(codableDiagnosisKey) {
            self.diagnosisKeys.append(codableDiagnosisKey)
        }
        completion(nil)
    }

    func getExposureConfiguration(completion: (Result<ENExposureConfiguration, Error>) -> Void) {

        let dataFromServer = """
            {
            "immediateDurationWeight":100,
            "nearDurationWeight":100,
            "mediumDurationWeight":100,
            "otherDurationWeight":100,
            "infectiousnessForDaysSinceOnsetOfSymptoms":{
                "unknown":1,
                "-14":1,
                "-13":1,
                "-12":1,
                "-11":1,
                "-10":1,
                "-9":1,
                "-8":1,
                "-7":1,
                "-6":1,
                "-5":1,
                "-4":1,
                "-3":1,
                "-2":1,
                "-1":1,
                "0":1,
                "1":1,
                "2":1,
                "3":1,
                "4":1,
                "5":1,
                "6":1,
                "7":1,
                "8":1,
                "9":1,
                "10":1,
                "11":1,
                "12":1,
                "13":1,
                "14":1
            },
            "infectiousnessStandardWeight":100,
            "infectiousnessHighWeight":100,
            "reportTypeConfirmedTestWeight":100,
            "reportTypeConfirmedClinicalDiagnosisWeight":100,
            "reportTypeSelfReportedWeight":100,
            "reportTypeRecursiveWeight":100,
            "reportTypeNoneMap":1,
            "minimumRiskScore":0,
            "attenuationDurationThresholds":[50, 70],
            "attenuationLevelValues":[1, 2, 3, 4, 5, 6, 7, 8],
            "daysSinceLastExposureLevelValues":[1, 2, 3, 4, 5, 6, 7, 8],
            "durationLevelValues":[1, 2, 3, 4, 5, 6, 7, 8],
            "transmissionRiskLevelValues":[1, 2, 3, 4, 5, 6, 7, 8]
            }
            """.data(using: .utf8)!

        do {
            let codableExposureConfiguration = try JSONDecoder().decode(
                CodableExposureConfiguration.self, from: dataFromServer)
            // EDIT: `let` becomes `var` (ENExposureConfiguration is a value type here, a class in Apple's framework).
            var exposureConfiguration = ENExposureConfiguration()
            if ENManagerIsAvailable() {
                exposureConfiguration.immediateDurationWeight = codableExposureConfiguration.immediateDurationWeight
                exposureConfiguration.nearDurationWeight = codableExposureConfiguration.nearDurationWeight
                exposureConfiguration.mediumDurationWeight = codableExposureConfiguration.mediumDurationWeight
                exposureConfiguration.otherDurationWeight = codableExposureConfiguration.otherDurationWeight
                var infectiousnessForDaysSinceOnsetOfSymptoms = [Int: Int]()
                for (stringDay, infectiousness) in codableExposureConfiguration
                    .infectiousnessForDaysSinceOnsetOfSymptoms
                {
                    if stringDay == "unknown" {
                        if #available(iOS 14.0, *) {
                            infectiousnessForDaysSinceOnsetOfSymptoms[ENDaysSinceOnsetOfSymptomsUnknown] =
                                infectiousness
                        } else {
                            // ENDaysSinceOnsetOfSymptomsUnknown is not available
                            // in earlier versions of iOS; use an equivalent value
                            infectiousnessForDaysSinceOnsetOfSymptoms[NSIntegerMax] = infectiousness
                        }
                    } else if let day = Int(stringDay) {
                        infectiousnessForDaysSinceOnsetOfSymptoms[day] = infectiousness
                    }
                }
                // EDIT: `as [NSNumber: NSNumber]` becomes the Swift number type of the values
                exposureConfiguration.infectiousnessForDaysSinceOnsetOfSymptoms =
                    infectiousnessForDaysSinceOnsetOfSymptoms as [Int: Int]
                exposureConfiguration.infectiousnessStandardWeight =
                    codableExposureConfiguration.infectiousnessStandardWeight
                exposureConfiguration.infectiousnessHighWeight = codableExposureConfiguration.infectiousnessHighWeight
                exposureConfiguration.reportTypeConfirmedTestWeight =
                    codableExposureConfiguration.reportTypeConfirmedTestWeight
                exposureConfiguration.reportTypeConfirmedClinicalDiagnosisWeight =
                    codableExposureConfiguration.reportTypeConfirmedClinicalDiagnosisWeight
                exposureConfiguration.reportTypeSelfReportedWeight =
                    codableExposureConfiguration.reportTypeSelfReportedWeight
                exposureConfiguration.reportTypeRecursiveWeight = codableExposureConfiguration.reportTypeRecursiveWeight
                if let reportTypeNoneMap = ENDiagnosisReportType(
                    rawValue: UInt32(codableExposureConfiguration.reportTypeNoneMap))
                {
                    exposureConfiguration.reportTypeNoneMap = reportTypeNoneMap
                }
            }
            exposureConfiguration.minimumRiskScore = codableExposureConfiguration.minimumRiskScore
            // EDIT: `as [NSNumber]` becomes the Swift number type of the values
            exposureConfiguration.attenuationLevelValues =
                codableExposureConfiguration.attenuationLevelValues as [ENRiskLevelValue]
            // EDIT: `as [NSNumber]` becomes the Swift number type of the values
            exposureConfiguration.daysSinceLastExposureLevelValues =
                codableExposureConfiguration.daysSinceLastExposureLevelValues as [ENRiskLevelValue]
            // EDIT: `as [NSNumber]` becomes the Swift number type of the values
            exposureConfiguration.durationLevelValues =
                codableExposureConfiguration.durationLevelValues as [ENRiskLevelValue]
            // EDIT: `as [NSNumber]` becomes the Swift number type of the values
            exposureConfiguration.transmissionRiskLevelValues =
                codableExposureConfiguration.transmissionRiskLevelValues as [ENRiskLevelValue]
            exposureConfiguration.metadata = [
                "attenuationDurationThresholds": codableExposureConfiguration.attenuationDurationThresholds
            ]
            completion(.success(exposureConfiguration))
        } catch {
            completion(.failure(error))
        }
    }
}
