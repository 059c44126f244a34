public import Foundation

/// A 10-minute interval since 1970-01-01 00:00:00 UTC: `floor(unixSeconds / 600)`.
///
/// Apple declares `ENIntervalNumber` as a `UInt32` type alias. This package makes it a distinct value type
/// so that an interval cannot be confused with a count or a period, while keeping the same range and
/// raw value. Integer literals convert directly:
///
/// ```swift
/// let start: ENIntervalNumber = 2_642_976          // 2020-04-02 00:00 UTC
/// let date = start.date                            // the interval's first second
/// let dayStart = ENIntervalNumber(date: .now).rollingStart
/// ```
public struct ENIntervalNumber: RawRepresentable, Hashable, Comparable, Sendable {
    /// The interval count, a little-endian `uint32` on the wire.
    public var rawValue: UInt32

    /// Creates an interval number from its raw value.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Creates an interval number from its raw value.
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }

    /// The number of seconds in one interval: 600.
    public static let secondsPerInterval: Int = 600

    /// The number of intervals in a key's rolling period (`TEKRollingPeriod`): 144, one UTC day.
    public static let intervalsPerDay: UInt32 = 144

    /// The interval that contains `date`: `floor(seconds since 1970 / 600)`.
    ///
    /// Dates before 1970 give interval 0 and dates after the `UInt32` range give `UInt32.max`.
    public init(date: Date) {
        let intervals = (date.timeIntervalSince1970 / Double(Self.secondsPerInterval)).rounded(.down)
        if intervals <= 0 {
            self.rawValue = 0
        } else if intervals >= Double(UInt32.max) {
            self.rawValue = .max
        } else {
            self.rawValue = UInt32(intervals)
        }
    }

    /// The first second of the interval.
    public var date: Date {
        Date(timeIntervalSince1970: TimeInterval(rawValue) * TimeInterval(Self.secondsPerInterval))
    }

    /// The first interval of this interval's UTC day, the multiple of 144 at or below it: where a key that
    /// is current at this interval starts.
    public var rollingStart: ENIntervalNumber {
        ENIntervalNumber(rawValue: rawValue - rawValue % Self.intervalsPerDay)
    }

    /// Whether the interval is the first of a UTC day (a multiple of 144).
    public var isRollingStart: Bool { rawValue % Self.intervalsPerDay == 0 }

    /// The number of whole UTC days since 1970-01-01: `rawValue / 144`.
    public var dayNumber: UInt32 { rawValue / Self.intervalsPerDay }

    /// The interval `count` intervals later (or earlier for a negative count), clamped to the `UInt32` range.
    public func adding(_ count: Int) -> ENIntervalNumber {
        let value = Int64(rawValue) + Int64(count)
        return ENIntervalNumber(rawValue: UInt32(clamping: value))
    }

    /// The signed number of intervals from `self` to `other`.
    public func intervals(to other: ENIntervalNumber) -> Int { Int(other.rawValue) - Int(rawValue) }

    /// Orders intervals by time.
    public static func < (lhs: ENIntervalNumber, rhs: ENIntervalNumber) -> Bool { lhs.rawValue < rhs.rawValue }
}
