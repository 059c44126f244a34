internal import ENCore
internal import ENCrypto
internal import ENStore
internal import Foundation

/// The manager's one way into the framework's persistent state (`ENDeviceStore`): opened on first use, at the
/// environment's location, on the environment's clock. Every read and write the manager makes is here.
final class FrameworkStorage: Sendable {
    /// The file name of the framework's store inside the environment's directory.
    static let fileName = "ExposureNotificationFramework.sqlite"

    private let environment: ENEnvironment
    private let opened = Locked<ENDeviceStore?>(nil)
    init(environment: ENEnvironment) {
        self.environment = environment
    }

    /// The store, opened on first use.
    func store() throws(ENError) -> ENDeviceStore {
        try opened.withLock { (store: inout ENDeviceStore?) throws(ENError) -> ENDeviceStore in
            if let store { return store }
            let clock = environment.clock
            let configuration = ENStoreConfiguration(
                retentionPeriod: environment.limits.retention, now: { clock.now })
            let new: ENDeviceStore
            switch environment.storeLocation {
            case .inMemory:
                new = try ENDeviceStore(inMemoryWith: configuration)
            case .directory(let directory):
                do {
                    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                } catch {
                    throw ENError(
                        .insufficientStorage, "cannot create the store directory \(directory.path): \(error)")
                }
                new = try ENDeviceStore(
                    path: directory.appendingPathComponent(Self.fileName).path, configuration: configuration)
            }
            store = new
            return new
        }
    }

    func managerState() throws(ENError) -> ENManagerState { try store().read(.managerState) }

    func setAuthorizationStatus(_ status: ENAuthorizationStatus) throws(ENError) {
        try store().write(.setAuthorizationStatus(status))
    }

    func setEnabled(_ enabled: Bool) throws(ENError) { try store().write(.setExposureNotificationEnabled(enabled)) }

    func setPreAuthorization(_ preAuthorization: ENPreAuthorization?) throws(ENError) {
        try store().write(.setPreAuthorization(preAuthorization))
    }

    /// Fresh key data for a new key.
    static let makeKeyData: @Sendable () -> Data = { (try? SecureRandom.bytes(count: 16)) ?? Data() }

    /// The key current at `date`, made when none covers it.
    func currentKey(at date: Date) throws(ENError) -> ENTemporaryExposureKey {
        try store().write(.currentKey(at: date, makeKeyData: Self.makeKeyData))
    }

    /// The keys a release at `date` gives: those valid within the retention period and started before `date`;
    /// with `sameDay` the current key too, ended at `date` (a new key starts at once); without it the current
    /// key is left out.
    func releasedKeys(at date: Date, sameDay: Bool) throws(ENError) -> [ENTemporaryExposureKey] {
        let store = try store()
        let interval = ENIntervalNumber(date: date)
        var shortened: ENTemporaryExposureKey?
        if sameDay {
            shortened = try store.write(.endCurrentKey(at: date, makeKeyData: Self.makeKeyData))
        }
        let oldest = ENIntervalNumber(date: date.addingTimeInterval(-environment.limits.retention))
        return try store.read(.ownKeys).compactMap { key in
            if let shortened, key.keyData == shortened.keyData { return shortened }
            guard key.rollingEndNumber > oldest, key.rollingEndNumber <= interval else { return nil }
            return key
        }
    }

    /// The keys of the retention period and the key current at `date`, unchanged.
    func testKeys(at date: Date) throws(ENError) -> [ENTemporaryExposureKey] {
        let interval = ENIntervalNumber(date: date)
        let oldest = ENIntervalNumber(date: date.addingTimeInterval(-environment.limits.retention))
        return try store().read(.ownKeys).filter { $0.rollingEndNumber > oldest && $0.rollingStartNumber <= interval }
    }

    /// Releases the keys under the pre-authorization, once: nil when the keys were already released.
    ///
    /// - Throws: `notAuthorized` without a pre-authorization, or when it is older than `validity`.
    func releasePreAuthorizedKeys(
        at date: Date, validity: TimeInterval, sameDay: Bool
    ) throws(ENError) -> [ENTemporaryExposureKey]? {
        guard let preAuthorization = try managerState().preAuthorization else {
            throw ENError(.notAuthorized, "the user has not pre-authorized the release of the keys")
        }
        if preAuthorization.isReleased { return nil }
        guard date.timeIntervalSince(preAuthorization.authorizedAt) <= validity else {
            throw ENError(.notAuthorized, "the pre-authorization of \(preAuthorization.authorizedAt) has expired")
        }
        let keys = try releasedKeys(at: date, sameDay: sameDay)
        try setPreAuthorization(ENPreAuthorization(authorizedAt: preAuthorization.authorizedAt, releasedAt: date))
        return keys
    }

    /// Records a sighting the radio heard. A sighting that cannot be stored is dropped (as a phone drops what it
    /// cannot keep); the radio must not stop for it.
    func record(_ sighting: ENSighting) {
        _ = try? store().write(.addSightings([sighting]))
    }
}
