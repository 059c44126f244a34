public import ENCore
public import Foundation

/// What a device broadcasts in one interval: the Exposure Notification service (16-bit UUID 0xFD6F) with 20 bytes
/// of service data, the rolling proximity identifier and the associated encrypted metadata.
public struct ENAdvertisement: Hashable, Sendable {
    /// The Exposure Notification service's 16-bit UUID: 0xFD6F.
    public static let serviceUUID: UInt16 = 0xFD6F

    /// The rolling proximity identifier of the interval.
    public var rpi: RollingProximityIdentifier
    /// The metadata (version and transmit power) encrypted for this identifier.
    public var aem: AssociatedEncryptedMetadata

    /// Creates an advertisement.
    public init(rpi: RollingProximityIdentifier, aem: AssociatedEncryptedMetadata) {
        self.rpi = rpi
        self.aem = aem
    }

    /// The service data as it goes on the air: 16 bytes of identifier, then 4 bytes of metadata.
    public var serviceData: Data { rpi.data + aem.data }
}
