public import Foundation

/// A 10-minute interval since 1970-01-01 00:00:00 UTC: `floor(unixSeconds / 600)`.
///
/// Apple's type alias, with Apple's shape: a `UInt32`, a little-endian `uint32` on the wire. A key's
/// `rollingStartNumber` and `rollingPeriod` are both of this type.
///
/// ```swift
/// let start: ENIntervalNumber = 2_642_976                  // 2020-04-02 00:00 UTC
/// let now = Date.now.enIntervalNumber                      // the current interval
/// let dayStart = now - now % ENIntervalNumberPerDay        // where today's key starts
/// let date = Date(enIntervalNumber: start)                 // the interval's first second
/// ```
public typealias ENIntervalNumber = UInt32

/// The number of intervals in a key's rolling period (`TEKRollingPeriod`): 144, one UTC day.
public let ENIntervalNumberPerDay: ENIntervalNumber = 144

/// The number of seconds in one interval: 600.
public let ENIntervalNumberSeconds: TimeInterval = 600

extension Date {
    /// The interval that contains this date: `floor(seconds since 1970 / 600)`, clamped to the `UInt32` range
    /// (dates before 1970 give 0).
    public var enIntervalNumber: ENIntervalNumber { ENIntervalNumber(date: self) }

    /// The first second of `interval`.
    public init(enIntervalNumber interval: ENIntervalNumber) {
        self.init(timeIntervalSince1970: TimeInterval(interval) * ENIntervalNumberSeconds)
    }
}

/// Interval arithmetic for the package's modules. `ENIntervalNumber` is Apple's `UInt32`, so these helpers are
/// `package`: they do not appear on every `UInt32` of an app that imports the package.
extension ENIntervalNumber {
    /// The number of seconds in one interval: 600.
    package static let secondsPerInterval: Int = 600

    /// The number of intervals in a key's rolling period: 144, one UTC day.
    package static let intervalsPerDay: UInt32 = ENIntervalNumberPerDay

    /// The interval that contains `date`: `floor(seconds since 1970 / 600)`.
    ///
    /// Dates before 1970 give interval 0 and dates after the `UInt32` range give `UInt32.max`.
    package init(date: Date) {
        let intervals = (date.timeIntervalSince1970 / Double(Self.secondsPerInterval)).rounded(.down)
        if intervals <= 0 {
            self = 0
        } else if intervals >= Double(UInt32.max) {
            self = .max
        } else {
            self = UInt32(intervals)
        }
    }

    /// The first second of the interval.
    package var date: Date { Date(enIntervalNumber: self) }

    /// The first interval of this interval's UTC day, the multiple of 144 at or below it: where a key that
    /// is current at this interval starts.
    package var rollingStart: ENIntervalNumber { self - self % Self.intervalsPerDay }

    /// Whether the interval is the first of a UTC day (a multiple of 144).
    package var isRollingStart: Bool { self % Self.intervalsPerDay == 0 }

    /// The number of whole UTC days since 1970-01-01: `self / 144`.
    package var dayNumber: UInt32 { self / Self.intervalsPerDay }

    /// The interval `count` intervals later (or earlier for a negative count), clamped to the `UInt32` range.
    package func adding(_ count: Int) -> ENIntervalNumber {
        UInt32(clamping: Int64(self) + Int64(count))
    }

    /// The signed number of intervals from `self` to `other`.
    package func intervals(to other: ENIntervalNumber) -> Int { Int(other) - Int(self) }
}
