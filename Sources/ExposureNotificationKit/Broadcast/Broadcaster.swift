internal import ENCore
internal import ENCrypto
internal import ENStore
internal import Foundation

/// What the manager broadcasts: for each moment, the identifier and metadata of the moment's interval, derived
/// from the key current then (made and stored when none covers it). The derived keys of the current temporary
/// exposure key are cached with the intervals the store gives that key for, so a radio asking at every transmission
/// costs two AES blocks: the store is asked again only when the moment leaves those intervals or when a write that
/// may change the own keys came since (its own-key generation moved: anything but sightings, a detection's record and
/// the other writes that leave the own keys alone).
final class Broadcaster: ENBroadcastSource {
    private let storage: FrameworkStorage

    init(storage: FrameworkStorage) { self.storage = storage }

    /// The metadata broadcast with every identifier: version 1.0 and the device's calibrated transmit power.
    let metadata = BluetoothMetadata(txPower: 0)

    /// The current key's derived keys, and the key's data in wiped storage (to tell when the key changes): no copy
    /// of key material stays in ordinary memory between advertisements.
    private struct Derived {
        let keyData: SecureBytes
        let rollingStartNumber: ENIntervalNumber
        let rollingPeriod: UInt32
        let identifierKey: RollingProximityIdentifierKey
        let metadataKey: AssociatedEncryptedMetadataKey
        /// The intervals for which the store gives this key while its own-key generation is ``generation``.
        let intervals: Range<UInt32>
        let generation: UInt64
    }
    private let cache = Locked<Derived?>(nil)

    func advertisement(at date: Date) throws(ENError) -> ENAdvertisement {
        let interval = ENIntervalNumber(date: date)
        let generation = try storage.keyGeneration()
        let derived: Derived
        if let cached = cache.withLock({ $0 }), cached.generation == generation, cached.intervals.contains(interval) {
            derived = cached
        } else {
            derived = try refresh(at: date)
        }
        let rpi = try derived.identifierKey.identifier(for: interval)
        let aem = try derived.metadataKey.encrypt(metadata, for: rpi)
        return ENAdvertisement(rpi: rpi, aem: aem)
    }

    /// Asks the store for the key current at `date` and caches its derived keys (derived again only when the key
    /// changed).
    private func refresh(at date: Date) throws(ENError) -> Derived {
        var span = try storage.currentKeySpan(at: date)
        defer { span.key.keyData.resetBytes(in: 0..<span.key.keyData.count) }
        // The key is read through `span` only, so that the wipe above reaches the one copy of its data.
        let keyData = span.key.keyData.withUnsafeBytes { SecureBytes(copying: $0) }
        let derived: Derived
        if let cached = cache.withLock({ $0 }), cached.rollingStartNumber == span.key.rollingStartNumber,
            cached.rollingPeriod == span.key.rollingPeriod, cached.keyData.isEqual(to: keyData)
        {
            derived = Derived(
                keyData: cached.keyData, rollingStartNumber: cached.rollingStartNumber,
                rollingPeriod: cached.rollingPeriod, identifierKey: cached.identifierKey,
                metadataKey: cached.metadataKey, intervals: span.intervals, generation: span.generation)
        } else {
            derived = Derived(
                keyData: keyData, rollingStartNumber: span.key.rollingStartNumber,
                rollingPeriod: span.key.rollingPeriod,
                identifierKey: try RollingProximityIdentifierKey(temporaryExposureKey: span.key),
                metadataKey: try AssociatedEncryptedMetadataKey(temporaryExposureKey: span.key),
                intervals: span.intervals, generation: span.generation)
        }
        cache.withLock { $0 = derived }
        return derived
    }
}
