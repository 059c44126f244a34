import ENSimulator
import ExposureNotificationKit
import ExposureNotificationKitTesting
import Foundation
import Testing

/// App code written once against the protocol: enable, share keys.
func shareKeys(with manager: some ExposureManaging) async throws -> [ENTemporaryExposureKey] {
    try await manager.activate()
    try await manager.setExposureNotificationEnabled(true)
    return try await manager.getDiagnosisKeys()
}

/// An app's own protocol of the members it uses, as real apps declare to mock the manager.
protocol AppManager: AnyObject {
    var exposureNotificationStatus: ENStatus { get }
    func activate(completionHandler: @escaping ENErrorHandler)
    func setExposureNotificationEnabled(_ enabled: Bool, completionHandler: @escaping ENErrorHandler)
    func getDiagnosisKeys(completionHandler: @escaping ENGetDiagnosisKeysHandler)
    func invalidate()
}
extension ENManager: AppManager {}
extension ScriptedExposureManager: AppManager {}

@Suite("ScriptedExposureManager: the shipped test double")
struct ScriptedExposureManagerTests {
    static let key = ENTemporaryExposureKey(keyData: Data(repeating: 1, count: 16), rollingStartNumber: 2_642_976)

    @Test("the same app code runs on the double and on ENManager")
    func sameAppCode() async throws {
        let double = ScriptedExposureManager(script: .init(diagnosisKeys: [Self.key]))
        #expect(try await shareKeys(with: double) == [Self.key])
        #expect(double.calls == [.activate, .setExposureNotificationEnabled, .getDiagnosisKeys])
        #expect(double.exposureNotificationStatus == .active)

        let fixture = Fixture()
        let manager = fixture.manager(apiVersion: .version1)
        #expect(try await shareKeys(with: manager).isEmpty)
        #expect(manager.exposureNotificationStatus == .active)
    }

    @Test("Apple's call-order rules: apiMisuse before activate and on a second activate")
    func callOrder() async throws {
        let double = ScriptedExposureManager()
        #expect(double.exposureNotificationStatus == .unknown)
        await #expect(throws: ENError(.apiMisuse)) { _ = try await double.getDiagnosisKeys() }
        try await double.activate()
        await #expect(throws: ENError(.apiMisuse)) { try await double.activate() }
        #expect(double.exposureNotificationStatus == .disabled)
    }

    @Test("scripted refusals, entitlement, errors and travel status")
    func scriptedAnswers() async throws {
        let double = ScriptedExposureManager(script: .init(userConsents: false))
        try await double.activate()
        await #expect(throws: ENError(.notAuthorized)) { try await double.setExposureNotificationEnabled(true) }
        #expect(double.exposureNotificationStatus == .unauthorized)
        await #expect(throws: ENError(.notEntitled)) { _ = try await double.getTestDiagnosisKeys() }
        await #expect(throws: ENError(.travelStatusNotAvailable)) { _ = try await double.getUserTraveled() }
        double.script.errors[.getUserTraveled] = ENError(.bluetoothOff)
        await #expect(throws: ENError(.bluetoothOff)) { _ = try await double.getUserTraveled() }
    }

    @Test("pre-authorized keys are released once, through the handler on the dispatch queue")
    func preAuthorization() async throws {
        let double = ScriptedExposureManager(script: .init(diagnosisKeys: [Self.key]))
        let queue = DispatchQueue(label: "double")
        double.dispatchQueue = queue
        let released = Locked<[[ENTemporaryExposureKey]]>([])
        double.diagnosisKeysAvailableHandler = { keys in released.withLock { $0.append(keys) } }
        try await double.activate()
        try await double.setExposureNotificationEnabled(true)
        await #expect(throws: ENError(.notAuthorized)) { try await double.requestPreAuthorizedDiagnosisKeys() }
        try await double.preAuthorizeDiagnosisKeys()
        try await double.requestPreAuthorizedDiagnosisKeys()
        try await double.requestPreAuthorizedDiagnosisKeys()
        queue.sync {}
        #expect(released.withLock { $0 } == [[Self.key]])
    }

    @Test(
        "invalidation: completion handlers through an app's own protocol, then the invalidation handler, then nothing")
    func invalidation() async throws {
        let double: any AppManager = ScriptedExposureManager()
        let scripted = try #require(double as? ScriptedExposureManager)
        let queue = DispatchQueue(label: "double")
        scripted.dispatchQueue = queue
        let events = Locked<[String]>([])
        await withCheckedContinuation { continuation in
            double.activate { error in
                events.withLock { $0.append("activate \(error == nil)") }
                continuation.resume()
            }
        }
        scripted.invalidationHandler = { events.withLock { $0.append("invalidated") } }
        double.invalidate()
        double.getDiagnosisKeys { _, _ in events.withLock { $0.append("late") } }
        try await Task.sleep(for: .milliseconds(50))
        queue.sync {}
        #expect(events.withLock { $0 } == ["activate true", "invalidated"])
        await #expect(throws: ENError(.invalidated)) { try await scripted.setExposureNotificationEnabled(true) }
    }
}
