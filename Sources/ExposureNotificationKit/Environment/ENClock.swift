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
