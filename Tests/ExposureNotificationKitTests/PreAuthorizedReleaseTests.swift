import ENCore
import ENSimulator
import ENTestSupport
import ExposureNotificationKit
import Foundation
import Testing

@Suite("Pre-authorized release: one release, ever, per pre-authorization")
struct PreAuthorizedReleaseTests {
    /// An enabled manager with a pre-authorization given at `testStart` and a handler counting deliveries.
    func preAuthorized(_ fixture: Fixture) async throws -> (ENManager, Locked<[[ENTemporaryExposureKey]]>) {
        let manager = try await fixture.enabledManager()
        let delivered = Locked<[[ENTemporaryExposureKey]]>([])
        manager.diagnosisKeysAvailableHandler = { keys in delivered.withLock { $0.append(keys) } }
        try await manager.preAuthorizeDiagnosisKeys()
        return (manager, delivered)
    }

    @Test("50 concurrent requests deliver the keys once")
    func concurrentRequests() async throws {
        let fixture = Fixture()
        let (manager, delivered) = try await preAuthorized(fixture)
        fixture.clock.advance(by: 3_600)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask { try await manager.requestPreAuthorizedDiagnosisKeys() }
            }
            try await group.waitForAll()
        }
        manager.dispatchQueue.sync {}
        #expect(delivered.withLock { $0.count } == 1)
        #expect(delivered.withLock { $0.first?.count } == 1, "today's key, released the same day")
        manager.invalidate()
    }

    @Test("a clock set back before the pre-authorization does not extend it, and withdraws it")
    func clockSetBack() async throws {
        let fixture = Fixture()
        let (manager, delivered) = try await preAuthorized(fixture)
        fixture.clock.set(testStart.addingTimeInterval(-3_600))
        await #expect(throws: ENError(.notAuthorized)) { try await manager.requestPreAuthorizedDiagnosisKeys() }
        fixture.clock.set(testStart.addingTimeInterval(3_600))
        await #expect(throws: ENError(.notAuthorized)) { try await manager.requestPreAuthorizedDiagnosisKeys() }
        manager.dispatchQueue.sync {}
        #expect(delivered.withLock { $0.isEmpty })
        manager.invalidate()
    }

    @Test("an expired pre-authorization stays expired when the clock is set back into its five days")
    func expiredStaysExpired() async throws {
        let fixture = Fixture()
        let (manager, delivered) = try await preAuthorized(fixture)
        fixture.clock.set(testStart.addingTimeInterval(6 * 86_400))
        await #expect(throws: ENError(.notAuthorized)) { try await manager.requestPreAuthorizedDiagnosisKeys() }
        fixture.clock.set(testStart.addingTimeInterval(86_400))
        await #expect(throws: ENError(.notAuthorized)) { try await manager.requestPreAuthorizedDiagnosisKeys() }
        manager.dispatchQueue.sync {}
        #expect(delivered.withLock { $0.isEmpty })
        manager.invalidate()
    }

    @Test("the release re-checks that Exposure Notification is still enabled")
    func releaseRechecksEnabled() async throws {
        let fixture = Fixture()
        let (manager, delivered) = try await preAuthorized(fixture)
        try await manager.setExposureNotificationEnabled(false)
        await #expect(throws: ENError(.notEnabled)) { try await manager.requestPreAuthorizedDiagnosisKeys() }
        manager.dispatchQueue.sync {}
        #expect(delivered.withLock { $0.isEmpty })
        manager.invalidate()
    }
}
