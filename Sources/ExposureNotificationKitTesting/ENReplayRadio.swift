public import ENCore
public import ExposureNotificationKit

/// A radio that hands over sightings recorded elsewhere: all of them, in order, when scanning first starts, and
/// nothing after. It is always on and broadcasts nothing.
///
/// This is how a capture is replayed through the framework, with the sightings reaching the store the way a
/// real radio delivers them: `entool detect` feeds a sightings file to an `ENManager` this way, and the
/// benchmarks fill a device's store with it.
///
/// ```swift
/// let environment = ENEnvironment(
///     consent: ENFixedConsent(true), radio: ENReplayRadio(sightings: captured), trustedKeys: trusted)
/// ```
public final class ENReplayRadio: ENRadio {
    /// The sightings not yet handed over; `nil` once scanning has started.
    private let pending: Locked<[ENSighting]?>

    /// Creates a radio that will hand over `sightings` when scanning first starts.
    public init(sightings: [ENSighting]) {
        pending = Locked(sightings)
    }

    /// Always `true`.
    public var isPoweredOn: Bool { true }

    /// Does nothing: the radio sends nothing.
    public func startBroadcasting(_ source: any ENBroadcastSource) {}

    /// Does nothing.
    public func stopBroadcasting() {}

    /// Hands every recorded sighting to `handler`, in order, before returning; the first time only (scanning
    /// again later hears nothing new).
    public func startScanning(_ handler: @escaping @Sendable (ENSighting) -> Void) {
        let sightings = pending.withLock { pending in
            defer { pending = nil }
            return pending ?? []
        }
        for sighting in sightings { handler(sighting) }
    }

    /// Does nothing.
    public func stopScanning() {}
}
