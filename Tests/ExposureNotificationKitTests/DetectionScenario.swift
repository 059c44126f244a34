import ENCore
import ENCrypto
import ENExportFormat
import ENSimulator
import ENStore
import ENTestSupport
import ExposureNotificationKit
import Foundation
import GRDB

/// A notification sink that keeps what it was asked to show.
final class RecordingNotificationSink: ENNotificationSink {
    let shown = Locked<[String]>([])
    func notifyUser(_ userExplanation: String) { shown.withLock { $0.append(userExplanation) } }
}

/// Two devices and a key server: `me` hears `other`'s broadcast; `other` releases its keys; the server signs
/// them into export files that `me` trusts. Everything real: the broadcast comes from `other`'s ENManager
/// (ENCrypto's key schedule), the files from ENExportWriter with a fresh P-256 key.
struct DetectionScenario {
    let me = Fixture()
    let other = Fixture()
    let notifications = RecordingNotificationSink()
    let signingKey: P256SigningKey
    let directory: TemporaryDirectory
    let manager: ENManager
    let otherManager: ENManager
    /// `me`'s environment (its store in ``directory``).
    let environment: ENEnvironment

    /// The time of the encounter: `testStart` (2020-04-02 10:00 UTC).
    static let encounterStart = testStart

    init(
        apiVersion: ENAPIVersion = .version2, limits: ENLimits = ENLimits(), trusted: Bool = true,
        signatureRule: ENExportVerifier.Rule = .firstSignature
    ) async throws {
        signingKey = try P256SigningKey()
        directory = try TemporaryDirectory(prefix: "DetectionTests")
        var environment = me.environment(apiVersion: apiVersion, storeLocation: .directory(directory.url))
        environment.trustedKeys =
            trusted
            ? [ENExportVerificationKey(keyID: "310", keyVersion: "v1", publicKey: try signingKey.publicKey)] : []
        environment.notifications = notifications
        environment.limits = limits
        environment.signatureRule = signatureRule
        self.environment = environment
        manager = ENManager(environment: environment)
        manager.dispatchQueue = DispatchQueue(label: "DetectionScenario")
        try await manager.activate()
        try await manager.setExposureNotificationEnabled(true)
        otherManager = try await other.enabledManager(apiVersion: .version2)
    }

    /// `me` hears `other` every `every` minutes for `minutes` minutes from `start`, at `rssi`; each sighting is
    /// stamped `shift` seconds after the advertisement's moment (to place it outside the key's validity).
    func encounter(
        from start: Date = encounterStart, minutes: Int = 20, every: Int = 4, rssi: Int8 = -60,
        shift: TimeInterval = 0
    ) throws {
        for minute in stride(from: 0, through: minutes, by: every) {
            let moment = start.addingTimeInterval(TimeInterval(minute * 60))
            let advertisement = try other.radio.advertisement(at: moment)
            me.radio.hear(
                ENSighting(
                    rpi: advertisement.rpi, aem: advertisement.aem, timestamp: moment.addingTimeInterval(shift),
                    rssi: rssi))
        }
    }

    /// `other`'s released keys (version 2: the current key too, shortened), as a health authority would publish
    /// them: a confirmed test, transmission risk level 4, symptoms since the day of the encounter.
    func releasedKeys(
        at date: Date = encounterStart.addingTimeInterval(3600), reportType: ENDiagnosisReportType = .confirmedTest
    ) async throws -> [ENTemporaryExposureKey] {
        other.clock.set(date)
        return try await otherManager.getDiagnosisKeys().map { key in
            var key = key.reported(as: reportType)
            key.transmissionRiskLevel = 4
            key.daysSinceOnsetOfSymptoms = 0
            return key
        }
    }

    /// Writes the keys as one signed zip named `name`, signed by `signer` (the trusted key by default).
    func writeZip(
        _ keys: [ENTemporaryExposureKey], revisedKeys: [ENTemporaryExposureKey] = [], name: String,
        signer: P256SigningKey? = nil
    ) throws -> URL {
        let archive = try archive(keys, revisedKeys: revisedKeys, signer: signer)
        let url = directory.url.appendingPathComponent(name)
        try archive.write(to: url)
        return url
    }

    /// Writes the keys as a bare `name.bin` and `name.sig`.
    func writePair(_ keys: [ENTemporaryExposureKey], name: String) throws -> (bin: URL, sig: URL) {
        let archive = try archive(keys)
        let bin = directory.url.appendingPathComponent("\(name).bin")
        let sig = directory.url.appendingPathComponent("\(name).sig")
        try archive.exportBinary.write(to: bin)
        try archive.signatureFile!.write(to: sig)
        return (bin, sig)
    }

    func archive(
        _ keys: [ENTemporaryExposureKey], revisedKeys: [ENTemporaryExposureKey] = [], signer: P256SigningKey? = nil
    ) throws -> ENExportArchive {
        let start = UInt64(Self.encounterStart.timeIntervalSince1970)
        let export = ENKeyExport(
            startTimestamp: start, endTimestamp: start + 7200, region: "310", batchNumber: 1, batchSize: 1,
            signatureInfos: [ENExportSignatureInfo(verificationKeyID: "310", verificationKeyVersion: "v1")],
            keys: keys, revisedKeys: revisedKeys)
        return try ENExportWriter.sign(
            export, with: [ENExportSigner(signingKey: signer ?? signingKey, keyID: "310", keyVersion: "v1")])
    }

    /// Moves `me`'s clock to `date` (two hours after the encounter by default).
    func detectAt(_ date: Date = encounterStart.addingTimeInterval(7200)) {
        me.clock.set(date)
    }

    /// Detects on `me`'s manager over `urls` with the scenario's configuration.
    func detect(_ urls: [URL]) async throws -> ENExposureDetectionSummary {
        try await manager.detectExposures(configuration: Self.configuration, diagnosisKeyURLs: urls)
    }

    /// The number of `export.bin` the framework store holds (cached or staged), read from the file without
    /// opening it as a store (an open deletes what is staged).
    func storedKeyFileContents() throws -> Int {
        let path = directory.url.appendingPathComponent("ExposureNotificationFramework.sqlite").path
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        let rows = try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM key_file_contents") ?? -1 }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: path + "-keyfiles")) ?? []
        return rows + files.count(where: { !$0.hasSuffix(".tmp") })
    }

    /// The records in `me`'s framework store, read beside the manager.
    func recordCounts() throws -> ENStoreRecordCounts {
        // On the test's clock: opening a store deletes what is older than 14 days by its clock.
        let clock = me.clock
        let store = try ENDeviceStore(
            path: directory.url.appendingPathComponent("ExposureNotificationFramework.sqlite").path,
            configuration: ENStoreConfiguration(now: { clock.now }))
        return try store.read(.recordCounts)
    }

    /// A version 2 configuration where every day since onset is standard infectiousness and time in the near
    /// bucket (`(50, 70]` dB) counts half; version 1 level values 1...8 (so scores differ by bucket).
    static var configuration: ENExposureConfiguration {
        var configuration = ENExposureConfiguration()
        configuration.infectiousnessByDaysSinceOnsetOfSymptoms = Dictionary(
            uniqueKeysWithValues: ((-14...14).map { ($0, ENInfectiousness.standard) })
                + [(ENDaysSinceOnsetOfSymptomsUnknown, .standard)])
        configuration.nearDurationWeight = 50
        configuration.attenuationLevelValues = [1, 2, 3, 4, 5, 6, 7, 8]
        configuration.daysSinceLastExposureLevelValues = [1, 2, 3, 4, 5, 6, 7, 8]
        configuration.durationLevelValues = [1, 2, 3, 4, 5, 6, 7, 8]
        configuration.transmissionRiskLevelValues = [1, 2, 3, 4, 5, 6, 7, 8]
        return configuration
    }
}

extension ENTemporaryExposureKey {
    /// This key with another report type (a revision, or a revocation).
    func reported(as type: ENDiagnosisReportType) -> ENTemporaryExposureKey {
        var key = self
        key.diagnosisReportType = type
        return key
    }
}
