import ENCrypto
import ENExportFormat
import ENTestSupport
import ExposureNotificationKit
import Foundation
import Synchronization

@testable import SampleApp

/// A clock the test moves.
final class SampleClock: ENClock {
    private let current: Mutex<Date>
    init(_ date: Date) { current = Mutex(date) }
    var now: Date { current.withLock { $0 } }
    func set(_ date: Date) { current.withLock { $0 = date } }
}

/// A radio that hands out what its device broadcasts and delivers what the test says it heard.
final class SampleRadio: ENRadio {
    private let state = Mutex<(source: (any ENBroadcastSource)?, handler: (@Sendable (ENSighting) -> Void)?)>(
        (nil, nil))
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

/// A scheduler the test fires by hand (the OS's periodic launches).
final class SampleScheduler: ENScheduler {
    final class Job: ENScheduledTask {
        let cancelled = Mutex(false)
        let work: @Sendable () -> Void
        init(_ work: @escaping @Sendable () -> Void) { self.work = work }
        func cancel() { cancelled.withLock { $0 = true } }
    }
    private let jobs = Mutex<[Job]>([])
    func schedule(every interval: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any ENScheduledTask {
        let job = Job(work)
        jobs.withLock { $0.append(job) }
        return job
    }
    /// Runs every job that is not cancelled; returns how many ran.
    @discardableResult
    func fire() -> Int {
        let live = jobs.withLock { $0.filter { !$0.cancelled.withLock { $0 } } }
        for job in live { job.work() }
        return live.count
    }
}

/// The sample's user says yes to every prompt; the prompts are counted.
final class YesConsent: ENConsentProvider {
    let prompts = Mutex<[String]>([])
    func authorizeExposureNotification() async -> Bool { prompts.withLock { $0.append("authorize") }; return true }
    func releaseDiagnosisKeys() async -> Bool { prompts.withLock { $0.append("release") }; return true }
    func preAuthorizeDiagnosisKeyRelease() async -> Bool { prompts.withLock { $0.append("preAuthorize") }; return true }
}

/// The key server the sample's `Server` stands for: signs the keys it was sent into an export file (ENExportWriter,
/// a fresh P-256 key that the device trusts) and publishes its URL.
struct KeyServerStandIn {
    let signingKey: P256SigningKey
    let directory: URL

    var verificationKey: ENExportVerificationKey {
        get throws { ENExportVerificationKey(keyID: "310", keyVersion: "v1", publicKey: try signingKey.publicKey) }
    }

    /// Signs `keys` (the sample server's `CodableDiagnosisKey`s) into `name` and publishes it.
    func publish(_ keys: [CodableDiagnosisKey], name: String, start: Date) throws {
        let exposureKeys = keys.map {
            ENTemporaryExposureKey(
                keyData: $0.keyData, rollingStartNumber: $0.rollingStartNumber, rollingPeriod: $0.rollingPeriod,
                transmissionRiskLevel: $0.transmissionRiskLevel)
        }
        let startTimestamp = UInt64(start.timeIntervalSince1970)
        let export = ENKeyExport(
            startTimestamp: startTimestamp, endTimestamp: startTimestamp + 86_400, region: "310", batchNumber: 1,
            batchSize: 1,
            signatureInfos: [ENExportSignatureInfo(verificationKeyID: "310", verificationKeyVersion: "v1")],
            keys: exposureKeys)
        let archive = try ENExportWriter.sign(
            export, with: [ENExportSigner(signingKey: signingKey, keyID: "310", keyVersion: "v1")])
        let url = directory.appendingPathComponent(name)
        try archive.write(to: url)
        PublishedKeyFiles.urls.append(url)
    }
}
