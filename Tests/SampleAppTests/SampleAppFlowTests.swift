import ENCrypto
import ENExportFormat
import ENKeyServer
import ENKeyServerSQLite
import ENSimulator
import ENTestSupport
import ExposureNotificationKit
import ExposureNotificationKitTesting
import Foundation
import Synchronization
import Testing

@testable import SampleAppExample

/// The seed sample's non-UI code (Examples/SampleAppExample) run in process on one device: its singletons
/// (`ExposureManager.shared`, `LocalStore.shared`, `Server.shared`) exist once per process, so the flow is one
/// test, step by step, as a user goes through the app.
@Suite(.serialized) struct SampleAppFlowTests {
    /// 2020-04-02 10:00 UTC.
    static let start = Date(timeIntervalSince1970: 2_642_976 * 600 + 10 * 3600)

    @Test func apiVersionCheck() {
        // `#available(iOS 13.7, *)` holds off iOS: the sample takes the version 2 paths.
        #expect(getSupportedExposureNotificationsVersion() == .version2)
        // No Objective-C class registry on Linux: `NSClassFromString("ENManager")` is nil there, and the sample's
        // check also asks for the module-qualified name (a GAP edit).
        #expect(ENManagerIsAvailable())
    }

    @Test func theSampleRunsOnOneDevice() async throws {
        // Environment set-up (the allowed edit): what iOS provides, the app's data store and the key server.
        let directory = try TemporaryDirectory(prefix: "SampleAppTests")
        let clock = SampleClock(Self.start)
        let signingKey = try P256SigningKey()
        let keyServer = ENDiagnosisKeyServer(
            storage: try ENKeyServerSQLiteStore { clock.now },
            configuration: ENKeyServerConfiguration(
                region: "310", signers: [ENExportSigner(signingKey: signingKey, keyID: "310", keyVersion: "v1")]),
            // The encounter is on the day the keys are shared: release the day's key at once (Google's
            // DEBUG_RELEASE_SAME_DAY_KEYS), as a whole-system test may.
            rules: ENPublishConfiguration(releasesStillValidKeys: true), clock: { clock.now })
        let radio = SampleRadio()
        let scheduler = ENManualScheduler()
        let consent = YesConsent()
        ENEnvironment.default = ENEnvironment(
            consent: consent, radio: radio, clock: clock,
            storeLocation: .directory(directory.url.appendingPathComponent("framework")),
            trustedKeys: [
                ENExportVerificationKey(keyID: "310", keyVersion: "v1", publicKey: try signingKey.publicKey)
            ], region: "310", scheduler: scheduler)
        let database = try SampleAppDatabase()
        SampleAppBackend.database = database
        SampleAppBackend.keyServer = keyServer
        SampleAppBackend.downloads = directory.url.appendingPathComponent("downloads")
        try FileManager.default.createDirectory(at: SampleAppBackend.downloads, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: directory.url.appendingPathComponent("framework"), withIntermediateDirectories: true)

        // Launch: `ExposureManager.shared` activates and, as the user says yes, enables Exposure Notification.
        // The exposures screen observes the status as the sample's `ExposuresViewController` does.
        #expect(ENManager.authorizationStatus == .unknown)
        var keyValueObservers = [NSKeyValueObservation]()
        let statuses = AsyncStream.makeStream(of: ENStatus.self)
        keyValueObservers.append(
            ExposureManager.shared.manager.observe(\.exposureNotificationStatus) { manager, change in
                statuses.continuation.yield(manager.exposureNotificationStatus)
            })
        let manager = ExposureManager.shared.manager
        statuses.continuation.yield(manager.exposureNotificationStatus)  // in case it changed before observing
        try await waitUntil { manager.exposureNotificationEnabled }
        for await status in statuses.stream where status == .active { break }
        keyValueObservers.removeAll()
        #expect(ENManager.authorizationStatus == .authorized)
        #expect(manager.exposureNotificationStatus == .active)
        #expect(consent.prompts.withLock { $0 } == ["authorize"])
        LocalStore.shared.isOnboarded = true
        #expect(LocalStore.shared.isOnboarded)
        #expect(try database.state().isOnboarded)  // LocalStore's fields live in the app's database

        // Sharing: a positive test result; getAndPostDiagnosisKeys sends what ENManager releases to the server.
        let testResult = TestResult(id: UUID(), isAdded: true, dateAdministered: Self.start, isShared: false)
        LocalStore.shared.testResults[testResult.id] = testResult
        #expect(try database.testResults().map(\.id) == [testResult.id])
        // The phone broadcasts all along: the radio asks for each interval's advertisement.
        func move(to date: Date) throws {
            clock.set(date)
            _ = try radio.advertisement(at: date)
        }
        try move(to: Self.start)
        try move(to: Self.start.addingTimeInterval(600))
        let released = try await manager.getDiagnosisKeys()  // what the framework hands the app
        #expect(
            await errorOf { ExposureManager.shared.getAndPostDiagnosisKeys(testResult: testResult, completion: $0) }
                == nil)
        let posted = Server.shared.diagnosisKeys
        // The first call released the current key (API version 2); the sample's call released it again beside
        // the key that started then: the server keeps each key once.
        #expect(posted.count == 2)
        #expect(Set(posted.map(\.keyData)).count == posted.count)
        #expect(released.allSatisfy { key in posted.contains { $0.keyData == key.keyData } })
        #expect(consent.prompts.withLock { $0.filter { $0 == "release" }.count } == 2)
        // Posting the same keys again adds nothing.
        #expect(
            await errorOf { ExposureManager.shared.getAndPostDiagnosisKeys(testResult: testResult, completion: $0) }
                == nil)
        #expect(Server.shared.diagnosisKeys.count >= posted.count)
        #expect(Set(Server.shared.diagnosisKeys.map(\.keyData)).count == Server.shared.diagnosisKeys.count)

        // Pre-authorization: the user agrees at the time of the test; days later the app requests the keys.
        #expect(await errorOf { ExposureManager.shared.preAuthorizeKeys(completion: $0) } == nil)
        try move(to: Self.start.addingTimeInterval(2 * 86_400))
        let before = Server.shared.diagnosisKeys.count
        #expect(await errorOf { ExposureManager.shared.requestPreAuthorizedKeys(completion: $0) } == nil)
        #expect(Server.shared.diagnosisKeys.count > before)
        // A second request after the release: no keys and no error (the sample's handler is not called again).
        let afterRelease = Server.shared.diagnosisKeys.count
        let secondRequest = await withCheckedContinuation { (continuation: CheckedContinuation<(any Error)?, Never>) in
            manager.diagnosisKeysAvailableHandler = { _ in Issue.record("keys released twice") }
            manager.requestPreAuthorizedDiagnosisKeys { continuation.resume(returning: $0) }
        }
        #expect(secondRequest == nil)
        #expect(Server.shared.diagnosisKeys.count == afterRelease)

        // Detection: a second device was near this one for 20 minutes; its user tested positive and its keys
        // reached the sample's server, which publishes them as a signed file.
        let otherRadio = SampleRadio()
        let otherClock = SampleClock(Self.start.addingTimeInterval(3 * 86_400))
        let other = ENManager(
            environment: ENEnvironment(
                consent: YesConsent(), radio: otherRadio, clock: otherClock, scheduler: ENManualScheduler()))
        other.dispatchQueue = DispatchQueue(label: "other device")
        try await other.activate()
        try await other.setExposureNotificationEnabled(true)
        let encounter = Self.start.addingTimeInterval(3 * 86_400)
        for minute in stride(from: 0, through: 20, by: 4) {
            let moment = encounter.addingTimeInterval(TimeInterval(minute * 60))
            let advertisement = try otherRadio.advertisement(at: moment)
            radio.hear(ENSighting(rpi: advertisement.rpi, aem: advertisement.aem, timestamp: moment, rssi: -60))
        }
        otherClock.set(encounter.addingTimeInterval(3600))
        // The key server's clock is this device's: it refuses keys from its future.
        try move(to: encounter.addingTimeInterval(3600))
        Server.shared.postDiagnosisKeys(try await other.getDiagnosisKeys()) { #expect($0 == nil) }
        let published = try await SampleAppBackend.publish()
        #expect(!published.isEmpty)
        try move(to: encounter.addingTimeInterval(7200))

        // The sample's own detection, as its background task runs it.
        let success = await withCheckedContinuation { continuation in
            _ = ExposureManager.shared.detectExposures { continuation.resume(returning: $0) }
        }
        #expect(success, "\(LocalStore.shared.exposureDetectionErrorLocalizedDescription ?? "")")
        #expect(LocalStore.shared.nextDiagnosisKeyFileIndex == published.count)
        #expect(LocalStore.shared.dateLastPerformedExposureDetection != nil)
        #expect(try database.state().nextDiagnosisKeyFileIndex == published.count)
        let utc = TimeZone(identifier: "UTC")!
        let encounterDay = Calendar(identifier: .gregorian).dateComponents(in: utc, from: encounter).day
        let exposureDays = LocalStore.shared.exposures.map {
            Calendar(identifier: .gregorian).dateComponents(in: utc, from: $0.date).day
        }
        #expect(exposureDays == [encounterDay])
        #expect(try database.exposures().map(\.date) == LocalStore.shared.exposures.map(\.date))

        // A second detection without new files: the sample passes no URLs; the framework answers for the cached
        // keys again (ENManager's rule for an empty list) and the sample appends what it gets; the index stays.
        let again = await withCheckedContinuation { continuation in
            _ = ExposureManager.shared.detectExposures { continuation.resume(returning: $0) }
        }
        #expect(again)
        #expect(LocalStore.shared.exposures.count == 2 * exposureDays.count)
        #expect(LocalStore.shared.nextDiagnosisKeyFileIndex == published.count)

        // The iOS 12.5 path: the app's `setLaunchActivityHandler` passes a `@convention(block)` closure to
        // `setValue(_:forKey:)`, and the handler it sets is the manager's activity handler.
        let saved = manager.activityHandler
        manager.activityHandler = nil
        ExposureManager.shared.setLaunchActivityHandlerForPeriodicRuns()
        #expect(manager.activityHandler != nil)
        manager.activityHandler = saved
    }

    /// Runs one of the sample's `completion: (Error?) -> Void` functions and returns its error.
    func errorOf(_ body: (@escaping ((any Error)?) -> Void) -> Void) async -> ENError.Code? {
        let error = await withCheckedContinuation { (continuation: CheckedContinuation<(any Error)?, Never>) in
            body { continuation.resume(returning: $0) }
        }
        return error.map { ($0 as? ENError)?.code ?? .internal }
    }

    /// Polls `condition` (handlers run on the main queue) for up to 30 seconds.
    func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<3000 where !condition() {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        #expect(condition())
    }
}
