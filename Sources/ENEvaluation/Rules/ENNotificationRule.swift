/// The app-side rule that turned the framework's output into a notification.
///
/// Every rule produces a `value` per encounter (the number it compares with its threshold) and a decision
/// (`value >= threshold`, or a HIGH risk level for Corona-Warn-App's exposure windows).
public enum ENNotificationRule: Hashable, Sendable {
    /// A field of a V2 day summary.
    public enum DaySummaryField: String, Hashable, Sendable, CaseIterable {
        /// The sum of the day's window scores.
        case scoreSum
        /// The sum of the day's attenuation-weighted durations.
        case weightedDurationSum
        /// The day's highest window score.
        case maximumScore
    }

    /// V2: notified when some day's `field` is at least `notifyIfAtLeastSeconds` (LFPH; V1 rules in V2 form).
    case daySummary(field: DaySummaryField, notifyIfAtLeastSeconds: Double)
    /// V1: notified when the summary's `maximumRiskScore` is at least the threshold (Immuni, June 2020).
    case maximumRiskScore(notifyIfAtLeast: Int)
    /// V1, per UTC day: ES = Σ weight × `attenuationDurations` in minutes; notified when some day's ES reaches
    /// the threshold (SwissCovid).
    case weightedAttenuationDurations(bucketWeights: [Double], notifyIfAtLeastMinutes: Double)
    /// V1: Corona-Warn-App 1.0's `maximumRiskScore / divisor × (Σ weight × min(minutes, 30) + offset)`, rounded to
    /// two decimals; notified when it reaches `notifyIfAtLeast`.
    case cwaV1(
        bucketWeights: [Double], riskScoreNormalizationDivisor: Double, defaultBucketOffset: Double,
        notifyIfAtLeast: Double)
    /// Corona-Warn-App's exposure-window risk calculation; notified when some day is HIGH.
    case cwaExposureWindows(ENCWARiskParameters)

    /// The rule's name in configuration files.
    public var name: String {
        switch self {
        case .daySummary: "daySummary"
        case .maximumRiskScore: "maximumRiskScore"
        case .weightedAttenuationDurations: "weightedAttenuationDurations"
        case .cwaV1: "cwaV1"
        case .cwaExposureWindows: "cwaExposureWindows"
        }
    }

    /// The threshold `value` is compared with (for Corona-Warn-App's exposure windows: the lower end of the
    /// first HIGH day range).
    public var threshold: Double {
        switch self {
        case .daySummary(_, let seconds): seconds
        case .maximumRiskScore(let score): Double(score)
        case .weightedAttenuationDurations(_, let minutes): minutes
        case .cwaV1(_, _, _, let risk): risk
        case .cwaExposureWindows(let parameters):
            parameters.normalizedTimePerDayToRiskLevel.first { $0.riskLevel == 2 }?.range.min ?? .infinity
        }
    }

    /// Whether the rule scores with version 1 (`ENScoringV1`).
    public var usesVersion1: Bool {
        switch self {
        case .maximumRiskScore, .weightedAttenuationDurations, .cwaV1: true
        case .daySummary, .cwaExposureWindows: false
        }
    }
}
