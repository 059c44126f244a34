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

    /// The current key's derived keys, and the key's data in wiped storage (to tell when the key changes): no copy
    /// of key material stays in ordinary memory between advertisements.
    private struct Derived {
        let keyData: SecureBytes
        let rollingStartNumber: ENIntervalNumber
        let rollingPeriod: UInt32
        let identifierKey: RollingProximityIdentifierKey
        let metadataKey: AssociatedEncryptedMetadataKey
    }
    private let cache = Locked<Derived?>(nil)

    func advertisement(at date: Date) throws(ENError) -> ENAdvertisement {
        var key = try storage.currentKey(at: date)
        defer { key.keyData.resetBytes(in: 0..<key.keyData.count) }
        let keyData = key.keyData.withUnsafeBytes { SecureBytes(copying: $0) }
        let derived: Derived
        if let cached = cache.withLock({ $0 }), cached.rollingStartNumber == key.rollingStartNumber,
            cached.rollingPeriod == key.rollingPeriod, cached.keyData.isEqual(to: keyData)
        {
            derived = cached
        } else {
            derived = Derived(
                keyData: keyData, rollingStartNumber: key.rollingStartNumber, rollingPeriod: key.rollingPeriod,
                identifierKey: try RollingProximityIdentifierKey(temporaryExposureKey: key),
                metadataKey: try AssociatedEncryptedMetadataKey(temporaryExposureKey: key))
            cache.withLock { $0 = derived }
        }
        let rpi = try derived.identifierKey.identifier(for: ENIntervalNumber(date: date))
        let aem = try derived.metadataKey.encrypt(metadata, for: rpi)
        return ENAdvertisement(rpi: rpi, aem: aem)
    }
}
