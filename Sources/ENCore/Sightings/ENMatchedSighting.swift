public import Foundation

/// A sighting whose identifier matched a diagnosis key, with its metadata decrypted.
public struct ENMatchedSighting: Hashable, Sendable {
    /// The sighting as received.
    public var sighting: ENSighting
    /// The interval the identifier was derived for (within 12 intervals of the sighting's own).
    public var derivedInterval: ENIntervalNumber
    /// The sender's transmit power in dBm from the decrypted metadata, or nil when the metadata is not valid.
    public var txPower: Int8?

    /// Creates a matched sighting.
    public init(sighting: ENSighting, derivedInterval: ENIntervalNumber, txPower: Int8?) {
        self.sighting = sighting
        self.derivedInterval = derivedInterval
        self.txPower = txPower
    }

    /// The attenuation: transmit power minus RSSI, clamped to 0...255; 255 (``ENAttenuationMax``) when the
    /// transmit power is unknown, as Apple does when metadata decryption fails.
    public var attenuation: ENAttenuation {
        guard let txPower else { return ENAttenuation(ENAttenuationMax) }
        let value = Int(txPower) - Int(sighting.rssi)
        return ENAttenuation(clamping: value)
    }

    /// When the advertisement was received.
    public var timestamp: Date { sighting.timestamp }
}
