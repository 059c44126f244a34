public import ExposureNotificationKit
public import Foundation

/// A virtual clock that every simulated device shares: it stands still until the simulation moves it.
public final class ENVirtualClock: ENClock {
    private let current: Locked<Date>

    /// Creates a clock showing `date`.
    public init(_ date: Date) { current = Locked(date) }

    /// The simulated time.
    public var now: Date { current.withLock { $0 } }

    /// Moves the clock to `date`; a clock never goes back, so an earlier date leaves it where it is.
    public func advance(to date: Date) {
        current.withLock { $0 = max($0, date) }
    }

    /// Sets the clock to `date`, earlier or later: what a user changing the phone's time does (tests of a
    /// framework's reaction to it use this; a simulation only ever moves forward with ``advance(to:)``).
    public func set(_ date: Date) {
        current.withLock { $0 = date }
    }

    /// Moves the clock `seconds` forward.
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 += max(0, seconds) }
    }
}
