public import Foundation

/// One reception of another device's advertisement: what the radio stores for later matching.
///
/// A sighting is the raw material of exposure detection. The matcher looks up its ``rpi`` among the
/// identifiers derived from diagnosis keys; the risk modules turn matched sightings into exposures.
public struct ENSighting: Hashable, Sendable {
    /// The broadcast identifier.
    public var rpi: RollingProximityIdentifier
    /// The broadcast encrypted metadata (it holds the sender's transmit power).
    public var aem: AssociatedEncryptedMetadata
    /// When the advertisement was received.
    public var timestamp: Date
    /// The received signal strength, in dBm.
    public var rssi: Int8
    /// The receiving device's calibration confidence at the time.
    public var calibrationConfidence: ENCalibrationConfidence

    /// Creates a sighting.
    public init(
        rpi: RollingProximityIdentifier,
        aem: AssociatedEncryptedMetadata,
        timestamp: Date,
        rssi: Int8,
        calibrationConfidence: ENCalibrationConfidence = .high
    ) {
        self.rpi = rpi
        self.aem = aem
        self.timestamp = timestamp
        self.rssi = rssi
        self.calibrationConfidence = calibrationConfidence
    }

    /// The interval in which the sighting was received.
    public var interval: ENIntervalNumber { ENIntervalNumber(date: timestamp) }
}
