package import Foundation

/// The calendar arithmetic both scoring versions share: UTC days as Apple and Google count them, whole days
/// between dates, and Apple's rounding of durations up to whole minutes. One place, so V1 and V2 cannot drift.
package enum UTCDay {
    /// The number of seconds in a UTC day.
    package static let seconds: TimeInterval = 86_400

    /// Whole UTC days since 1970-01-01 for `date` (negative before 1970). Non-finite dates count as day 0, and
    /// absurd ones are clamped, so no input traps.
    package static func number(of date: Date) -> Int64 {
        let value = date.timeIntervalSince1970
        guard value.isFinite else { return 0 }
        return Int64((max(min(value, 1e15), -1e15) / seconds).rounded(.down))
    }

    /// The UTC midnight that starts the day of `date`.
    package static func start(of date: Date) -> Date {
        Date(timeIntervalSince1970: Double(number(of: date)) * seconds)
    }

    /// Whole days from `date` to `now`, rounded down: `floor((now - date) / 86400)`, 0 when `date` is not in the
    /// past (or the difference is not finite), clamped to `Int32.max`.
    package static func wholeDays(from date: Date, to now: Date) -> Int {
        let days = (now.timeIntervalSince(date) / seconds).rounded(.down)
        guard days.isFinite, days > 0 else { return 0 }
        return Int(min(days, Double(Int32.max)))
    }

    /// `seconds` rounded up to the next multiple of 60, as Apple rounds durations and summary values.
    package static func roundedUpToMinute(_ seconds: TimeInterval) -> TimeInterval {
        (seconds / 60).rounded(.up) * 60
    }
}
