import ENTestSupport
import ExposureNotificationKit
import Foundation
import Testing

/// The members of Apple's `ENManager` that real apps list in their own protocol to mock the manager (the Dutch,
/// German and other national apps declare such a protocol), written against Apple's declarations.
protocol AppExposureManaging: AnyObject {
    static var authorizationStatus: ENAuthorizationStatus { get }
    var dispatchQueue: DispatchQueue { get set }
    var exposureNotificationStatus: ENStatus { get }
    var exposureNotificationEnabled: Bool { get }
    var invalidationHandler: (() -> Void)? { get set }
    var activityHandler: ENActivityHandler? { get set }
    var diagnosisKeysAvailableHandler: ENDiagnosisKeysAvailableHandler? { get set }
    func activate(completionHandler: @escaping ENErrorHandler)
    func invalidate()
    func setExposureNotificationEnabled(_ enabled: Bool, completionHandler: @escaping ENErrorHandler)
    func getDiagnosisKeys(completionHandler: @escaping ENGetDiagnosisKeysHandler)
    func getTestDiagnosisKeys(completionHandler: @escaping ENGetDiagnosisKeysHandler)
    func preAuthorizeDiagnosisKeys(completionHandler: @escaping ENErrorHandler)
    func requestPreAuthorizedDiagnosisKeys(completionHandler: @escaping ENErrorHandler)
    func getUserTraveled(completionHandler: @escaping ENGetUserTraveledHandler)
    @discardableResult
    func detectExposures(
        configuration: ENExposureConfiguration, diagnosisKeyURLs: [URL],
        completionHandler: @escaping ENDetectExposuresHandler
    ) -> Progress
    @discardableResult
    func detectExposures(
        configuration: ENExposureConfiguration, completionHandler: @escaping ENDetectExposuresHandler
    ) -> Progress
    @discardableResult
    func getExposureWindows(
        summary: ENExposureDetectionSummary, completionHandler: @escaping ENGetExposureWindowsHandler
    ) -> Progress
    @discardableResult
    func getExposureInfo(
        summary: ENExposureDetectionSummary, userExplanation: String,
        completionHandler: @escaping ENGetExposureInfoHandler
    ) -> Progress
    func setLaunchActivityHandler(activityHandler: @escaping ENActivityHandler)
}

/// The iOS 12.5 article's helper, which the app declares over Apple's `activityHandler` member.
extension ENManager {
    func setLaunchActivityHandler(activityHandler: @escaping ENActivityHandler) {
        self.activityHandler = activityHandler
    }
}

extension ENManager: AppExposureManaging {}

@Suite("An app's own protocol of ENManager members")
struct AppManagerProtocolTests {
    /// Calls `body` with a completion handler and waits for it.
    private func await<T: Sendable>(_ body: (@escaping @Sendable (T) -> Void) -> Void) async -> T {
        await withCheckedContinuation { continuation in body { continuation.resume(returning: $0) } }
    }

    @Test("ENManager conforms with an empty extension, and the app's code runs through the protocol")
    func appCodeThroughTheProtocol() async throws {
        let fixture = Fixture()
        let manager: any AppExposureManaging = fixture.manager(apiVersion: .version2)
        #expect(type(of: manager).authorizationStatus == ENManager.authorizationStatus)
        #expect(manager.exposureNotificationStatus == .unknown)

        let activated: ENError? = await self.await { done in manager.activate { done($0 as? ENError) } }
        #expect(activated == nil)
        let enabled: ENError? = await self.await { done in
            manager.setExposureNotificationEnabled(true) { done($0 as? ENError) }
        }
        #expect(enabled == nil)
        #expect(manager.exposureNotificationEnabled)
        #expect(manager.exposureNotificationStatus == .active)

        let keysReleased: Bool = await self.await { done in
            manager.getDiagnosisKeys { keys, error in done(keys != nil && error == nil) }
        }
        #expect(keysReleased)
        let notEntitled: ENError.Code? = await self.await { done in
            manager.getTestDiagnosisKeys { _, error in done((error as? ENError)?.code) }
        }
        #expect(notEntitled == .notEntitled)

        var configuration = ENExposureConfiguration()
        configuration.infectiousnessForDaysSinceOnsetOfSymptoms = [ENDaysSinceOnsetOfSymptomsUnknown: 1]
        let summaryDays: Int = await self.await { done in
            manager.detectExposures(configuration: configuration, diagnosisKeyURLs: []) { summary, _ in
                done(summary?.daySummaries.count ?? -1)
            }
        }
        #expect(summaryDays == 0)

        let periodic = ENActivityFlags.periodicRun
        manager.setLaunchActivityHandler { flags in #expect(flags.contains(periodic)) }
        #expect(manager.activityHandler != nil)
        manager.invalidate()
    }
}
