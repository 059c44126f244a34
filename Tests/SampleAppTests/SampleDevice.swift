import ExposureNotificationKit
import Foundation

@testable import SampleAppExample

/// A clock the test moves.
final class SampleClock: ENClock {
    private let current: Locked<Date>
    init(_ date: Date) { current = Locked(date) }
    var now: Date { current.withLock { $0 } }
    func set(_ date: Date) { current.withLock { $0 = date } }
}

/// A radio that hands out what its device broadcasts and delivers what the test says it heard.
final class SampleRadio: ENRadio {
    private struct State {
        var source: (any ENBroadcastSource)?
        var handler: (@Sendable (ENSighting) -> Void)?
    }
    private let state = Locked(State())
    var isPoweredOn: Bool { true }
    func startBroadcasting(_ source: any ENBroadcastSource) { state.withLock { $0.source = source } }
    func stopBroadcasting() { state.withLock { $0.source = nil } }
    func startScanning(_ handler: @escaping @Sendable (ENSighting) -> Void) { state.withLock { $0.handler = handler } }
    func stopScanning() { state.withLock { $0.handler = nil } }
    func advertisement(at date: Date) throws -> ENAdvertisement {
        guard let source = state.withLock({ $0.source }) else { throw ENError(.notEnabled, "not broadcasting") }
        return try source.advertisement(at: date)
    }
    func hear(_ sighting: ENSighting) { state.withLock { $0.handler }?(sighting) }
}

/// The sample's user says yes to every prompt; the prompts are counted.
final class YesConsent: ENConsentProvider {
    let prompts = Locked<[String]>([])
    func authorizeExposureNotification() async -> Bool { prompts.withLock { $0.append("authorize") }; return true }
    func releaseDiagnosisKeys() async -> Bool { prompts.withLock { $0.append("release") }; return true }
    func preAuthorizeDiagnosisKeyRelease() async -> Bool { prompts.withLock { $0.append("preAuthorize") }; return true }
}
