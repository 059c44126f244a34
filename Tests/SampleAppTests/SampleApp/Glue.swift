// Glue: what the seed sample's snippets use but the articles never show, written for this test package (not
// taken from Apple's sample code). Each declaration is the smallest thing the seed code needs.
import ExposureNotificationKit
import Foundation

/// The `UserDefaults` every `Persisted` value lives in; a test points it at its own suite (environment set-up).
enum SampleAppDefaults {
    nonisolated(unsafe) static var userDefaults = UserDefaults.standard
}

/// "A custom property wrapper transforms data between its native format and a JSON-formatted equivalent, reads
/// and writes data in the user defaults dictionary, and posts notifications to the app when local data changes."
@propertyWrapper
struct Persisted<Value: Codable> {
    let userDefaultsKey: String
    let notificationName: Notification.Name
    let defaultValue: Value

    init(userDefaultsKey: String, notificationName: Notification.Name, defaultValue: Value) {
        self.userDefaultsKey = userDefaultsKey
        self.notificationName = notificationName
        self.defaultValue = defaultValue
    }

    var wrappedValue: Value {
        get {
            guard let data = SampleAppDefaults.userDefaults.data(forKey: userDefaultsKey),
                let value = try? JSONDecoder().decode(Value.self, from: data)
            else { return defaultValue }
            return value
        }
        nonmutating set {
            if let data = try? JSONEncoder().encode(newValue) {
                SampleAppDefaults.userDefaults.set(data, forKey: userDefaultsKey)
            }
            NotificationCenter.default.post(name: notificationName, object: nil)
        }
    }
}

/// An exposure the app keeps: the main article builds it as `Exposure(date:)`.
struct Exposure: Codable {
    let date: Date
}

/// A diagnosis key as the sample's server stores it (`CodableDiagnosisKey(keyData:rollingPeriod:
/// rollingStartNumber:transmissionRiskLevel:)`, compared with `contains`).
struct CodableDiagnosisKey: Codable, Equatable {
    let keyData: Data
    let rollingPeriod: ENIntervalNumber
    let rollingStartNumber: ENIntervalNumber
    let transmissionRiskLevel: ENRiskLevel
}

/// The server's configuration JSON as `getExposureConfiguration` decodes it (field names from that JSON).
struct CodableExposureConfiguration: Codable {
    let immediateDurationWeight: Double
    let nearDurationWeight: Double
    let mediumDurationWeight: Double
    let otherDurationWeight: Double
    let infectiousnessForDaysSinceOnsetOfSymptoms: [String: Int]
    let infectiousnessStandardWeight: Double
    let infectiousnessHighWeight: Double
    let reportTypeConfirmedTestWeight: Double
    let reportTypeConfirmedClinicalDiagnosisWeight: Double
    let reportTypeSelfReportedWeight: Double
    let reportTypeRecursiveWeight: Double
    let reportTypeNoneMap: Int
    let minimumRiskScore: ENRiskScore
    let attenuationDurationThresholds: [Int]
    let attenuationLevelValues: [ENRiskLevelValue]
    let daysSinceLastExposureLevelValues: [ENRiskLevelValue]
    let durationLevelValues: [ENRiskLevelValue]
    let transmissionRiskLevelValues: [ENRiskLevelValue]
}

/// The key files the sample's server has published, in order (a real server lists them at a URL; the tests'
/// stand-in key server signs `Server.shared.diagnosisKeys` into files and appends them here).
enum PublishedKeyFiles {
    nonisolated(unsafe) static var urls: [URL] = []
}

extension Server {
    /// "The app asks the server for the URLs of any key files that the server generated after the last file that
    /// the app checked."
    func getDiagnosisKeyFileURLs(startingAt index: Int, completion: @escaping (Result<[URL], Error>) -> Void) {
        let urls = PublishedKeyFiles.urls
        completion(.success(index < urls.count ? Array(urls[index...]) : []))
    }

    /// Downloads one key file; the stand-in's files are local already, so this hands back the file itself.
    func downloadDiagnosisKeyFile(at remoteURL: URL, completion: @escaping (Result<[URL], Error>) -> Void) {
        completion(.success([remoteURL]))
    }
}
