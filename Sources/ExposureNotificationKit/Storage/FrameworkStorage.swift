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
    /// What the last detection matched, for the next one (in memory only).
    let detectionMemo = DetectionMemo()
    /// The last recorded detection's result, while the store has not changed (in memory only).
    let recentDetection = RecentDetection()
    /// The manager state as last read from an in-memory store, and the store's write generation it was read at.
    private let knownState = Locked<(generation: UInt64, state: ENManagerState)?>(nil)
    /// The moment of the last maintenance of an in-memory store that left it as it found it, and the generation then.
    let maintained = Locked<(generation: UInt64, date: Date)?>(nil)
    init(environment: ENEnvironment) {
        self.environment = environment
    }

    /// The store, opened on first use.
    func store() throws(ENError) -> ENDeviceStore {
        try opened.withLock { (store: inout ENDeviceStore?) throws(ENError) -> ENDeviceStore in
            if let store { return store }
            let clock = environment.clock
            var configuration = ENStoreConfiguration(
                retentionPeriod: environment.limits.retention, now: { clock.now })
            configuration.cipher = try Self.cipher(environment.storeKeyProvider)
            let new: ENDeviceStore
            switch environment.storeLocation {
            case .inMemory:
                let shared = environment.sharedKeyFiles
                if let snapshot = environment.inMemorySnapshot {
                    new = try ENDeviceStore(
                        inMemoryCopyOf: snapshot.path, configuration: configuration, sharedKeyFiles: shared)
                } else {
                    new = try ENDeviceStore(inMemoryWith: configuration, sharedKeyFiles: shared)
                }
            case .directory(let directory):
                let path = directory.appendingPathComponent(Self.fileName).path
                try Self.prepareOwnerOnly(directory: directory, databasePath: path)
                new = try ENDeviceStore(path: path, configuration: configuration)
                try Self.restrictToOwner(databasePath: path)
            }
            store = new
            return new
        }
    }

    /// Writes the in-memory store's state to a new file at `url` (see `ENDeviceStore.writeSnapshot(to:)`).
    func writeSnapshot(to url: URL) throws(ENError) { try store().writeSnapshot(to: url.path) }

    /// The saved manager state. An in-memory store's is kept between reads while the store's write generation stays
    /// where it was (setting the state is a write that moves it): such a store has one connection, so a write under
    /// way finishes before a read, and a write the generation does not count yet has not begun. A file store's is
    /// read each time (its readers may see the state a write is replacing).
    func managerState() throws(ENError) -> ENManagerState {
        let store = try store()
        guard isInMemory else { return try store.read(.managerState) }
        let generation = store.writeGeneration
        if let known = knownState.withLock({ $0 }), known.generation == generation { return known.state }
        let state = try store.read(.managerState)
        if store.writeGeneration == generation { knownState.withLock { $0 = (generation, state) } }
        return state
    }

    /// Whether the store lives in memory (one connection: reads and writes one at a time).
    var isInMemory: Bool {
        if case .inMemory = environment.storeLocation { return true }
        return false
    }

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

    /// The key current at `date` (made when none covers it), the intervals it stays current for and the store's
    /// own-key generation it was read in (see `ENCurrentKeySpan`).
    func currentKeySpan(at date: Date) throws(ENError) -> ENCurrentKeySpan {
        try store().write(.currentKeySpan(at: date, makeKeyData: Self.makeKeyData))
    }

    /// The store's own-key generation: a span read by ``currentKeySpan(at:)`` holds while it stays the same.
    func keyGeneration() throws(ENError) -> UInt64 { try store().keyGeneration }

    /// The keys a release at `date` gives: those valid within the retention period and started before `date`;
    /// with `sameDay` the current key too, ended at `date` (a new key starts at once); without it the current
    /// key is left out.
    func releasedKeys(at date: Date, sameDay: Bool) throws(ENError) -> [ENTemporaryExposureKey] {
        let store = try store()
        var shortened: ENTemporaryExposureKey?
        if sameDay {
            shortened = try store.write(.endCurrentKey(at: date, makeKeyData: Self.makeKeyData))
        }
        return releasable(try store.read(.ownKeys), shortened: shortened, at: date)
    }

    /// Of the stored `keys`, those a release at `date` gives: valid within the retention period and ended by
    /// `date`, and `shortened` (the current key ended at `date` by a same-day release).
    private func releasable(
        _ keys: [ENTemporaryExposureKey], shortened: ENTemporaryExposureKey?, at date: Date
    ) -> [ENTemporaryExposureKey] {
        let interval = ENIntervalNumber(date: date)
        let oldest = ENIntervalNumber(date: date.addingTimeInterval(-environment.limits.retention))
        return keys.compactMap { key in
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

    /// Releases the keys under the pre-authorization, once ever: the checks (authorization, enabled, the
    /// pre-authorization's date and validity) and the "released" mark are one store transaction, so concurrent
    /// requests release once. `nil` when the keys were already released.
    ///
    /// - Throws: `notAuthorized` without authorization or a pre-authorization, when it expired, or when `date` is
    ///   earlier than it (a clock set back; the pre-authorization is then withdrawn); `notEnabled` when Exposure
    ///   Notification is off.
    func releasePreAuthorizedKeys(
        at date: Date, validity: TimeInterval, sameDay: Bool
    ) throws(ENError) -> [ENTemporaryExposureKey]? {
        let outcome = try store().write(
            .releasePreAuthorizedKeys(at: date, validity: validity, sameDay: sameDay, makeKeyData: Self.makeKeyData))
        switch outcome {
        case .released(let keys, let shortened):
            return releasable(keys, shortened: shortened, at: date)
        case .alreadyReleased:
            return nil
        case .notPreAuthorized:
            throw ENError(.notAuthorized, "the user has not pre-authorized the release of the keys")
        case .expired(let authorizedAt):
            throw ENError(.notAuthorized, "the pre-authorization of \(authorizedAt) has expired")
        case .beforeAuthorization(let authorizedAt):
            throw ENError(
                .notAuthorized,
                "the clock (\(date)) is earlier than the pre-authorization (\(authorizedAt)); it was withdrawn")
        case .notAuthorized(.restricted):
            throw ENError(.restricted, "a system policy does not allow Exposure Notification")
        case .notAuthorized:
            throw ENError(.notAuthorized, "the user has not authorized Exposure Notification")
        case .notEnabled:
            throw ENError(.notEnabled, "Exposure Notification is not enabled")
        }
    }

    /// Records a sighting the radio heard. A sighting that cannot be stored is dropped (as a phone drops what it
    /// cannot keep); the radio must not stop for it.
    func record(_ sighting: ENSighting) {
        record(contentsOf: [sighting])
    }

    /// Records sightings the radio heard, in one transaction; dropped together if they cannot be stored.
    func record(contentsOf sightings: [ENSighting]) {
        guard !sightings.isEmpty else { return }
        _ = try? store().write(.addSightings(sightings))
    }
}
