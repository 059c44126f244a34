import ENCore
import ExposureNotificationKit
import ExposureNotificationKitTesting
import Foundation
import Testing

@testable import ENSimulator

/// Periodic detection goes through the phone's launcher and the app's `activityHandler`, as on a phone: the
/// simulation never calls the app's work itself.
@Suite("periodic runs through activityHandler")
struct PeriodicRunTests {
    /// An enabled manager whose scheduler is `launcher`, with `app` as its activity handler unless `handler` is
    /// false.
    func phone(launcher: ENManualScheduler, app: SimulatedApp, handler: Bool = true) async throws -> ENManager {
        let manager = ENManager(
            environment: ENEnvironment(
                consent: ENFixedConsent(true), radio: ENEther().radio(for: app.name),
                clock: ENVirtualClock(Date(timeIntervalSince1970: 1_600_000_000)), scheduler: launcher))
        manager.dispatchQueue = DispatchQueue(label: "PeriodicRunTests")
        if handler { manager.activityHandler = { flags in app.activity(flags) } }
        try await manager.activate()
        try await manager.setExposureNotificationEnabled(true)
        return manager
    }

    func detection(_ files: Int) -> SimulatedDetection {
        SimulatedDetection(
            report: ENSimulationReport.Device(name: "A", apiVersion: 2), cursor: SimulationFileCursor(nextIndex: files),
            files: files)
    }

    @Test("the launcher fires the manager's periodic run; the handler runs the work handed over and returns it")
    func launchRunsTheWork() async throws {
        let launcher = ENManualScheduler()
        let app = SimulatedApp(name: "A")
        let manager = try await phone(launcher: launcher, app: app)
        defer { manager.invalidate() }
        let first = try await app.launch(by: launcher, queue: manager.dispatchQueue) { self.detection(3) }
        #expect(first.files == 3)
        let second = try await app.launch(by: launcher, queue: manager.dispatchQueue) { self.detection(5) }
        #expect(second.cursor.nextIndex == 5)
        // The work's error comes back as it was thrown.
        await #expect(throws: ENError(.dataInaccessible)) {
            try await app.launch(by: launcher, queue: manager.dispatchQueue) { () async throws(ENError) in
                throw ENError(.dataInaccessible, "no network")
            }
        }
    }

    @Test("no launch without a handler, nor while Exposure Notification is off: an error, not a hang")
    func missedLaunches() async throws {
        let launcher = ENManualScheduler()
        let app = SimulatedApp(name: "B")
        let withoutHandler = try await phone(launcher: launcher, app: app, handler: false)
        await #expect(throws: ENError(.internal)) {
            try await app.launch(by: launcher, queue: withoutHandler.dispatchQueue) { self.detection(1) }
        }
        withoutHandler.invalidate()

        let otherLauncher = ENManualScheduler()
        let manager = try await phone(launcher: otherLauncher, app: app)
        defer { manager.invalidate() }
        try await manager.setExposureNotificationEnabled(false)
        #expect(otherLauncher.fire() == 1, "the retention run stays; the app's handler does not run")
        await #expect(throws: ENError(.internal)) {
            try await app.launch(by: otherLauncher, queue: manager.dispatchQueue) { self.detection(1) }
        }
    }
}
