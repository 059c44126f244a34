internal import ENCore
internal import ENCrypto
internal import Foundation

/// What the manager broadcasts: for each moment, the identifier and metadata of the moment's interval, derived
/// from the key current then (made and stored when none covers it). The derived keys of the current temporary
/// exposure key are cached, so a radio asking at every transmission costs two AES blocks.
final class Broadcaster: ENBroadcastSource {
    private let storage: FrameworkStorage

    init(storage: FrameworkStorage) { self.storage = storage }

    /// The metadata broadcast with every identifier: version 1.0 and the device's calibrated transmit power.
    let metadata = BluetoothMetadata(txPower: 0)

    private struct Derived {
        let key: ENTemporaryExposureKey
        let identifierKey: RollingProximityIdentifierKey
        let metadataKey: AssociatedEncryptedMetadataKey
    }
    private let cache = Locked<Derived?>(nil)

    func advertisement(at date: Date) throws(ENError) -> ENAdvertisement {
        let key = try storage.currentKey(at: date)
        let derived: Derived
        if let cached = cache.withLock({ $0 }), cached.key == key {
            derived = cached
        } else {
            derived = Derived(
                key: key, identifierKey: try RollingProximityIdentifierKey(temporaryExposureKey: key),
                metadataKey: try AssociatedEncryptedMetadataKey(temporaryExposureKey: key))
            cache.withLock { $0 = derived }
        }
        let rpi = try derived.identifierKey.identifier(for: ENIntervalNumber(date: date))
        let aem = try derived.metadataKey.encrypt(metadata, for: rpi)
        return ENAdvertisement(rpi: rpi, aem: aem)
    }
}
