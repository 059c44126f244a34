import ENSimulator
import ExposureNotificationKit
import ExposureNotificationKitTesting
import Foundation
import Testing

/// The code of the DocC article "Authorization, sharing and pre-authorization", compiled and run.
@Suite("DocC article: authorization and sharing")
struct ArticleTests {
    @Test("the article's flow runs as written")
    func articleFlow() async throws {
        let environment = ENEnvironment(
            consent: ENFixedConsent(true),
            storeLocation: .inMemory,
            apiVersion: .version2)
        let manager = ENManager(environment: environment)
        manager.dispatchQueue = DispatchQueue(label: "article")

        try await manager.activate()
        try await manager.setExposureNotificationEnabled(true)
        #expect(manager.exposureNotificationStatus == .active)

        let keys = try await manager.getDiagnosisKeys()
        #expect(keys.count == 1)  // today's key: it exists from enabling, though the silent radio never asked

        let released = Locked(0)
        manager.diagnosisKeysAvailableHandler = { _ in released.withLock { $0 += 1 } }
        try await manager.preAuthorizeDiagnosisKeys()
        try await manager.requestPreAuthorizedDiagnosisKeys()
        try await manager.requestPreAuthorizedDiagnosisKeys()
        manager.dispatchQueue.sync {}
        #expect(released.withLock { $0 } == 1)

        manager.invalidate()
        await #expect(throws: ENError(.invalidated)) { _ = try await manager.getDiagnosisKeys() }
    }
}
