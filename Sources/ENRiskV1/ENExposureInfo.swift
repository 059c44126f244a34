public import ENCore
public import Foundation

/// The version 1 result for one matched key (Apple's `ENExposureInfo`).
public struct ENExposureInfo: Hashable, Sendable, Codable {
    /// Seconds spent in each attenuation bucket, `<= X`, `(X, Y]`, `> Y` (and `(Y, Z]`, `> Z` with three
    /// thresholds), each rounded up to a whole minute and capped at 1800 seconds.
    ///
    /// Apple's edges and units; Google's V1 reports minutes with the inclusive edge on the other side.
    public var attenuationDurations: [TimeInterval]
    /// The duration-weighted mean attenuation *level value* (not dB): Σ seconds × level value over the
    /// buckets whose level value is not 0, divided by the seconds in those buckets, rounded, at most 255.
    ///
    /// Apple's definition; Google's V1 reports a time-weighted mean in dB instead.
    public var attenuationValue: ENAttenuation
    /// The day of the exposure.
    public var date: Date
    /// The exposure's length, rounded up to a whole minute and capped at 1800 seconds (Apple's current
    /// documentation; iOS 13.5 and Google used 5-minute steps).
    public var duration: TimeInterval
    /// The full-range score clamped to 0...255 (Apple; Google's V1 score is 0...4096 uncapped).
    public var totalRiskScore: ENRiskScore
    /// The product of the four weighted level values, not clamped.
    public var totalRiskScoreFullRange: Double
    /// The key's transmission risk level.
    public var transmissionRiskLevel: ENRiskLevel
    /// The key's report type.
    public var diagnosisReportType: ENDiagnosisReportType
    /// The key's days since onset of symptoms.
    public var daysSinceOnsetOfSymptoms: Int

    /// Creates an exposure info.
    public init(
        attenuationDurations: [TimeInterval],
        attenuationValue: ENAttenuation,
        date: Date,
        duration: TimeInterval,
        totalRiskScore: ENRiskScore,
        totalRiskScoreFullRange: Double,
        transmissionRiskLevel: ENRiskLevel,
        diagnosisReportType: ENDiagnosisReportType = .unknown,
        daysSinceOnsetOfSymptoms: Int = ENDaysSinceOnsetOfSymptomsUnknown
    ) {
        self.attenuationDurations = attenuationDurations
        self.attenuationValue = attenuationValue
        self.date = date
        self.duration = duration
        self.totalRiskScore = totalRiskScore
        self.totalRiskScoreFullRange = totalRiskScoreFullRange
        self.transmissionRiskLevel = transmissionRiskLevel
        self.diagnosisReportType = diagnosisReportType
        self.daysSinceOnsetOfSymptoms = daysSinceOnsetOfSymptoms
    }
}
