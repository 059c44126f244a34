public import ENCore
public import Foundation

extension ENScoringV1 {
    /// The version 1 fields of Apple's `ENExposureDetectionSummary`.
    ///
    /// Apple's summary carries both versions: these fields (filled when `ENAPIVersion` is 1, zero or empty in
    /// version 2 mode) and `daySummaries` (version 2). The two scoring modules may not import each other, so this
    /// module owns the version 1 part and the facade's `ENExposureDetectionSummary` combines it with the day
    /// summaries of ENRiskV2.
    public struct Summary: Hashable, Sendable, Codable {
        /// The number of keys with at least one match, counted before any risk filtering.
        public var matchedKeyCount: UInt64
        /// Whole days from the most recent exposure (of all matches, filtered or not) to "now"; 0 without matches.
        public var daysSinceLastExposure: Int
        /// The highest ``ENExposureInfo/totalRiskScore`` among the exposures that passed the minimum scores.
        public var maximumRiskScore: ENRiskScore
        /// The highest ``ENExposureInfo/totalRiskScoreFullRange`` among the exposures that passed.
        public var maximumRiskScoreFullRange: Double
        /// The sum of the full-range scores of the exposures that passed.
        public var riskScoreSumFullRange: Double
        /// The seconds in each attenuation bucket summed over the exposures that passed, each capped at 1800 and
        /// rounded up to a whole minute.
        public var attenuationDurations: [TimeInterval]

        /// Creates a summary.
        public init(
            matchedKeyCount: UInt64 = 0,
            daysSinceLastExposure: Int = 0,
            maximumRiskScore: ENRiskScore = 0,
            maximumRiskScoreFullRange: Double = 0,
            riskScoreSumFullRange: Double = 0,
            attenuationDurations: [TimeInterval] = [0, 0, 0]
        ) {
            self.matchedKeyCount = matchedKeyCount
            self.daysSinceLastExposure = daysSinceLastExposure
            self.maximumRiskScore = maximumRiskScore
            self.maximumRiskScoreFullRange = maximumRiskScoreFullRange
            self.riskScoreSumFullRange = riskScoreSumFullRange
            self.attenuationDurations = attenuationDurations
        }
    }
}
