public import Foundation

/// When a simulated device's radio listens.
///
/// Modeled on the platforms' documented behaviour: Google's implementation scans every 300 s ± 90 s for 4 s
/// (exposure-notifications-internals); Apple scans opportunistically for about 4 s, with 150 s by default and
/// at most 300 s between scans. Devices advertise every 250 ms, so every scan during an encounter hears the
/// other device; the simulation records one sighting per scan (as microG merges the receptions of one scan).
public struct ENScanTiming: Hashable, Sendable, Codable {
    /// The mean time between two scans, in seconds. Default 300.
    public var interval: TimeInterval
    /// The largest deviation from ``interval``, either way, in seconds. Default 90.
    public var jitter: TimeInterval
    /// How long one scan lasts, in seconds. Default 4.
    public var duration: TimeInterval

    /// Creates the timing; the defaults are Google's.
    public init(interval: TimeInterval = 300, jitter: TimeInterval = 90, duration: TimeInterval = 4) {
        self.interval = interval
        self.jitter = jitter
        self.duration = duration
    }

    /// The moments of the scans that fall in `start ..< start + length`: the first at a random phase of the
    /// scan cycle, then one every ``interval`` ± ``jitter``.
    public func scans(from start: Date, length: TimeInterval, using random: inout ENSeededRandom) -> [Date] {
        let interval = max(self.interval, 1)
        let jitter = min(max(self.jitter, 0), interval - 1)
        var offset = Double.random(in: 0..<interval, using: &random)
        var moments: [Date] = []
        while offset < length {
            moments.append(start + offset)
            offset += interval + (jitter > 0 ? Double.random(in: -jitter...jitter, using: &random) : 0)
        }
        return moments
    }
}
