import ENCore
import ENSimulator
import ExposureNotificationKit
import ExposureNotificationKitTesting
import Foundation
import Testing

@Suite("ENManager: activation, invalidation and status")
struct ManagerLifecycleTests {
    @Test("before activate: status unknown, not enabled, every operation is apiMisuse")
    func beforeActivation() async throws {
        let fixture = Fixture()
        let manager = fixture.manager()
        #expect(manager.exposureNotificationStatus == .unknown)
        #expect(!manager.exposureNotificationEnabled)
        #expect(manager.authorizationStatus == .unknown)
        await #expect(throws: ENError(.apiMisuse)) { try await manager.setExposureNotificationEnabled(true) }
        await #expect(throws: ENError(.apiMisuse)) { _ = try await manager.getDiagnosisKeys() }
        await #expect(throws: ENError(.apiMisuse)) { _ = try await manager.getTestDiagnosisKeys() }
        await #expect(throws: ENError(.apiMisuse)) { try await manager.preAuthorizeDiagnosisKeys() }
        await #expect(throws: ENError(.apiMisuse)) { try await manager.requestPreAuthorizedDiagnosisKeys() }
        await #expect(throws: ENError(.apiMisuse)) { _ = try await manager.getUserTraveled() }
        #expect(fixture.consent.prompts.isEmpty)
    }

    @Test("activate once; a second activate is apiMisuse; a new manager starts disabled")
    func activateOnce() async throws {
        let fixture = Fixture()
        let manager = fixture.manager()
        try await manager.activate()
        #expect(manager.exposureNotificationStatus == .disabled)
        #expect(!manager.exposureNotificationEnabled)
        await #expect(throws: ENError(.apiMisuse)) { try await manager.activate() }
        #expect(!fixture.radio.isBroadcasting)
    }

    @Test("invalidate: pending work ends with invalidated, the handler runs once and last, nothing after it")
    func invalidation() async throws {
        let fixture = Fixture()
        let gate = SlowConsent()
        let manager = ENManager(environment: ENEnvironment(consent: gate, clock: fixture.clock))
        let queue = DispatchQueue(label: "handlers")
        manager.dispatchQueue = queue
        try await manager.activate()

        let events = Locked<[String]>([])
        let done = Locked(false)
        manager.invalidationHandler = {
            dispatchPrecondition(condition: .onQueue(queue))
            events.withLock { $0.append("invalidated") }
            done.withLock { $0 = true }
        }
        // One completion-handler call and one async call wait on the user's answer.
        manager.setExposureNotificationEnabled(true) { error in
            events.withLock { $0.append("completion: \((error as? ENError)?.code.rawValue ?? 0)") }
        }
        let pending = Task { () -> ENError? in
            do {
                try await manager.setExposureNotificationEnabled(true)
                return nil
            } catch let error as ENError { return error } catch { return nil }
        }
        await gate.waitForPrompts(2)
        manager.invalidate()
        manager.invalidate()  // a second call changes nothing
        #expect(await pending.value?.code == .invalidated)
        while !done.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        gate.answer(true)  // the prompt returns after invalidation: nothing may be delivered
        // Calls after invalidation fail; their completion handlers are never called.
        await #expect(throws: ENError(.invalidated)) { _ = try await manager.getDiagnosisKeys() }
        manager.getDiagnosisKeys { _, _ in events.withLock { $0.append("late") } }
        try await Task.sleep(for: .milliseconds(100))
        queue.sync {}
        #expect(events.withLock { $0 } == ["completion: 6", "invalidated"])
        #expect(manager.invalidationHandler == nil)
        await #expect(throws: ENError(.invalidated)) { try await manager.activate() }
    }

    @Test("completion handlers run on the dispatch queue")
    func dispatchQueueDelivery() async throws {
        let fixture = Fixture()
        let manager = fixture.manager()
        let queue = DispatchQueue(label: "app queue")
        manager.dispatchQueue = queue
        let error: (any Error)? = await withCheckedContinuation { continuation in
            manager.activate { error in
                dispatchPrecondition(condition: .onQueue(queue))
                continuation.resume(returning: error)
            }
        }
        #expect(error == nil)
        #expect(manager.exposureNotificationStatus == .disabled)
    }

    @Test("status follows authorization, enabling, Bluetooth; observers see each change")
    func statusUpdates() async throws {
        let fixture = Fixture()
        let manager = fixture.manager()
        try await manager.activate()
        var updates = manager.statusUpdates().makeAsyncIterator()
        #expect(await updates.next()?.status == .disabled)
        try await manager.setExposureNotificationEnabled(true)
        let enabled = await updates.next()
        #expect(enabled == ENStatusUpdate(status: .active, enabled: true, authorizationStatus: .authorized))
        #expect(manager.exposureNotificationStatus == .active)
        #expect(fixture.radio.isBroadcasting && fixture.radio.isScanning)
        try await manager.setExposureNotificationEnabled(false)
        #expect(await updates.next()?.status == .disabled)
        #expect(!fixture.radio.isBroadcasting && !fixture.radio.isScanning)

        fixture.radio.isPoweredOn = false
        try await manager.setExposureNotificationEnabled(true)
        #expect(await updates.next()?.status == .bluetoothOff)
        manager.invalidate()
        #expect(await updates.next() == nil)
    }

    @Test("consent refused: notAuthorized, status unauthorized, and not asked again")
    func consentRefused() async throws {
        let fixture = Fixture()
        fixture.consent.answers.withLock { $0.authorize = false }
        let manager = fixture.manager()
        try await manager.activate()
        await #expect(throws: ENError(.notAuthorized)) { try await manager.setExposureNotificationEnabled(true) }
        #expect(manager.exposureNotificationStatus == .unauthorized)
        #expect(manager.authorizationStatus == .notAuthorized)
        #expect(!fixture.radio.isBroadcasting)
        await #expect(throws: ENError(.notAuthorized)) { try await manager.setExposureNotificationEnabled(true) }
        #expect(fixture.consent.prompts == ["authorize"])
        await #expect(throws: ENError(.notAuthorized)) { _ = try await manager.getDiagnosisKeys() }
    }

    @Test("disable and enable keep keys and sightings; a restart keeps enabled state and authorization")
    func restart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("enkit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = Fixture()
        let first = try await fixture.enabledManager(
            entitlements: [.exposureNotification, .testDiagnosisKeys], storeLocation: .directory(directory))
        _ = try fixture.radio.advertisement(at: fixture.clock.now)
        let keys = try await first.getTestDiagnosisKeys()
        #expect(keys.count == 1)
        try await first.setExposureNotificationEnabled(false)
        try await first.setExposureNotificationEnabled(true)
        #expect(try await first.getTestDiagnosisKeys() == keys)
        first.invalidate()

        let second = fixture.manager(
            entitlements: [.exposureNotification, .testDiagnosisKeys], storeLocation: .directory(directory))
        #expect(second.authorizationStatus == .authorized)
        #expect(second.exposureNotificationStatus == .unknown)
        try await second.activate()
        #expect(second.exposureNotificationEnabled)
        #expect(second.exposureNotificationStatus == .active)
        #expect(fixture.radio.isBroadcasting)
        #expect(try await second.getTestDiagnosisKeys() == keys)
        #expect(fixture.consent.prompts.filter { $0 == "authorize" }.count == 1)
    }

    @Test("periodic runs call the activity handler with periodicRun while enabled")
    func periodicRuns() async throws {
        let fixture = Fixture()
        let manager = fixture.manager()
        let queue = DispatchQueue(label: "activity")
        manager.dispatchQueue = queue
        let flags = Locked<[ENActivityFlags]>([])
        manager.activityHandler = { flag in flags.withLock { $0.append(flag) } }
        #expect(fixture.scheduler.fire() == 0)
        try await manager.activate()
        // One periodic job from activation (retention runs in it, enabled or not); the handler only while enabled.
        #expect(fixture.scheduler.fire() == 1)
        queue.sync {}
        #expect(flags.withLock { $0 }.isEmpty)
        try await manager.setExposureNotificationEnabled(true)
        #expect(fixture.scheduler.fire() == 1)
        queue.sync {}
        #expect(flags.withLock { $0 } == [.periodicRun])
        try await manager.setExposureNotificationEnabled(false)
        #expect(fixture.scheduler.fire() == 1)
        queue.sync {}
        #expect(flags.withLock { $0 } == [.periodicRun])
        manager.invalidate()
        #expect(fixture.scheduler.fire() == 0)
    }

    @Test("getUserTraveled: from the environment, else travelStatusNotAvailable")
    func userTraveled() async throws {
        let fixture = Fixture()
        let manager = fixture.manager()
        try await manager.activate()
        await #expect(throws: ENError(.travelStatusNotAvailable)) { _ = try await manager.getUserTraveled() }
        var environment = fixture.environment()
        environment.travelStatus = { true }
        let traveled = ENManager(environment: environment)
        try await traveled.activate()
        #expect(try await traveled.getUserTraveled())
    }
}

/// Consent that waits until the test answers, so that operations can be caught pending.
final class SlowConsent: ENConsentProvider {
    private struct State {
        var answer: Bool?
        var prompts = 0
        var waiting: [CheckedContinuation<Bool, Never>] = []
    }
    private let state = Locked(State())

    func answer(_ value: Bool) {
        let waiting = state.withLock { state in
            state.answer = value
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume(returning: value) }
    }

    func waitForPrompts(_ count: Int) async {
        while state.withLock({ $0.prompts }) < count { try? await Task.sleep(for: .milliseconds(2)) }
    }

    private func ask() async -> Bool {
        await withCheckedContinuation { continuation in
            let answer: Bool? = state.withLock { state in
                state.prompts += 1
                if state.answer == nil { state.waiting.append(continuation) }
                return state.answer
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    func authorizeExposureNotification() async -> Bool { await ask() }
    func releaseDiagnosisKeys() async -> Bool { await ask() }
    func preAuthorizeDiagnosisKeyRelease() async -> Bool { await ask() }
}
