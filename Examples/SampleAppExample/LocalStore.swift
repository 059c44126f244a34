// The seed sample's `LocalStore` and `TestResult` ("Store User Data Locally" in
// ../shared/seeds/building-an-app-to-notify-users-of-covid-19-exposure.md), unchanged but for the import line.
// `Persisted` is not shown in the articles: it is in Glue.swift.
import ExposureNotificationKit  // EDIT: import line (the sample imports ExposureNotification/Foundation)
import Foundation

class LocalStore {

    static let shared = LocalStore()

    @Persisted(
        userDefaultsKey: "isOnboarded", notificationName: .init("LocalStoreIsOnboardedDidChange"), defaultValue: false)
    var isOnboarded: Bool

    @Persisted(
        userDefaultsKey: "nextDiagnosisKeyFileIndex",
        notificationName: .init("LocalStoreNextDiagnosisKeyFileIndexDidChange"), defaultValue: 0)
    var nextDiagnosisKeyFileIndex: Int

    @Persisted(userDefaultsKey: "exposures", notificationName: .init("LocalStoreExposuresDidChange"), defaultValue: [])
    var exposures: [Exposure]

    @Persisted(
        userDefaultsKey: "dateLastPerformedExposureDetection",
        notificationName: .init("LocalStoreDateLastPerformedExposureDetectionDidChange"), defaultValue: nil)
    var dateLastPerformedExposureDetection: Date?

    @Persisted(
        userDefaultsKey: "exposureDetectionErrorLocalizedDescription",
        notificationName:
            .init("LocalStoreExposureDetectionErrorLocalizedDescriptionDidChange"), defaultValue: nil)
    var exposureDetectionErrorLocalizedDescription: String?

    @Persisted(
        userDefaultsKey: "testResults", notificationName: .init("LocalStoreTestResultsDidChange"), defaultValue: [:])
    var testResults: [UUID: TestResult]
}

struct TestResult: Codable {
    var id: UUID  // A unique identifier for this test result
    var isAdded: Bool  // Whether the user completed the add positive diagnosis flow for this test result
    var dateAdministered: Date  // The date the test was administered
    // Whether diagnosis keys were shared with the Health Authority for the purpose of notifying others
    var isShared: Bool
}
