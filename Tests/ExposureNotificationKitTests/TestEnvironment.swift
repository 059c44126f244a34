import ENCore
import ExposureNotificationKit
import Foundation
import Synchronization

/// A clock the test moves.
final class TestClock: ENClock {
    private let current: Mutex<Date>
    init(_ date: Date) { current = Mutex(date) }
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 += seconds } }
    func set(_ date: Date) { current.withLock { $0 = date } }
}

/// Consent answers the test scripts, with a count of the prompts shown.
final class ScriptedConsent: ENConsentProvider {
    struct Answers {
        var authorize = true
        var release = true
        var preAuthorize = true
        var prompts: [String] = []
    }
    let answers = Mutex(Answers())

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

/// A radio that records what the manager asks of it and lets the test pull advertisements and push sightings.
final class RecordingRadio: ENRadio {
    struct State {
        var poweredOn = true
        var source: (any ENBroadcastSource)?
        var handler: (@Sendable (ENSighting) -> Void)?
    }
    let state = Mutex(State())
    var isPoweredOn: Bool { state.withLock { $0.poweredOn } }
    var isBroadcasting: Bool { state.withLock { $0.source != nil } }
    var isScanning: Bool { state.withLock { $0.handler != nil } }
    func startBroadcasting(_ source: any ENBroadcastSource) { state.withLock { $0.source = source } }
    func stopBroadcasting() { state.withLock { $0.source = nil } }
    func startScanning(_ handler: @escaping @Sendable (ENSighting) -> Void) { state.withLock { $0.handler = handler } }
    func stopScanning() { state.withLock { $0.handler = nil } }

    func advertisement(at date: Date) throws -> ENAdvertisement {
        guard let source = state.withLock({ $0.source }) else { throw ENError(.notEnabled, "not broadcasting") }
        return try source.advertisement(at: date)
    }
    func hear(_ sighting: ENSighting) {
        state.withLock { $0.handler }?(sighting)
    }
}

/// A scheduler the test fires by hand.
final class ManualScheduler: ENScheduler {
    final class Task: ENScheduledTask {
        let cancelled = Mutex(false)
        let work: @Sendable () -> Void
        init(_ work: @escaping @Sendable () -> Void) { self.work = work }
        func cancel() { cancelled.withLock { $0 = true } }
    }
    let tasks = Mutex<[Task]>([])
    func schedule(every interval: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any ENScheduledTask {
        let task = Task(work)
        tasks.withLock { $0.append(task) }
        return task
    }
    /// Runs every job that is not cancelled; returns how many ran.
    @discardableResult
    func fire() -> Int {
        let live = tasks.withLock { $0.filter { !$0.cancelled.withLock { $0 } } }
        for task in live { task.work() }
        return live.count
    }
}

/// 2020-04-02 10:00 UTC: interval 2,643,036, day start 2,642,976 (the official test vectors' day).
let testStart = Date(timeIntervalSince1970: 2_642_976 * 600 + 10 * 3600)

struct Fixture: Sendable {
    let clock = TestClock(testStart)
    let consent = ScriptedConsent()
    let radio = RecordingRadio()
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
