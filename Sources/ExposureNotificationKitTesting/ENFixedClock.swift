public import ExposureNotificationKit
public import Foundation

/// A clock that stands still: for a detection "as of" a given moment (`entool detect --now`), replays and
/// benchmarks.
public struct ENFixedClock: ENClock {
    /// The time the clock always tells.
    public let now: Date

    /// Creates a clock that always tells `now`.
    public init(_ now: Date) { self.now = now }
}
