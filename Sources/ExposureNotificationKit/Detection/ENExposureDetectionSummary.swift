public import ENCore
public import ENRiskV1
public import ENRiskV2
public import Foundation

/// What a detection found: Apple's `ENExposureDetectionSummary`, one type with the version 1 and version 2
/// properties.
///
/// With ``ENAPIVersion/version1`` the version 1 properties are filled and ``daySummaries`` is empty; with
/// ``ENAPIVersion/version2`` only ``daySummaries`` is filled and the version 1 properties stay zero or empty, as
/// on iOS. Pass the summary back to the manager that returned it for the details:
/// ``ExposureManaging/getExposureWindows(summary:)`` (version 2) or
/// ``ExposureManaging/getExposureInfo(summary:userExplanation:)`` (version 1).
///
/// Apple's `attenuationDurations` is an array of `NSNumber`; here it is `[TimeInterval]`, the type of its values.
public struct ENExposureDetectionSummary: Hashable, Sendable, Codable {
    /// Seconds of exposure in each attenuation range that `ENExposureConfiguration.attenuationDurationThresholds`
    /// defines (version 1), each rounded up to a minute and at most 30 minutes.
    public var attenuationDurations: [TimeInterval]
    /// Whole days from the most recent matched exposure to the detection (version 1); `0` when nothing matched.
    public var daysSinceLastExposure: Int
    /// The number of keys with at least one match, counted before any risk filtering (version 1).
    public var matchedKeyCount: UInt64
    /// The highest risk score of the exposures that pass the configuration's filters, at most 255 (version 1).
    public var maximumRiskScore: ENRiskScore
    /// The highest risk score, not limited to 255 (version 1).
    public var maximumRiskScoreFullRange: Double
    /// The sum of the full-range risk scores of the exposures that pass the filters (version 1).
    public var riskScoreSumFullRange: Double
    /// One summary per UTC day with an exposure that passes the filters, in date order (version 2).
    public var daySummaries: [ENExposureDaySummary]

    /// Which detection this summary came from; not encoded.
    package var origin: Origin?

    /// The detection a summary came from: the manager instance, the stored detection and the API version.
    package struct Origin: Hashable, Sendable {
        package var manager: UUID
        package var detectionID: Int64
        package var apiVersion: ENAPIVersion

        package init(manager: UUID, detectionID: Int64, apiVersion: ENAPIVersion) {
            self.manager = manager
            self.detectionID = detectionID
            self.apiVersion = apiVersion
        }
    }

    /// Creates a summary; every property defaults to zero or empty (a summary of no exposure).
    public init(
        attenuationDurations: [TimeInterval] = [], daysSinceLastExposure: Int = 0, matchedKeyCount: UInt64 = 0,
        maximumRiskScore: ENRiskScore = 0, maximumRiskScoreFullRange: Double = 0, riskScoreSumFullRange: Double = 0,
        daySummaries: [ENExposureDaySummary] = []
    ) {
        self.attenuationDurations = attenuationDurations
        self.daysSinceLastExposure = daysSinceLastExposure
        self.matchedKeyCount = matchedKeyCount
        self.maximumRiskScore = maximumRiskScore
        self.maximumRiskScoreFullRange = maximumRiskScoreFullRange
        self.riskScoreSumFullRange = riskScoreSumFullRange
        self.daySummaries = daySummaries
    }

    /// The version 1 summary's properties.
    public init(_ summary: ENScoringV1.Summary) {
        self.init(
            attenuationDurations: summary.attenuationDurations,
            daysSinceLastExposure: summary.daysSinceLastExposure, matchedKeyCount: summary.matchedKeyCount,
            maximumRiskScore: summary.maximumRiskScore, maximumRiskScoreFullRange: summary.maximumRiskScoreFullRange,
            riskScoreSumFullRange: summary.riskScoreSumFullRange)
    }

    /// The version 2 summary's property.
    public init(daySummaries: [ENExposureDaySummary]) {
        self.init(attenuationDurations: [], daySummaries: daySummaries)
    }

    private enum CodingKeys: String, CodingKey {
        case attenuationDurations, daysSinceLastExposure, matchedKeyCount, maximumRiskScore
        case maximumRiskScoreFullRange, riskScoreSumFullRange, daySummaries
    }

    /// Summaries are equal when their properties are; where they came from is not compared.
    public static func == (lhs: ENExposureDetectionSummary, rhs: ENExposureDetectionSummary) -> Bool {
        lhs.attenuationDurations == rhs.attenuationDurations && lhs.daysSinceLastExposure == rhs.daysSinceLastExposure
            && lhs.matchedKeyCount == rhs.matchedKeyCount && lhs.maximumRiskScore == rhs.maximumRiskScore
            && lhs.maximumRiskScoreFullRange == rhs.maximumRiskScoreFullRange
            && lhs.riskScoreSumFullRange == rhs.riskScoreSumFullRange && lhs.daySummaries == rhs.daySummaries
    }

    /// Hashes the properties that ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(attenuationDurations)
        hasher.combine(daysSinceLastExposure)
        hasher.combine(matchedKeyCount)
        hasher.combine(maximumRiskScore)
        hasher.combine(maximumRiskScoreFullRange)
        hasher.combine(riskScoreSumFullRange)
        hasher.combine(daySummaries)
    }
}
