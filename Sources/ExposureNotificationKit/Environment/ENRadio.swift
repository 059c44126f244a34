public import ENCore
public import Foundation

/// The Bluetooth radio as the framework uses it: broadcast this device's advertisement, and hand over what other
/// devices broadcast. A phone's radio, a simulated one (`ENSimulator`'s ether), or none.
///
/// The manager calls these methods when Exposure Notification is enabled or disabled; the radio calls back
/// through the ``ENBroadcastSource`` it is given (to learn what to send at a moment) and the sighting handler
/// (to report what it heard). Implementations must be safe to call from any thread.
public protocol ENRadio: Sendable {
    /// Whether Bluetooth is on. While it is off an enabled manager reports ``ENStatus/bluetoothOff``.
    var isPoweredOn: Bool { get }

    /// Starts broadcasting: at every transmission the radio asks `source` for the advertisement of the moment.
    func startBroadcasting(_ source: any ENBroadcastSource)

    /// Stops broadcasting.
    func stopBroadcasting()

    /// Starts scanning: each advertisement of the Exposure Notification service the radio receives is handed to
    /// `handler` as a sighting.
    func startScanning(_ handler: @escaping @Sendable (ENSighting) -> Void)

    /// Starts scanning, handing what the radio receives to `handler` in batches, each in the order received, as a
    /// phone's Bluetooth stack delivers batched scan results: the manager stores a batch in one transaction. The
    /// manager calls this one; the default implementation hands over each sighting as a batch of one through
    /// ``startScanning(_:)``.
    func startScanning(batches handler: @escaping @Sendable ([ENSighting]) -> Void)

    /// Stops scanning.
    func stopScanning()
}

extension ENRadio {
    /// Hands over each sighting as a batch of one through ``startScanning(_:)``.
    public func startScanning(batches handler: @escaping @Sendable ([ENSighting]) -> Void) {
        startScanning { sighting in handler([sighting]) }
    }
}

/// What a radio asks the framework for at each transmission.
public protocol ENBroadcastSource: Sendable {
    /// The advertisement to send at `date`: the identifier and metadata of `date`'s interval, derived from the key
    /// current at `date` (a new key is made when none covers it).
    func advertisement(at date: Date) throws(ENError) -> ENAdvertisement
}
