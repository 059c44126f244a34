import ENCore
public import Foundation

/// The scores of a day's windows, in total or of one report type (Apple's `ENExposureSummaryItem`).
///
/// Every value is in seconds and rounded up to a whole minute, as Apple's framework returns it (Google's
/// `ExposureSummaryData` keeps the unrounded doubles).
public struct ENExposureSummaryItem: Hashable, Sendable, Codable {
    /// The highest window score: weighted duration times the report-type and infectiousness weights.
    public var maximumScore: Double
    /// The sum of the window scores.
    public var scoreSum: Double
    /// The sum of the windows' weighted durations: attenuation-weighted seconds, ignoring report type and
    /// infectiousness (so it can be nonzero when the scores are 0).
    public var weightedDurationSum: TimeInterval

    /// Creates an item.
    public init(maximumScore: Double, scoreSum: Double, weightedDurationSum: TimeInterval) {
        self.maximumScore = maximumScore
        self.scoreSum = scoreSum
        self.weightedDurationSum = weightedDurationSum
    }

    /// Rounds a value up to the next multiple of 60 seconds, as Apple does for every summary value.
    public static func roundedUpToMinute(_ seconds: Double) -> Double {
        UTCDay.roundedUpToMinute(seconds)
    }
}
