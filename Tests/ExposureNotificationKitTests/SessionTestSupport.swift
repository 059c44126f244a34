import ENCore
import ENCrypto
import ENSimulator
import ENTestSupport
import ExposureNotificationKit
import Foundation

/// A device whose framework store (a directory, shared by the manager and the sessions) holds what its radio
/// heard, and sessions on it. Its manager has Exposure Notification authorized and enabled (unless asked not to).
struct SessionDevice: Sendable {
    let fixture = Fixture()
    let directory: TemporaryDirectory
    let environment: ENEnvironment
    let manager: ENManager
    let handlerQueue = DispatchQueue(label: "session handlers")
    static let queueKey = DispatchSpecificKey<String>()

    init(enabled: Bool = true) async throws {
        directory = try TemporaryDirectory(prefix: "ENSessionTests")
        environment = fixture.environment(apiVersion: .version1, storeLocation: .directory(directory.url))
        handlerQueue.setSpecific(key: Self.queueKey, value: "session handlers")
        manager = ENManager(environment: environment)
        manager.dispatchQueue = handlerQueue
        try await manager.activate()
        if enabled { try await manager.setExposureNotificationEnabled(true) }
    }

    /// Whether the calling code runs on ``handlerQueue``.
    static var onHandlerQueue: Bool { DispatchQueue.getSpecific(key: queueKey) == "session handlers" }

    /// Has the manager's radio hear `sightings`: they land in the framework store, as on a phone.
    func hear(_ sightings: [ENSighting]) {
        for sighting in sightings { fixture.radio.hear(sighting) }
    }

    /// Ends the manager and removes the store.
    func cleanUp() {
        manager.invalidate()
        directory.cleanUp()
    }

    /// A session on the device, its handlers on ``handlerQueue``.
    func session(configuration: ENExposureConfiguration = ENExposureConfiguration()) -> ENExposureDetectionSession {
        let session = ENExposureDetectionSession(environment: environment)
        session.dispatchQueue = handlerQueue
        session.configuration = configuration
        return session
    }

    /// An activated session.
    func activatedSession() async throws -> ENExposureDetectionSession {
        let session = session()
        try await session.activate()
        return session
    }

    /// Runs a session over `batches` and pages through every info, `pageSize` at a time.
    func detect(
        _ batches: [[ENTemporaryExposureKey]], configuration: ENExposureConfiguration = ENExposureConfiguration(),
        pageSize: Int = 100
    ) async throws -> (summary: ENExposureDetectionSummary, infos: [ENExposureInfo]) {
        let session = session(configuration: configuration)
        try await session.activate()
        for batch in batches { try await session.addDiagnosisKeys(batch) }
        let summary = try await session.finishedDiagnosisKeys()
        var infos: [ENExposureInfo] = []
        while true {
            let page = try await session.getExposureInfo(withMaximumCount: pageSize)
            infos += page.exposureInfo
            if page.done { break }
        }
        session.invalidate()
        return (summary, infos)
    }
}

/// Keys and what a device hears of them, made with ENCrypto.
enum Encounter {
    /// The test day's start (2020-04-02 00:00 UTC); the test clock stands at 10:00 that day.
    static let dayStart = ENIntervalNumber(2_642_976)

    /// A key valid for the test day.
    static func key(transmissionRiskLevel: ENRiskLevel = 0, day: Int = 0) throws -> ENTemporaryExposureKey {
        TestKeys.fresh(
            start: ENIntervalNumber(Int(dayStart) + 144 * day), transmissionRiskLevel: transmissionRiskLevel)
    }

    /// One sighting a minute for `minutes` minutes from `start` (30 s into each minute): the identifier the key
    /// broadcast then, its metadata with `txPower`, received at `rssi`.
    static func sightings(
        of key: ENTemporaryExposureKey, from start: Date, minutes: Int, rssi: Int8, txPower: Int8 = 0
    ) throws -> [ENSighting] {
        let identifiers = try RollingProximityIdentifierKey(temporaryExposureKey: key)
        let metadata = try AssociatedEncryptedMetadataKey(temporaryExposureKey: key)
        return try (0..<minutes).map { minute in
            let time = start.addingTimeInterval(Double(minute) * 60 + 30)
            let rpi = try identifiers.identifier(for: ENIntervalNumber(date: time))
            let aem = try metadata.encrypt(BluetoothMetadata(txPower: txPower), for: rpi)
            return ENSighting(rpi: rpi, aem: aem, timestamp: time, rssi: rssi)
        }
    }

    /// `hour`:`minute` UTC on the test day, `days` later.
    static func time(hour: Int, minute: Int = 0, days: Int = 0) -> Date {
        dayStart.date.addingTimeInterval(Double(days * 86_400 + hour * 3_600 + minute * 60))
    }
}

/// Collects what handlers report, in order.
final class HandlerLog: Sendable {
    private let entries = Locked<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

extension Optional where Wrapped == any Error {
    /// The error's code as a short string, or "nil".
    var codeName: String {
        guard let self else { return "nil" }
        guard let error = self as? ENError else { return "not an ENError: \(self)" }
        return "\(error.code)"
    }
}
