internal import Foundation

extension ENExposureDetectionSummary {
    /// iOS 13.5's metadata, which apps of that time read before these values became properties:
    /// `"attenuationDurations"` (`[NSNumber]`, seconds), `"maximumRiskScoreFullRange"` and
    /// `"riskScoreSumFullRange"` (`NSNumber`), the values of ``attenuationDurations``,
    /// ``maximumRiskScoreFullRange`` and ``riskScoreSumFullRange``.
    ///
    /// ```swift
    /// let durations = summary.metadata?["attenuationDurations"] as? [NSNumber]
    /// ```
    public var metadata: [AnyHashable: Any]? {
        [
            "attenuationDurations": attenuationDurations.map { NSNumber(value: $0) },
            "maximumRiskScoreFullRange": NSNumber(value: maximumRiskScoreFullRange),
            "riskScoreSumFullRange": NSNumber(value: riskScoreSumFullRange),
        ]
    }
}
