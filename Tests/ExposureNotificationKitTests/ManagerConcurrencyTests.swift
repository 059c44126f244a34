import ENCore
import ENSimulator
import ExposureNotificationKit
import Foundation
import Testing

@Suite("ENManager: concurrent callers")
struct ManagerConcurrencyTests {
    @Test("many tasks and threads on one manager: every call completes once, state stays consistent")
    func concurrentCallers() async throws {
        let fixture = Fixture()
        let manager = fixture.manager(entitlements: [.exposureNotification, .testDiagnosisKeys])
        try await manager.activate()
        let completions = Counter()
        let calls = 40
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<calls {
                group.addTask {
                    switch index % 4 {
                    case 0: try? await manager.setExposureNotificationEnabled(index % 8 == 0)
                    case 1: _ = try? await manager.getTestDiagnosisKeys()
                    case 2: _ = try? fixture.radio.advertisement(at: fixture.clock.now)
                    default: _ = manager.exposureNotificationStatus
                    }
                    completions.increment()
                }
            }
            // Completion-handler callers on other threads at the same time.
            for _ in 0..<8 {
                group.addTask {
                    await withCheckedContinuation { continuation in
                        DispatchQueue.global().async {
                            manager.getDiagnosisKeys { _, _ in continuation.resume() }
                        }
                    }
                    completions.increment()
                }
            }
        }
        #expect(completions.count == calls + 8)
        try await manager.setExposureNotificationEnabled(true)
        #expect(manager.exposureNotificationStatus == .active)
        // One key for the day however many callers raced to make it.
        let keys = try await manager.getTestDiagnosisKeys()
        #expect(Set(keys.map(\.rollingStartNumber)).count == keys.count)
        manager.invalidate()
    }
}

final class Counter: Sendable {
    private let value = Locked(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}
