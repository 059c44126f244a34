public import Foundation

/// Where the framework reads the time: the system clock, or a virtual one shared by simulated devices.
public protocol ENClock: Sendable {
    /// The current time.
    var now: Date { get }
}

/// The system clock.
public struct ENSystemClock: ENClock {
    /// Creates the clock.
    public init() {}
    /// `Date()`.
    public var now: Date { Date() }
}

/// A clock that stands still: for a detection "as of" a given moment (`entool detect --now`), replays and
/// benchmarks.
public struct ENFixedClock: ENClock {
    /// The time the clock always tells.
    public let now: Date

    /// Creates a clock that always tells `now`.
    public init(_ now: Date) { self.now = now }
}
