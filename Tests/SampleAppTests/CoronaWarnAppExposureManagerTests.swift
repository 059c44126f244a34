import ExposureNotificationKit
import ExposureNotificationKitTesting
import Foundation
import Testing

/// Records what Corona-Warn-App's observer protocol is told.
final class ExposureManagerStateRecorder: ENAExposureManagerObserver {
    let states: AsyncStream<ExposureManagerState>
    private let continuation: AsyncStream<ExposureManagerState>.Continuation

    init() { (states, continuation) = AsyncStream.makeStream(of: ExposureManagerState.self) }

    func exposureManager(_ manager: ENAExposureManager, didChangeState newState: ExposureManagerState) {
        continuation.yield(newState)
    }
}

@Suite("Corona-Warn-App's ExposureManager (Swift 5 app code) on ENManager")
struct CoronaWarnAppExposureManagerTests {
    /// Runs one of the wrapper's `CompletionHandler` functions and returns its error.
    func errorOf(
        _ body: (@escaping ENAExposureManager.CompletionHandler) -> Void
    ) async -> ExposureNotificationError? {
        await withCheckedContinuation { continuation in body { continuation.resume(returning: $0) } }
    }

    // The limit turns an observation that never comes into a failure. It is generous because under a sanitizer,
    // with the whole suite sharing two cores, the main queue (where the app's observer hands the state over) can
    // wait over a minute for its turn.
    @Test(
        "its status observer (KVO of \\.manager.exposureNotificationStatus) fires when the status changes",
        .timeLimit(.minutes(10)))
    func statusObserverFires() async throws {
        let manager = ENManager(environment: ENEnvironment(consent: ENFixedConsent(true)))
        let exposureManager = ENAExposureManager(manager: manager)
        #expect(await errorOf { exposureManager.activate(completion: $0) } == nil)
        let recorder = ExposureManagerStateRecorder()
        exposureManager.observeExposureNotificationStatus(observer: recorder)
        var states = recorder.states.makeAsyncIterator()

        #expect(await errorOf { exposureManager.enable(completion: $0) } == nil)
        let enabled = await states.next()
        #expect(enabled?.status == .active)
        #expect(enabled?.enabled == true)

        #expect(await errorOf { exposureManager.disable(completion: $0) } == nil)
        let disabled = await states.next()
        #expect(disabled?.status == .disabled)
        #expect(disabled?.enabled == false)
        exposureManager.reset(handler: nil)
    }

    @Test("a refusal maps to the app's own error, through ENError's code")
    func refusalMapsToTheAppsError() async {
        let exposureManager = ENAExposureManager(manager: ENManager(environment: ENEnvironment()))
        #expect(await errorOf { exposureManager.activate(completion: $0) } == nil)
        #expect(
            await errorOf { exposureManager.enable(completion: $0) }
                == .exposureNotificationAuthorization)
        exposureManager.reset(handler: nil)
    }
}
