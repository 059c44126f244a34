public import ENCore
public import ExposureNotificationKit
public import Foundation

/// One device's radio in an ``ENEther``: always powered on unless the simulation turns it off.
public final class ENEtherRadio: ENRadio {
    private struct State {
        var poweredOn = true
        var source: (any ENBroadcastSource)?
        var handler: (@Sendable ([ENSighting]) -> Void)?
    }

    /// The device's name in the ether.
    public let name: String
    /// How far the device's real transmit power is above the 0 dBm its metadata announces, in dB.
    public let txPower: Double
    /// How many dB too low the device's radio reads the signal strength.
    public let rssiCorrection: Double
    private let state = Locked(State())

    init(name: String, txPower: Double, rssiCorrection: Double) {
        self.name = name
        self.txPower = txPower
        self.rssiCorrection = rssiCorrection
    }

    /// Whether Bluetooth is on.
    public var isPoweredOn: Bool {
        get { state.withLock { $0.poweredOn } }
        set { state.withLock { $0.poweredOn = newValue } }
    }
    /// Whether the device broadcasts.
    public var isBroadcasting: Bool { state.withLock { $0.poweredOn && $0.source != nil } }
    /// Whether the device scans.
    public var isScanning: Bool { state.withLock { $0.poweredOn && $0.handler != nil } }

    /// Keeps `source` to ask for each advertisement.
    public func startBroadcasting(_ source: any ENBroadcastSource) { state.withLock { $0.source = source } }
    /// Forgets the broadcast source.
    public func stopBroadcasting() { state.withLock { $0.source = nil } }
    /// Keeps `handler` for what the device hears.
    public func startScanning(_ handler: @escaping @Sendable (ENSighting) -> Void) {
        state.withLock { $0.handler = { sightings in for sighting in sightings { handler(sighting) } } }
    }
    /// Keeps `handler` for what the device hears, in batches (an encounter's sightings at once).
    public func startScanning(batches handler: @escaping @Sendable ([ENSighting]) -> Void) {
        state.withLock { $0.handler = handler }
    }
    /// Forgets the scan handler.
    public func stopScanning() { state.withLock { $0.handler = nil } }

    /// The advertisement the device sends at `date`.
    ///
    /// - Throws: `notEnabled` when the device does not broadcast (or Bluetooth is off); the broadcast source's
    ///   error when it cannot make the advertisement.
    public func advertisement(at date: Date) throws(ENError) -> ENAdvertisement {
        guard let source = state.withLock({ $0.poweredOn ? $0.source : nil }) else {
            throw ENError(.notEnabled, "device \(name) is not broadcasting")
        }
        return try source.advertisement(at: date)
    }

    /// Hands `sighting` to the device's scanner; `false` when it does not scan.
    @discardableResult
    public func hear(_ sighting: ENSighting) -> Bool { hear(contentsOf: [sighting]) }

    /// Hands `sightings` to the device's scanner as one batch, in order; `false` when it does not scan.
    @discardableResult
    public func hear(contentsOf sightings: [ENSighting]) -> Bool {
        guard let handler = state.withLock({ $0.poweredOn ? $0.handler : nil }) else { return false }
        if !sightings.isEmpty { handler(sightings) }
        return true
    }
}
