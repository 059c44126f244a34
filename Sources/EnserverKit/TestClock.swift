import ENCore
package import Foundation

/// The clock of `enserver serve --test-clock START`: it starts at `START` and moves only when a client sets it
/// (`POST /v1/test/clock`), never backwards, so that a simulator or a test can drive a real server through days
/// of virtual time. Never for production: a client that can set the clock decides what is embargoed, exported
/// and dropped.
package final class TestClock: Sendable {
    private let moment: Locked<Date>

    /// A clock standing at `start`.
    package init(start: Date) { moment = Locked(start) }

    /// The current moment.
    package var now: Date { moment.withLock { $0 } }

    /// Moves the clock to `date`; `false`, and no change, when `date` is before the current moment.
    package func advance(to date: Date) -> Bool {
        moment.withLock { (now: inout Date) -> Bool in
            guard date >= now else { return false }
            now = date
            return true
        }
    }
}
