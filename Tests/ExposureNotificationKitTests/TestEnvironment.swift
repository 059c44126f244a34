import ENCore
import ENSimulator
import ExposureNotificationKit
import ExposureNotificationKitTesting
import Foundation

/// The tests' clock: the simulator's (`set(_:)` moves it anywhere, `advance(to:)` only forward).
typealias TestClock = ENVirtualClock

/// Consent answers the test scripts, with a count of the prompts shown.
final class ScriptedConsent: ENConsentProvider {
    struct Answers {
        var authorize = true
        var release = true
        var preAuthorize = true
        var prompts: [String] = []
    }
    let answers = Locked(Answers())

    func authorizeExposureNotification() async -> Bool {
        answers.withLock {
            $0.prompts.append("authorize")
            return $0.authorize
        }
    }
    func releaseDiagnosisKeys() async -> Bool {
        answers.withLock {
            $0.prompts.append("release")
            return $0.release
        }
    }
    func preAuthorizeDiagnosisKeyRelease() async -> Bool {
        answers.withLock {
            $0.prompts.append("preAuthorize")
            return $0.preAuthorize
        }
    }
    var prompts: [String] { answers.withLock { $0.prompts } }
}

/// The tests' radio: the simulator's (the test pulls advertisements and pushes sightings through it).
typealias RecordingRadio = ENEtherRadio

/// The tests' scheduler: the simulator's manual one (the test fires periodic runs by hand with `fire()`).
typealias ManualScheduler = ENManualScheduler

/// 2020-04-02 10:00 UTC: interval 2,643,036, day start 2,642,976 (the official test vectors' day).
let testStart = Date(timeIntervalSince1970: 2_642_976 * 600 + 10 * 3600)

struct Fixture: Sendable {
    let clock = TestClock(testStart)
    let consent = ScriptedConsent()
    let radio = ENEther().radio(for: "device")
    let scheduler = ManualScheduler()

    func environment(
        apiVersion: ENAPIVersion = .version2, entitlements: ENEntitlements = .exposureNotification,
        storeLocation: ENEnvironment.StoreLocation = .inMemory
    ) -> ENEnvironment {
        ENEnvironment(
            consent: consent, radio: radio, clock: clock, storeLocation: storeLocation, apiVersion: apiVersion,
            entitlements: entitlements, scheduler: scheduler)
    }

    func manager(
        apiVersion: ENAPIVersion = .version2, entitlements: ENEntitlements = .exposureNotification,
        storeLocation: ENEnvironment.StoreLocation = .inMemory
    ) -> ENManager {
        let manager = ENManager(
            environment: environment(apiVersion: apiVersion, entitlements: entitlements, storeLocation: storeLocation))
        manager.dispatchQueue = DispatchQueue(label: "test handlers")
        return manager
    }

    /// An activated and enabled manager.
    func enabledManager(
        apiVersion: ENAPIVersion = .version2, entitlements: ENEntitlements = .exposureNotification,
        storeLocation: ENEnvironment.StoreLocation = .inMemory
    ) async throws -> ENManager {
        let manager = manager(apiVersion: apiVersion, entitlements: entitlements, storeLocation: storeLocation)
        try await manager.activate()
        try await manager.setExposureNotificationEnabled(true)
        return manager
    }
}
